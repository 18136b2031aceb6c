import type { Long } from '@grpc/proto-loader';
/**
 * WatchRunsRequest asks for a session's run changes.
 */
export interface WatchRunsRequest {
    /**
     * The session.
     */
    'sessionId'?: (string);
    /**
     * Only changes with a larger change_seq; 0 replays every run of the session. Beyond the
     * service's newest change_seq is OUT_OF_RANGE (the newest in ErrorInfo metadata "last").
     */
    'afterChangeSeq'?: (number | string | Long);
}
/**
 * WatchRunsRequest asks for a session's run changes.
 */
export interface WatchRunsRequest__Output {
    /**
     * The session.
     */
    'sessionId': (string);
    /**
     * Only changes with a larger change_seq; 0 replays every run of the session. Beyond the
     * service's newest change_seq is OUT_OF_RANGE (the newest in ErrorInfo metadata "last").
     */
    'afterChangeSeq': (string);
}
