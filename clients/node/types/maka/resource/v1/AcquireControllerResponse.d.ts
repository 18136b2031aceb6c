import type { Screen as _maka_resource_v1_Screen, Screen__Output as _maka_resource_v1_Screen__Output } from '../../../maka/resource/v1/Screen.js';
import type { Long } from '@grpc/proto-loader';
/**
 * AcquireControllerResponse describes the lease.
 */
export interface AcquireControllerResponse {
    /**
     * The controller's id.
     */
    'controllerId'?: (string);
    /**
     * The sequence the next control must carry.
     */
    'nextSequence'?: (number | string | Long);
    /**
     * The screen now.
     */
    'screen'?: (_maka_resource_v1_Screen | null);
    /**
     * The run's newest output chunk sequence now (attach after it for live output only).
     */
    'outputSequence'?: (number | string | Long);
}
/**
 * AcquireControllerResponse describes the lease.
 */
export interface AcquireControllerResponse__Output {
    /**
     * The controller's id.
     */
    'controllerId': (string);
    /**
     * The sequence the next control must carry.
     */
    'nextSequence': (string);
    /**
     * The screen now.
     */
    'screen': (_maka_resource_v1_Screen__Output | null);
    /**
     * The run's newest output chunk sequence now (attach after it for live output only).
     */
    'outputSequence': (string);
}
