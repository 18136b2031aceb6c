import type { RunCount as _maka_resource_v1_RunCount, RunCount__Output as _maka_resource_v1_RunCount__Output } from '../../../maka/resource/v1/RunCount.js';
/**
 * ShutdownResponse reports how the runs live at shutdown ended within the grace period.
 */
export interface ShutdownResponse {
    /**
     * For each terminal status, how many of the runs live at shutdown ended in it within the
     * grace period (also when the grace period ran out before every run had ended).
     */
    'ended'?: (_maka_resource_v1_RunCount)[];
    /**
     * Runs whose end could not be recorded (the store failed).
     */
    'lost'?: (number);
    /**
     * Runs still not ended when the shutdown grace period ran out. The server then kills them
     * at once (SIGKILL, no further grace) and records their final state before it exits.
     */
    'unfinished'?: (number);
    /**
     * The refs of those unfinished runs.
     */
    'unfinishedRefs'?: (string)[];
}
/**
 * ShutdownResponse reports how the runs live at shutdown ended within the grace period.
 */
export interface ShutdownResponse__Output {
    /**
     * For each terminal status, how many of the runs live at shutdown ended in it within the
     * grace period (also when the grace period ran out before every run had ended).
     */
    'ended': (_maka_resource_v1_RunCount__Output)[];
    /**
     * Runs whose end could not be recorded (the store failed).
     */
    'lost': (number);
    /**
     * Runs still not ended when the shutdown grace period ran out. The server then kills them
     * at once (SIGKILL, no further grace) and records their final state before it exits.
     */
    'unfinished': (number);
    /**
     * The refs of those unfinished runs.
     */
    'unfinishedRefs': (string)[];
}
