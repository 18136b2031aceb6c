import type { DrainOutcome as _maka_kernel_v1_DrainOutcome, DrainOutcome__Output as _maka_kernel_v1_DrainOutcome__Output } from '../../../maka/kernel/v1/DrainOutcome.js';
/**
 * DrainedTurn is what a shutdown did to one running turn.
 */
export interface DrainedTurn {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The turn id.
     */
    'turnId'?: (string);
    /**
     * How it ended.
     */
    'outcome'?: (_maka_kernel_v1_DrainOutcome);
    /**
     * Why stopping it failed, if it did (every cause).
     */
    'failure'?: (string);
}
/**
 * DrainedTurn is what a shutdown did to one running turn.
 */
export interface DrainedTurn__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The turn id.
     */
    'turnId': (string);
    /**
     * How it ended.
     */
    'outcome': (_maka_kernel_v1_DrainOutcome__Output);
    /**
     * Why stopping it failed, if it did (every cause).
     */
    'failure': (string);
}
