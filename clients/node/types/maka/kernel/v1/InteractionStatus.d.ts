/**
 * InteractionStatus is where an interaction request is.
 */
export declare const InteractionStatus: {
    /**
     * Not set.
     */
    readonly INTERACTION_STATUS_UNSPECIFIED: "INTERACTION_STATUS_UNSPECIFIED";
    /**
     * Waiting for an answer.
     */
    readonly INTERACTION_STATUS_PENDING: "INTERACTION_STATUS_PENDING";
    /**
     * Answered.
     */
    readonly INTERACTION_STATUS_ANSWERED: "INTERACTION_STATUS_ANSWERED";
    /**
     * Nobody answered in time; denied.
     */
    readonly INTERACTION_STATUS_TIMED_OUT: "INTERACTION_STATUS_TIMED_OUT";
    /**
     * Closed unanswered (turn stopped or ended, host restarted).
     */
    readonly INTERACTION_STATUS_CLOSED: "INTERACTION_STATUS_CLOSED";
};
/**
 * InteractionStatus is where an interaction request is.
 */
export type InteractionStatus = 
/**
 * Not set.
 */
'INTERACTION_STATUS_UNSPECIFIED' | 0
/**
 * Waiting for an answer.
 */
 | 'INTERACTION_STATUS_PENDING' | 1
/**
 * Answered.
 */
 | 'INTERACTION_STATUS_ANSWERED' | 2
/**
 * Nobody answered in time; denied.
 */
 | 'INTERACTION_STATUS_TIMED_OUT' | 3
/**
 * Closed unanswered (turn stopped or ended, host restarted).
 */
 | 'INTERACTION_STATUS_CLOSED' | 4;
/**
 * InteractionStatus is where an interaction request is.
 */
export type InteractionStatus__Output = typeof InteractionStatus[keyof typeof InteractionStatus];
