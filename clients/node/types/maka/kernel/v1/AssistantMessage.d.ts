/**
 * AssistantMessage is the complete text of one assistant message (its text deltas joined).
 */
export interface AssistantMessage {
    /**
     * The message id the text deltas carried.
     */
    'messageId'?: (string);
    /**
     * The text.
     */
    'text'?: (string);
}
/**
 * AssistantMessage is the complete text of one assistant message (its text deltas joined).
 */
export interface AssistantMessage__Output {
    /**
     * The message id the text deltas carried.
     */
    'messageId': (string);
    /**
     * The text.
     */
    'text': (string);
}
