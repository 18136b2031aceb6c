import type { SessionEvent as _maka_kernel_v1_SessionEvent, SessionEvent__Output as _maka_kernel_v1_SessionEvent__Output } from '../../../maka/kernel/v1/SessionEvent.js';
/**
 * WatchSessionResponse is one log entry (at most 1 MiB, see ReadMessagesResponse).
 */
export interface WatchSessionResponse {
    /**
     * The entry.
     */
    'event'?: (_maka_kernel_v1_SessionEvent | null);
}
/**
 * WatchSessionResponse is one log entry (at most 1 MiB, see ReadMessagesResponse).
 */
export interface WatchSessionResponse__Output {
    /**
     * The entry.
     */
    'event': (_maka_kernel_v1_SessionEvent__Output | null);
}
