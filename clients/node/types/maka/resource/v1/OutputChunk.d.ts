import type { OutputStream as _maka_resource_v1_OutputStream, OutputStream__Output as _maka_resource_v1_OutputStream__Output } from '../../../maka/resource/v1/OutputStream.js';
import type { Long } from '@grpc/proto-loader';
/**
 * OutputChunk is bytes read from a run's output. Reads are numbered per run from 1 without
 * gaps; when a reader lags, one message may carry several consecutive reads of one stream.
 */
export interface OutputChunk {
    /**
     * The number of the (last) read in this message; resume after it to lose nothing and repeat
     * nothing.
     */
    'sequence'?: (number | string | Long);
    /**
     * Which stream the bytes came from.
     */
    'stream'?: (_maka_resource_v1_OutputStream);
    /**
     * The bytes, exactly as the program wrote them.
     */
    'data'?: (Buffer | Uint8Array | string);
}
/**
 * OutputChunk is bytes read from a run's output. Reads are numbered per run from 1 without
 * gaps; when a reader lags, one message may carry several consecutive reads of one stream.
 */
export interface OutputChunk__Output {
    /**
     * The number of the (last) read in this message; resume after it to lose nothing and repeat
     * nothing.
     */
    'sequence': (string);
    /**
     * Which stream the bytes came from.
     */
    'stream': (_maka_resource_v1_OutputStream__Output);
    /**
     * The bytes, exactly as the program wrote them.
     */
    'data': (Buffer);
}
