import type { Long } from '@grpc/proto-loader';
/**
 * ReadRunOutputRequest asks for a page of a run's kept output.
 */
export interface ReadRunOutputRequest {
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
     * Return chunks after this sequence: 0 for the first page, then the previous page's
     * next_after_sequence. Negative is INVALID_ARGUMENT.
     */
    'afterSequence'?: (number | string | Long);
    /**
     * Most bytes of chunk data in the page beyond its first chunk (a page holds at least one
     * chunk if there is one; a chunk is at most 256 KiB). 0 or more than --max-page-bytes
     * (default 2 MiB) means --max-page-bytes; negative is INVALID_ARGUMENT.
     */
    'maxBytes'?: (number | string | Long);
}
/**
 * ReadRunOutputRequest asks for a page of a run's kept output.
 */
export interface ReadRunOutputRequest__Output {
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
     * Return chunks after this sequence: 0 for the first page, then the previous page's
     * next_after_sequence. Negative is INVALID_ARGUMENT.
     */
    'afterSequence': (string);
    /**
     * Most bytes of chunk data in the page beyond its first chunk (a page holds at least one
     * chunk if there is one; a chunk is at most 256 KiB). 0 or more than --max-page-bytes
     * (default 2 MiB) means --max-page-bytes; negative is INVALID_ARGUMENT.
     */
    'maxBytes': (string);
}
