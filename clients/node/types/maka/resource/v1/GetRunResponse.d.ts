import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * GetRunResponse carries the run.
 */
export interface GetRunResponse {
    /**
     * The run as of now.
     */
    'run'?: (_maka_resource_v1_Run | null);
}
/**
 * GetRunResponse carries the run.
 */
export interface GetRunResponse__Output {
    /**
     * The run as of now.
     */
    'run': (_maka_resource_v1_Run__Output | null);
}
