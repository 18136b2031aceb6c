/**
 * PermissionMode says whether the agent asks before crossing the sandbox boundary.
 */
export declare const PermissionMode: {
    /**
     * Not set (on update: leave unchanged; on create: ASK).
     */
    readonly PERMISSION_MODE_UNSPECIFIED: "PERMISSION_MODE_UNSPECIFIED";
    /**
     * Ask for approval (a sandbox-boundary request) before crossing the boundary.
     */
    readonly PERMISSION_MODE_ASK: "PERMISSION_MODE_ASK";
    /**
     * Never ask.
     */
    readonly PERMISSION_MODE_BYPASS: "PERMISSION_MODE_BYPASS";
};
/**
 * PermissionMode says whether the agent asks before crossing the sandbox boundary.
 */
export type PermissionMode = 
/**
 * Not set (on update: leave unchanged; on create: ASK).
 */
'PERMISSION_MODE_UNSPECIFIED' | 0
/**
 * Ask for approval (a sandbox-boundary request) before crossing the boundary.
 */
 | 'PERMISSION_MODE_ASK' | 1
/**
 * Never ask.
 */
 | 'PERMISSION_MODE_BYPASS' | 2;
/**
 * PermissionMode says whether the agent asks before crossing the sandbox boundary.
 */
export type PermissionMode__Output = typeof PermissionMode[keyof typeof PermissionMode];
