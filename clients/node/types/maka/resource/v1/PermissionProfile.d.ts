/**
 * PermissionProfile is how much a run may touch.
 */
export declare const PermissionProfile: {
    /**
     * Not set: the default, WORKSPACE_WRITE.
     */
    readonly PERMISSION_PROFILE_UNSPECIFIED: "PERMISSION_PROFILE_UNSPECIFIED";
    /**
     * Read the system directories and the boundary's roots (writable roots are read-only too);
     * write nothing but a private /tmp; no network.
     */
    readonly PERMISSION_PROFILE_READ_ONLY: "PERMISSION_PROFILE_READ_ONLY";
    /**
     * Write the writable roots (protected metadata inside them stays read-only), read the system
     * directories and the readable roots, a private /tmp; no network. The default.
     */
    readonly PERMISSION_PROFILE_WORKSPACE_WRITE: "PERMISSION_PROFILE_WORKSPACE_WRITE";
    /**
     * No sandbox: the run sees the host as the service does, with the network. An explicit
     * opt-in, recorded on every run that uses it. Still contained in a cgroup, and still with the
     * clean environment.
     */
    readonly PERMISSION_PROFILE_DANGER_FULL_ACCESS: "PERMISSION_PROFILE_DANGER_FULL_ACCESS";
};
/**
 * PermissionProfile is how much a run may touch.
 */
export type PermissionProfile = 
/**
 * Not set: the default, WORKSPACE_WRITE.
 */
'PERMISSION_PROFILE_UNSPECIFIED' | 0
/**
 * Read the system directories and the boundary's roots (writable roots are read-only too);
 * write nothing but a private /tmp; no network.
 */
 | 'PERMISSION_PROFILE_READ_ONLY' | 1
/**
 * Write the writable roots (protected metadata inside them stays read-only), read the system
 * directories and the readable roots, a private /tmp; no network. The default.
 */
 | 'PERMISSION_PROFILE_WORKSPACE_WRITE' | 2
/**
 * No sandbox: the run sees the host as the service does, with the network. An explicit
 * opt-in, recorded on every run that uses it. Still contained in a cgroup, and still with the
 * clean environment.
 */
 | 'PERMISSION_PROFILE_DANGER_FULL_ACCESS' | 3;
/**
 * PermissionProfile is how much a run may touch.
 */
export type PermissionProfile__Output = typeof PermissionProfile[keyof typeof PermissionProfile];
