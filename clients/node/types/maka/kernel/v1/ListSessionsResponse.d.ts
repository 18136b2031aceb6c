import type { Session as _maka_kernel_v1_Session, Session__Output as _maka_kernel_v1_Session__Output } from '../../../maka/kernel/v1/Session.js';
/**
 * ListSessionsResponse is one page of sessions.
 */
export interface ListSessionsResponse {
    /**
     * The sessions, newest first.
     */
    'sessions'?: (_maka_kernel_v1_Session)[];
    /**
     * The token for the next page (opaque); empty on the last page. A page cut short by the
     * byte bound has a token too: read on until it is empty.
     */
    'nextPageToken'?: (string);
}
/**
 * ListSessionsResponse is one page of sessions.
 */
export interface ListSessionsResponse__Output {
    /**
     * The sessions, newest first.
     */
    'sessions': (_maka_kernel_v1_Session__Output)[];
    /**
     * The token for the next page (opaque); empty on the last page. A page cut short by the
     * byte bound has a token too: read on until it is empty.
     */
    'nextPageToken': (string);
}
