/**
 * ReleaseControllerResponse says whether a lease was released.
 */
export interface ReleaseControllerResponse {
    /**
     * The controller's id.
     */
    'controllerId'?: (string);
    /**
     * False when the caller held no lease (any more).
     */
    'released'?: (boolean);
}
/**
 * ReleaseControllerResponse says whether a lease was released.
 */
export interface ReleaseControllerResponse__Output {
    /**
     * The controller's id.
     */
    'controllerId': (string);
    /**
     * False when the caller held no lease (any more).
     */
    'released': (boolean);
}
