import type { Labels as _maka_kernel_v1_Labels, Labels__Output as _maka_kernel_v1_Labels__Output } from '../../../maka/kernel/v1/Labels.js';
import type { PermissionMode as _maka_kernel_v1_PermissionMode, PermissionMode__Output as _maka_kernel_v1_PermissionMode__Output } from '../../../maka/kernel/v1/PermissionMode.js';
/**
 * UpdateSessionRequest changes a session; unset fields stay as they are.
 */
export interface UpdateSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * A new name (marks the title as set by a user).
     */
    'name'?: (string);
    /**
     * Flag or unflag.
     */
    'flagged'?: (boolean);
    /**
     * Replace the labels.
     */
    'labels'?: (_maka_kernel_v1_Labels | null);
    /**
     * A new model name (at most 256 bytes).
     */
    'model'?: (string);
    /**
     * A new permission mode (UNSPECIFIED: unchanged).
     */
    'permissionMode'?: (_maka_kernel_v1_PermissionMode);
    /**
     * Archive (stops a running turn first) or unarchive.
     */
    'archived'?: (boolean);
    /**
     * Mark read (false) or unread (true).
     */
    'hasUnread'?: (boolean);
    /**
     * A new absolute working directory: an existing directory inside the workspace root once
     * ".." and symlinks are resolved (else INVALID_ARGUMENT, field cwd).
     */
    'cwd'?: (string);
    '_name'?: "name";
    '_flagged'?: "flagged";
    '_model'?: "model";
    '_archived'?: "archived";
    '_hasUnread'?: "hasUnread";
    '_cwd'?: "cwd";
}
/**
 * UpdateSessionRequest changes a session; unset fields stay as they are.
 */
export interface UpdateSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * A new name (marks the title as set by a user).
     */
    'name'?: (string);
    /**
     * Flag or unflag.
     */
    'flagged'?: (boolean);
    /**
     * Replace the labels.
     */
    'labels': (_maka_kernel_v1_Labels__Output | null);
    /**
     * A new model name (at most 256 bytes).
     */
    'model'?: (string);
    /**
     * A new permission mode (UNSPECIFIED: unchanged).
     */
    'permissionMode': (_maka_kernel_v1_PermissionMode__Output);
    /**
     * Archive (stops a running turn first) or unarchive.
     */
    'archived'?: (boolean);
    /**
     * Mark read (false) or unread (true).
     */
    'hasUnread'?: (boolean);
    /**
     * A new absolute working directory: an existing directory inside the workspace root once
     * ".." and symlinks are resolved (else INVALID_ARGUMENT, field cwd).
     */
    'cwd'?: (string);
    '_name'?: "name";
    '_flagged'?: "flagged";
    '_model'?: "model";
    '_archived'?: "archived";
    '_hasUnread'?: "hasUnread";
    '_cwd'?: "cwd";
}
