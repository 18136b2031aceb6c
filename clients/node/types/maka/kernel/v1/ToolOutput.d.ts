import type { ToolOutputStream as _maka_kernel_v1_ToolOutputStream, ToolOutputStream__Output as _maka_kernel_v1_ToolOutputStream__Output } from '../../../maka/kernel/v1/ToolOutputStream.js';
/**
 * ToolOutput is output a running tool produced.
 */
export interface ToolOutput {
    /**
     * The tool call id.
     */
    'toolCallId'?: (string);
    /**
     * The output.
     */
    'text'?: (string);
    /**
     * Which stream it came from.
     */
    'stream'?: (_maka_kernel_v1_ToolOutputStream);
}
/**
 * ToolOutput is output a running tool produced.
 */
export interface ToolOutput__Output {
    /**
     * The tool call id.
     */
    'toolCallId': (string);
    /**
     * The output.
     */
    'text': (string);
    /**
     * Which stream it came from.
     */
    'stream': (_maka_kernel_v1_ToolOutputStream__Output);
}
