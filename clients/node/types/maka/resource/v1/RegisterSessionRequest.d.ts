/**
 * RegisterSessionRequest describes a session the kernel knows.
 */
export interface RegisterSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The session's absolute working directory: the default cwd of its runs; empty keeps the
     * service's default (the user's home directory).
     */
    'cwd'?: (string);
    /**
     * The principal that owns the session on the kernel (set by the kernel from the session
     * header; empty: the local principal's, as for a session from before owners were recorded).
     * That principal may then read, watch, attach to, control and stop the session's runs; it may
     * not start runs in it. At most 256 bytes.
     */
    'owner'?: (string);
}
/**
 * RegisterSessionRequest describes a session the kernel knows.
 */
export interface RegisterSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The session's absolute working directory: the default cwd of its runs; empty keeps the
     * service's default (the user's home directory).
     */
    'cwd': (string);
    /**
     * The principal that owns the session on the kernel (set by the kernel from the session
     * header; empty: the local principal's, as for a session from before owners were recorded).
     * That principal may then read, watch, attach to, control and stop the session's runs; it may
     * not start runs in it. At most 256 bytes.
     */
    'owner': (string);
}
