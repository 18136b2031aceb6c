/**
 * ToolOutputStream names the stream a tool's output came from.
 */
export declare const ToolOutputStream: {
    /**
     * Not set.
     */
    readonly TOOL_OUTPUT_STREAM_UNSPECIFIED: "TOOL_OUTPUT_STREAM_UNSPECIFIED";
    /**
     * Standard output.
     */
    readonly TOOL_OUTPUT_STREAM_STDOUT: "TOOL_OUTPUT_STREAM_STDOUT";
    /**
     * Standard error.
     */
    readonly TOOL_OUTPUT_STREAM_STDERR: "TOOL_OUTPUT_STREAM_STDERR";
};
/**
 * ToolOutputStream names the stream a tool's output came from.
 */
export type ToolOutputStream = 
/**
 * Not set.
 */
'TOOL_OUTPUT_STREAM_UNSPECIFIED' | 0
/**
 * Standard output.
 */
 | 'TOOL_OUTPUT_STREAM_STDOUT' | 1
/**
 * Standard error.
 */
 | 'TOOL_OUTPUT_STREAM_STDERR' | 2;
/**
 * ToolOutputStream names the stream a tool's output came from.
 */
export type ToolOutputStream__Output = typeof ToolOutputStream[keyof typeof ToolOutputStream];
