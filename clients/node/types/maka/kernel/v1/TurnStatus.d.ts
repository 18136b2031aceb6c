/**
 * TurnStatus is where a turn is.
 */
export declare const TurnStatus: {
    /**
     * Not set.
     */
    readonly TURN_STATUS_UNSPECIFIED: "TURN_STATUS_UNSPECIFIED";
    /**
     * The turn runs.
     */
    readonly TURN_STATUS_RUNNING: "TURN_STATUS_RUNNING";
    /**
     * The backend finished the turn.
     */
    readonly TURN_STATUS_COMPLETED: "TURN_STATUS_COMPLETED";
    /**
     * The turn was stopped (or interrupted by a restart).
     */
    readonly TURN_STATUS_ABORTED: "TURN_STATUS_ABORTED";
    /**
     * The turn failed (the backend or the kernel reported an error).
     */
    readonly TURN_STATUS_FAILED: "TURN_STATUS_FAILED";
};
/**
 * TurnStatus is where a turn is.
 */
export type TurnStatus = 
/**
 * Not set.
 */
'TURN_STATUS_UNSPECIFIED' | 0
/**
 * The turn runs.
 */
 | 'TURN_STATUS_RUNNING' | 1
/**
 * The backend finished the turn.
 */
 | 'TURN_STATUS_COMPLETED' | 2
/**
 * The turn was stopped (or interrupted by a restart).
 */
 | 'TURN_STATUS_ABORTED' | 3
/**
 * The turn failed (the backend or the kernel reported an error).
 */
 | 'TURN_STATUS_FAILED' | 4;
/**
 * TurnStatus is where a turn is.
 */
export type TurnStatus__Output = typeof TurnStatus[keyof typeof TurnStatus];
