import type { Long } from '@grpc/proto-loader';
/**
 * ListTurnsRequest asks for a page of a session's turns.
 */
export interface ListTurnsRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * Only turns that started after this log sequence number (0: from the start); pass the
     * previous response's next_after_seq for the next page.
     */
    'afterSeq'?: (number | string | Long);
    /**
     * Most turns to return, 1 to 1000; 0 means 1000. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB): it may hold fewer turns, and always at least one.
     */
    'limit'?: (number);
}
/**
 * ListTurnsRequest asks for a page of a session's turns.
 */
export interface ListTurnsRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * Only turns that started after this log sequence number (0: from the start); pass the
     * previous response's next_after_seq for the next page.
     */
    'afterSeq': (string);
    /**
     * Most turns to return, 1 to 1000; 0 means 1000. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB): it may hold fewer turns, and always at least one.
     */
    'limit': (number);
}
