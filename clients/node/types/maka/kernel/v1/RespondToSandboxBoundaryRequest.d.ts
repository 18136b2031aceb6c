import type { SandboxDecision as _maka_kernel_v1_SandboxDecision, SandboxDecision__Output as _maka_kernel_v1_SandboxDecision__Output } from '../../../maka/kernel/v1/SandboxDecision.js';
/**
 * RespondToSandboxBoundaryRequest answers a sandbox-boundary request.
 */
export interface RespondToSandboxBoundaryRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The request id (from the SandboxBoundaryRequest event).
     */
    'requestId'?: (string);
    /**
     * The decision.
     */
    'decision'?: (_maka_kernel_v1_SandboxDecision);
    /**
     * An optional explanation (at most 4096 bytes), recorded with the decision.
     */
    'reason'?: (string);
}
/**
 * RespondToSandboxBoundaryRequest answers a sandbox-boundary request.
 */
export interface RespondToSandboxBoundaryRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The request id (from the SandboxBoundaryRequest event).
     */
    'requestId': (string);
    /**
     * The decision.
     */
    'decision': (_maka_kernel_v1_SandboxDecision__Output);
    /**
     * An optional explanation (at most 4096 bytes), recorded with the decision.
     */
    'reason': (string);
}
