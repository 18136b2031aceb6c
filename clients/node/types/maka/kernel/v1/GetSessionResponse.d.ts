import type { Session as _maka_kernel_v1_Session, Session__Output as _maka_kernel_v1_Session__Output } from '../../../maka/kernel/v1/Session.js';
/**
 * GetSessionResponse returns a session.
 */
export interface GetSessionResponse {
    /**
     * The session.
     */
    'session'?: (_maka_kernel_v1_Session | null);
}
/**
 * GetSessionResponse returns a session.
 */
export interface GetSessionResponse__Output {
    /**
     * The session.
     */
    'session': (_maka_kernel_v1_Session__Output | null);
}
