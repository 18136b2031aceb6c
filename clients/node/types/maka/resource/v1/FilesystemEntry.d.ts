import type { FilesystemAccess as _maka_resource_v1_FilesystemAccess, FilesystemAccess__Output as _maka_resource_v1_FilesystemAccess__Output } from '../../../maka/resource/v1/FilesystemAccess.js';
import type { PathMatch as _maka_resource_v1_PathMatch, PathMatch__Output as _maka_resource_v1_PathMatch__Output } from '../../../maka/resource/v1/PathMatch.js';
/**
 * FilesystemEntry is one granted path.
 */
export interface FilesystemEntry {
    /**
     * An absolute path, at most 4095 bytes, without NUL. A path that does not exist when the run
     * starts is skipped (bubblewrap cannot bind what is not there).
     */
    'path'?: (string);
    /**
     * Read or write; must be set.
     */
    'access'?: (_maka_resource_v1_FilesystemAccess);
    /**
     * Exact or subtree; unset means subtree.
     */
    'match'?: (_maka_resource_v1_PathMatch);
}
/**
 * FilesystemEntry is one granted path.
 */
export interface FilesystemEntry__Output {
    /**
     * An absolute path, at most 4095 bytes, without NUL. A path that does not exist when the run
     * starts is skipped (bubblewrap cannot bind what is not there).
     */
    'path': (string);
    /**
     * Read or write; must be set.
     */
    'access': (_maka_resource_v1_FilesystemAccess__Output);
    /**
     * Exact or subtree; unset means subtree.
     */
    'match': (_maka_resource_v1_PathMatch__Output);
}
