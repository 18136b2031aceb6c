/**
 * RunMode is how a run's output is connected.
 */
export declare const RunMode: {
    /**
     * Not set (never sent by the server).
     */
    readonly RUN_MODE_UNSPECIFIED: "RUN_MODE_UNSPECIFIED";
    /**
     * stdout and stderr on pipes, stdin /dev/null.
     */
    readonly RUN_MODE_PIPES: "RUN_MODE_PIPES";
    /**
     * A pseudo-terminal, rendered by a terminal emulator.
     */
    readonly RUN_MODE_PTY: "RUN_MODE_PTY";
};
/**
 * RunMode is how a run's output is connected.
 */
export type RunMode = 
/**
 * Not set (never sent by the server).
 */
'RUN_MODE_UNSPECIFIED' | 0
/**
 * stdout and stderr on pipes, stdin /dev/null.
 */
 | 'RUN_MODE_PIPES' | 1
/**
 * A pseudo-terminal, rendered by a terminal emulator.
 */
 | 'RUN_MODE_PTY' | 2;
/**
 * RunMode is how a run's output is connected.
 */
export type RunMode__Output = typeof RunMode[keyof typeof RunMode];
