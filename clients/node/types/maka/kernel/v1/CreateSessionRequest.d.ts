import type { PermissionMode as _maka_kernel_v1_PermissionMode, PermissionMode__Output as _maka_kernel_v1_PermissionMode__Output } from '../../../maka/kernel/v1/PermissionMode.js';
import type { PermissionProfile as _maka_resource_v1_PermissionProfile, PermissionProfile__Output as _maka_resource_v1_PermissionProfile__Output } from '../../../maka/resource/v1/PermissionProfile.js';
/**
 * CreateSessionRequest describes a new session. Every string has a length limit (UTF-8 bytes;
 * over it: INVALID_ARGUMENT with the field and the limit in ErrorInfo metadata). During a
 * drain it is UNAVAILABLE/HOST_DRAINING.
 */
export interface CreateSessionRequest {
    /**
     * The id to use (1-128 of letters, digits, '.', '_', ':', '-'); empty lets the kernel
     * choose one. An id already in use is ALREADY_EXISTS.
     */
    'sessionId'?: (string);
    /**
     * The absolute workspace root (required, at most 4095 bytes): an existing directory.
     */
    'workspaceRoot'?: (string);
    /**
     * The absolute working directory (at most 4095 bytes); empty means the workspace root. It
     * must be an existing directory inside the workspace root once ".." and symlinks are
     * resolved.
     */
    'cwd'?: (string);
    /**
     * The session's name (at most 1024 bytes); a non-empty name counts as set by a user.
     */
    'name'?: (string);
    /**
     * The backend kind ("shell", "llm" or "scripted"); empty means the kernel's default backend
     * (--default-backend, "shell" unless configured). An unknown kind is INVALID_ARGUMENT.
     */
    'backend'?: (string);
    /**
     * The model name (at most 256 bytes).
     */
    'model'?: (string);
    /**
     * Whether the agent asks before crossing the sandbox boundary (default ASK).
     */
    'permissionMode'?: (_maka_kernel_v1_PermissionMode);
    /**
     * Labels: at most 32, each 1-64 characters without ','.
     */
    'labels'?: (string)[];
    /**
     * The slug of the model connection (at most 128 bytes).
     */
    'llmConnectionSlug'?: (string);
    /**
     * True to lock the connection.
     */
    'connectionLocked'?: (boolean);
    /**
     * Settings for the backend: at most 64 entries, keys at most 128 bytes, values at most
     * 64 KiB, 256 KiB in all.
     */
    'backendOptions'?: ({
        [key: string]: string;
    });
    /**
     * The session's permission profile: READ_ONLY, WORKSPACE_WRITE (unset: the default) or
     * DANGER_FULL_ACCESS (no sandbox: an explicit opt-in, shown on the session and on every tool
     * result). Fixed for the session's life; only approvals widen its boundary.
     */
    'profile'?: (_maka_resource_v1_PermissionProfile);
}
/**
 * CreateSessionRequest describes a new session. Every string has a length limit (UTF-8 bytes;
 * over it: INVALID_ARGUMENT with the field and the limit in ErrorInfo metadata). During a
 * drain it is UNAVAILABLE/HOST_DRAINING.
 */
export interface CreateSessionRequest__Output {
    /**
     * The id to use (1-128 of letters, digits, '.', '_', ':', '-'); empty lets the kernel
     * choose one. An id already in use is ALREADY_EXISTS.
     */
    'sessionId': (string);
    /**
     * The absolute workspace root (required, at most 4095 bytes): an existing directory.
     */
    'workspaceRoot': (string);
    /**
     * The absolute working directory (at most 4095 bytes); empty means the workspace root. It
     * must be an existing directory inside the workspace root once ".." and symlinks are
     * resolved.
     */
    'cwd': (string);
    /**
     * The session's name (at most 1024 bytes); a non-empty name counts as set by a user.
     */
    'name': (string);
    /**
     * The backend kind ("shell", "llm" or "scripted"); empty means the kernel's default backend
     * (--default-backend, "shell" unless configured). An unknown kind is INVALID_ARGUMENT.
     */
    'backend': (string);
    /**
     * The model name (at most 256 bytes).
     */
    'model': (string);
    /**
     * Whether the agent asks before crossing the sandbox boundary (default ASK).
     */
    'permissionMode': (_maka_kernel_v1_PermissionMode__Output);
    /**
     * Labels: at most 32, each 1-64 characters without ','.
     */
    'labels': (string)[];
    /**
     * The slug of the model connection (at most 128 bytes).
     */
    'llmConnectionSlug': (string);
    /**
     * True to lock the connection.
     */
    'connectionLocked': (boolean);
    /**
     * Settings for the backend: at most 64 entries, keys at most 128 bytes, values at most
     * 64 KiB, 256 KiB in all.
     */
    'backendOptions': ({
        [key: string]: string;
    });
    /**
     * The session's permission profile: READ_ONLY, WORKSPACE_WRITE (unset: the default) or
     * DANGER_FULL_ACCESS (no sandbox: an explicit opt-in, shown on the session and on every tool
     * result). Fixed for the session's life; only approvals widen its boundary.
     */
    'profile': (_maka_resource_v1_PermissionProfile__Output);
}
