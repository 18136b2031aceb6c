import type { Long } from '@grpc/proto-loader';
/**
 * WatchSessionRequest starts watching a session.
 */
export interface WatchSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * Replay entries after this sequence number (0: everything), then follow live ones. Beyond
     * the newest entry is OUT_OF_RANGE (last_seq in ErrorInfo metadata). A watch on a session
     * that is deleted ends NOT_FOUND; one ended by a drain ends OK (resume elsewhere).
     */
    'afterSeq'?: (number | string | Long);
}
/**
 * WatchSessionRequest starts watching a session.
 */
export interface WatchSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * Replay entries after this sequence number (0: everything), then follow live ones. Beyond
     * the newest entry is OUT_OF_RANGE (last_seq in ErrorInfo metadata). A watch on a session
     * that is deleted ends NOT_FOUND; one ended by a drain ends OK (resume elsewhere).
     */
    'afterSeq': (string);
}
