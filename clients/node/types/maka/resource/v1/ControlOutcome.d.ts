import type { ControlControllerResponse as _maka_resource_v1_ControlControllerResponse, ControlControllerResponse__Output as _maka_resource_v1_ControlControllerResponse__Output } from '../../../maka/resource/v1/ControlControllerResponse.js';
import type { ControlRejected as _maka_resource_v1_ControlRejected, ControlRejected__Output as _maka_resource_v1_ControlRejected__Output } from '../../../maka/resource/v1/ControlRejected.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ControlOutcome answers one AttachControl.
 */
export interface ControlOutcome {
    /**
     * The control's sequence.
     */
    'sequence'?: (number | string | Long);
    /**
     * It was applied (or was an exact retry).
     */
    'applied'?: (_maka_resource_v1_ControlControllerResponse | null);
    /**
     * It was refused; the stream stays open.
     */
    'rejected'?: (_maka_resource_v1_ControlRejected | null);
    /**
     * What happened.
     */
    'outcome'?: "applied" | "rejected";
}
/**
 * ControlOutcome answers one AttachControl.
 */
export interface ControlOutcome__Output {
    /**
     * The control's sequence.
     */
    'sequence': (string);
    /**
     * It was applied (or was an exact retry).
     */
    'applied'?: (_maka_resource_v1_ControlControllerResponse__Output | null);
    /**
     * It was refused; the stream stays open.
     */
    'rejected'?: (_maka_resource_v1_ControlRejected__Output | null);
    /**
     * What happened.
     */
    'outcome'?: "applied" | "rejected";
}
