import type { TurnStatus as _maka_kernel_v1_TurnStatus, TurnStatus__Output as _maka_kernel_v1_TurnStatus__Output } from '../../../maka/kernel/v1/TurnStatus.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { Long } from '@grpc/proto-loader';
/**
 * Turn is one turn of a session.
 */
export interface Turn {
    /**
     * The turn id.
     */
    'turnId'?: (string);
    /**
     * Where the turn is.
     */
    'status'?: (_maka_kernel_v1_TurnStatus);
    /**
     * The text that started the turn.
     */
    'text'?: (string);
    /**
     * When the turn started.
     */
    'startedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * When the turn ended (unset while it runs).
     */
    'endedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * Who stopped the turn ("stop_button", "stream_abandoned", "host_shutdown", "host_restarted" …).
     */
    'abortSource'?: (string);
    /**
     * The sequence number of the turn's first log entry (its user message).
     */
    'firstSeq'?: (number | string | Long);
}
/**
 * Turn is one turn of a session.
 */
export interface Turn__Output {
    /**
     * The turn id.
     */
    'turnId': (string);
    /**
     * Where the turn is.
     */
    'status': (_maka_kernel_v1_TurnStatus__Output);
    /**
     * The text that started the turn.
     */
    'text': (string);
    /**
     * When the turn started.
     */
    'startedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * When the turn ended (unset while it runs).
     */
    'endedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * Who stopped the turn ("stop_button", "stream_abandoned", "host_shutdown", "host_restarted" …).
     */
    'abortSource': (string);
    /**
     * The sequence number of the turn's first log entry (its user message).
     */
    'firstSeq': (string);
}
