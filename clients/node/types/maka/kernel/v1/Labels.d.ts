/**
 * Labels is a list of labels (a message so that "no change" and "no labels" differ).
 */
export interface Labels {
    /**
     * The labels.
     */
    'values'?: (string)[];
}
/**
 * Labels is a list of labels (a message so that "no change" and "no labels" differ).
 */
export interface Labels__Output {
    /**
     * The labels.
     */
    'values': (string)[];
}
