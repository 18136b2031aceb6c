/**
 * ResourceShutdown is what the kernel's shutdown did to the resource service it uses.
 */
export interface ResourceShutdown {
    /**
     * True when the kernel asked the resource service to shut down.
     */
    'attempted'?: (boolean);
    /**
     * True when the resource service answered.
     */
    'reached'?: (boolean);
    /**
     * Why it could not be reached (empty when it was).
     */
    'error'?: (string);
    /**
     * How many runs the resource service ended during its drain.
     */
    'runsEnded'?: (number);
    /**
     * How many runs had not ended within its grace period (it then killed them).
     */
    'runsUnfinished'?: (number);
}
/**
 * ResourceShutdown is what the kernel's shutdown did to the resource service it uses.
 */
export interface ResourceShutdown__Output {
    /**
     * True when the kernel asked the resource service to shut down.
     */
    'attempted': (boolean);
    /**
     * True when the resource service answered.
     */
    'reached': (boolean);
    /**
     * Why it could not be reached (empty when it was).
     */
    'error': (string);
    /**
     * How many runs the resource service ended during its drain.
     */
    'runsEnded': (number);
    /**
     * How many runs had not ended within its grace period (it then killed them).
     */
    'runsUnfinished': (number);
}
