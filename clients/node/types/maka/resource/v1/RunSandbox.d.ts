import type { PermissionProfile as _maka_resource_v1_PermissionProfile, PermissionProfile__Output as _maka_resource_v1_PermissionProfile__Output } from '../../../maka/resource/v1/PermissionProfile.js';
import type { Containment as _maka_resource_v1_Containment, Containment__Output as _maka_resource_v1_Containment__Output } from '../../../maka/resource/v1/Containment.js';
import type { Long } from '@grpc/proto-loader';
/**
 * RunSandbox is how one run was confined (set by the service on every run it records).
 */
export interface RunSandbox {
    /**
     * The run's profile: DANGER_FULL_ACCESS means it ran without a sandbox.
     */
    'profile'?: (_maka_resource_v1_PermissionProfile);
    /**
     * The revision of the boundary the run carried (0: the default boundary).
     */
    'boundaryRevision'?: (number | string | Long);
    /**
     * True when the run had the network.
     */
    'network'?: (boolean);
    /**
     * How every process of the run is ended with it: CGROUP (its own cgroup v2, ended with
     * cgroup.kill) or PROCESS_GROUP (its process group, and its marker variable at start-up).
     */
    'containment'?: (_maka_resource_v1_Containment);
}
/**
 * RunSandbox is how one run was confined (set by the service on every run it records).
 */
export interface RunSandbox__Output {
    /**
     * The run's profile: DANGER_FULL_ACCESS means it ran without a sandbox.
     */
    'profile': (_maka_resource_v1_PermissionProfile__Output);
    /**
     * The revision of the boundary the run carried (0: the default boundary).
     */
    'boundaryRevision': (string);
    /**
     * True when the run had the network.
     */
    'network': (boolean);
    /**
     * How every process of the run is ended with it: CGROUP (its own cgroup v2, ended with
     * cgroup.kill) or PROCESS_GROUP (its process group, and its marker variable at start-up).
     */
    'containment': (_maka_resource_v1_Containment__Output);
}
