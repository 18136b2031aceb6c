import type { Session as _maka_kernel_v1_Session, Session__Output as _maka_kernel_v1_Session__Output } from '../../../maka/kernel/v1/Session.js';
/**
 * CreateSessionResponse returns the new session.
 */
export interface CreateSessionResponse {
    /**
     * The session as created.
     */
    'session'?: (_maka_kernel_v1_Session | null);
}
/**
 * CreateSessionResponse returns the new session.
 */
export interface CreateSessionResponse__Output {
    /**
     * The session as created.
     */
    'session': (_maka_kernel_v1_Session__Output | null);
}
