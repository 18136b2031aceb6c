import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from '../../../maka/resource/v1/Run.js';
/**
 * ListRunsResponse is a page of runs.
 */
export interface ListRunsResponse {
    /**
     * The runs, oldest first.
     */
    'runs'?: (_maka_resource_v1_Run)[];
    /**
     * Pass as page_token for the next page (opaque); empty on the last page. A page cut short
     * by the byte bound has a token too: read on until it is empty.
     */
    'nextPageToken'?: (string);
}
/**
 * ListRunsResponse is a page of runs.
 */
export interface ListRunsResponse__Output {
    /**
     * The runs, oldest first.
     */
    'runs': (_maka_resource_v1_Run__Output)[];
    /**
     * Pass as page_token for the next page (opaque); empty on the last page. A page cut short
     * by the byte bound has a token too: read on until it is empty.
     */
    'nextPageToken': (string);
}
