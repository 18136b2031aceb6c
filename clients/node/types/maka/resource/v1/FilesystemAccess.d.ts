/**
 * FilesystemAccess is what an expansion grants on a path.
 */
export declare const FilesystemAccess: {
    /**
     * Not set: refused (INVALID_ARGUMENT).
     */
    readonly FILESYSTEM_ACCESS_UNSPECIFIED: "FILESYSTEM_ACCESS_UNSPECIFIED";
    /**
     * Read (bound read-only).
     */
    readonly FILESYSTEM_ACCESS_READ: "FILESYSTEM_ACCESS_READ";
    /**
     * Read and write (bound read-write); names protected metadata explicitly when the path is
     * .git, .maka or inside them.
     */
    readonly FILESYSTEM_ACCESS_WRITE: "FILESYSTEM_ACCESS_WRITE";
};
/**
 * FilesystemAccess is what an expansion grants on a path.
 */
export type FilesystemAccess = 
/**
 * Not set: refused (INVALID_ARGUMENT).
 */
'FILESYSTEM_ACCESS_UNSPECIFIED' | 0
/**
 * Read (bound read-only).
 */
 | 'FILESYSTEM_ACCESS_READ' | 1
/**
 * Read and write (bound read-write); names protected metadata explicitly when the path is
 * .git, .maka or inside them.
 */
 | 'FILESYSTEM_ACCESS_WRITE' | 2;
/**
 * FilesystemAccess is what an expansion grants on a path.
 */
export type FilesystemAccess__Output = typeof FilesystemAccess[keyof typeof FilesystemAccess];
