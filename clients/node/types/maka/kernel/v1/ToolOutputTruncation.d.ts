import type { Long } from '@grpc/proto-loader';
/**
 * ToolOutputTruncation is the kernel's exact record of what it left out of a tool call's
 * output. The kernel keeps each stream's first bytes up to the budget (--tool-output-budget-bytes
 * per stream), exactly as printed (decoded as UTF-8 at character boundaries), and counts the
 * rest. Where tool_output events begin and end depends on timing; the text kept and these
 * figures do not: the same command gives the same transcript every time.
 */
export interface ToolOutputTruncation {
    /**
     * Bytes of standard output kept in the call's tool_output events.
     */
    'stdoutBytesKept'?: (number | string | Long);
    /**
     * Bytes of standard output the command printed beyond them (not in the log).
     */
    'stdoutBytesOmitted'?: (number | string | Long);
    /**
     * Bytes of standard error kept in the call's tool_output events.
     */
    'stderrBytesKept'?: (number | string | Long);
    /**
     * Bytes of standard error the command printed beyond them (not in the log).
     */
    'stderrBytesOmitted'?: (number | string | Long);
    /**
     * The per-stream budget the kernel applied (bytes).
     */
    'budgetBytes'?: (number | string | Long);
    /**
     * The resource-service run whose output holds every byte (same as ToolResult.run_ref).
     */
    'runRef'?: (string);
}
/**
 * ToolOutputTruncation is the kernel's exact record of what it left out of a tool call's
 * output. The kernel keeps each stream's first bytes up to the budget (--tool-output-budget-bytes
 * per stream), exactly as printed (decoded as UTF-8 at character boundaries), and counts the
 * rest. Where tool_output events begin and end depends on timing; the text kept and these
 * figures do not: the same command gives the same transcript every time.
 */
export interface ToolOutputTruncation__Output {
    /**
     * Bytes of standard output kept in the call's tool_output events.
     */
    'stdoutBytesKept': (string);
    /**
     * Bytes of standard output the command printed beyond them (not in the log).
     */
    'stdoutBytesOmitted': (string);
    /**
     * Bytes of standard error kept in the call's tool_output events.
     */
    'stderrBytesKept': (string);
    /**
     * Bytes of standard error the command printed beyond them (not in the log).
     */
    'stderrBytesOmitted': (string);
    /**
     * The per-stream budget the kernel applied (bytes).
     */
    'budgetBytes': (string);
    /**
     * The resource-service run whose output holds every byte (same as ToolResult.run_ref).
     */
    'runRef': (string);
}
