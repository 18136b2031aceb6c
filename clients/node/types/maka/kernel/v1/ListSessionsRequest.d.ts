/**
 * ListSessionsRequest asks for a page of sessions.
 */
export interface ListSessionsRequest {
    /**
     * Most sessions to return, 1 to 500; 0 means 50. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB, always below a default client's 4 MiB): it may hold
     * fewer sessions, and always at least one.
     */
    'pageSize'?: (number);
    /**
     * The next_page_token of the previous page; empty for the first page (at most 1024 bytes).
     * Tokens are opaque: pass one back unchanged; anything else is INVALID_ARGUMENT (field
     * page_token).
     */
    'pageToken'?: (string);
    /**
     * Only archived (true) or only unarchived (false) sessions; unset for both.
     */
    'archived'?: (boolean);
    /**
     * Only sessions with this label (at most 64 bytes); empty for all.
     */
    'label'?: (string);
    '_archived'?: "archived";
}
/**
 * ListSessionsRequest asks for a page of sessions.
 */
export interface ListSessionsRequest__Output {
    /**
     * Most sessions to return, 1 to 500; 0 means 50. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB, always below a default client's 4 MiB): it may hold
     * fewer sessions, and always at least one.
     */
    'pageSize': (number);
    /**
     * The next_page_token of the previous page; empty for the first page (at most 1024 bytes).
     * Tokens are opaque: pass one back unchanged; anything else is INVALID_ARGUMENT (field
     * page_token).
     */
    'pageToken': (string);
    /**
     * Only archived (true) or only unarchived (false) sessions; unset for both.
     */
    'archived'?: (boolean);
    /**
     * Only sessions with this label (at most 64 bytes); empty for all.
     */
    'label': (string);
    '_archived'?: "archived";
}
