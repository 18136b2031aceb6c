import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * StartBackgroundResponse carries the started run.
 */
export interface StartBackgroundResponse {
    /**
     * The run: ref, status (normally RUNNING) and mode.
     */
    'run'?: (_maka_resource_v1_Run | null);
}
/**
 * StartBackgroundResponse carries the started run.
 */
export interface StartBackgroundResponse__Output {
    /**
     * The run: ref, status (normally RUNNING) and mode.
     */
    'run': (_maka_resource_v1_Run__Output | null);
}
