import type { Long } from '@grpc/proto-loader';
/**
 * AttachStart says what to attach to.
 */
export interface AttachStart {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId'?: (string);
    /**
     * The run's reference.
     */
    'ref'?: (string);
    /**
     * Replay output chunks after this sequence (0: everything still kept: the run's journal, up
     * to --max-run-output-bytes, live or ended, then one OutputGap for the rest). Larger than the
     * run's newest output sequence is OUT_OF_RANGE (the newest in ErrorInfo metadata "last"):
     * it would skip output still to come; so is a sequence inside output that was not kept and
     * that memory no longer holds.
     */
    'afterSequence'?: (number | string | Long);
    /**
     * If set, take the controller lease under this id for the stream's lifetime.
     */
    'controllerId'?: (string);
}
/**
 * AttachStart says what to attach to.
 */
export interface AttachStart__Output {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId': (string);
    /**
     * The run's reference.
     */
    'ref': (string);
    /**
     * Replay output chunks after this sequence (0: everything still kept: the run's journal, up
     * to --max-run-output-bytes, live or ended, then one OutputGap for the rest). Larger than the
     * run's newest output sequence is OUT_OF_RANGE (the newest in ErrorInfo metadata "last"):
     * it would skip output still to come; so is a sequence inside output that was not kept and
     * that memory no longer holds.
     */
    'afterSequence': (string);
    /**
     * If set, take the controller lease under this id for the stream's lifetime.
     */
    'controllerId': (string);
}
