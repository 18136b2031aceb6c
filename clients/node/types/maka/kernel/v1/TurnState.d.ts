import type { TurnStatus as _maka_kernel_v1_TurnStatus, TurnStatus__Output as _maka_kernel_v1_TurnStatus__Output } from '../../../maka/kernel/v1/TurnStatus.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
/**
 * TurnState is a turn changing status.
 */
export interface TurnState {
    /**
     * The new status.
     */
    'status'?: (_maka_kernel_v1_TurnStatus);
    /**
     * Who stopped the turn, when status is ABORTED.
     */
    'abortSource'?: (string);
    /**
     * When the turn was stopped, when status is ABORTED.
     */
    'abortedAt'?: (_google_protobuf_Timestamp | null);
}
/**
 * TurnState is a turn changing status.
 */
export interface TurnState__Output {
    /**
     * The new status.
     */
    'status': (_maka_kernel_v1_TurnStatus__Output);
    /**
     * Who stopped the turn, when status is ABORTED.
     */
    'abortSource': (string);
    /**
     * When the turn was stopped, when status is ABORTED.
     */
    'abortedAt': (_google_protobuf_Timestamp__Output | null);
}
