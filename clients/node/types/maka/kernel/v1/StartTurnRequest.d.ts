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
    /**
     * Set by a client that reads more_events: when it falls behind the turn, the events that
     * piled up meanwhile come together in one response (event, then more_events), each with
     * its own seq, none dropped. Unset (the default, and every client written before this
     * field): exactly one event per response.
     */
    'coalesceEvents'?: (boolean);
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
    /**
     * Set by a client that reads more_events: when it falls behind the turn, the events that
     * piled up meanwhile come together in one response (event, then more_events), each with
     * its own seq, none dropped. Unset (the default, and every client written before this
     * field): exactly one event per response.
     */
    'coalesceEvents': (boolean);
}
