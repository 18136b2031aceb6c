/**
 * OpenConnectionResponse is sent once, at the start of the stream.
 */
export interface OpenConnectionResponse {
    /**
     * The connection's id: pass it as connection_id to the controller RPCs.
     */
    'connectionId'?: (string);
}
/**
 * OpenConnectionResponse is sent once, at the start of the stream.
 */
export interface OpenConnectionResponse__Output {
    /**
     * The connection's id: pass it as connection_id to the controller RPCs.
     */
    'connectionId': (string);
}
