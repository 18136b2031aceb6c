import type { OutputChunk as _maka_resource_v1_OutputChunk, OutputChunk__Output as _maka_resource_v1_OutputChunk__Output } from '../../../maka/resource/v1/OutputChunk.js';
import type { OutputGap as _maka_resource_v1_OutputGap, OutputGap__Output as _maka_resource_v1_OutputGap__Output } from '../../../maka/resource/v1/OutputGap.js';
import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * RunForegroundResponse is one event of a foreground run: output chunks, then the result.
 */
export interface RunForegroundResponse {
    /**
     * Output as it is read.
     */
    'output'?: (_maka_resource_v1_OutputChunk | null);
    /**
     * Output this reader missed (it read too slowly); the result still has the tails.
     */
    'gap'?: (_maka_resource_v1_OutputGap | null);
    /**
     * The final state of the run; always the last message.
     */
    'result'?: (_maka_resource_v1_Run | null);
    /**
     * The run as recorded once started (status RUNNING, or its terminal state if it could not
     * start); sent first, and only when the request set announce_start.
     */
    'started'?: (_maka_resource_v1_Run | null);
    /**
     * The event.
     */
    'event'?: "output" | "gap" | "result" | "started";
}
/**
 * RunForegroundResponse is one event of a foreground run: output chunks, then the result.
 */
export interface RunForegroundResponse__Output {
    /**
     * Output as it is read.
     */
    'output'?: (_maka_resource_v1_OutputChunk__Output | null);
    /**
     * Output this reader missed (it read too slowly); the result still has the tails.
     */
    'gap'?: (_maka_resource_v1_OutputGap__Output | null);
    /**
     * The final state of the run; always the last message.
     */
    'result'?: (_maka_resource_v1_Run__Output | null);
    /**
     * The run as recorded once started (status RUNNING, or its terminal state if it could not
     * start); sent first, and only when the request set announce_start.
     */
    'started'?: (_maka_resource_v1_Run__Output | null);
    /**
     * The event.
     */
    'event'?: "output" | "gap" | "result" | "started";
}
