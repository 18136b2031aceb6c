/**
 * ToolCall is the agent invoking a tool.
 */
export interface ToolCall {
    /**
     * The tool call id.
     */
    'toolCallId'?: (string);
    /**
     * The tool's name.
     */
    'name'?: (string);
    /**
     * The tool's input.
     */
    'input'?: (string);
}
/**
 * ToolCall is the agent invoking a tool.
 */
export interface ToolCall__Output {
    /**
     * The tool call id.
     */
    'toolCallId': (string);
    /**
     * The tool's name.
     */
    'name': (string);
    /**
     * The tool's input.
     */
    'input': (string);
}
