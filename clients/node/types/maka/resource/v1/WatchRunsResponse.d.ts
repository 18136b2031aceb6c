import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * WatchRunsResponse is one change.
 */
export interface WatchRunsResponse {
    /**
     * The run after the change: each committed revision while the watcher keeps up; in the
     * replay, or for a watcher past the watch backlog, each changed run's latest revision.
     */
    'run'?: (_maka_resource_v1_Run | null);
}
/**
 * WatchRunsResponse is one change.
 */
export interface WatchRunsResponse__Output {
    /**
     * The run after the change: each committed revision while the watcher keeps up; in the
     * replay, or for a watcher past the watch backlog, each changed run's latest revision.
     */
    'run': (_maka_resource_v1_Run__Output | null);
}
