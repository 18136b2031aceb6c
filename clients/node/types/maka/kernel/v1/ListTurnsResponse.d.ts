import type { Turn as _maka_kernel_v1_Turn, Turn__Output as _maka_kernel_v1_Turn__Output } from '../../../maka/kernel/v1/Turn.js';
import type { Long } from '@grpc/proto-loader';
/**
 * ListTurnsResponse returns a page of a session's turns.
 */
export interface ListTurnsResponse {
    /**
     * The turns in the order they started.
     */
    'turns'?: (_maka_kernel_v1_Turn)[];
    /**
     * Pass as after_seq for the next page; 0 on the last page.
     */
    'nextAfterSeq'?: (number | string | Long);
}
/**
 * ListTurnsResponse returns a page of a session's turns.
 */
export interface ListTurnsResponse__Output {
    /**
     * The turns in the order they started.
     */
    'turns': (_maka_kernel_v1_Turn__Output)[];
    /**
     * Pass as after_seq for the next page; 0 on the last page.
     */
    'nextAfterSeq': (string);
}
