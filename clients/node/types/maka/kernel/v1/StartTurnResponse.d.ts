import type { SessionEvent as _maka_kernel_v1_SessionEvent, SessionEvent__Output as _maka_kernel_v1_SessionEvent__Output } from '../../../maka/kernel/v1/SessionEvent.js';
/**
 * StartTurnResponse is one event of the turn (or, with coalesce_events, several in a row).
 */
export interface StartTurnResponse {
    /**
     * The event.
     */
    'event'?: (_maka_kernel_v1_SessionEvent | null);
    /**
     * Only when the request set coalesce_events: the events that follow event, in seq order,
     * already waiting when it was sent (at most 256 per response, and about 1 MiB beyond the
     * first event). Never set otherwise.
     */
    'moreEvents'?: (_maka_kernel_v1_SessionEvent)[];
}
/**
 * StartTurnResponse is one event of the turn (or, with coalesce_events, several in a row).
 */
export interface StartTurnResponse__Output {
    /**
     * The event.
     */
    'event': (_maka_kernel_v1_SessionEvent__Output | null);
    /**
     * Only when the request set coalesce_events: the events that follow event, in seq order,
     * already waiting when it was sent (at most 256 per response, and about 1 MiB beyond the
     * first event). Never set otherwise.
     */
    'moreEvents': (_maka_kernel_v1_SessionEvent__Output)[];
}
