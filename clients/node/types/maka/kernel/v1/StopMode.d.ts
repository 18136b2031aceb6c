/**
 * StopMode says when a turn stops.
 */
export declare const StopMode: {
    /**
     * Not set: IMMEDIATE.
     */
    readonly STOP_MODE_UNSPECIFIED: "STOP_MODE_UNSPECIFIED";
    /**
     * Stop now.
     */
    readonly STOP_MODE_IMMEDIATE: "STOP_MODE_IMMEDIATE";
    /**
     * Let the current step (e.g. a tool call) finish, then stop.
     */
    readonly STOP_MODE_AFTER_STEP: "STOP_MODE_AFTER_STEP";
};
/**
 * StopMode says when a turn stops.
 */
export type StopMode = 
/**
 * Not set: IMMEDIATE.
 */
'STOP_MODE_UNSPECIFIED' | 0
/**
 * Stop now.
 */
 | 'STOP_MODE_IMMEDIATE' | 1
/**
 * Let the current step (e.g. a tool call) finish, then stop.
 */
 | 'STOP_MODE_AFTER_STEP' | 2;
/**
 * StopMode says when a turn stops.
 */
export type StopMode__Output = typeof StopMode[keyof typeof StopMode];
