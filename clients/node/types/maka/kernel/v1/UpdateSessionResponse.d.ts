import type { Session as _maka_kernel_v1_Session, Session__Output as _maka_kernel_v1_Session__Output } from '../../../maka/kernel/v1/Session.js';
/**
 * UpdateSessionResponse returns the updated session.
 */
export interface UpdateSessionResponse {
    /**
     * The session after the update.
     */
    'session'?: (_maka_kernel_v1_Session | null);
}
/**
 * UpdateSessionResponse returns the updated session.
 */
export interface UpdateSessionResponse__Output {
    /**
     * The session after the update.
     */
    'session': (_maka_kernel_v1_Session__Output | null);
}
