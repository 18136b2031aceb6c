import type { BoundaryExpansion as _maka_resource_v1_BoundaryExpansion, BoundaryExpansion__Output as _maka_resource_v1_BoundaryExpansion__Output } from '../../../maka/resource/v1/BoundaryExpansion.js';
/**
 * SandboxFailure says why a command needed more than its execution boundary.
 */
export interface SandboxFailure {
    /**
     * A stable lower-case reason: "sandbox_boundary_required" (recoverable: approving
     * required_expansion lets a retry run) or "requires_bypass" (what the command needs can
     * never be granted — writing / or a system directory, the kernel's data directory — so
     * required_expansion is empty and only a danger-full-access session could run it).
     */
    'reason'?: (string);
    /**
     * The smallest expansion that would let the command run (what a request_sandbox_boundary
     * call or the next sandbox-boundary request asks for).
     */
    'requiredExpansion'?: (_maka_resource_v1_BoundaryExpansion | null);
    /**
     * What the kernel saw: the declaration, or the sandbox's refusal (e.g. "Read-only file
     * system" on a path).
     */
    'detail'?: (string);
}
/**
 * SandboxFailure says why a command needed more than its execution boundary.
 */
export interface SandboxFailure__Output {
    /**
     * A stable lower-case reason: "sandbox_boundary_required" (recoverable: approving
     * required_expansion lets a retry run) or "requires_bypass" (what the command needs can
     * never be granted — writing / or a system directory, the kernel's data directory — so
     * required_expansion is empty and only a danger-full-access session could run it).
     */
    'reason': (string);
    /**
     * The smallest expansion that would let the command run (what a request_sandbox_boundary
     * call or the next sandbox-boundary request asks for).
     */
    'requiredExpansion': (_maka_resource_v1_BoundaryExpansion__Output | null);
    /**
     * What the kernel saw: the declaration, or the sandbox's refusal (e.g. "Read-only file
     * system" on a path).
     */
    'detail': (string);
}
