import type { InteractionKind as _maka_kernel_v1_InteractionKind, InteractionKind__Output as _maka_kernel_v1_InteractionKind__Output } from '../../../maka/kernel/v1/InteractionKind.js';
import type { InteractionOutcome as _maka_kernel_v1_InteractionOutcome, InteractionOutcome__Output as _maka_kernel_v1_InteractionOutcome__Output } from '../../../maka/kernel/v1/InteractionOutcome.js';
/**
 * InteractionResolved says how an interaction request ended.
 */
export interface InteractionResolved {
    /**
     * The request id.
     */
    'requestId'?: (string);
    /**
     * The kind of request.
     */
    'kind'?: (_maka_kernel_v1_InteractionKind);
    /**
     * How it ended.
     */
    'outcome'?: (_maka_kernel_v1_InteractionOutcome);
    /**
     * The answers to a user question.
     */
    'answers'?: (string)[];
    /**
     * Why it was denied or closed.
     */
    'reason'?: (string);
}
/**
 * InteractionResolved says how an interaction request ended.
 */
export interface InteractionResolved__Output {
    /**
     * The request id.
     */
    'requestId': (string);
    /**
     * The kind of request.
     */
    'kind': (_maka_kernel_v1_InteractionKind__Output);
    /**
     * How it ended.
     */
    'outcome': (_maka_kernel_v1_InteractionOutcome__Output);
    /**
     * The answers to a user question.
     */
    'answers': (string)[];
    /**
     * Why it was denied or closed.
     */
    'reason': (string);
}
