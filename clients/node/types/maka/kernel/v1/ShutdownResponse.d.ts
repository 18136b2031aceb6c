import type { DrainedTurn as _maka_kernel_v1_DrainedTurn, DrainedTurn__Output as _maka_kernel_v1_DrainedTurn__Output } from '../../../maka/kernel/v1/DrainedTurn.js';
import type { ResourceShutdown as _maka_kernel_v1_ResourceShutdown, ResourceShutdown__Output as _maka_kernel_v1_ResourceShutdown__Output } from '../../../maka/kernel/v1/ResourceShutdown.js';
/**
 * ShutdownResponse reports the drain; the process exits after sending it.
 */
export interface ShutdownResponse {
    /**
     * Every turn that was running when the shutdown began.
     */
    'turns'?: (_maka_kernel_v1_DrainedTurn)[];
    /**
     * What the shutdown cascade did to the resource service.
     */
    'resource'?: (_maka_kernel_v1_ResourceShutdown | null);
}
/**
 * ShutdownResponse reports the drain; the process exits after sending it.
 */
export interface ShutdownResponse__Output {
    /**
     * Every turn that was running when the shutdown began.
     */
    'turns': (_maka_kernel_v1_DrainedTurn__Output)[];
    /**
     * What the shutdown cascade did to the resource service.
     */
    'resource': (_maka_kernel_v1_ResourceShutdown__Output | null);
}
