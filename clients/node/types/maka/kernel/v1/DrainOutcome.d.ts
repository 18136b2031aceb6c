/**
 * DrainOutcome is how a shutdown ended a running turn.
 */
export declare const DrainOutcome: {
    /**
     * Not set.
     */
    readonly DRAIN_OUTCOME_UNSPECIFIED: "DRAIN_OUTCOME_UNSPECIFIED";
    /**
     * The turn stopped after its current step, within the grace period.
     */
    readonly DRAIN_OUTCOME_STOPPED_AFTER_STEP: "DRAIN_OUTCOME_STOPPED_AFTER_STEP";
    /**
     * The turn had to be stopped immediately after the grace period.
     */
    readonly DRAIN_OUTCOME_STOPPED_IMMEDIATELY: "DRAIN_OUTCOME_STOPPED_IMMEDIATELY";
    /**
     * The turn did not settle even then (the next start-up marks it interrupted).
     */
    readonly DRAIN_OUTCOME_UNSETTLED: "DRAIN_OUTCOME_UNSETTLED";
};
/**
 * DrainOutcome is how a shutdown ended a running turn.
 */
export type DrainOutcome = 
/**
 * Not set.
 */
'DRAIN_OUTCOME_UNSPECIFIED' | 0
/**
 * The turn stopped after its current step, within the grace period.
 */
 | 'DRAIN_OUTCOME_STOPPED_AFTER_STEP' | 1
/**
 * The turn had to be stopped immediately after the grace period.
 */
 | 'DRAIN_OUTCOME_STOPPED_IMMEDIATELY' | 2
/**
 * The turn did not settle even then (the next start-up marks it interrupted).
 */
 | 'DRAIN_OUTCOME_UNSETTLED' | 3;
/**
 * DrainOutcome is how a shutdown ended a running turn.
 */
export type DrainOutcome__Output = typeof DrainOutcome[keyof typeof DrainOutcome];
