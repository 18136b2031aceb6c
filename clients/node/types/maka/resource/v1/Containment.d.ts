/**
 * Containment is how the processes of a run are kept together.
 */
export declare const Containment: {
    /**
     * Not recorded (runs from before sandboxing).
     */
    readonly CONTAINMENT_UNSPECIFIED: "CONTAINMENT_UNSPECIFIED";
    /**
     * A cgroup v2 of the run's own: nothing it starts can leave it.
     */
    readonly CONTAINMENT_CGROUP: "CONTAINMENT_CGROUP";
    /**
     * Its process group: a process that calls setsid and drops MAKA_SHELL_RUN_ID can escape.
     */
    readonly CONTAINMENT_PROCESS_GROUP: "CONTAINMENT_PROCESS_GROUP";
};
/**
 * Containment is how the processes of a run are kept together.
 */
export type Containment = 
/**
 * Not recorded (runs from before sandboxing).
 */
'CONTAINMENT_UNSPECIFIED' | 0
/**
 * A cgroup v2 of the run's own: nothing it starts can leave it.
 */
 | 'CONTAINMENT_CGROUP' | 1
/**
 * Its process group: a process that calls setsid and drops MAKA_SHELL_RUN_ID can escape.
 */
 | 'CONTAINMENT_PROCESS_GROUP' | 2;
/**
 * Containment is how the processes of a run are kept together.
 */
export type Containment__Output = typeof Containment[keyof typeof Containment];
