/**
 * TurnError is an error inside a turn; the turn goes on to its terminal TurnState.
 */
export interface TurnError {
    /**
     * What went wrong.
     */
    'message'?: (string);
    /**
     * A machine-readable code (e.g. "backend_failed").
     */
    'code'?: (string);
}
/**
 * TurnError is an error inside a turn; the turn goes on to its terminal TurnState.
 */
export interface TurnError__Output {
    /**
     * What went wrong.
     */
    'message': (string);
    /**
     * A machine-readable code (e.g. "backend_failed").
     */
    'code': (string);
}
