import type { Attached as _maka_resource_v1_Attached, Attached__Output as _maka_resource_v1_Attached__Output } from '../../../maka/resource/v1/Attached.js';
import type { OutputChunk as _maka_resource_v1_OutputChunk, OutputChunk__Output as _maka_resource_v1_OutputChunk__Output } from '../../../maka/resource/v1/OutputChunk.js';
import type { OutputGap as _maka_resource_v1_OutputGap, OutputGap__Output as _maka_resource_v1_OutputGap__Output } from '../../../maka/resource/v1/OutputGap.js';
import type { ControlOutcome as _maka_resource_v1_ControlOutcome, ControlOutcome__Output as _maka_resource_v1_ControlOutcome__Output } from '../../../maka/resource/v1/ControlOutcome.js';
import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * AttachResponse is one event of an attach stream.
 */
export interface AttachResponse {
    /**
     * The first event: the run and its screen.
     */
    'attached'?: (_maka_resource_v1_Attached | null);
    /**
     * Output, replayed then live.
     */
    'output'?: (_maka_resource_v1_OutputChunk | null);
    /**
     * Output this reader missed.
     */
    'gap'?: (_maka_resource_v1_OutputGap | null);
    /**
     * The answer to a control.
     */
    'control'?: (_maka_resource_v1_ControlOutcome | null);
    /**
     * The run's final state; the last event.
     */
    'ended'?: (_maka_resource_v1_Run | null);
    /**
     * The event.
     */
    'event'?: "attached" | "output" | "gap" | "control" | "ended";
}
/**
 * AttachResponse is one event of an attach stream.
 */
export interface AttachResponse__Output {
    /**
     * The first event: the run and its screen.
     */
    'attached'?: (_maka_resource_v1_Attached__Output | null);
    /**
     * Output, replayed then live.
     */
    'output'?: (_maka_resource_v1_OutputChunk__Output | null);
    /**
     * Output this reader missed.
     */
    'gap'?: (_maka_resource_v1_OutputGap__Output | null);
    /**
     * The answer to a control.
     */
    'control'?: (_maka_resource_v1_ControlOutcome__Output | null);
    /**
     * The run's final state; the last event.
     */
    'ended'?: (_maka_resource_v1_Run__Output | null);
    /**
     * The event.
     */
    'event'?: "attached" | "output" | "gap" | "control" | "ended";
}
