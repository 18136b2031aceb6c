import type { RunKind as _maka_resource_v1_RunKind, RunKind__Output as _maka_resource_v1_RunKind__Output } from '../../../maka/resource/v1/RunKind.js';
import type { RunMode as _maka_resource_v1_RunMode, RunMode__Output as _maka_resource_v1_RunMode__Output } from '../../../maka/resource/v1/RunMode.js';
import type { RunStatus as _maka_resource_v1_RunStatus, RunStatus__Output as _maka_resource_v1_RunStatus__Output } from '../../../maka/resource/v1/RunStatus.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { PipesOutput as _maka_resource_v1_PipesOutput, PipesOutput__Output as _maka_resource_v1_PipesOutput__Output } from '../../../maka/resource/v1/PipesOutput.js';
import type { Screen as _maka_resource_v1_Screen, Screen__Output as _maka_resource_v1_Screen__Output } from '../../../maka/resource/v1/Screen.js';
import type { RunSandbox as _maka_resource_v1_RunSandbox, RunSandbox__Output as _maka_resource_v1_RunSandbox__Output } from '../../../maka/resource/v1/RunSandbox.js';
import type { Long } from '@grpc/proto-loader';
/**
 * Run is one shell run.
 */
export interface Run {
    /**
     * The run's reference, maka://runtime/background-tasks/<id>.
     */
    'ref'?: (string);
    /**
     * The session the run belongs to.
     */
    'sessionId'?: (string);
    /**
     * The turn that asked for the run, if any.
     */
    'sourceTurnId'?: (string);
    /**
     * The tool call that asked for the run, if any.
     */
    'sourceToolCallId'?: (string);
    /**
     * Foreground or background.
     */
    'kind'?: (_maka_resource_v1_RunKind);
    /**
     * Pipes or PTY.
     */
    'mode'?: (_maka_resource_v1_RunMode);
    /**
     * The command, run with `bash -c`.
     */
    'command'?: (string);
    /**
     * The working directory.
     */
    'cwd'?: (string);
    /**
     * The timeout that applies, in milliseconds; unset for a background run without one.
     */
    'timeoutMs'?: (number | string | Long);
    /**
     * Where the run is in its life.
     */
    'status'?: (_maka_resource_v1_RunStatus);
    /**
     * 1 when created, one more for each change.
     */
    'revision'?: (number | string | Long);
    /**
     * The service-wide change counter when this revision was stored (see WatchRuns).
     */
    'changeSeq'?: (number | string | Long);
    /**
     * When the run was recorded.
     */
    'createdAt'?: (_google_protobuf_Timestamp | null);
    /**
     * When this revision was made.
     */
    'updatedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * When the process started; unset if it never did.
     */
    'startedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * When the run ended; unset while active.
     */
    'endedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * The exit code (124 timed out, 130 cancelled, 128+N killed by signal N); unset while active
     * and when the process never started or was orphaned.
     */
    'exitCode'?: (number);
    /**
     * The signal that ended the process, if one did.
     */
    'signal'?: (number);
    /**
     * Why the run ended the way it did (timeout, cancellation, orphaning, start failure).
     */
    'message'?: (string);
    /**
     * The process id of the run's leader; 0 if it never started.
     */
    'pid'?: (number | string | Long);
    /**
     * ended_at - started_at in milliseconds, once both are known.
     */
    'durationMs'?: (number | string | Long);
    /**
     * The output of a pipes run.
     */
    'pipes'?: (_maka_resource_v1_PipesOutput | null);
    /**
     * The screen of a PTY run.
     */
    'screen'?: (_maka_resource_v1_Screen | null);
    /**
     * How the run was confined: its profile (DANGER_FULL_ACCESS: no sandbox), the boundary
     * revision it carried and its containment. Unset for runs recorded before sandboxing.
     */
    'sandbox'?: (_maka_resource_v1_RunSandbox | null);
    '_timeoutMs'?: "timeoutMs";
    '_exitCode'?: "exitCode";
    '_signal'?: "signal";
    '_durationMs'?: "durationMs";
    /**
     * The output: for an active run as of now, for an ended run final.
     */
    'output'?: "pipes" | "screen";
}
/**
 * Run is one shell run.
 */
export interface Run__Output {
    /**
     * The run's reference, maka://runtime/background-tasks/<id>.
     */
    'ref': (string);
    /**
     * The session the run belongs to.
     */
    'sessionId': (string);
    /**
     * The turn that asked for the run, if any.
     */
    'sourceTurnId': (string);
    /**
     * The tool call that asked for the run, if any.
     */
    'sourceToolCallId': (string);
    /**
     * Foreground or background.
     */
    'kind': (_maka_resource_v1_RunKind__Output);
    /**
     * Pipes or PTY.
     */
    'mode': (_maka_resource_v1_RunMode__Output);
    /**
     * The command, run with `bash -c`.
     */
    'command': (string);
    /**
     * The working directory.
     */
    'cwd': (string);
    /**
     * The timeout that applies, in milliseconds; unset for a background run without one.
     */
    'timeoutMs'?: (string);
    /**
     * Where the run is in its life.
     */
    'status': (_maka_resource_v1_RunStatus__Output);
    /**
     * 1 when created, one more for each change.
     */
    'revision': (string);
    /**
     * The service-wide change counter when this revision was stored (see WatchRuns).
     */
    'changeSeq': (string);
    /**
     * When the run was recorded.
     */
    'createdAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * When this revision was made.
     */
    'updatedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * When the process started; unset if it never did.
     */
    'startedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * When the run ended; unset while active.
     */
    'endedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * The exit code (124 timed out, 130 cancelled, 128+N killed by signal N); unset while active
     * and when the process never started or was orphaned.
     */
    'exitCode'?: (number);
    /**
     * The signal that ended the process, if one did.
     */
    'signal'?: (number);
    /**
     * Why the run ended the way it did (timeout, cancellation, orphaning, start failure).
     */
    'message': (string);
    /**
     * The process id of the run's leader; 0 if it never started.
     */
    'pid': (string);
    /**
     * ended_at - started_at in milliseconds, once both are known.
     */
    'durationMs'?: (string);
    /**
     * The output of a pipes run.
     */
    'pipes'?: (_maka_resource_v1_PipesOutput__Output | null);
    /**
     * The screen of a PTY run.
     */
    'screen'?: (_maka_resource_v1_Screen__Output | null);
    /**
     * How the run was confined: its profile (DANGER_FULL_ACCESS: no sandbox), the boundary
     * revision it carried and its containment. Unset for runs recorded before sandboxing.
     */
    'sandbox': (_maka_resource_v1_RunSandbox__Output | null);
    '_timeoutMs'?: "timeoutMs";
    '_exitCode'?: "exitCode";
    '_signal'?: "signal";
    '_durationMs'?: "durationMs";
    /**
     * The output: for an active run as of now, for an ended run final.
     */
    'output'?: "pipes" | "screen";
}
