/**
 * AcquireControllerRequest asks for the controller lease of a PTY run.
 */
export interface AcquireControllerRequest {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId'?: (string);
    /**
     * The run's reference; it must be an active PTY run.
     */
    'ref'?: (string);
    /**
     * The controller's id, chosen by the client.
     */
    'controllerId'?: (string);
    /**
     * The id from OpenConnection; the lease is released when that connection ends. Empty means
     * a detached lease that lasts until it is released or the run ends (for scripts).
     */
    'connectionId'?: (string);
}
/**
 * AcquireControllerRequest asks for the controller lease of a PTY run.
 */
export interface AcquireControllerRequest__Output {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId': (string);
    /**
     * The run's reference; it must be an active PTY run.
     */
    'ref': (string);
    /**
     * The controller's id, chosen by the client.
     */
    'controllerId': (string);
    /**
     * The id from OpenConnection; the lease is released when that connection ends. Empty means
     * a detached lease that lasts until it is released or the run ends (for scripts).
     */
    'connectionId': (string);
}
