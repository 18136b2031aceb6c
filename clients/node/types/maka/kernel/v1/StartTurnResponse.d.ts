import type { SessionEvent as _maka_kernel_v1_SessionEvent, SessionEvent__Output as _maka_kernel_v1_SessionEvent__Output } from '../../../maka/kernel/v1/SessionEvent.js';
/**
 * StartTurnResponse is one event of the turn.
 */
export interface StartTurnResponse {
    /**
     * The event.
     */
    'event'?: (_maka_kernel_v1_SessionEvent | null);
}
/**
 * StartTurnResponse is one event of the turn.
 */
export interface StartTurnResponse__Output {
    /**
     * The event.
     */
    'event': (_maka_kernel_v1_SessionEvent__Output | null);
}
