import type { FilesystemEntry as _maka_resource_v1_FilesystemEntry, FilesystemEntry__Output as _maka_resource_v1_FilesystemEntry__Output } from '../../../maka/resource/v1/FilesystemEntry.js';
/**
 * BoundaryExpansion is what one approval widened: file-system entries and/or the network. At
 * least one of the two; at most 32 entries.
 */
export interface BoundaryExpansion {
    /**
     * The granted paths, applied after the roots (a later grant covers an earlier one).
     */
    'filesystem'?: (_maka_resource_v1_FilesystemEntry)[];
    /**
     * True to give the run the host's network (no network namespace of its own).
     */
    'network'?: (boolean);
}
/**
 * BoundaryExpansion is what one approval widened: file-system entries and/or the network. At
 * least one of the two; at most 32 entries.
 */
export interface BoundaryExpansion__Output {
    /**
     * The granted paths, applied after the roots (a later grant covers an earlier one).
     */
    'filesystem': (_maka_resource_v1_FilesystemEntry__Output)[];
    /**
     * True to give the run the host's network (no network namespace of its own).
     */
    'network': (boolean);
}
