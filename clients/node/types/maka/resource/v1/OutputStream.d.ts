/**
 * OutputStream names where an output chunk came from.
 */
export declare const OutputStream: {
    /**
     * Not set (never sent by the server).
     */
    readonly OUTPUT_STREAM_UNSPECIFIED: "OUTPUT_STREAM_UNSPECIFIED";
    /**
     * Standard output of a pipes run.
     */
    readonly OUTPUT_STREAM_STDOUT: "OUTPUT_STREAM_STDOUT";
    /**
     * Standard error of a pipes run.
     */
    readonly OUTPUT_STREAM_STDERR: "OUTPUT_STREAM_STDERR";
    /**
     * The terminal of a PTY run (stdout and stderr together, as a terminal shows them).
     */
    readonly OUTPUT_STREAM_PTY: "OUTPUT_STREAM_PTY";
};
/**
 * OutputStream names where an output chunk came from.
 */
export type OutputStream = 
/**
 * Not set (never sent by the server).
 */
'OUTPUT_STREAM_UNSPECIFIED' | 0
/**
 * Standard output of a pipes run.
 */
 | 'OUTPUT_STREAM_STDOUT' | 1
/**
 * Standard error of a pipes run.
 */
 | 'OUTPUT_STREAM_STDERR' | 2
/**
 * The terminal of a PTY run (stdout and stderr together, as a terminal shows them).
 */
 | 'OUTPUT_STREAM_PTY' | 3;
/**
 * OutputStream names where an output chunk came from.
 */
export type OutputStream__Output = typeof OutputStream[keyof typeof OutputStream];
