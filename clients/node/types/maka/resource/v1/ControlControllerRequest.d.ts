import type { TerminalSize as _maka_resource_v1_TerminalSize, TerminalSize__Output as _maka_resource_v1_TerminalSize__Output } from '../../../maka/resource/v1/TerminalSize.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ControlControllerRequest sends input, a resize, or both (the resize first).
 */
export interface ControlControllerRequest {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId'?: (string);
    /**
     * The run's reference.
     */
    'ref'?: (string);
    /**
     * The controller holding the lease.
     */
    'controllerId'?: (string);
    /**
     * The connection the lease was acquired on (empty for a detached lease).
     */
    'connectionId'?: (string);
    /**
     * Exactly the next sequence: 1 for the first control of a lease.
     */
    'sequence'?: (number | string | Long);
    /**
     * Text to type, at most 32 KiB as UTF-8 (e.g. "ls\r"); empty for a resize only.
     */
    'input'?: (string);
    /**
     * The new size; unset for input only.
     */
    'resize'?: (_maka_resource_v1_TerminalSize | null);
}
/**
 * ControlControllerRequest sends input, a resize, or both (the resize first).
 */
export interface ControlControllerRequest__Output {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId': (string);
    /**
     * The run's reference.
     */
    'ref': (string);
    /**
     * The controller holding the lease.
     */
    'controllerId': (string);
    /**
     * The connection the lease was acquired on (empty for a detached lease).
     */
    'connectionId': (string);
    /**
     * Exactly the next sequence: 1 for the first control of a lease.
     */
    'sequence': (string);
    /**
     * Text to type, at most 32 KiB as UTF-8 (e.g. "ls\r"); empty for a resize only.
     */
    'input': (string);
    /**
     * The new size; unset for input only.
     */
    'resize': (_maka_resource_v1_TerminalSize__Output | null);
}
