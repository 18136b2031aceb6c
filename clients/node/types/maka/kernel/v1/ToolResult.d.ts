import type { ToolOutputTruncation as _maka_kernel_v1_ToolOutputTruncation, ToolOutputTruncation__Output as _maka_kernel_v1_ToolOutputTruncation__Output } from '../../../maka/kernel/v1/ToolOutputTruncation.js';
import type { PermissionProfile as _maka_resource_v1_PermissionProfile, PermissionProfile__Output as _maka_resource_v1_PermissionProfile__Output } from '../../../maka/resource/v1/PermissionProfile.js';
import type { SandboxFailure as _maka_kernel_v1_SandboxFailure, SandboxFailure__Output as _maka_kernel_v1_SandboxFailure__Output } from '../../../maka/kernel/v1/SandboxFailure.js';
import type { BoundaryExpansion as _maka_resource_v1_BoundaryExpansion, BoundaryExpansion__Output as _maka_resource_v1_BoundaryExpansion__Output } from '../../../maka/resource/v1/BoundaryExpansion.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ToolResult is a tool call finishing.
 */
export interface ToolResult {
    /**
     * The tool call id.
     */
    'toolCallId'?: (string);
    /**
     * The result.
     */
    'output'?: (string);
    /**
     * True when the tool failed.
     */
    'isError'?: (boolean);
    /**
     * The resource-service run that executed the tool, if one did (a background run's ref is
     * what a client attaches to).
     */
    'runRef'?: (string);
    /**
     * The run's exit code, when it ended with one (124 timed out, 130 cancelled, 128+N signal).
     */
    'exitCode'?: (number);
    /**
     * Set by the kernel when the call's output went past its budget (or the resource service
     * dropped some of it): the exact bytes kept in this call's tool_output events and omitted
     * from them, per stream. Unset when every byte the command printed is in those events.
     */
    'truncation'?: (_maka_kernel_v1_ToolOutputTruncation | null);
    /**
     * The permission profile of the boundary the call's run carried (DANGER_FULL_ACCESS: it ran
     * without a sandbox). Set by the kernel on every bash result; UNSPECIFIED for results of
     * other tools and from before sessions had boundaries.
     */
    'profile'?: (_maka_resource_v1_PermissionProfile);
    /**
     * The revision of the session boundary the run carried (see Session.boundary); 0 when no
     * boundary applied (as for profile).
     */
    'boundaryRevision'?: (number | string | Long);
    /**
     * Set when the command needs more than its boundary: nothing ran (a declared need the
     * boundary does not cover) or the sandbox refused what it tried (a write outside the
     * writable roots, the network). Unset otherwise.
     */
    'sandboxFailure'?: (_maka_kernel_v1_SandboxFailure | null);
    /**
     * Set by the kernel on a bash result whose run carried an allow_once expansion beyond the
     * session's boundary (boundary_revision): the expansion, granted for that one run only.
     * Unset when the run carried none.
     */
    'onceExpansion'?: (_maka_resource_v1_BoundaryExpansion | null);
    '_exitCode'?: "exitCode";
}
/**
 * ToolResult is a tool call finishing.
 */
export interface ToolResult__Output {
    /**
     * The tool call id.
     */
    'toolCallId': (string);
    /**
     * The result.
     */
    'output': (string);
    /**
     * True when the tool failed.
     */
    'isError': (boolean);
    /**
     * The resource-service run that executed the tool, if one did (a background run's ref is
     * what a client attaches to).
     */
    'runRef': (string);
    /**
     * The run's exit code, when it ended with one (124 timed out, 130 cancelled, 128+N signal).
     */
    'exitCode'?: (number);
    /**
     * Set by the kernel when the call's output went past its budget (or the resource service
     * dropped some of it): the exact bytes kept in this call's tool_output events and omitted
     * from them, per stream. Unset when every byte the command printed is in those events.
     */
    'truncation': (_maka_kernel_v1_ToolOutputTruncation__Output | null);
    /**
     * The permission profile of the boundary the call's run carried (DANGER_FULL_ACCESS: it ran
     * without a sandbox). Set by the kernel on every bash result; UNSPECIFIED for results of
     * other tools and from before sessions had boundaries.
     */
    'profile': (_maka_resource_v1_PermissionProfile__Output);
    /**
     * The revision of the session boundary the run carried (see Session.boundary); 0 when no
     * boundary applied (as for profile).
     */
    'boundaryRevision': (string);
    /**
     * Set when the command needs more than its boundary: nothing ran (a declared need the
     * boundary does not cover) or the sandbox refused what it tried (a write outside the
     * writable roots, the network). Unset otherwise.
     */
    'sandboxFailure': (_maka_kernel_v1_SandboxFailure__Output | null);
    /**
     * Set by the kernel on a bash result whose run carried an allow_once expansion beyond the
     * session's boundary (boundary_revision): the expansion, granted for that one run only.
     * Unset when the run carried none.
     */
    'onceExpansion': (_maka_resource_v1_BoundaryExpansion__Output | null);
    '_exitCode'?: "exitCode";
}
