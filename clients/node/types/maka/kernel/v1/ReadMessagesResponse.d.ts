import type { SessionEvent as _maka_kernel_v1_SessionEvent, SessionEvent__Output as _maka_kernel_v1_SessionEvent__Output } from '../../../maka/kernel/v1/SessionEvent.js';
/**
 * ReadMessagesResponse returns stored log entries in order.
 */
export interface ReadMessagesResponse {
    /**
     * The entries (none: nothing after after_seq yet). No entry is larger than 1 MiB: texts a
     * backend produced beyond that are cut when recorded, saying so.
     */
    'events'?: (_maka_kernel_v1_SessionEvent)[];
}
/**
 * ReadMessagesResponse returns stored log entries in order.
 */
export interface ReadMessagesResponse__Output {
    /**
     * The entries (none: nothing after after_seq yet). No entry is larger than 1 MiB: texts a
     * backend produced beyond that are cut when recorded, saying so.
     */
    'events': (_maka_kernel_v1_SessionEvent__Output)[];
}
