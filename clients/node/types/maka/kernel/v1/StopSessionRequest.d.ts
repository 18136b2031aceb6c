import type { StopMode as _maka_kernel_v1_StopMode, StopMode__Output as _maka_kernel_v1_StopMode__Output } from '../../../maka/kernel/v1/StopMode.js';
/**
 * StopSessionRequest stops a session's running turn.
 */
export interface StopSessionRequest {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * Who stops it, a lowercase identifier (at most 64 bytes) recorded with the abort; empty
     * means "api".
     */
    'source'?: (string);
    /**
     * When to stop.
     */
    'mode'?: (_maka_kernel_v1_StopMode);
    /**
     * The turn to stop; empty means whichever turn runs. A turn id that is not admitted yet
     * (its StartTurn is still on the way) is remembered: that turn ends aborted as soon as it is
     * admitted, before its backend is sent anything. At most --max-early-stops such stops are
     * remembered per session (the oldest is forgotten first), and they are forgotten when another
     * turn is admitted on the session. A turn id naming another turn than the running one leaves
     * the running turn alone.
     */
    'turnId'?: (string);
}
/**
 * StopSessionRequest stops a session's running turn.
 */
export interface StopSessionRequest__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * Who stops it, a lowercase identifier (at most 64 bytes) recorded with the abort; empty
     * means "api".
     */
    'source': (string);
    /**
     * When to stop.
     */
    'mode': (_maka_kernel_v1_StopMode__Output);
    /**
     * The turn to stop; empty means whichever turn runs. A turn id that is not admitted yet
     * (its StartTurn is still on the way) is remembered: that turn ends aborted as soon as it is
     * admitted, before its backend is sent anything. At most --max-early-stops such stops are
     * remembered per session (the oldest is forgotten first), and they are forgotten when another
     * turn is admitted on the session. A turn id naming another turn than the running one leaves
     * the running turn alone.
     */
    'turnId': (string);
}
