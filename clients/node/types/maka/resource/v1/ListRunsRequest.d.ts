/**
 * ListRunsRequest asks for a page of a session's runs.
 */
export interface ListRunsRequest {
    /**
     * The session; empty lists the runs of every session (archived and deleted sessions' runs
     * are left out, as GetRun refuses them).
     */
    'sessionId'?: (string);
    /**
     * At most this many runs, 1 to 500; 0 means 50. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB, below a default client's 4 MiB): it may hold fewer
     * runs, and always at least one (no run is larger than about 2.2 MiB).
     */
    'pageSize'?: (number);
    /**
     * next_page_token of the previous page; empty for the first page (at most 1024 bytes).
     * Tokens are opaque: pass one back unchanged; anything else is INVALID_ARGUMENT (field
     * page_token).
     */
    'pageToken'?: (string);
}
/**
 * ListRunsRequest asks for a page of a session's runs.
 */
export interface ListRunsRequest__Output {
    /**
     * The session; empty lists the runs of every session (archived and deleted sessions' runs
     * are left out, as GetRun refuses them).
     */
    'sessionId': (string);
    /**
     * At most this many runs, 1 to 500; 0 means 50. A page is also bounded by bytes
     * (--max-page-bytes, default 2 MiB, below a default client's 4 MiB): it may hold fewer
     * runs, and always at least one (no run is larger than about 2.2 MiB).
     */
    'pageSize': (number);
    /**
     * next_page_token of the previous page; empty for the first page (at most 1024 bytes).
     * Tokens are opaque: pass one back unchanged; anything else is INVALID_ARGUMENT (field
     * page_token).
     */
    'pageToken': (string);
}
