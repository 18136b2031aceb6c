/**
 * ArchiveSessionRequest names the session to archive.
 */
export interface ArchiveSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * True when the kernel deleted the session: later operations get NOT_FOUND.
     */
    'deleted'?: (boolean);
}
/**
 * ArchiveSessionRequest names the session to archive.
 */
export interface ArchiveSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * True when the kernel deleted the session: later operations get NOT_FOUND.
     */
    'deleted': (boolean);
}
