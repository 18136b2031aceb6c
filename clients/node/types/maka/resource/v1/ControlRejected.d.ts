/**
 * ControlRejected says why a control on the attach stream was refused (as the status of the
 * same ControlController call would).
 */
export interface ControlRejected {
    /**
     * The gRPC status code the unary call would have ended with, e.g. 10 (ABORTED).
     */
    'code'?: (number);
    /**
     * The ErrorInfo reason, e.g. "OPERATION_CONFLICT".
     */
    'reason'?: (string);
    /**
     * A readable explanation.
     */
    'message'?: (string);
    /**
     * The offending request field for INVALID_REQUEST, e.g. "resize.cols".
     */
    'field'?: (string);
}
/**
 * ControlRejected says why a control on the attach stream was refused (as the status of the
 * same ControlController call would).
 */
export interface ControlRejected__Output {
    /**
     * The gRPC status code the unary call would have ended with, e.g. 10 (ABORTED).
     */
    'code': (number);
    /**
     * The ErrorInfo reason, e.g. "OPERATION_CONFLICT".
     */
    'reason': (string);
    /**
     * A readable explanation.
     */
    'message': (string);
    /**
     * The offending request field for INVALID_REQUEST, e.g. "resize.cols".
     */
    'field': (string);
}
