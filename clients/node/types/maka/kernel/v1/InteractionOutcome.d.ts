/**
 * InteractionOutcome is how an interaction request ended.
 */
export declare const InteractionOutcome: {
    /**
     * Not set.
     */
    readonly INTERACTION_OUTCOME_UNSPECIFIED: "INTERACTION_OUTCOME_UNSPECIFIED";
    /**
     * A sandbox-boundary request was allowed once.
     */
    readonly INTERACTION_OUTCOME_ALLOW_ONCE: "INTERACTION_OUTCOME_ALLOW_ONCE";
    /**
     * A sandbox-boundary request was allowed for the rest of the session.
     */
    readonly INTERACTION_OUTCOME_ALLOW_SESSION: "INTERACTION_OUTCOME_ALLOW_SESSION";
    /**
     * A sandbox-boundary request was denied.
     */
    readonly INTERACTION_OUTCOME_DENY: "INTERACTION_OUTCOME_DENY";
    /**
     * A user question was answered.
     */
    readonly INTERACTION_OUTCOME_ANSWERED: "INTERACTION_OUTCOME_ANSWERED";
    /**
     * Nobody answered in time: the request was denied.
     */
    readonly INTERACTION_OUTCOME_TIMED_OUT: "INTERACTION_OUTCOME_TIMED_OUT";
    /**
     * The request was closed unanswered (the turn stopped or ended, or the host restarted).
     */
    readonly INTERACTION_OUTCOME_CLOSED: "INTERACTION_OUTCOME_CLOSED";
};
/**
 * InteractionOutcome is how an interaction request ended.
 */
export type InteractionOutcome = 
/**
 * Not set.
 */
'INTERACTION_OUTCOME_UNSPECIFIED' | 0
/**
 * A sandbox-boundary request was allowed once.
 */
 | 'INTERACTION_OUTCOME_ALLOW_ONCE' | 1
/**
 * A sandbox-boundary request was allowed for the rest of the session.
 */
 | 'INTERACTION_OUTCOME_ALLOW_SESSION' | 2
/**
 * A sandbox-boundary request was denied.
 */
 | 'INTERACTION_OUTCOME_DENY' | 3
/**
 * A user question was answered.
 */
 | 'INTERACTION_OUTCOME_ANSWERED' | 4
/**
 * Nobody answered in time: the request was denied.
 */
 | 'INTERACTION_OUTCOME_TIMED_OUT' | 5
/**
 * The request was closed unanswered (the turn stopped or ended, or the host restarted).
 */
 | 'INTERACTION_OUTCOME_CLOSED' | 6;
/**
 * InteractionOutcome is how an interaction request ended.
 */
export type InteractionOutcome__Output = typeof InteractionOutcome[keyof typeof InteractionOutcome];
