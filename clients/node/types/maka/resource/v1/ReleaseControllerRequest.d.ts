/**
 * ReleaseControllerRequest gives up a lease.
 */
export interface ReleaseControllerRequest {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId'?: (string);
    /**
     * The run's reference.
     */
    'ref'?: (string);
    /**
     * The controller's id.
     */
    'controllerId'?: (string);
    /**
     * The connection the lease was acquired on (empty for a detached lease).
     */
    'connectionId'?: (string);
}
/**
 * ReleaseControllerRequest gives up a lease.
 */
export interface ReleaseControllerRequest__Output {
    /**
     * The session the run belongs to; optional (empty: the run's own session). Any other session
     * than the run's is NOT_FOUND.
     */
    'sessionId': (string);
    /**
     * The run's reference.
     */
    'ref': (string);
    /**
     * The controller's id.
     */
    'controllerId': (string);
    /**
     * The connection the lease was acquired on (empty for a detached lease).
     */
    'connectionId': (string);
}
