import type { OutputChunk as _maka_resource_v1_OutputChunk, OutputChunk__Output as _maka_resource_v1_OutputChunk__Output } from '../../../maka/resource/v1/OutputChunk.js';
import type { OutputGap as _maka_resource_v1_OutputGap, OutputGap__Output as _maka_resource_v1_OutputGap__Output } from '../../../maka/resource/v1/OutputGap.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ReadRunOutputResponse is one page of a run's kept output.
 */
export interface ReadRunOutputResponse {
    /**
     * The kept chunks after the request's after_sequence, in order, exactly as printed.
     */
    'chunks'?: (_maka_resource_v1_OutputChunk)[];
    /**
     * Pass as after_sequence for the next page.
     */
    'nextAfterSequence'?: (number | string | Long);
    /**
     * True when the run has ended and nothing after this page is kept: the last page. False for
     * an active run (ask again: more may come).
     */
    'endReached'?: (boolean);
    /**
     * The run's newest output sequence now.
     */
    'lastSequence'?: (number | string | Long);
    /**
     * Set on the last page when the run printed more than its journal kept: the chunks that were
     * not kept and their exact bytes per stream.
     */
    'omitted'?: (_maka_resource_v1_OutputGap | null);
    /**
     * True when the run's journal was removed (the total bound --max-kept-output-bytes, or its
     * session was archived): no chunks; with after_sequence 0, `omitted` counts all its output.
     */
    'evicted'?: (boolean);
}
/**
 * ReadRunOutputResponse is one page of a run's kept output.
 */
export interface ReadRunOutputResponse__Output {
    /**
     * The kept chunks after the request's after_sequence, in order, exactly as printed.
     */
    'chunks': (_maka_resource_v1_OutputChunk__Output)[];
    /**
     * Pass as after_sequence for the next page.
     */
    'nextAfterSequence': (string);
    /**
     * True when the run has ended and nothing after this page is kept: the last page. False for
     * an active run (ask again: more may come).
     */
    'endReached': (boolean);
    /**
     * The run's newest output sequence now.
     */
    'lastSequence': (string);
    /**
     * Set on the last page when the run printed more than its journal kept: the chunks that were
     * not kept and their exact bytes per stream.
     */
    'omitted': (_maka_resource_v1_OutputGap__Output | null);
    /**
     * True when the run's journal was removed (the total bound --max-kept-output-bytes, or its
     * session was archived): no chunks; with after_sequence 0, `omitted` counts all its output.
     */
    'evicted': (boolean);
}
