/**
 * StartTurnRequest starts (or attaches to) a turn.
 */
export interface StartTurnRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The turn id; a retry with the same id (and text) attaches to the same turn. Empty lets
     * the kernel choose one.
     */
    'turnId'?: (string);
    /**
     * What the user says (not empty, at most 64 KiB of UTF-8).
     */
    'text'?: (string);
}
/**
 * StartTurnRequest starts (or attaches to) a turn.
 */
export interface StartTurnRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The turn id; a retry with the same id (and text) attaches to the same turn. Empty lets
     * the kernel choose one.
     */
    'turnId': (string);
    /**
     * What the user says (not empty, at most 64 KiB of UTF-8).
     */
    'text': (string);
}
