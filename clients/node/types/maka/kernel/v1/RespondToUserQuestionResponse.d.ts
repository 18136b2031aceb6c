import type { Interaction as _maka_kernel_v1_Interaction, Interaction__Output as _maka_kernel_v1_Interaction__Output } from '../../../maka/kernel/v1/Interaction.js';
/**
 * RespondToUserQuestionResponse returns the answered request.
 */
export interface RespondToUserQuestionResponse {
    /**
     * The request as stored after the answer.
     */
    'interaction'?: (_maka_kernel_v1_Interaction | null);
}
/**
 * RespondToUserQuestionResponse returns the answered request.
 */
export interface RespondToUserQuestionResponse__Output {
    /**
     * The request as stored after the answer.
     */
    'interaction': (_maka_kernel_v1_Interaction__Output | null);
}
