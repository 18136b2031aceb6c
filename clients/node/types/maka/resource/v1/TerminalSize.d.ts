/**
 * TerminalSize is a PTY's size.
 */
export interface TerminalSize {
    /**
     * Columns, 2 to 240.
     */
    'cols'?: (number);
    /**
     * Rows, 1 to 100.
     */
    'rows'?: (number);
}
/**
 * TerminalSize is a PTY's size.
 */
export interface TerminalSize__Output {
    /**
     * Columns, 2 to 240.
     */
    'cols': (number);
    /**
     * Rows, 1 to 100.
     */
    'rows': (number);
}
