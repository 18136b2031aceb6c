import type * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { AcquireControllerRequest as _maka_resource_v1_AcquireControllerRequest, AcquireControllerRequest__Output as _maka_resource_v1_AcquireControllerRequest__Output } from '../../../maka/resource/v1/AcquireControllerRequest.js';
import type { AcquireControllerResponse as _maka_resource_v1_AcquireControllerResponse, AcquireControllerResponse__Output as _maka_resource_v1_AcquireControllerResponse__Output } from '../../../maka/resource/v1/AcquireControllerResponse.js';
import type { ArchiveSessionRequest as _maka_resource_v1_ArchiveSessionRequest, ArchiveSessionRequest__Output as _maka_resource_v1_ArchiveSessionRequest__Output } from '../../../maka/resource/v1/ArchiveSessionRequest.js';
import type { ArchiveSessionResponse as _maka_resource_v1_ArchiveSessionResponse, ArchiveSessionResponse__Output as _maka_resource_v1_ArchiveSessionResponse__Output } from '../../../maka/resource/v1/ArchiveSessionResponse.js';
import type { AttachRequest as _maka_resource_v1_AttachRequest, AttachRequest__Output as _maka_resource_v1_AttachRequest__Output } from '../../../maka/resource/v1/AttachRequest.js';
import type { AttachResponse as _maka_resource_v1_AttachResponse, AttachResponse__Output as _maka_resource_v1_AttachResponse__Output } from '../../../maka/resource/v1/AttachResponse.js';
import type { ControlControllerRequest as _maka_resource_v1_ControlControllerRequest, ControlControllerRequest__Output as _maka_resource_v1_ControlControllerRequest__Output } from '../../../maka/resource/v1/ControlControllerRequest.js';
import type { ControlControllerResponse as _maka_resource_v1_ControlControllerResponse, ControlControllerResponse__Output as _maka_resource_v1_ControlControllerResponse__Output } from '../../../maka/resource/v1/ControlControllerResponse.js';
import type { GetRunRequest as _maka_resource_v1_GetRunRequest, GetRunRequest__Output as _maka_resource_v1_GetRunRequest__Output } from '../../../maka/resource/v1/GetRunRequest.js';
import type { GetRunResponse as _maka_resource_v1_GetRunResponse, GetRunResponse__Output as _maka_resource_v1_GetRunResponse__Output } from '../../../maka/resource/v1/GetRunResponse.js';
import type { GetServerInfoRequest as _maka_resource_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _maka_resource_v1_GetServerInfoRequest__Output } from '../../../maka/resource/v1/GetServerInfoRequest.js';
import type { GetServerInfoResponse as _maka_resource_v1_GetServerInfoResponse, GetServerInfoResponse__Output as _maka_resource_v1_GetServerInfoResponse__Output } from '../../../maka/resource/v1/GetServerInfoResponse.js';
import type { ListRunsRequest as _maka_resource_v1_ListRunsRequest, ListRunsRequest__Output as _maka_resource_v1_ListRunsRequest__Output } from '../../../maka/resource/v1/ListRunsRequest.js';
import type { ListRunsResponse as _maka_resource_v1_ListRunsResponse, ListRunsResponse__Output as _maka_resource_v1_ListRunsResponse__Output } from '../../../maka/resource/v1/ListRunsResponse.js';
import type { OpenConnectionRequest as _maka_resource_v1_OpenConnectionRequest, OpenConnectionRequest__Output as _maka_resource_v1_OpenConnectionRequest__Output } from '../../../maka/resource/v1/OpenConnectionRequest.js';
import type { OpenConnectionResponse as _maka_resource_v1_OpenConnectionResponse, OpenConnectionResponse__Output as _maka_resource_v1_OpenConnectionResponse__Output } from '../../../maka/resource/v1/OpenConnectionResponse.js';
import type { ReadRunOutputRequest as _maka_resource_v1_ReadRunOutputRequest, ReadRunOutputRequest__Output as _maka_resource_v1_ReadRunOutputRequest__Output } from '../../../maka/resource/v1/ReadRunOutputRequest.js';
import type { ReadRunOutputResponse as _maka_resource_v1_ReadRunOutputResponse, ReadRunOutputResponse__Output as _maka_resource_v1_ReadRunOutputResponse__Output } from '../../../maka/resource/v1/ReadRunOutputResponse.js';
import type { RegisterSessionRequest as _maka_resource_v1_RegisterSessionRequest, RegisterSessionRequest__Output as _maka_resource_v1_RegisterSessionRequest__Output } from '../../../maka/resource/v1/RegisterSessionRequest.js';
import type { RegisterSessionResponse as _maka_resource_v1_RegisterSessionResponse, RegisterSessionResponse__Output as _maka_resource_v1_RegisterSessionResponse__Output } from '../../../maka/resource/v1/RegisterSessionResponse.js';
import type { ReleaseControllerRequest as _maka_resource_v1_ReleaseControllerRequest, ReleaseControllerRequest__Output as _maka_resource_v1_ReleaseControllerRequest__Output } from '../../../maka/resource/v1/ReleaseControllerRequest.js';
import type { ReleaseControllerResponse as _maka_resource_v1_ReleaseControllerResponse, ReleaseControllerResponse__Output as _maka_resource_v1_ReleaseControllerResponse__Output } from '../../../maka/resource/v1/ReleaseControllerResponse.js';
import type { RunForegroundRequest as _maka_resource_v1_RunForegroundRequest, RunForegroundRequest__Output as _maka_resource_v1_RunForegroundRequest__Output } from '../../../maka/resource/v1/RunForegroundRequest.js';
import type { RunForegroundResponse as _maka_resource_v1_RunForegroundResponse, RunForegroundResponse__Output as _maka_resource_v1_RunForegroundResponse__Output } from '../../../maka/resource/v1/RunForegroundResponse.js';
import type { ShutdownRequest as _maka_resource_v1_ShutdownRequest, ShutdownRequest__Output as _maka_resource_v1_ShutdownRequest__Output } from '../../../maka/resource/v1/ShutdownRequest.js';
import type { ShutdownResponse as _maka_resource_v1_ShutdownResponse, ShutdownResponse__Output as _maka_resource_v1_ShutdownResponse__Output } from '../../../maka/resource/v1/ShutdownResponse.js';
import type { StartBackgroundRequest as _maka_resource_v1_StartBackgroundRequest, StartBackgroundRequest__Output as _maka_resource_v1_StartBackgroundRequest__Output } from '../../../maka/resource/v1/StartBackgroundRequest.js';
import type { StartBackgroundResponse as _maka_resource_v1_StartBackgroundResponse, StartBackgroundResponse__Output as _maka_resource_v1_StartBackgroundResponse__Output } from '../../../maka/resource/v1/StartBackgroundResponse.js';
import type { StopRunRequest as _maka_resource_v1_StopRunRequest, StopRunRequest__Output as _maka_resource_v1_StopRunRequest__Output } from '../../../maka/resource/v1/StopRunRequest.js';
import type { StopRunResponse as _maka_resource_v1_StopRunResponse, StopRunResponse__Output as _maka_resource_v1_StopRunResponse__Output } from '../../../maka/resource/v1/StopRunResponse.js';
import type { WatchRunsRequest as _maka_resource_v1_WatchRunsRequest, WatchRunsRequest__Output as _maka_resource_v1_WatchRunsRequest__Output } from '../../../maka/resource/v1/WatchRunsRequest.js';
import type { WatchRunsResponse as _maka_resource_v1_WatchRunsResponse, WatchRunsResponse__Output as _maka_resource_v1_WatchRunsResponse__Output } from '../../../maka/resource/v1/WatchRunsResponse.js';
/**
 * ResourceService runs shell commands: foreground, background, PTY, with controller leases.
 *
 * Errors carry a google.rpc.Status with one google.rpc.ErrorInfo (domain "resource.maka"):
 * INVALID_ARGUMENT/INVALID_REQUEST (metadata "field" names the offending field),
 * NOT_FOUND/NOT_FOUND, FAILED_PRECONDITION/SESSION_ARCHIVED, ABORTED/OPERATION_CONFLICT,
 * UNAVAILABLE/HOST_DRAINING, RESOURCE_EXHAUSTED/RESOURCE_EXHAUSTED,
 * UNAVAILABLE/PERSISTENCE_FAILED (a refused write, or the store's owner gone) and
 * INTERNAL/INTERNAL_FAILURE, FAILED_PRECONDITION/SANDBOX_UNAVAILABLE (a run whose profile needs
 * the sandbox on a host without bubblewrap). Every reason is in the registry maka.common.v1.ErrorReason.
 *
 * A ref names one run, whatever its session: every RPC that takes a ref (GetRun, StopRun,
 * AcquireController, ControlController, ReleaseController, Attach) accepts it without a
 * session_id, and the run's session then comes from its record. A session_id that is given must
 * be the run's: any other is NOT_FOUND/NOT_FOUND, as for a ref that names no run. The run's
 * session passes the same admission as when it is named (archived: SESSION_ARCHIVED).
 */
export interface ResourceServiceClient extends grpc.Client {
    /**
     * AcquireController takes control of an active PTY run for a connection. A second holder is
     * ABORTED/OPERATION_CONFLICT; the same holder acquiring again gets its lease back.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    AcquireController(argument: _maka_resource_v1_AcquireControllerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    AcquireController(argument: _maka_resource_v1_AcquireControllerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    AcquireController(argument: _maka_resource_v1_AcquireControllerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    AcquireController(argument: _maka_resource_v1_AcquireControllerRequest, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    /**
     * AcquireController takes control of an active PTY run for a connection. A second holder is
     * ABORTED/OPERATION_CONFLICT; the same holder acquiring again gets its lease back.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    acquireController(argument: _maka_resource_v1_AcquireControllerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    acquireController(argument: _maka_resource_v1_AcquireControllerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    acquireController(argument: _maka_resource_v1_AcquireControllerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    acquireController(argument: _maka_resource_v1_AcquireControllerRequest, callback: grpc.requestCallback<_maka_resource_v1_AcquireControllerResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ArchiveSession stops every active run of a session (TERM to each process group, a grace
     * period, then KILL; the final states are recorded) and refuses its operations from then on:
     * FAILED_PRECONDITION/SESSION_ARCHIVED, or NOT_FOUND/NOT_FOUND once deleted. Idempotent.
     * It also removes the output journals of the session's runs (their records stay).
     * Who may call: The kernel role only (PERMISSION_DENIED otherwise).
     */
    ArchiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    ArchiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    ArchiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    ArchiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ArchiveSession stops every active run of a session (TERM to each process group, a grace
     * period, then KILL; the final states are recorded) and refuses its operations from then on:
     * FAILED_PRECONDITION/SESSION_ARCHIVED, or NOT_FOUND/NOT_FOUND once deleted. Idempotent.
     * It also removes the output journals of the session's runs (their records stay).
     * Who may call: The kernel role only (PERMISSION_DENIED otherwise).
     */
    archiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    archiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    archiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    archiveSession(argument: _maka_resource_v1_ArchiveSessionRequest, callback: grpc.requestCallback<_maka_resource_v1_ArchiveSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * Attach follows a run: the client sends `start` first; the server answers `attached` (the
     * run, its current screen), replays output after the requested sequence, then streams live
     * output until the run ends (`ended`). Every chunk the run's journal keeps (its first
     * --max-run-output-bytes, default 32 MiB) reaches the client however slowly it reads; past
     * that bound it gets what memory still holds (the newest 1 MiB) and one OutputGap, with exact
     * bytes per stream, for each stretch it missed. After the run ends, also across restarts of
     * the service, `after_sequence` 0 replays the kept chunks, then one OutputGap for the rest,
     * then `ended`, until the run's session is archived or deleted or the journals of ended runs
     * exceed --max-kept-output-bytes (default 1 GiB; the runs that ended first lose theirs
     * first): then one OutputGap for all its output. With a controller id the stream holds the
     * lease for its lifetime, and `control` messages go through the same sequence rules as
     * ControlController; each is answered with a `control` outcome.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    Attach(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_maka_resource_v1_AttachRequest, _maka_resource_v1_AttachResponse__Output>;
    Attach(options?: grpc.CallOptions): grpc.ClientDuplexStream<_maka_resource_v1_AttachRequest, _maka_resource_v1_AttachResponse__Output>;
    /**
     * Attach follows a run: the client sends `start` first; the server answers `attached` (the
     * run, its current screen), replays output after the requested sequence, then streams live
     * output until the run ends (`ended`). Every chunk the run's journal keeps (its first
     * --max-run-output-bytes, default 32 MiB) reaches the client however slowly it reads; past
     * that bound it gets what memory still holds (the newest 1 MiB) and one OutputGap, with exact
     * bytes per stream, for each stretch it missed. After the run ends, also across restarts of
     * the service, `after_sequence` 0 replays the kept chunks, then one OutputGap for the rest,
     * then `ended`, until the run's session is archived or deleted or the journals of ended runs
     * exceed --max-kept-output-bytes (default 1 GiB; the runs that ended first lose theirs
     * first): then one OutputGap for all its output. With a controller id the stream holds the
     * lease for its lifetime, and `control` messages go through the same sequence rules as
     * ControlController; each is answered with a `control` outcome.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    attach(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_maka_resource_v1_AttachRequest, _maka_resource_v1_AttachResponse__Output>;
    attach(options?: grpc.CallOptions): grpc.ClientDuplexStream<_maka_resource_v1_AttachRequest, _maka_resource_v1_AttachResponse__Output>;
    /**
     * ControlController sends input and/or a resize under the lease. The sequence must be
     * exactly the next one; an exact retry returns the identical earlier result; the same
     * sequence with another payload, or input to a PTY that is being terminated, is
     * ABORTED/OPERATION_CONFLICT.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    ControlController(argument: _maka_resource_v1_ControlControllerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    ControlController(argument: _maka_resource_v1_ControlControllerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    ControlController(argument: _maka_resource_v1_ControlControllerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    ControlController(argument: _maka_resource_v1_ControlControllerRequest, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ControlController sends input and/or a resize under the lease. The sequence must be
     * exactly the next one; an exact retry returns the identical earlier result; the same
     * sequence with another payload, or input to a PTY that is being terminated, is
     * ABORTED/OPERATION_CONFLICT.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    controlController(argument: _maka_resource_v1_ControlControllerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    controlController(argument: _maka_resource_v1_ControlControllerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    controlController(argument: _maka_resource_v1_ControlControllerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    controlController(argument: _maka_resource_v1_ControlControllerRequest, callback: grpc.requestCallback<_maka_resource_v1_ControlControllerResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetRun returns a run as of now (live output for an active run).
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    GetRun(argument: _maka_resource_v1_GetRunRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    GetRun(argument: _maka_resource_v1_GetRunRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    GetRun(argument: _maka_resource_v1_GetRunRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    GetRun(argument: _maka_resource_v1_GetRunRequest, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetRun returns a run as of now (live output for an active run).
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    getRun(argument: _maka_resource_v1_GetRunRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    getRun(argument: _maka_resource_v1_GetRunRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    getRun(argument: _maka_resource_v1_GetRunRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    getRun(argument: _maka_resource_v1_GetRunRequest, callback: grpc.requestCallback<_maka_resource_v1_GetRunResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetServerInfo describes this resource process: version, state and where it keeps its data.
     * Who may call: Any authenticated principal.
     */
    GetServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    GetServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    GetServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    GetServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetServerInfo describes this resource process: version, state and where it keeps its data.
     * Who may call: Any authenticated principal.
     */
    getServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    getServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    getServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    getServerInfo(argument: _maka_resource_v1_GetServerInfoRequest, callback: grpc.requestCallback<_maka_resource_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListRuns lists a session's runs (or, without a session_id, the runs of every session whose
     * runs may be seen by ref), oldest first, a page at a time.
     * Who may call: The kernel or admin role, or the owner of the session (others: NOT_FOUND);
     * without a session_id, the runs of the sessions the caller may see.
     */
    ListRuns(argument: _maka_resource_v1_ListRunsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    ListRuns(argument: _maka_resource_v1_ListRunsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    ListRuns(argument: _maka_resource_v1_ListRunsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    ListRuns(argument: _maka_resource_v1_ListRunsRequest, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListRuns lists a session's runs (or, without a session_id, the runs of every session whose
     * runs may be seen by ref), oldest first, a page at a time.
     * Who may call: The kernel or admin role, or the owner of the session (others: NOT_FOUND);
     * without a session_id, the runs of the sessions the caller may see.
     */
    listRuns(argument: _maka_resource_v1_ListRunsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    listRuns(argument: _maka_resource_v1_ListRunsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    listRuns(argument: _maka_resource_v1_ListRunsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    listRuns(argument: _maka_resource_v1_ListRunsRequest, callback: grpc.requestCallback<_maka_resource_v1_ListRunsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * OpenConnection opens a client connection: the server answers once with its id and keeps
     * the stream open. Controller leases taken with that id belong to the connection and are
     * released when the stream ends (the client closes it, cancels it, or goes away).
     * Who may call: Any authenticated principal (a lease still needs access to its run).
     */
    OpenConnection(argument: _maka_resource_v1_OpenConnectionRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_OpenConnectionResponse__Output>;
    OpenConnection(argument: _maka_resource_v1_OpenConnectionRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_OpenConnectionResponse__Output>;
    /**
     * OpenConnection opens a client connection: the server answers once with its id and keeps
     * the stream open. Controller leases taken with that id belong to the connection and are
     * released when the stream ends (the client closes it, cancels it, or goes away).
     * Who may call: Any authenticated principal (a lease still needs access to its run).
     */
    openConnection(argument: _maka_resource_v1_OpenConnectionRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_OpenConnectionResponse__Output>;
    openConnection(argument: _maka_resource_v1_OpenConnectionRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_OpenConnectionResponse__Output>;
    /**
     * ReadRunOutput reads a run's kept output by ref, a page at a time, live or ended (also
     * after a restart): the chunks after `after_sequence`, exactly as the run printed them, then
     * on the last page the chunks that were not kept (beyond --max-run-output-bytes) with their
     * exact bytes per stream. Same caller rules as GetRun. An after_sequence beyond the run's
     * newest output, or inside output that was not kept, is OUT_OF_RANGE (ErrorInfo metadata
     * "last": the newest sequence).
     * Who may call: As GetRun: the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    ReadRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    ReadRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    ReadRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    ReadRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ReadRunOutput reads a run's kept output by ref, a page at a time, live or ended (also
     * after a restart): the chunks after `after_sequence`, exactly as the run printed them, then
     * on the last page the chunks that were not kept (beyond --max-run-output-bytes) with their
     * exact bytes per stream. Same caller rules as GetRun. An after_sequence beyond the run's
     * newest output, or inside output that was not kept, is OUT_OF_RANGE (ErrorInfo metadata
     * "last": the newest sequence).
     * Who may call: As GetRun: the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    readRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    readRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    readRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    readRunOutput(argument: _maka_resource_v1_ReadRunOutputRequest, callback: grpc.requestCallback<_maka_resource_v1_ReadRunOutputResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RegisterSession tells the service that a session exists (the kernel calls it when it
     * creates or unarchives a session, and before it runs a tool). Idempotent: registering again
     * updates the working directory and lifts an archive. In kernel mode (the default) the
     * service admits operations only for registered, unarchived sessions; a standalone service
     * (--standalone) admits any well-formed session id as well.
     * Who may call: The kernel role only (PERMISSION_DENIED otherwise); `owner` says whose session it
     * is.
     */
    RegisterSession(argument: _maka_resource_v1_RegisterSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    RegisterSession(argument: _maka_resource_v1_RegisterSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    RegisterSession(argument: _maka_resource_v1_RegisterSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    RegisterSession(argument: _maka_resource_v1_RegisterSessionRequest, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RegisterSession tells the service that a session exists (the kernel calls it when it
     * creates or unarchives a session, and before it runs a tool). Idempotent: registering again
     * updates the working directory and lifts an archive. In kernel mode (the default) the
     * service admits operations only for registered, unarchived sessions; a standalone service
     * (--standalone) admits any well-formed session id as well.
     * Who may call: The kernel role only (PERMISSION_DENIED otherwise); `owner` says whose session it
     * is.
     */
    registerSession(argument: _maka_resource_v1_RegisterSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    registerSession(argument: _maka_resource_v1_RegisterSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    registerSession(argument: _maka_resource_v1_RegisterSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    registerSession(argument: _maka_resource_v1_RegisterSessionRequest, callback: grpc.requestCallback<_maka_resource_v1_RegisterSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ReleaseController gives up the lease; `released` is false when the caller held none
     * (already released, dropped when its connection closed, or when the run ended).
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    ReleaseController(argument: _maka_resource_v1_ReleaseControllerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    ReleaseController(argument: _maka_resource_v1_ReleaseControllerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    ReleaseController(argument: _maka_resource_v1_ReleaseControllerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    ReleaseController(argument: _maka_resource_v1_ReleaseControllerRequest, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ReleaseController gives up the lease; `released` is false when the caller held none
     * (already released, dropped when its connection closed, or when the run ended).
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    releaseController(argument: _maka_resource_v1_ReleaseControllerRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    releaseController(argument: _maka_resource_v1_ReleaseControllerRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    releaseController(argument: _maka_resource_v1_ReleaseControllerRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    releaseController(argument: _maka_resource_v1_ReleaseControllerRequest, callback: grpc.requestCallback<_maka_resource_v1_ReleaseControllerResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RunForeground runs a command over pipes and streams its output chunks, then one final
     * result. Foreground runs never get a PTY: asking for one is INVALID_ARGUMENT (use
     * StartBackground). Cancelling the call cancels the run. The stream carries every byte the
     * run's journal keeps (the first --max-run-output-bytes of output, default 32 MiB), however
     * slowly the client reads: it comes from memory while the client keeps up, from the journal
     * when it falls behind. Output beyond that bound is one OutputGap with its exact bytes per
     * stream; the whole kept output stays readable afterwards by ref (ReadRunOutput).
     * Who may call: The kernel or admin role; in standalone mode also a client principal in a session
     * it owns (the first principal to use a session owns it). A client principal gets NOT_FOUND for
     * another's session and PERMISSION_DENIED in a session the kernel registered, its own included:
     * the kernel runs those sessions' commands after their approvals.
     */
    RunForeground(argument: _maka_resource_v1_RunForegroundRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_RunForegroundResponse__Output>;
    RunForeground(argument: _maka_resource_v1_RunForegroundRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_RunForegroundResponse__Output>;
    /**
     * RunForeground runs a command over pipes and streams its output chunks, then one final
     * result. Foreground runs never get a PTY: asking for one is INVALID_ARGUMENT (use
     * StartBackground). Cancelling the call cancels the run. The stream carries every byte the
     * run's journal keeps (the first --max-run-output-bytes of output, default 32 MiB), however
     * slowly the client reads: it comes from memory while the client keeps up, from the journal
     * when it falls behind. Output beyond that bound is one OutputGap with its exact bytes per
     * stream; the whole kept output stays readable afterwards by ref (ReadRunOutput).
     * Who may call: The kernel or admin role; in standalone mode also a client principal in a session
     * it owns (the first principal to use a session owns it). A client principal gets NOT_FOUND for
     * another's session and PERMISSION_DENIED in a session the kernel registered, its own included:
     * the kernel runs those sessions' commands after their approvals.
     */
    runForeground(argument: _maka_resource_v1_RunForegroundRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_RunForegroundResponse__Output>;
    runForeground(argument: _maka_resource_v1_RunForegroundRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_RunForegroundResponse__Output>;
    /**
     * Shutdown drains the service: new starts are refused at once (UNAVAILABLE/HOST_DRAINING,
     * "Runtime resources are draining"), controllers are dropped, live runs are cancelled. It
     * answers with how the runs ended within the shutdown grace period (and which had not),
     * then the server stops. A caller that goes away does not stop the shutdown it began.
     * Who may call: The operator or admin role; anyone else gets PERMISSION_DENIED.
     */
    Shutdown(argument: _maka_resource_v1_ShutdownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    Shutdown(argument: _maka_resource_v1_ShutdownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    Shutdown(argument: _maka_resource_v1_ShutdownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    Shutdown(argument: _maka_resource_v1_ShutdownRequest, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    /**
     * Shutdown drains the service: new starts are refused at once (UNAVAILABLE/HOST_DRAINING,
     * "Runtime resources are draining"), controllers are dropped, live runs are cancelled. It
     * answers with how the runs ended within the shutdown grace period (and which had not),
     * then the server stops. A caller that goes away does not stop the shutdown it began.
     * Who may call: The operator or admin role; anyone else gets PERMISSION_DENIED.
     */
    shutdown(argument: _maka_resource_v1_ShutdownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    shutdown(argument: _maka_resource_v1_ShutdownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    shutdown(argument: _maka_resource_v1_ShutdownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    shutdown(argument: _maka_resource_v1_ShutdownRequest, callback: grpc.requestCallback<_maka_resource_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    /**
     * StartBackground starts a command over pipes or a PTY and returns at once with the run,
     * normally `running` (or its terminal state if it could not start).
     * Who may call: As RunForeground.
     */
    StartBackground(argument: _maka_resource_v1_StartBackgroundRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    StartBackground(argument: _maka_resource_v1_StartBackgroundRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    StartBackground(argument: _maka_resource_v1_StartBackgroundRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    StartBackground(argument: _maka_resource_v1_StartBackgroundRequest, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    /**
     * StartBackground starts a command over pipes or a PTY and returns at once with the run,
     * normally `running` (or its terminal state if it could not start).
     * Who may call: As RunForeground.
     */
    startBackground(argument: _maka_resource_v1_StartBackgroundRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    startBackground(argument: _maka_resource_v1_StartBackgroundRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    startBackground(argument: _maka_resource_v1_StartBackgroundRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    startBackground(argument: _maka_resource_v1_StartBackgroundRequest, callback: grpc.requestCallback<_maka_resource_v1_StartBackgroundResponse__Output>): grpc.ClientUnaryCall;
    /**
     * StopRun cancels a run (TERM to its process group, a grace period, then KILL) and returns
     * its final state; a run that has already ended is returned unchanged.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    StopRun(argument: _maka_resource_v1_StopRunRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    StopRun(argument: _maka_resource_v1_StopRunRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    StopRun(argument: _maka_resource_v1_StopRunRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    StopRun(argument: _maka_resource_v1_StopRunRequest, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    /**
     * StopRun cancels a run (TERM to its process group, a grace period, then KILL) and returns
     * its final state; a run that has already ended is returned unchanged.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    stopRun(argument: _maka_resource_v1_StopRunRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    stopRun(argument: _maka_resource_v1_StopRunRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    stopRun(argument: _maka_resource_v1_StopRunRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    stopRun(argument: _maka_resource_v1_StopRunRequest, callback: grpc.requestCallback<_maka_resource_v1_StopRunResponse__Output>): grpc.ClientUnaryCall;
    /**
     * WatchRuns streams a session's run changes after a change sequence, until the server shuts
     * down. First a replay from the store, which keeps only each run's latest revision: every run
     * changed after `after_change_seq` once, in its latest revision, in change_seq order. Then
     * live: every revision committed from then on, once each, in commit order (a fast run is
     * STARTING, RUNNING, then its terminal state), while the watcher has at most the service's
     * watch backlog (--watch-backlog, default 1024) revisions not yet read. A watcher further
     * behind loses its queued revisions and gets, as in the replay, the latest revision of each
     * run changed since the last change_seq it got. change_seq only grows along a stream and no
     * change is missed; a collapse shows as a jump in a run's `revision`. To resume, pass the
     * last change_seq received.
     * Who may call: The kernel or admin role, or the owner of the session; anyone else gets
     * NOT_FOUND.
     */
    WatchRuns(argument: _maka_resource_v1_WatchRunsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_WatchRunsResponse__Output>;
    WatchRuns(argument: _maka_resource_v1_WatchRunsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_WatchRunsResponse__Output>;
    /**
     * WatchRuns streams a session's run changes after a change sequence, until the server shuts
     * down. First a replay from the store, which keeps only each run's latest revision: every run
     * changed after `after_change_seq` once, in its latest revision, in change_seq order. Then
     * live: every revision committed from then on, once each, in commit order (a fast run is
     * STARTING, RUNNING, then its terminal state), while the watcher has at most the service's
     * watch backlog (--watch-backlog, default 1024) revisions not yet read. A watcher further
     * behind loses its queued revisions and gets, as in the replay, the latest revision of each
     * run changed since the last change_seq it got. change_seq only grows along a stream and no
     * change is missed; a collapse shows as a jump in a run's `revision`. To resume, pass the
     * last change_seq received.
     * Who may call: The kernel or admin role, or the owner of the session; anyone else gets
     * NOT_FOUND.
     */
    watchRuns(argument: _maka_resource_v1_WatchRunsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_WatchRunsResponse__Output>;
    watchRuns(argument: _maka_resource_v1_WatchRunsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_resource_v1_WatchRunsResponse__Output>;
}
/**
 * ResourceService runs shell commands: foreground, background, PTY, with controller leases.
 *
 * Errors carry a google.rpc.Status with one google.rpc.ErrorInfo (domain "resource.maka"):
 * INVALID_ARGUMENT/INVALID_REQUEST (metadata "field" names the offending field),
 * NOT_FOUND/NOT_FOUND, FAILED_PRECONDITION/SESSION_ARCHIVED, ABORTED/OPERATION_CONFLICT,
 * UNAVAILABLE/HOST_DRAINING, RESOURCE_EXHAUSTED/RESOURCE_EXHAUSTED,
 * UNAVAILABLE/PERSISTENCE_FAILED (a refused write, or the store's owner gone) and
 * INTERNAL/INTERNAL_FAILURE, FAILED_PRECONDITION/SANDBOX_UNAVAILABLE (a run whose profile needs
 * the sandbox on a host without bubblewrap). Every reason is in the registry maka.common.v1.ErrorReason.
 *
 * A ref names one run, whatever its session: every RPC that takes a ref (GetRun, StopRun,
 * AcquireController, ControlController, ReleaseController, Attach) accepts it without a
 * session_id, and the run's session then comes from its record. A session_id that is given must
 * be the run's: any other is NOT_FOUND/NOT_FOUND, as for a ref that names no run. The run's
 * session passes the same admission as when it is named (archived: SESSION_ARCHIVED).
 */
export interface ResourceServiceHandlers extends grpc.UntypedServiceImplementation {
    /**
     * AcquireController takes control of an active PTY run for a connection. A second holder is
     * ABORTED/OPERATION_CONFLICT; the same holder acquiring again gets its lease back.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    AcquireController: grpc.handleUnaryCall<_maka_resource_v1_AcquireControllerRequest__Output, _maka_resource_v1_AcquireControllerResponse>;
    /**
     * ArchiveSession stops every active run of a session (TERM to each process group, a grace
     * period, then KILL; the final states are recorded) and refuses its operations from then on:
     * FAILED_PRECONDITION/SESSION_ARCHIVED, or NOT_FOUND/NOT_FOUND once deleted. Idempotent.
     * It also removes the output journals of the session's runs (their records stay).
     * Who may call: The kernel role only (PERMISSION_DENIED otherwise).
     */
    ArchiveSession: grpc.handleUnaryCall<_maka_resource_v1_ArchiveSessionRequest__Output, _maka_resource_v1_ArchiveSessionResponse>;
    /**
     * Attach follows a run: the client sends `start` first; the server answers `attached` (the
     * run, its current screen), replays output after the requested sequence, then streams live
     * output until the run ends (`ended`). Every chunk the run's journal keeps (its first
     * --max-run-output-bytes, default 32 MiB) reaches the client however slowly it reads; past
     * that bound it gets what memory still holds (the newest 1 MiB) and one OutputGap, with exact
     * bytes per stream, for each stretch it missed. After the run ends, also across restarts of
     * the service, `after_sequence` 0 replays the kept chunks, then one OutputGap for the rest,
     * then `ended`, until the run's session is archived or deleted or the journals of ended runs
     * exceed --max-kept-output-bytes (default 1 GiB; the runs that ended first lose theirs
     * first): then one OutputGap for all its output. With a controller id the stream holds the
     * lease for its lifetime, and `control` messages go through the same sequence rules as
     * ControlController; each is answered with a `control` outcome.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    Attach: grpc.handleBidiStreamingCall<_maka_resource_v1_AttachRequest__Output, _maka_resource_v1_AttachResponse>;
    /**
     * ControlController sends input and/or a resize under the lease. The sequence must be
     * exactly the next one; an exact retry returns the identical earlier result; the same
     * sequence with another payload, or input to a PTY that is being terminated, is
     * ABORTED/OPERATION_CONFLICT.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    ControlController: grpc.handleUnaryCall<_maka_resource_v1_ControlControllerRequest__Output, _maka_resource_v1_ControlControllerResponse>;
    /**
     * GetRun returns a run as of now (live output for an active run).
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    GetRun: grpc.handleUnaryCall<_maka_resource_v1_GetRunRequest__Output, _maka_resource_v1_GetRunResponse>;
    /**
     * GetServerInfo describes this resource process: version, state and where it keeps its data.
     * Who may call: Any authenticated principal.
     */
    GetServerInfo: grpc.handleUnaryCall<_maka_resource_v1_GetServerInfoRequest__Output, _maka_resource_v1_GetServerInfoResponse>;
    /**
     * ListRuns lists a session's runs (or, without a session_id, the runs of every session whose
     * runs may be seen by ref), oldest first, a page at a time.
     * Who may call: The kernel or admin role, or the owner of the session (others: NOT_FOUND);
     * without a session_id, the runs of the sessions the caller may see.
     */
    ListRuns: grpc.handleUnaryCall<_maka_resource_v1_ListRunsRequest__Output, _maka_resource_v1_ListRunsResponse>;
    /**
     * OpenConnection opens a client connection: the server answers once with its id and keeps
     * the stream open. Controller leases taken with that id belong to the connection and are
     * released when the stream ends (the client closes it, cancels it, or goes away).
     * Who may call: Any authenticated principal (a lease still needs access to its run).
     */
    OpenConnection: grpc.handleServerStreamingCall<_maka_resource_v1_OpenConnectionRequest__Output, _maka_resource_v1_OpenConnectionResponse>;
    /**
     * ReadRunOutput reads a run's kept output by ref, a page at a time, live or ended (also
     * after a restart): the chunks after `after_sequence`, exactly as the run printed them, then
     * on the last page the chunks that were not kept (beyond --max-run-output-bytes) with their
     * exact bytes per stream. Same caller rules as GetRun. An after_sequence beyond the run's
     * newest output, or inside output that was not kept, is OUT_OF_RANGE (ErrorInfo metadata
     * "last": the newest sequence).
     * Who may call: As GetRun: the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    ReadRunOutput: grpc.handleUnaryCall<_maka_resource_v1_ReadRunOutputRequest__Output, _maka_resource_v1_ReadRunOutputResponse>;
    /**
     * RegisterSession tells the service that a session exists (the kernel calls it when it
     * creates or unarchives a session, and before it runs a tool). Idempotent: registering again
     * updates the working directory and lifts an archive. In kernel mode (the default) the
     * service admits operations only for registered, unarchived sessions; a standalone service
     * (--standalone) admits any well-formed session id as well.
     * Who may call: The kernel role only (PERMISSION_DENIED otherwise); `owner` says whose session it
     * is.
     */
    RegisterSession: grpc.handleUnaryCall<_maka_resource_v1_RegisterSessionRequest__Output, _maka_resource_v1_RegisterSessionResponse>;
    /**
     * ReleaseController gives up the lease; `released` is false when the caller held none
     * (already released, dropped when its connection closed, or when the run ended).
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    ReleaseController: grpc.handleUnaryCall<_maka_resource_v1_ReleaseControllerRequest__Output, _maka_resource_v1_ReleaseControllerResponse>;
    /**
     * RunForeground runs a command over pipes and streams its output chunks, then one final
     * result. Foreground runs never get a PTY: asking for one is INVALID_ARGUMENT (use
     * StartBackground). Cancelling the call cancels the run. The stream carries every byte the
     * run's journal keeps (the first --max-run-output-bytes of output, default 32 MiB), however
     * slowly the client reads: it comes from memory while the client keeps up, from the journal
     * when it falls behind. Output beyond that bound is one OutputGap with its exact bytes per
     * stream; the whole kept output stays readable afterwards by ref (ReadRunOutput).
     * Who may call: The kernel or admin role; in standalone mode also a client principal in a session
     * it owns (the first principal to use a session owns it). A client principal gets NOT_FOUND for
     * another's session and PERMISSION_DENIED in a session the kernel registered, its own included:
     * the kernel runs those sessions' commands after their approvals.
     */
    RunForeground: grpc.handleServerStreamingCall<_maka_resource_v1_RunForegroundRequest__Output, _maka_resource_v1_RunForegroundResponse>;
    /**
     * Shutdown drains the service: new starts are refused at once (UNAVAILABLE/HOST_DRAINING,
     * "Runtime resources are draining"), controllers are dropped, live runs are cancelled. It
     * answers with how the runs ended within the shutdown grace period (and which had not),
     * then the server stops. A caller that goes away does not stop the shutdown it began.
     * Who may call: The operator or admin role; anyone else gets PERMISSION_DENIED.
     */
    Shutdown: grpc.handleUnaryCall<_maka_resource_v1_ShutdownRequest__Output, _maka_resource_v1_ShutdownResponse>;
    /**
     * StartBackground starts a command over pipes or a PTY and returns at once with the run,
     * normally `running` (or its terminal state if it could not start).
     * Who may call: As RunForeground.
     */
    StartBackground: grpc.handleUnaryCall<_maka_resource_v1_StartBackgroundRequest__Output, _maka_resource_v1_StartBackgroundResponse>;
    /**
     * StopRun cancels a run (TERM to its process group, a grace period, then KILL) and returns
     * its final state; a run that has already ended is returned unchanged.
     * Who may call: A principal with the kernel or admin role, or the owner of the run's session;
     * anyone else gets NOT_FOUND, as for an unknown ref.
     */
    StopRun: grpc.handleUnaryCall<_maka_resource_v1_StopRunRequest__Output, _maka_resource_v1_StopRunResponse>;
    /**
     * WatchRuns streams a session's run changes after a change sequence, until the server shuts
     * down. First a replay from the store, which keeps only each run's latest revision: every run
     * changed after `after_change_seq` once, in its latest revision, in change_seq order. Then
     * live: every revision committed from then on, once each, in commit order (a fast run is
     * STARTING, RUNNING, then its terminal state), while the watcher has at most the service's
     * watch backlog (--watch-backlog, default 1024) revisions not yet read. A watcher further
     * behind loses its queued revisions and gets, as in the replay, the latest revision of each
     * run changed since the last change_seq it got. change_seq only grows along a stream and no
     * change is missed; a collapse shows as a jump in a run's `revision`. To resume, pass the
     * last change_seq received.
     * Who may call: The kernel or admin role, or the owner of the session; anyone else gets
     * NOT_FOUND.
     */
    WatchRuns: grpc.handleServerStreamingCall<_maka_resource_v1_WatchRunsRequest__Output, _maka_resource_v1_WatchRunsResponse>;
}
export interface ResourceServiceDefinition extends grpc.ServiceDefinition {
    AcquireController: MethodDefinition<_maka_resource_v1_AcquireControllerRequest, _maka_resource_v1_AcquireControllerResponse, _maka_resource_v1_AcquireControllerRequest__Output, _maka_resource_v1_AcquireControllerResponse__Output>;
    ArchiveSession: MethodDefinition<_maka_resource_v1_ArchiveSessionRequest, _maka_resource_v1_ArchiveSessionResponse, _maka_resource_v1_ArchiveSessionRequest__Output, _maka_resource_v1_ArchiveSessionResponse__Output>;
    Attach: MethodDefinition<_maka_resource_v1_AttachRequest, _maka_resource_v1_AttachResponse, _maka_resource_v1_AttachRequest__Output, _maka_resource_v1_AttachResponse__Output>;
    ControlController: MethodDefinition<_maka_resource_v1_ControlControllerRequest, _maka_resource_v1_ControlControllerResponse, _maka_resource_v1_ControlControllerRequest__Output, _maka_resource_v1_ControlControllerResponse__Output>;
    GetRun: MethodDefinition<_maka_resource_v1_GetRunRequest, _maka_resource_v1_GetRunResponse, _maka_resource_v1_GetRunRequest__Output, _maka_resource_v1_GetRunResponse__Output>;
    GetServerInfo: MethodDefinition<_maka_resource_v1_GetServerInfoRequest, _maka_resource_v1_GetServerInfoResponse, _maka_resource_v1_GetServerInfoRequest__Output, _maka_resource_v1_GetServerInfoResponse__Output>;
    ListRuns: MethodDefinition<_maka_resource_v1_ListRunsRequest, _maka_resource_v1_ListRunsResponse, _maka_resource_v1_ListRunsRequest__Output, _maka_resource_v1_ListRunsResponse__Output>;
    OpenConnection: MethodDefinition<_maka_resource_v1_OpenConnectionRequest, _maka_resource_v1_OpenConnectionResponse, _maka_resource_v1_OpenConnectionRequest__Output, _maka_resource_v1_OpenConnectionResponse__Output>;
    ReadRunOutput: MethodDefinition<_maka_resource_v1_ReadRunOutputRequest, _maka_resource_v1_ReadRunOutputResponse, _maka_resource_v1_ReadRunOutputRequest__Output, _maka_resource_v1_ReadRunOutputResponse__Output>;
    RegisterSession: MethodDefinition<_maka_resource_v1_RegisterSessionRequest, _maka_resource_v1_RegisterSessionResponse, _maka_resource_v1_RegisterSessionRequest__Output, _maka_resource_v1_RegisterSessionResponse__Output>;
    ReleaseController: MethodDefinition<_maka_resource_v1_ReleaseControllerRequest, _maka_resource_v1_ReleaseControllerResponse, _maka_resource_v1_ReleaseControllerRequest__Output, _maka_resource_v1_ReleaseControllerResponse__Output>;
    RunForeground: MethodDefinition<_maka_resource_v1_RunForegroundRequest, _maka_resource_v1_RunForegroundResponse, _maka_resource_v1_RunForegroundRequest__Output, _maka_resource_v1_RunForegroundResponse__Output>;
    Shutdown: MethodDefinition<_maka_resource_v1_ShutdownRequest, _maka_resource_v1_ShutdownResponse, _maka_resource_v1_ShutdownRequest__Output, _maka_resource_v1_ShutdownResponse__Output>;
    StartBackground: MethodDefinition<_maka_resource_v1_StartBackgroundRequest, _maka_resource_v1_StartBackgroundResponse, _maka_resource_v1_StartBackgroundRequest__Output, _maka_resource_v1_StartBackgroundResponse__Output>;
    StopRun: MethodDefinition<_maka_resource_v1_StopRunRequest, _maka_resource_v1_StopRunResponse, _maka_resource_v1_StopRunRequest__Output, _maka_resource_v1_StopRunResponse__Output>;
    WatchRuns: MethodDefinition<_maka_resource_v1_WatchRunsRequest, _maka_resource_v1_WatchRunsResponse, _maka_resource_v1_WatchRunsRequest__Output, _maka_resource_v1_WatchRunsResponse__Output>;
}
