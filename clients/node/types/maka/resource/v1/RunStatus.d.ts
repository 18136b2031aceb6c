/**
 * RunStatus is where a run is in its life. STARTING and RUNNING are active; the rest are
 * terminal and never change again.
 */
export declare const RunStatus: {
    /**
     * Not set (never sent by the server).
     */
    readonly RUN_STATUS_UNSPECIFIED: "RUN_STATUS_UNSPECIFIED";
    /**
     * Recorded, process not yet started.
     */
    readonly RUN_STATUS_STARTING: "RUN_STATUS_STARTING";
    /**
     * The process is running.
     */
    readonly RUN_STATUS_RUNNING: "RUN_STATUS_RUNNING";
    /**
     * It exited with code 0.
     */
    readonly RUN_STATUS_COMPLETED: "RUN_STATUS_COMPLETED";
    /**
     * It exited with another code, was killed by a signal, or could not start.
     */
    readonly RUN_STATUS_FAILED: "RUN_STATUS_FAILED";
    /**
     * Its timeout expired; exit code 124, message "Command timed out after N ms".
     */
    readonly RUN_STATUS_TIMED_OUT: "RUN_STATUS_TIMED_OUT";
    /**
     * It was stopped or drained; exit code 130, message "Command cancelled".
     */
    readonly RUN_STATUS_CANCELLED: "RUN_STATUS_CANCELLED";
    /**
     * The service restarted while it was active; its processes were killed.
     */
    readonly RUN_STATUS_ORPHANED: "RUN_STATUS_ORPHANED";
};
/**
 * RunStatus is where a run is in its life. STARTING and RUNNING are active; the rest are
 * terminal and never change again.
 */
export type RunStatus = 
/**
 * Not set (never sent by the server).
 */
'RUN_STATUS_UNSPECIFIED' | 0
/**
 * Recorded, process not yet started.
 */
 | 'RUN_STATUS_STARTING' | 1
/**
 * The process is running.
 */
 | 'RUN_STATUS_RUNNING' | 2
/**
 * It exited with code 0.
 */
 | 'RUN_STATUS_COMPLETED' | 3
/**
 * It exited with another code, was killed by a signal, or could not start.
 */
 | 'RUN_STATUS_FAILED' | 4
/**
 * Its timeout expired; exit code 124, message "Command timed out after N ms".
 */
 | 'RUN_STATUS_TIMED_OUT' | 5
/**
 * It was stopped or drained; exit code 130, message "Command cancelled".
 */
 | 'RUN_STATUS_CANCELLED' | 6
/**
 * The service restarted while it was active; its processes were killed.
 */
 | 'RUN_STATUS_ORPHANED' | 7;
/**
 * RunStatus is where a run is in its life. STARTING and RUNNING are active; the rest are
 * terminal and never change again.
 */
export type RunStatus__Output = typeof RunStatus[keyof typeof RunStatus];
