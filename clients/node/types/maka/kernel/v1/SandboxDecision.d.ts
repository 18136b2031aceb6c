/**
 * SandboxDecision is an answer to a sandbox-boundary request.
 */
export declare const SandboxDecision: {
    /**
     * Not set (refused as INVALID_REQUEST).
     */
    readonly SANDBOX_DECISION_UNSPECIFIED: "SANDBOX_DECISION_UNSPECIFIED";
    /**
     * Allow this once.
     */
    readonly SANDBOX_DECISION_ALLOW_ONCE: "SANDBOX_DECISION_ALLOW_ONCE";
    /**
     * Allow this for the rest of the session.
     */
    readonly SANDBOX_DECISION_ALLOW_SESSION: "SANDBOX_DECISION_ALLOW_SESSION";
    /**
     * Deny.
     */
    readonly SANDBOX_DECISION_DENY: "SANDBOX_DECISION_DENY";
};
/**
 * SandboxDecision is an answer to a sandbox-boundary request.
 */
export type SandboxDecision = 
/**
 * Not set (refused as INVALID_REQUEST).
 */
'SANDBOX_DECISION_UNSPECIFIED' | 0
/**
 * Allow this once.
 */
 | 'SANDBOX_DECISION_ALLOW_ONCE' | 1
/**
 * Allow this for the rest of the session.
 */
 | 'SANDBOX_DECISION_ALLOW_SESSION' | 2
/**
 * Deny.
 */
 | 'SANDBOX_DECISION_DENY' | 3;
/**
 * SandboxDecision is an answer to a sandbox-boundary request.
 */
export type SandboxDecision__Output = typeof SandboxDecision[keyof typeof SandboxDecision];
