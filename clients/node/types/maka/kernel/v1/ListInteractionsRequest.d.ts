/**
 * ListInteractionsRequest asks for a page of a session's interaction requests.
 */
export interface ListInteractionsRequest {
    /**
     * The session id; an unknown session is NOT_FOUND.
     */
    'sessionId'?: (string);
    /**
     * The next_page_token of the previous page; empty for the first page (at most 1024 bytes).
     * Tokens are opaque: pass one back unchanged; anything else is INVALID_ARGUMENT (field
     * page_token).
     */
    'pageToken'?: (string);
    /**
     * Most requests to return, 1 to 1000; 0 means 1000. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB): it may hold fewer requests, and always at least one.
     */
    'limit'?: (number);
    /**
     * Only the requests still waiting for an answer (status PENDING).
     */
    'pendingOnly'?: (boolean);
}
/**
 * ListInteractionsRequest asks for a page of a session's interaction requests.
 */
export interface ListInteractionsRequest__Output {
    /**
     * The session id; an unknown session is NOT_FOUND.
     */
    'sessionId': (string);
    /**
     * The next_page_token of the previous page; empty for the first page (at most 1024 bytes).
     * Tokens are opaque: pass one back unchanged; anything else is INVALID_ARGUMENT (field
     * page_token).
     */
    'pageToken': (string);
    /**
     * Most requests to return, 1 to 1000; 0 means 1000. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB): it may hold fewer requests, and always at least one.
     */
    'limit': (number);
    /**
     * Only the requests still waiting for an answer (status PENDING).
     */
    'pendingOnly': (boolean);
}
