import type { PermissionProfile as _maka_resource_v1_PermissionProfile, PermissionProfile__Output as _maka_resource_v1_PermissionProfile__Output } from '../../../maka/resource/v1/PermissionProfile.js';
import type { BoundaryExpansion as _maka_resource_v1_BoundaryExpansion, BoundaryExpansion__Output as _maka_resource_v1_BoundaryExpansion__Output } from '../../../maka/resource/v1/BoundaryExpansion.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ExecutionBoundary is the sandbox of a run, as the kernel keeps it for the run's session. Set
 * by the kernel (or any caller of RunForeground/StartBackground); absent means the default:
 * WORKSPACE_WRITE with the session's working directory (and the run's cwd, when it names another
 * directory) as the writable root. At most 64 roots and 256 expansions; every path absolute.
 */
export interface ExecutionBoundary {
    /**
     * The permission profile; unset means WORKSPACE_WRITE.
     */
    'profile'?: (_maka_resource_v1_PermissionProfile);
    /**
     * Directories the run may write (read-only under READ_ONLY). Inside each, .git (and the
     * gitdir a .git file names) and .maka stay read-only unless an expansion names them. Empty
     * means the session's working directory.
     */
    'writableRoots'?: (string)[];
    /**
     * Directories the run may read, besides the system directories (/usr, /bin, /sbin, /lib*,
     * /etc; /etc/shadow and /etc/gshadow masked) and the service's --sandbox-readable-roots.
     */
    'readableRoots'?: (string)[];
    /**
     * Everything granted beyond the profile so far, oldest first.
     */
    'expansions'?: (_maka_resource_v1_BoundaryExpansion)[];
    /**
     * The kernel's revision of the session's boundary: grows with every change, recorded on the
     * run (Run.sandbox.boundary_revision). 0 for a boundary that never changed; never negative.
     */
    'revision'?: (number | string | Long);
}
/**
 * ExecutionBoundary is the sandbox of a run, as the kernel keeps it for the run's session. Set
 * by the kernel (or any caller of RunForeground/StartBackground); absent means the default:
 * WORKSPACE_WRITE with the session's working directory (and the run's cwd, when it names another
 * directory) as the writable root. At most 64 roots and 256 expansions; every path absolute.
 */
export interface ExecutionBoundary__Output {
    /**
     * The permission profile; unset means WORKSPACE_WRITE.
     */
    'profile': (_maka_resource_v1_PermissionProfile__Output);
    /**
     * Directories the run may write (read-only under READ_ONLY). Inside each, .git (and the
     * gitdir a .git file names) and .maka stay read-only unless an expansion names them. Empty
     * means the session's working directory.
     */
    'writableRoots': (string)[];
    /**
     * Directories the run may read, besides the system directories (/usr, /bin, /sbin, /lib*,
     * /etc; /etc/shadow and /etc/gshadow masked) and the service's --sandbox-readable-roots.
     */
    'readableRoots': (string)[];
    /**
     * Everything granted beyond the profile so far, oldest first.
     */
    'expansions': (_maka_resource_v1_BoundaryExpansion__Output)[];
    /**
     * The kernel's revision of the session's boundary: grows with every change, recorded on the
     * run (Run.sandbox.boundary_revision). 0 for a boundary that never changed; never negative.
     */
    'revision': (string);
}
