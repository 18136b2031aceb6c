/**
 * StopRunRequest names the run to stop.
 */
export interface StopRunRequest {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId'?: (string);
    /**
     * The run's reference.
     */
    'ref'?: (string);
}
/**
 * StopRunRequest names the run to stop.
 */
export interface StopRunRequest__Output {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId': (string);
    /**
     * The run's reference.
     */
    'ref': (string);
}
