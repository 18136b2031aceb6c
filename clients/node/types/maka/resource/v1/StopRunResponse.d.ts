import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * StopRunResponse carries the stopped run.
 */
export interface StopRunResponse {
    /**
     * The run's final state.
     */
    'run'?: (_maka_resource_v1_Run | null);
}
/**
 * StopRunResponse carries the stopped run.
 */
export interface StopRunResponse__Output {
    /**
     * The run's final state.
     */
    'run': (_maka_resource_v1_Run__Output | null);
}
