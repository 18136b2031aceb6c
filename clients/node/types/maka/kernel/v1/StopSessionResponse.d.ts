import type { StopMode as _maka_kernel_v1_StopMode, StopMode__Output as _maka_kernel_v1_StopMode__Output } from '../../../maka/kernel/v1/StopMode.js';
/**
 * StopSessionResponse says what was stopped.
 */
export interface StopSessionResponse {
    /**
     * The stopped turn; empty when no turn was stopped.
     */
    'turnId'?: (string);
    /**
     * The mode the stop used.
     */
    'mode'?: (_maka_kernel_v1_StopMode);
    /**
     * Whether a turn was stopped: the running turn, or the named turn that is not admitted yet
     * (it ends aborted when admitted). False when nothing ran, the named turn is already
     * recorded, or it already recorded its end.
     */
    'stopped'?: (boolean);
}
/**
 * StopSessionResponse says what was stopped.
 */
export interface StopSessionResponse__Output {
    /**
     * The stopped turn; empty when no turn was stopped.
     */
    'turnId': (string);
    /**
     * The mode the stop used.
     */
    'mode': (_maka_kernel_v1_StopMode__Output);
    /**
     * Whether a turn was stopped: the running turn, or the named turn that is not admitted yet
     * (it ends aborted when admitted). False when nothing ran, the named turn is already
     * recorded, or it already recorded its end.
     */
    'stopped': (boolean);
}
