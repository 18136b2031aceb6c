import type { ToolOutputTruncation as _maka_kernel_v1_ToolOutputTruncation, ToolOutputTruncation__Output as _maka_kernel_v1_ToolOutputTruncation__Output } from '../../../maka/kernel/v1/ToolOutputTruncation.js';
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
    '_exitCode'?: "exitCode";
}
