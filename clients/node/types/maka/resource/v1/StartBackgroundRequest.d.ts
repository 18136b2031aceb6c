import type { TerminalSize as _maka_resource_v1_TerminalSize, TerminalSize__Output as _maka_resource_v1_TerminalSize__Output } from '../../../maka/resource/v1/TerminalSize.js';
import type { ExecutionBoundary as _maka_resource_v1_ExecutionBoundary, ExecutionBoundary__Output as _maka_resource_v1_ExecutionBoundary__Output } from '../../../maka/resource/v1/ExecutionBoundary.js';
import type { Long } from '@grpc/proto-loader';
/**
 * StartBackgroundRequest asks for a background run.
 */
export interface StartBackgroundRequest {
    /**
     * The session the run belongs to.
     */
    'sessionId'?: (string);
    /**
     * The command, run with `bash -c`; must not be empty.
     */
    'command'?: (string);
    /**
     * An absolute working directory; empty means the session's directory.
     */
    'cwd'?: (string);
    /**
     * Environment variables of the run; as RunForegroundRequest.env.
     */
    'env'?: ({
        [key: string]: string;
    });
    /**
     * Timeout in milliseconds, 1 to 86400000 (24 hours); unset means none.
     */
    'timeoutMs'?: (number | string | Long);
    /**
     * The turn that asks for the run, if any.
     */
    'sourceTurnId'?: (string);
    /**
     * The tool call that asks for the run, if any.
     */
    'sourceToolCallId'?: (string);
    /**
     * Run on a PTY (TERM=xterm-256color, the size set before the program starts).
     */
    'pty'?: (boolean);
    /**
     * The PTY's size; unset means 80x24. Ignored for pipes runs.
     */
    'size'?: (_maka_resource_v1_TerminalSize | null);
    /**
     * The sandbox to run in; as RunForegroundRequest.boundary.
     */
    'boundary'?: (_maka_resource_v1_ExecutionBoundary | null);
    '_timeoutMs'?: "timeoutMs";
}
/**
 * StartBackgroundRequest asks for a background run.
 */
export interface StartBackgroundRequest__Output {
    /**
     * The session the run belongs to.
     */
    'sessionId': (string);
    /**
     * The command, run with `bash -c`; must not be empty.
     */
    'command': (string);
    /**
     * An absolute working directory; empty means the session's directory.
     */
    'cwd': (string);
    /**
     * Environment variables of the run; as RunForegroundRequest.env.
     */
    'env': ({
        [key: string]: string;
    });
    /**
     * Timeout in milliseconds, 1 to 86400000 (24 hours); unset means none.
     */
    'timeoutMs'?: (string);
    /**
     * The turn that asks for the run, if any.
     */
    'sourceTurnId': (string);
    /**
     * The tool call that asks for the run, if any.
     */
    'sourceToolCallId': (string);
    /**
     * Run on a PTY (TERM=xterm-256color, the size set before the program starts).
     */
    'pty': (boolean);
    /**
     * The PTY's size; unset means 80x24. Ignored for pipes runs.
     */
    'size': (_maka_resource_v1_TerminalSize__Output | null);
    /**
     * The sandbox to run in; as RunForegroundRequest.boundary.
     */
    'boundary': (_maka_resource_v1_ExecutionBoundary__Output | null);
    '_timeoutMs'?: "timeoutMs";
}
