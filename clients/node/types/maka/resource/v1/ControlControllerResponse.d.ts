import type { TerminalSize as _maka_resource_v1_TerminalSize, TerminalSize__Output as _maka_resource_v1_TerminalSize__Output } from '../../../maka/resource/v1/TerminalSize.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ControlControllerResponse is the result of a control (identical for an exact retry).
 */
export interface ControlControllerResponse {
    /**
     * The controller's id.
     */
    'controllerId'?: (string);
    /**
     * The control's sequence.
     */
    'sequence'?: (number | string | Long);
    /**
     * Bytes of input queued for the program.
     */
    'inputBytes'?: (number | string | Long);
    /**
     * The terminal size after the control.
     */
    'size'?: (_maka_resource_v1_TerminalSize | null);
}
/**
 * ControlControllerResponse is the result of a control (identical for an exact retry).
 */
export interface ControlControllerResponse__Output {
    /**
     * The controller's id.
     */
    'controllerId': (string);
    /**
     * The control's sequence.
     */
    'sequence': (string);
    /**
     * Bytes of input queued for the program.
     */
    'inputBytes': (string);
    /**
     * The terminal size after the control.
     */
    'size': (_maka_resource_v1_TerminalSize__Output | null);
}
