/**
 * GetSessionRequest names a session.
 */
export interface GetSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
}
/**
 * GetSessionRequest names a session.
 */
export interface GetSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
}
