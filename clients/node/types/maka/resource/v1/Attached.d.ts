import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
import type { Screen as _maka_resource_v1_Screen, Screen__Output as _maka_resource_v1_Screen__Output } from '../../../maka/resource/v1/Screen.js';
import type { Long } from '@grpc/proto-loader';
/**
 * Attached is the first answer on an attach stream.
 */
export interface Attached {
    /**
     * The run now.
     */
    'run'?: (_maka_resource_v1_Run | null);
    /**
     * The screen now (unset for a pipes run).
     */
    'screen'?: (_maka_resource_v1_Screen | null);
    /**
     * The newest output sequence now.
     */
    'outputSequence'?: (number | string | Long);
    /**
     * The next control sequence when the stream holds the lease; 0 otherwise.
     */
    'nextSequence'?: (number | string | Long);
}
/**
 * Attached is the first answer on an attach stream.
 */
export interface Attached__Output {
    /**
     * The run now.
     */
    'run': (_maka_resource_v1_Run__Output | null);
    /**
     * The screen now (unset for a pipes run).
     */
    'screen': (_maka_resource_v1_Screen__Output | null);
    /**
     * The newest output sequence now.
     */
    'outputSequence': (string);
    /**
     * The next control sequence when the stream holds the lease; 0 otherwise.
     */
    'nextSequence': (string);
}
