/**
 * RunKind says how the run was started.
 */
export declare const RunKind: {
    /**
     * Not set (never sent by the server).
     */
    readonly RUN_KIND_UNSPECIFIED: "RUN_KIND_UNSPECIFIED";
    /**
     * RunForeground: the caller waited for it.
     */
    readonly RUN_KIND_FOREGROUND: "RUN_KIND_FOREGROUND";
    /**
     * StartBackground: it returned at once.
     */
    readonly RUN_KIND_BACKGROUND: "RUN_KIND_BACKGROUND";
};
/**
 * RunKind says how the run was started.
 */
export type RunKind = 
/**
 * Not set (never sent by the server).
 */
'RUN_KIND_UNSPECIFIED' | 0
/**
 * RunForeground: the caller waited for it.
 */
 | 'RUN_KIND_FOREGROUND' | 1
/**
 * StartBackground: it returned at once.
 */
 | 'RUN_KIND_BACKGROUND' | 2;
/**
 * RunKind says how the run was started.
 */
export type RunKind__Output = typeof RunKind[keyof typeof RunKind];
