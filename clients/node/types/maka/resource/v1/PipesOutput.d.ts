/**
 * PipesOutput is the retained output of a pipes run.
 */
export interface PipesOutput {
    /**
     * The last 1 MiB of standard output, decoded as UTF-8 (invalid bytes replaced), at most
     * 1 MiB of UTF-8 once decoded: so a Run stays far below a default client's 4 MiB.
     */
    'stdout'?: (string);
    /**
     * The last 1 MiB of standard error, decoded and bounded the same way.
     */
    'stderr'?: (string);
    /**
     * True when older standard output was dropped.
     */
    'stdoutTruncated'?: (boolean);
    /**
     * True when older standard error was dropped.
     */
    'stderrTruncated'?: (boolean);
}
/**
 * PipesOutput is the retained output of a pipes run.
 */
export interface PipesOutput__Output {
    /**
     * The last 1 MiB of standard output, decoded as UTF-8 (invalid bytes replaced), at most
     * 1 MiB of UTF-8 once decoded: so a Run stays far below a default client's 4 MiB.
     */
    'stdout': (string);
    /**
     * The last 1 MiB of standard error, decoded and bounded the same way.
     */
    'stderr': (string);
    /**
     * True when older standard output was dropped.
     */
    'stdoutTruncated': (boolean);
    /**
     * True when older standard error was dropped.
     */
    'stderrTruncated': (boolean);
}
