/**
 * OpenConnectionRequest describes the client (for logs).
 */
export interface OpenConnectionRequest {
    /**
     * A name for the client, e.g. "maka-cli"; optional.
     */
    'clientName'?: (string);
}
/**
 * OpenConnectionRequest describes the client (for logs).
 */
export interface OpenConnectionRequest__Output {
    /**
     * A name for the client, e.g. "maka-cli"; optional.
     */
    'clientName': (string);
}
