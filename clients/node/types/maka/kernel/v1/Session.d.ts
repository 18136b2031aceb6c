import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { SessionStatus as _maka_kernel_v1_SessionStatus, SessionStatus__Output as _maka_kernel_v1_SessionStatus__Output } from '../../../maka/kernel/v1/SessionStatus.js';
import type { PermissionMode as _maka_kernel_v1_PermissionMode, PermissionMode__Output as _maka_kernel_v1_PermissionMode__Output } from '../../../maka/kernel/v1/PermissionMode.js';
import type { ExecutionBoundary as _maka_resource_v1_ExecutionBoundary, ExecutionBoundary__Output as _maka_resource_v1_ExecutionBoundary__Output } from '../../../maka/resource/v1/ExecutionBoundary.js';
/**
 * Session is a session's header.
 */
export interface Session {
    /**
     * The session id.
     */
    'id'?: (string);
    /**
     * The absolute workspace root the agent works in.
     */
    'workspaceRoot'?: (string);
    /**
     * The absolute working directory (inside or equal to the workspace root).
     */
    'cwd'?: (string);
    /**
     * When the session was created.
     */
    'createdAt'?: (_google_protobuf_Timestamp | null);
    /**
     * When a turn last started.
     */
    'lastUsedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * The session's name.
     */
    'name'?: (string);
    /**
     * True when the name was set by a user (not generated).
     */
    'titleIsManual'?: (boolean);
    /**
     * True when flagged by a user.
     */
    'flagged'?: (boolean);
    /**
     * The session's labels.
     */
    'labels'?: (string)[];
    /**
     * True when archived (archived sessions refuse turns).
     */
    'archived'?: (boolean);
    /**
     * What the session is doing.
     */
    'status'?: (_maka_kernel_v1_SessionStatus);
    /**
     * When the status last changed.
     */
    'statusUpdatedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * True when a turn completed since the session was last marked read.
     */
    'hasUnread'?: (boolean);
    /**
     * The kind of backend built for this session (e.g. "scripted").
     */
    'backend'?: (string);
    /**
     * The slug of the model connection the backend uses.
     */
    'llmConnectionSlug'?: (string);
    /**
     * True when the connection may no longer change.
     */
    'connectionLocked'?: (boolean);
    /**
     * The model name.
     */
    'model'?: (string);
    /**
     * Whether the agent asks before crossing the sandbox boundary.
     */
    'permissionMode'?: (_maka_kernel_v1_PermissionMode);
    /**
     * The version of the session schema.
     */
    'schemaVersion'?: (number);
    /**
     * Free-form settings for the backend (the scripted backend reads "script").
     */
    'backendOptions'?: ({
        [key: string]: string;
    });
    /**
     * The principal that created the session and owns it ("local" for a session created with
     * the local credential, and for one created before owners were recorded). Set by the
     * kernel, never by a client; only the owner and admin see the session at all.
     */
    'owner'?: (string);
    /**
     * The session's execution boundary, as the kernel keeps it: the permission profile chosen
     * at CreateSession, the expansions approved for the session so far (allow_session of a
     * sandbox-boundary request), oldest first, and its revision (1 at creation, one more with
     * every change; durable across kernel restarts). writable_roots is empty here: every run
     * carries workspace_root as its writable root (read-only under READ_ONLY). Set by the
     * kernel, never by a client.
     */
    'boundary'?: (_maka_resource_v1_ExecutionBoundary | null);
}
/**
 * Session is a session's header.
 */
export interface Session__Output {
    /**
     * The session id.
     */
    'id': (string);
    /**
     * The absolute workspace root the agent works in.
     */
    'workspaceRoot': (string);
    /**
     * The absolute working directory (inside or equal to the workspace root).
     */
    'cwd': (string);
    /**
     * When the session was created.
     */
    'createdAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * When a turn last started.
     */
    'lastUsedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * The session's name.
     */
    'name': (string);
    /**
     * True when the name was set by a user (not generated).
     */
    'titleIsManual': (boolean);
    /**
     * True when flagged by a user.
     */
    'flagged': (boolean);
    /**
     * The session's labels.
     */
    'labels': (string)[];
    /**
     * True when archived (archived sessions refuse turns).
     */
    'archived': (boolean);
    /**
     * What the session is doing.
     */
    'status': (_maka_kernel_v1_SessionStatus__Output);
    /**
     * When the status last changed.
     */
    'statusUpdatedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * True when a turn completed since the session was last marked read.
     */
    'hasUnread': (boolean);
    /**
     * The kind of backend built for this session (e.g. "scripted").
     */
    'backend': (string);
    /**
     * The slug of the model connection the backend uses.
     */
    'llmConnectionSlug': (string);
    /**
     * True when the connection may no longer change.
     */
    'connectionLocked': (boolean);
    /**
     * The model name.
     */
    'model': (string);
    /**
     * Whether the agent asks before crossing the sandbox boundary.
     */
    'permissionMode': (_maka_kernel_v1_PermissionMode__Output);
    /**
     * The version of the session schema.
     */
    'schemaVersion': (number);
    /**
     * Free-form settings for the backend (the scripted backend reads "script").
     */
    'backendOptions': ({
        [key: string]: string;
    });
    /**
     * The principal that created the session and owns it ("local" for a session created with
     * the local credential, and for one created before owners were recorded). Set by the
     * kernel, never by a client; only the owner and admin see the session at all.
     */
    'owner': (string);
    /**
     * The session's execution boundary, as the kernel keeps it: the permission profile chosen
     * at CreateSession, the expansions approved for the session so far (allow_session of a
     * sandbox-boundary request), oldest first, and its revision (1 at creation, one more with
     * every change; durable across kernel restarts). writable_roots is empty here: every run
     * carries workspace_root as its writable root (read-only under READ_ONLY). Set by the
     * kernel, never by a client.
     */
    'boundary': (_maka_resource_v1_ExecutionBoundary__Output | null);
}
