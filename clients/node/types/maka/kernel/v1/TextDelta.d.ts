/**
 * TextDelta is a piece of assistant text.
 */
export interface TextDelta {
    /**
     * The assistant message the text belongs to.
     */
    'messageId'?: (string);
    /**
     * The text.
     */
    'text'?: (string);
}
/**
 * TextDelta is a piece of assistant text.
 */
export interface TextDelta__Output {
    /**
     * The assistant message the text belongs to.
     */
    'messageId': (string);
    /**
     * The text.
     */
    'text': (string);
}
