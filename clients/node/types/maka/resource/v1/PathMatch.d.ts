/**
 * PathMatch says how much of a path an entry covers.
 */
export declare const PathMatch: {
    /**
     * Not set: SUBTREE.
     */
    readonly PATH_MATCH_UNSPECIFIED: "PATH_MATCH_UNSPECIFIED";
    /**
     * The path itself: a file alone. (A directory is always granted with what it contains.)
     */
    readonly PATH_MATCH_EXACT: "PATH_MATCH_EXACT";
    /**
     * The path and everything below it.
     */
    readonly PATH_MATCH_SUBTREE: "PATH_MATCH_SUBTREE";
};
/**
 * PathMatch says how much of a path an entry covers.
 */
export type PathMatch = 
/**
 * Not set: SUBTREE.
 */
'PATH_MATCH_UNSPECIFIED' | 0
/**
 * The path itself: a file alone. (A directory is always granted with what it contains.)
 */
 | 'PATH_MATCH_EXACT' | 1
/**
 * The path and everything below it.
 */
 | 'PATH_MATCH_SUBTREE' | 2;
/**
 * PathMatch says how much of a path an entry covers.
 */
export type PathMatch__Output = typeof PathMatch[keyof typeof PathMatch];
