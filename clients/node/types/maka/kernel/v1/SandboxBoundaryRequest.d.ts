/**
 * SandboxBoundaryRequest asks permission to cross the sandbox boundary; answer it with
 * RespondToSandboxBoundary.
 */
export interface SandboxBoundaryRequest {
    /**
     * The request id.
     */
    'requestId'?: (string);
    /**
     * What the agent wants to run.
     */
    'command'?: (string);
    /**
     * Where it would run.
     */
    'cwd'?: (string);
    /**
     * Why the agent asks.
     */
    'reason'?: (string);
}
/**
 * SandboxBoundaryRequest asks permission to cross the sandbox boundary; answer it with
 * RespondToSandboxBoundary.
 */
export interface SandboxBoundaryRequest__Output {
    /**
     * The request id.
     */
    'requestId': (string);
    /**
     * What the agent wants to run.
     */
    'command': (string);
    /**
     * Where it would run.
     */
    'cwd': (string);
    /**
     * Why the agent asks.
     */
    'reason': (string);
}
