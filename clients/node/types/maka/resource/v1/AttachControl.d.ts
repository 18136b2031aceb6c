import type { TerminalSize as _maka_resource_v1_TerminalSize, TerminalSize__Output as _maka_resource_v1_TerminalSize__Output } from '../../../maka/resource/v1/TerminalSize.js';
import type { Long } from '@grpc/proto-loader';
/**
 * AttachControl is a control sent on the attach stream.
 */
export interface AttachControl {
    /**
     * Exactly the next sequence of the stream's lease.
     */
    'sequence'?: (number | string | Long);
    /**
     * Text to type, at most 32 KiB as UTF-8; empty for a resize only.
     */
    'input'?: (string);
    /**
     * The new size; unset for input only.
     */
    'resize'?: (_maka_resource_v1_TerminalSize | null);
}
/**
 * AttachControl is a control sent on the attach stream.
 */
export interface AttachControl__Output {
    /**
     * Exactly the next sequence of the stream's lease.
     */
    'sequence': (string);
    /**
     * Text to type, at most 32 KiB as UTF-8; empty for a resize only.
     */
    'input': (string);
    /**
     * The new size; unset for input only.
     */
    'resize': (_maka_resource_v1_TerminalSize__Output | null);
}
