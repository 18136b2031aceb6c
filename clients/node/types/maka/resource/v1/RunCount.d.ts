import type { RunStatus as _maka_resource_v1_RunStatus, RunStatus__Output as _maka_resource_v1_RunStatus__Output } from '../../../maka/resource/v1/RunStatus.js';
/**
 * RunCount is how many runs ended in one status.
 */
export interface RunCount {
    /**
     * The status.
     */
    'status'?: (_maka_resource_v1_RunStatus);
    /**
     * How many runs.
     */
    'count'?: (number);
}
/**
 * RunCount is how many runs ended in one status.
 */
export interface RunCount__Output {
    /**
     * The status.
     */
    'status': (_maka_resource_v1_RunStatus__Output);
    /**
     * How many runs.
     */
    'count': (number);
}
