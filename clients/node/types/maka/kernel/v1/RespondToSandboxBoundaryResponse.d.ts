import type { Interaction as _maka_kernel_v1_Interaction, Interaction__Output as _maka_kernel_v1_Interaction__Output } from '../../../maka/kernel/v1/Interaction.js';
/**
 * RespondToSandboxBoundaryResponse returns the answered request.
 */
export interface RespondToSandboxBoundaryResponse {
    /**
     * The request as stored after the answer.
     */
    'interaction'?: (_maka_kernel_v1_Interaction | null);
}
/**
 * RespondToSandboxBoundaryResponse returns the answered request.
 */
export interface RespondToSandboxBoundaryResponse__Output {
    /**
     * The request as stored after the answer.
     */
    'interaction': (_maka_kernel_v1_Interaction__Output | null);
}
