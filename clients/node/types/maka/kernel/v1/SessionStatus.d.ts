/**
 * SessionStatus is what a session is doing.
 */
export declare const SessionStatus: {
    /**
     * Not set.
     */
    readonly SESSION_STATUS_UNSPECIFIED: "SESSION_STATUS_UNSPECIFIED";
    /**
     * Idle: no turn runs.
     */
    readonly SESSION_STATUS_ACTIVE: "SESSION_STATUS_ACTIVE";
    /**
     * A turn runs.
     */
    readonly SESSION_STATUS_RUNNING: "SESSION_STATUS_RUNNING";
    /**
     * A turn waits for an answer to a sandbox-boundary request or a user question.
     */
    readonly SESSION_STATUS_WAITING_FOR_USER: "SESSION_STATUS_WAITING_FOR_USER";
    /**
     * The session's backend could not be disposed; it is permanently quarantined.
     */
    readonly SESSION_STATUS_BLOCKED: "SESSION_STATUS_BLOCKED";
    /**
     * The last turn was stopped or interrupted.
     */
    readonly SESSION_STATUS_ABORTED: "SESSION_STATUS_ABORTED";
};
/**
 * SessionStatus is what a session is doing.
 */
export type SessionStatus = 
/**
 * Not set.
 */
'SESSION_STATUS_UNSPECIFIED' | 0
/**
 * Idle: no turn runs.
 */
 | 'SESSION_STATUS_ACTIVE' | 1
/**
 * A turn runs.
 */
 | 'SESSION_STATUS_RUNNING' | 2
/**
 * A turn waits for an answer to a sandbox-boundary request or a user question.
 */
 | 'SESSION_STATUS_WAITING_FOR_USER' | 3
/**
 * The session's backend could not be disposed; it is permanently quarantined.
 */
 | 'SESSION_STATUS_BLOCKED' | 4
/**
 * The last turn was stopped or interrupted.
 */
 | 'SESSION_STATUS_ABORTED' | 5;
/**
 * SessionStatus is what a session is doing.
 */
export type SessionStatus__Output = typeof SessionStatus[keyof typeof SessionStatus];
