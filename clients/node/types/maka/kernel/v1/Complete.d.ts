/**
 * Complete is the backend finishing a turn.
 */
export interface Complete {
    /**
     * Why it finished: "end_turn", "user_stop", "redirect", "denied" …
     */
    'stopReason'?: (string);
}
/**
 * Complete is the backend finishing a turn.
 */
export interface Complete__Output {
    /**
     * Why it finished: "end_turn", "user_stop", "redirect", "denied" …
     */
    'stopReason': (string);
}
