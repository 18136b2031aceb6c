/**
 * SendMessageResponse says the message is queued.
 */
export interface SendMessageResponse {
    /**
     * The message id (the stored user message gets it when delivered).
     */
    'messageId'?: (string);
    /**
     * The turn it was queued for.
     */
    'turnId'?: (string);
}
/**
 * SendMessageResponse says the message is queued.
 */
export interface SendMessageResponse__Output {
    /**
     * The message id (the stored user message gets it when delivered).
     */
    'messageId': (string);
    /**
     * The turn it was queued for.
     */
    'turnId': (string);
}
