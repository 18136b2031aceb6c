/**
 * Screen is a PTY run's terminal as a terminal emulator renders it.
 */
export interface Screen {
    /**
     * Width in columns.
     */
    'cols'?: (number);
    /**
     * Height in rows.
     */
    'rows'?: (number);
    /**
     * The visible rows, top to bottom, trailing blanks removed.
     */
    'lines'?: (string)[];
    /**
     * Rows that scrolled off the top, oldest first (at most 500 by default).
     */
    'scrollback'?: (string)[];
    /**
     * Cursor row, from 0 at the top.
     */
    'cursorRow'?: (number);
    /**
     * Cursor column, from 0 at the left.
     */
    'cursorCol'?: (number);
    /**
     * False when the program hid the cursor.
     */
    'cursorVisible'?: (boolean);
    /**
     * True while a full-screen program uses the alternate screen.
     */
    'alternateScreen'?: (boolean);
}
/**
 * Screen is a PTY run's terminal as a terminal emulator renders it.
 */
export interface Screen__Output {
    /**
     * Width in columns.
     */
    'cols': (number);
    /**
     * Height in rows.
     */
    'rows': (number);
    /**
     * The visible rows, top to bottom, trailing blanks removed.
     */
    'lines': (string)[];
    /**
     * Rows that scrolled off the top, oldest first (at most 500 by default).
     */
    'scrollback': (string)[];
    /**
     * Cursor row, from 0 at the top.
     */
    'cursorRow': (number);
    /**
     * Cursor column, from 0 at the left.
     */
    'cursorCol': (number);
    /**
     * False when the program hid the cursor.
     */
    'cursorVisible': (boolean);
    /**
     * True while a full-screen program uses the alternate screen.
     */
    'alternateScreen': (boolean);
}
