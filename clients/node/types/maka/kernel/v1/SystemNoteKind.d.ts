/**
 * SystemNoteKind says what a system note is about.
 */
export declare const SystemNoteKind: {
    /**
     * Not set.
     */
    readonly SYSTEM_NOTE_KIND_UNSPECIFIED: "SYSTEM_NOTE_KIND_UNSPECIFIED";
    /**
     * The session was created.
     */
    readonly SYSTEM_NOTE_KIND_SESSION_START: "SYSTEM_NOTE_KIND_SESSION_START";
    /**
     * The session was resumed by a new kernel process.
     */
    readonly SYSTEM_NOTE_KIND_SESSION_RESUME: "SYSTEM_NOTE_KIND_SESSION_RESUME";
    /**
     * Something failed (the text says what).
     */
    readonly SYSTEM_NOTE_KIND_ERROR: "SYSTEM_NOTE_KIND_ERROR";
    /**
     * A turn was stopped (source says by whom).
     */
    readonly SYSTEM_NOTE_KIND_ABORT: "SYSTEM_NOTE_KIND_ABORT";
    /**
     * A turn was interrupted because the process running it ended.
     */
    readonly SYSTEM_NOTE_KIND_INTERRUPTED: "SYSTEM_NOTE_KIND_INTERRUPTED";
    /**
     * A message sent into a turn was not delivered.
     */
    readonly SYSTEM_NOTE_KIND_MESSAGE_REJECTED: "SYSTEM_NOTE_KIND_MESSAGE_REJECTED";
    /**
     * A turn ended because a sandbox-boundary request was denied (nothing was run).
     */
    readonly SYSTEM_NOTE_KIND_DENIED: "SYSTEM_NOTE_KIND_DENIED";
    /**
     * An immediate stop could not confirm that a tool's run ended (source: the run's ref); the
     * session is quarantined until a RUN_CONFIRMED note with the same source follows.
     */
    readonly SYSTEM_NOTE_KIND_RUN_UNCONFIRMED: "SYSTEM_NOTE_KIND_RUN_UNCONFIRMED";
    /**
     * The kernel confirmed the end of a run an earlier RUN_UNCONFIRMED note named (source: the
     * run's ref); the session takes turns again. Written after that turn's terminal state and
     * carries no turn id: it belongs to the session, not to the turn.
     */
    readonly SYSTEM_NOTE_KIND_RUN_CONFIRMED: "SYSTEM_NOTE_KIND_RUN_CONFIRMED";
    /**
     * A sandbox-boundary request answered allow_session widened the session's execution
     * boundary (source: the request id; the text names the expansion and the new revision).
     */
    readonly SYSTEM_NOTE_KIND_BOUNDARY_WIDENED: "SYSTEM_NOTE_KIND_BOUNDARY_WIDENED";
};
/**
 * SystemNoteKind says what a system note is about.
 */
export type SystemNoteKind = 
/**
 * Not set.
 */
'SYSTEM_NOTE_KIND_UNSPECIFIED' | 0
/**
 * The session was created.
 */
 | 'SYSTEM_NOTE_KIND_SESSION_START' | 1
/**
 * The session was resumed by a new kernel process.
 */
 | 'SYSTEM_NOTE_KIND_SESSION_RESUME' | 2
/**
 * Something failed (the text says what).
 */
 | 'SYSTEM_NOTE_KIND_ERROR' | 3
/**
 * A turn was stopped (source says by whom).
 */
 | 'SYSTEM_NOTE_KIND_ABORT' | 4
/**
 * A turn was interrupted because the process running it ended.
 */
 | 'SYSTEM_NOTE_KIND_INTERRUPTED' | 5
/**
 * A message sent into a turn was not delivered.
 */
 | 'SYSTEM_NOTE_KIND_MESSAGE_REJECTED' | 6
/**
 * A turn ended because a sandbox-boundary request was denied (nothing was run).
 */
 | 'SYSTEM_NOTE_KIND_DENIED' | 7
/**
 * An immediate stop could not confirm that a tool's run ended (source: the run's ref); the
 * session is quarantined until a RUN_CONFIRMED note with the same source follows.
 */
 | 'SYSTEM_NOTE_KIND_RUN_UNCONFIRMED' | 8
/**
 * The kernel confirmed the end of a run an earlier RUN_UNCONFIRMED note named (source: the
 * run's ref); the session takes turns again. Written after that turn's terminal state and
 * carries no turn id: it belongs to the session, not to the turn.
 */
 | 'SYSTEM_NOTE_KIND_RUN_CONFIRMED' | 9
/**
 * A sandbox-boundary request answered allow_session widened the session's execution
 * boundary (source: the request id; the text names the expansion and the new revision).
 */
 | 'SYSTEM_NOTE_KIND_BOUNDARY_WIDENED' | 10;
/**
 * SystemNoteKind says what a system note is about.
 */
export type SystemNoteKind__Output = typeof SystemNoteKind[keyof typeof SystemNoteKind];
