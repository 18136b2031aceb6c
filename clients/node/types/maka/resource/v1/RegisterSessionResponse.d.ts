/**
 * RegisterSessionResponse confirms the registration.
 */
export interface RegisterSessionResponse {
    /**
     * True when this call changed what the service knew (new session, new cwd, or unarchived).
     */
    'changed'?: (boolean);
}
/**
 * RegisterSessionResponse confirms the registration.
 */
export interface RegisterSessionResponse__Output {
    /**
     * True when this call changed what the service knew (new session, new cwd, or unarchived).
     */
    'changed': (boolean);
}
