/**
 * UserMessage is text a user sent.
 */
export interface UserMessage {
    /**
     * The text.
     */
    'text'?: (string);
    /**
     * True for a message sent into a running turn (SendMessage) and delivered to it.
     */
    'queued'?: (boolean);
}
/**
 * UserMessage is text a user sent.
 */
export interface UserMessage__Output {
    /**
     * The text.
     */
    'text': (string);
    /**
     * True for a message sent into a running turn (SendMessage) and delivered to it.
     */
    'queued': (boolean);
}
