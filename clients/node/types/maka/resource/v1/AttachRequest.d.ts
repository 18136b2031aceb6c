import type { AttachStart as _maka_resource_v1_AttachStart, AttachStart__Output as _maka_resource_v1_AttachStart__Output } from '../../../maka/resource/v1/AttachStart.js';
import type { AttachControl as _maka_resource_v1_AttachControl, AttachControl__Output as _maka_resource_v1_AttachControl__Output } from '../../../maka/resource/v1/AttachControl.js';
/**
 * AttachRequest is one message from an attached client: `start` first, then `control`s.
 */
export interface AttachRequest {
    /**
     * What to attach to; must be the first message, and only the first.
     */
    'start'?: (_maka_resource_v1_AttachStart | null);
    /**
     * Input and/or resize under the stream's lease.
     */
    'control'?: (_maka_resource_v1_AttachControl | null);
    /**
     * The message.
     */
    'action'?: "start" | "control";
}
/**
 * AttachRequest is one message from an attached client: `start` first, then `control`s.
 */
export interface AttachRequest__Output {
    /**
     * What to attach to; must be the first message, and only the first.
     */
    'start'?: (_maka_resource_v1_AttachStart__Output | null);
    /**
     * Input and/or resize under the stream's lease.
     */
    'control'?: (_maka_resource_v1_AttachControl__Output | null);
    /**
     * The message.
     */
    'action'?: "start" | "control";
}
