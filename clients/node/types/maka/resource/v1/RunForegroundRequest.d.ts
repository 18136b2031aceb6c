import type { ExecutionBoundary as _maka_resource_v1_ExecutionBoundary, ExecutionBoundary__Output as _maka_resource_v1_ExecutionBoundary__Output } from '../../../maka/resource/v1/ExecutionBoundary.js';
import type { Long } from '@grpc/proto-loader';
/**
 * RunForegroundRequest asks for a foreground run. Every string has a length limit (UTF-8
 * bytes; over it: INVALID_ARGUMENT with the field and the limit in ErrorInfo metadata): command
 * 131071, cwd 4095, source ids 256, env at most 256 entries and 128 KiB in all. One session has
 * at most --max-live-runs-per-session runs live (RESOURCE_EXHAUSTED, limit_name in metadata).
 */
export interface RunForegroundRequest {
    /**
     * The session the run belongs to.
     */
    'sessionId'?: (string);
    /**
     * The command, run with `bash -c`; must not be empty.
     */
    'command'?: (string);
    /**
     * An absolute working directory; empty means the session's directory (the user's home
     * directory when the service runs without a kernel).
     */
    'cwd'?: (string);
    /**
     * Environment variables of the run, on top of an allow-list of the service's own (PATH, HOME,
     * USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, TZ, and --sandbox-env-allow); the run
     * never sees the rest of the service's environment. Variables that change how the sandbox or
     * the shell starts (LD_*, BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PROMPT_COMMAND, PS4, IFS,
     * GLOBIGNORE, BASH_XTRACEFD, BASH_FUNC_*, GCONV_PATH, LOCPATH, NLSPATH, HOSTALIASES,
     * RESOLV_HOST_CONF) are INVALID_ARGUMENT unless the profile is DANGER_FULL_ACCESS.
     */
    'env'?: ({
        [key: string]: string;
    });
    /**
     * Timeout in milliseconds, 1 to 600000 (10 minutes); unset means 120000 (2 minutes).
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
     * Must be false: foreground runs use pipes. Start a background run to get a PTY.
     */
    'pty'?: (boolean);
    /**
     * True to receive `started` as the first message: the run as recorded when its process
     * started (its ref, to stop it with StopRun from another call).
     */
    'announceStart'?: (boolean);
    /**
     * The sandbox to run in (the kernel sends its session's boundary); unset means the default,
     * workspace-write over the session's working directory. A profile that needs the sandbox on
     * a host without one: FAILED_PRECONDITION / SANDBOX_UNAVAILABLE. Malformed: INVALID_ARGUMENT.
     */
    'boundary'?: (_maka_resource_v1_ExecutionBoundary | null);
    '_timeoutMs'?: "timeoutMs";
}
/**
 * RunForegroundRequest asks for a foreground run. Every string has a length limit (UTF-8
 * bytes; over it: INVALID_ARGUMENT with the field and the limit in ErrorInfo metadata): command
 * 131071, cwd 4095, source ids 256, env at most 256 entries and 128 KiB in all. One session has
 * at most --max-live-runs-per-session runs live (RESOURCE_EXHAUSTED, limit_name in metadata).
 */
export interface RunForegroundRequest__Output {
    /**
     * The session the run belongs to.
     */
    'sessionId': (string);
    /**
     * The command, run with `bash -c`; must not be empty.
     */
    'command': (string);
    /**
     * An absolute working directory; empty means the session's directory (the user's home
     * directory when the service runs without a kernel).
     */
    'cwd': (string);
    /**
     * Environment variables of the run, on top of an allow-list of the service's own (PATH, HOME,
     * USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, TZ, and --sandbox-env-allow); the run
     * never sees the rest of the service's environment. Variables that change how the sandbox or
     * the shell starts (LD_*, BASH_ENV, ENV, SHELLOPTS, BASHOPTS, PROMPT_COMMAND, PS4, IFS,
     * GLOBIGNORE, BASH_XTRACEFD, BASH_FUNC_*, GCONV_PATH, LOCPATH, NLSPATH, HOSTALIASES,
     * RESOLV_HOST_CONF) are INVALID_ARGUMENT unless the profile is DANGER_FULL_ACCESS.
     */
    'env': ({
        [key: string]: string;
    });
    /**
     * Timeout in milliseconds, 1 to 600000 (10 minutes); unset means 120000 (2 minutes).
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
     * Must be false: foreground runs use pipes. Start a background run to get a PTY.
     */
    'pty': (boolean);
    /**
     * True to receive `started` as the first message: the run as recorded when its process
     * started (its ref, to stop it with StopRun from another call).
     */
    'announceStart': (boolean);
    /**
     * The sandbox to run in (the kernel sends its session's boundary); unset means the default,
     * workspace-write over the session's working directory. A profile that needs the sandbox on
     * a host without one: FAILED_PRECONDITION / SANDBOX_UNAVAILABLE. Malformed: INVALID_ARGUMENT.
     */
    'boundary': (_maka_resource_v1_ExecutionBoundary__Output | null);
    '_timeoutMs'?: "timeoutMs";
}
