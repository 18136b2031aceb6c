/**
 * DeleteSessionRequest names the session to delete.
 */
export interface DeleteSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
}
/**
 * DeleteSessionRequest names the session to delete.
 */
export interface DeleteSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
}
