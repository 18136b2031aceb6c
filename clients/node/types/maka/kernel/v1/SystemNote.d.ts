import type { SystemNoteKind as _maka_kernel_v1_SystemNoteKind, SystemNoteKind__Output as _maka_kernel_v1_SystemNoteKind__Output } from '../../../maka/kernel/v1/SystemNoteKind.js';
/**
 * SystemNote is something the kernel put on the record.
 */
export interface SystemNote {
    /**
     * What the note is about.
     */
    'kind'?: (_maka_kernel_v1_SystemNoteKind);
    /**
     * A human-readable description.
     */
    'text'?: (string);
    /**
     * Who caused it, where that applies (e.g. the stop source).
     */
    'source'?: (string);
}
/**
 * SystemNote is something the kernel put on the record.
 */
export interface SystemNote__Output {
    /**
     * What the note is about.
     */
    'kind': (_maka_kernel_v1_SystemNoteKind__Output);
    /**
     * A human-readable description.
     */
    'text': (string);
    /**
     * Who caused it, where that applies (e.g. the stop source).
     */
    'source': (string);
}
