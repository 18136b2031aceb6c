import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * ArchiveSessionResponse lists the runs the archive stopped.
 */
export interface ArchiveSessionResponse {
    /**
     * The final state of every run that was active and was stopped by this call. Runs past
     * --max-page-bytes come without their output (pipes: empty streams flagged truncated; PTY:
     * an empty screen), so the reply stays below a default client's 4 MiB.
     */
    'stopped'?: (_maka_resource_v1_Run)[];
}
/**
 * ArchiveSessionResponse lists the runs the archive stopped.
 */
export interface ArchiveSessionResponse__Output {
    /**
     * The final state of every run that was active and was stopped by this call. Runs past
     * --max-page-bytes come without their output (pipes: empty streams flagged truncated; PTY:
     * an empty screen), so the reply stays below a default client's 4 MiB.
     */
    'stopped': (_maka_resource_v1_Run__Output)[];
}
