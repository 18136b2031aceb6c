import type { Long } from '@grpc/proto-loader';
/**
 * ReadMessagesRequest asks for stored log entries.
 */
export interface ReadMessagesRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * Return entries with a sequence number greater than this (0: from the start). Beyond the
     * newest entry is OUT_OF_RANGE (last_seq in ErrorInfo metadata).
     */
    'afterSeq'?: (number | string | Long);
    /**
     * Most entries to return, 1 to 1000; 0 means 1000. A response is also bounded by bytes
     * (--max-page-bytes, default 2 MiB): it may hold fewer entries, and always at least one
     * when there is one. Read on from the seq of the last entry until a response is empty.
     */
    'limit'?: (number);
}
/**
 * ReadMessagesRequest asks for stored log entries.
 */
export interface ReadMessagesRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * Return entries with a sequence number greater than this (0: from the start). Beyond the
     * newest entry is OUT_OF_RANGE (last_seq in ErrorInfo metadata).
     */
    'afterSeq': (string);
    /**
     * Most entries to return, 1 to 1000; 0 means 1000. A response is also bounded by bytes
     * (--max-page-bytes, default 2 MiB): it may hold fewer entries, and always at least one
     * when there is one. Read on from the seq of the last entry until a response is empty.
     */
    'limit': (number);
}
