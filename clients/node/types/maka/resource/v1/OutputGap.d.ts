import type { Long } from '@grpc/proto-loader';
/**
 * OutputGap says that chunks first_sequence..last_sequence are not kept for this reader: the run
 * printed more than its journal keeps (--max-run-output-bytes; the journal keeps the first part,
 * and a reader that falls behind reads from it, so a gap only covers output beyond the bound),
 * or its journal was removed. It comes at most once per reader per stretch of lost output; the
 * byte counts are exact.
 */
export interface OutputGap {
    /**
     * The first sequence that was dropped.
     */
    'firstSequence'?: (number | string | Long);
    /**
     * The last sequence that was dropped.
     */
    'lastSequence'?: (number | string | Long);
    /**
     * Bytes of stdout in the dropped chunks.
     */
    'stdoutBytes'?: (number | string | Long);
    /**
     * Bytes of stderr in the dropped chunks.
     */
    'stderrBytes'?: (number | string | Long);
    /**
     * Bytes of PTY output in the dropped chunks.
     */
    'ptyBytes'?: (number | string | Long);
}
/**
 * OutputGap says that chunks first_sequence..last_sequence are not kept for this reader: the run
 * printed more than its journal keeps (--max-run-output-bytes; the journal keeps the first part,
 * and a reader that falls behind reads from it, so a gap only covers output beyond the bound),
 * or its journal was removed. It comes at most once per reader per stretch of lost output; the
 * byte counts are exact.
 */
export interface OutputGap__Output {
    /**
     * The first sequence that was dropped.
     */
    'firstSequence': (string);
    /**
     * The last sequence that was dropped.
     */
    'lastSequence': (string);
    /**
     * Bytes of stdout in the dropped chunks.
     */
    'stdoutBytes': (string);
    /**
     * Bytes of stderr in the dropped chunks.
     */
    'stderrBytes': (string);
    /**
     * Bytes of PTY output in the dropped chunks.
     */
    'ptyBytes': (string);
}
