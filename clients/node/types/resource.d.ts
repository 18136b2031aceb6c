import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.js';
import type { AcquireControllerRequest as _maka_resource_v1_AcquireControllerRequest, AcquireControllerRequest__Output as _maka_resource_v1_AcquireControllerRequest__Output } from './maka/resource/v1/AcquireControllerRequest.js';
import type { AcquireControllerResponse as _maka_resource_v1_AcquireControllerResponse, AcquireControllerResponse__Output as _maka_resource_v1_AcquireControllerResponse__Output } from './maka/resource/v1/AcquireControllerResponse.js';
import type { ArchiveSessionRequest as _maka_resource_v1_ArchiveSessionRequest, ArchiveSessionRequest__Output as _maka_resource_v1_ArchiveSessionRequest__Output } from './maka/resource/v1/ArchiveSessionRequest.js';
import type { ArchiveSessionResponse as _maka_resource_v1_ArchiveSessionResponse, ArchiveSessionResponse__Output as _maka_resource_v1_ArchiveSessionResponse__Output } from './maka/resource/v1/ArchiveSessionResponse.js';
import type { AttachControl as _maka_resource_v1_AttachControl, AttachControl__Output as _maka_resource_v1_AttachControl__Output } from './maka/resource/v1/AttachControl.js';
import type { AttachRequest as _maka_resource_v1_AttachRequest, AttachRequest__Output as _maka_resource_v1_AttachRequest__Output } from './maka/resource/v1/AttachRequest.js';
import type { AttachResponse as _maka_resource_v1_AttachResponse, AttachResponse__Output as _maka_resource_v1_AttachResponse__Output } from './maka/resource/v1/AttachResponse.js';
import type { AttachStart as _maka_resource_v1_AttachStart, AttachStart__Output as _maka_resource_v1_AttachStart__Output } from './maka/resource/v1/AttachStart.js';
import type { Attached as _maka_resource_v1_Attached, Attached__Output as _maka_resource_v1_Attached__Output } from './maka/resource/v1/Attached.js';
import type { BoundaryExpansion as _maka_resource_v1_BoundaryExpansion, BoundaryExpansion__Output as _maka_resource_v1_BoundaryExpansion__Output } from './maka/resource/v1/BoundaryExpansion.js';
import type { ControlControllerRequest as _maka_resource_v1_ControlControllerRequest, ControlControllerRequest__Output as _maka_resource_v1_ControlControllerRequest__Output } from './maka/resource/v1/ControlControllerRequest.js';
import type { ControlControllerResponse as _maka_resource_v1_ControlControllerResponse, ControlControllerResponse__Output as _maka_resource_v1_ControlControllerResponse__Output } from './maka/resource/v1/ControlControllerResponse.js';
import type { ControlOutcome as _maka_resource_v1_ControlOutcome, ControlOutcome__Output as _maka_resource_v1_ControlOutcome__Output } from './maka/resource/v1/ControlOutcome.js';
import type { ControlRejected as _maka_resource_v1_ControlRejected, ControlRejected__Output as _maka_resource_v1_ControlRejected__Output } from './maka/resource/v1/ControlRejected.js';
import type { ExecutionBoundary as _maka_resource_v1_ExecutionBoundary, ExecutionBoundary__Output as _maka_resource_v1_ExecutionBoundary__Output } from './maka/resource/v1/ExecutionBoundary.js';
import type { FilesystemEntry as _maka_resource_v1_FilesystemEntry, FilesystemEntry__Output as _maka_resource_v1_FilesystemEntry__Output } from './maka/resource/v1/FilesystemEntry.js';
import type { GetRunRequest as _maka_resource_v1_GetRunRequest, GetRunRequest__Output as _maka_resource_v1_GetRunRequest__Output } from './maka/resource/v1/GetRunRequest.js';
import type { GetRunResponse as _maka_resource_v1_GetRunResponse, GetRunResponse__Output as _maka_resource_v1_GetRunResponse__Output } from './maka/resource/v1/GetRunResponse.js';
import type { GetServerInfoRequest as _maka_resource_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _maka_resource_v1_GetServerInfoRequest__Output } from './maka/resource/v1/GetServerInfoRequest.js';
import type { GetServerInfoResponse as _maka_resource_v1_GetServerInfoResponse, GetServerInfoResponse__Output as _maka_resource_v1_GetServerInfoResponse__Output } from './maka/resource/v1/GetServerInfoResponse.js';
import type { ListRunsRequest as _maka_resource_v1_ListRunsRequest, ListRunsRequest__Output as _maka_resource_v1_ListRunsRequest__Output } from './maka/resource/v1/ListRunsRequest.js';
import type { ListRunsResponse as _maka_resource_v1_ListRunsResponse, ListRunsResponse__Output as _maka_resource_v1_ListRunsResponse__Output } from './maka/resource/v1/ListRunsResponse.js';
import type { OpenConnectionRequest as _maka_resource_v1_OpenConnectionRequest, OpenConnectionRequest__Output as _maka_resource_v1_OpenConnectionRequest__Output } from './maka/resource/v1/OpenConnectionRequest.js';
import type { OpenConnectionResponse as _maka_resource_v1_OpenConnectionResponse, OpenConnectionResponse__Output as _maka_resource_v1_OpenConnectionResponse__Output } from './maka/resource/v1/OpenConnectionResponse.js';
import type { OutputChunk as _maka_resource_v1_OutputChunk, OutputChunk__Output as _maka_resource_v1_OutputChunk__Output } from './maka/resource/v1/OutputChunk.js';
import type { OutputGap as _maka_resource_v1_OutputGap, OutputGap__Output as _maka_resource_v1_OutputGap__Output } from './maka/resource/v1/OutputGap.js';
import type { PipesOutput as _maka_resource_v1_PipesOutput, PipesOutput__Output as _maka_resource_v1_PipesOutput__Output } from './maka/resource/v1/PipesOutput.js';
import type { ReadRunOutputRequest as _maka_resource_v1_ReadRunOutputRequest, ReadRunOutputRequest__Output as _maka_resource_v1_ReadRunOutputRequest__Output } from './maka/resource/v1/ReadRunOutputRequest.js';
import type { ReadRunOutputResponse as _maka_resource_v1_ReadRunOutputResponse, ReadRunOutputResponse__Output as _maka_resource_v1_ReadRunOutputResponse__Output } from './maka/resource/v1/ReadRunOutputResponse.js';
import type { RegisterSessionRequest as _maka_resource_v1_RegisterSessionRequest, RegisterSessionRequest__Output as _maka_resource_v1_RegisterSessionRequest__Output } from './maka/resource/v1/RegisterSessionRequest.js';
import type { RegisterSessionResponse as _maka_resource_v1_RegisterSessionResponse, RegisterSessionResponse__Output as _maka_resource_v1_RegisterSessionResponse__Output } from './maka/resource/v1/RegisterSessionResponse.js';
import type { ReleaseControllerRequest as _maka_resource_v1_ReleaseControllerRequest, ReleaseControllerRequest__Output as _maka_resource_v1_ReleaseControllerRequest__Output } from './maka/resource/v1/ReleaseControllerRequest.js';
import type { ReleaseControllerResponse as _maka_resource_v1_ReleaseControllerResponse, ReleaseControllerResponse__Output as _maka_resource_v1_ReleaseControllerResponse__Output } from './maka/resource/v1/ReleaseControllerResponse.js';
import type { ResourceServiceClient as _maka_resource_v1_ResourceServiceClient, ResourceServiceDefinition as _maka_resource_v1_ResourceServiceDefinition } from './maka/resource/v1/ResourceService.js';
import type { Run as _maka_resource_v1_Run, Run__Output as _maka_resource_v1_Run__Output } from './maka/resource/v1/Run.js';
import type { RunCount as _maka_resource_v1_RunCount, RunCount__Output as _maka_resource_v1_RunCount__Output } from './maka/resource/v1/RunCount.js';
import type { RunForegroundRequest as _maka_resource_v1_RunForegroundRequest, RunForegroundRequest__Output as _maka_resource_v1_RunForegroundRequest__Output } from './maka/resource/v1/RunForegroundRequest.js';
import type { RunForegroundResponse as _maka_resource_v1_RunForegroundResponse, RunForegroundResponse__Output as _maka_resource_v1_RunForegroundResponse__Output } from './maka/resource/v1/RunForegroundResponse.js';
import type { RunSandbox as _maka_resource_v1_RunSandbox, RunSandbox__Output as _maka_resource_v1_RunSandbox__Output } from './maka/resource/v1/RunSandbox.js';
import type { SandboxCapabilities as _maka_resource_v1_SandboxCapabilities, SandboxCapabilities__Output as _maka_resource_v1_SandboxCapabilities__Output } from './maka/resource/v1/SandboxCapabilities.js';
import type { Screen as _maka_resource_v1_Screen, Screen__Output as _maka_resource_v1_Screen__Output } from './maka/resource/v1/Screen.js';
import type { ShutdownRequest as _maka_resource_v1_ShutdownRequest, ShutdownRequest__Output as _maka_resource_v1_ShutdownRequest__Output } from './maka/resource/v1/ShutdownRequest.js';
import type { ShutdownResponse as _maka_resource_v1_ShutdownResponse, ShutdownResponse__Output as _maka_resource_v1_ShutdownResponse__Output } from './maka/resource/v1/ShutdownResponse.js';
import type { StartBackgroundRequest as _maka_resource_v1_StartBackgroundRequest, StartBackgroundRequest__Output as _maka_resource_v1_StartBackgroundRequest__Output } from './maka/resource/v1/StartBackgroundRequest.js';
import type { StartBackgroundResponse as _maka_resource_v1_StartBackgroundResponse, StartBackgroundResponse__Output as _maka_resource_v1_StartBackgroundResponse__Output } from './maka/resource/v1/StartBackgroundResponse.js';
import type { StopRunRequest as _maka_resource_v1_StopRunRequest, StopRunRequest__Output as _maka_resource_v1_StopRunRequest__Output } from './maka/resource/v1/StopRunRequest.js';
import type { StopRunResponse as _maka_resource_v1_StopRunResponse, StopRunResponse__Output as _maka_resource_v1_StopRunResponse__Output } from './maka/resource/v1/StopRunResponse.js';
import type { TerminalSize as _maka_resource_v1_TerminalSize, TerminalSize__Output as _maka_resource_v1_TerminalSize__Output } from './maka/resource/v1/TerminalSize.js';
import type { WatchRunsRequest as _maka_resource_v1_WatchRunsRequest, WatchRunsRequest__Output as _maka_resource_v1_WatchRunsRequest__Output } from './maka/resource/v1/WatchRunsRequest.js';
import type { WatchRunsResponse as _maka_resource_v1_WatchRunsResponse, WatchRunsResponse__Output as _maka_resource_v1_WatchRunsResponse__Output } from './maka/resource/v1/WatchRunsResponse.js';
type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
    new (...args: ConstructorParameters<Constructor>): Subtype;
};
export interface ProtoGrpcType {
    google: {
        protobuf: {
            Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>;
        };
    };
    maka: {
        resource: {
            v1: {
                AcquireControllerRequest: MessageTypeDefinition<_maka_resource_v1_AcquireControllerRequest, _maka_resource_v1_AcquireControllerRequest__Output>;
                AcquireControllerResponse: MessageTypeDefinition<_maka_resource_v1_AcquireControllerResponse, _maka_resource_v1_AcquireControllerResponse__Output>;
                ArchiveSessionRequest: MessageTypeDefinition<_maka_resource_v1_ArchiveSessionRequest, _maka_resource_v1_ArchiveSessionRequest__Output>;
                ArchiveSessionResponse: MessageTypeDefinition<_maka_resource_v1_ArchiveSessionResponse, _maka_resource_v1_ArchiveSessionResponse__Output>;
                AttachControl: MessageTypeDefinition<_maka_resource_v1_AttachControl, _maka_resource_v1_AttachControl__Output>;
                AttachRequest: MessageTypeDefinition<_maka_resource_v1_AttachRequest, _maka_resource_v1_AttachRequest__Output>;
                AttachResponse: MessageTypeDefinition<_maka_resource_v1_AttachResponse, _maka_resource_v1_AttachResponse__Output>;
                AttachStart: MessageTypeDefinition<_maka_resource_v1_AttachStart, _maka_resource_v1_AttachStart__Output>;
                Attached: MessageTypeDefinition<_maka_resource_v1_Attached, _maka_resource_v1_Attached__Output>;
                BoundaryExpansion: MessageTypeDefinition<_maka_resource_v1_BoundaryExpansion, _maka_resource_v1_BoundaryExpansion__Output>;
                Containment: EnumTypeDefinition;
                ControlControllerRequest: MessageTypeDefinition<_maka_resource_v1_ControlControllerRequest, _maka_resource_v1_ControlControllerRequest__Output>;
                ControlControllerResponse: MessageTypeDefinition<_maka_resource_v1_ControlControllerResponse, _maka_resource_v1_ControlControllerResponse__Output>;
                ControlOutcome: MessageTypeDefinition<_maka_resource_v1_ControlOutcome, _maka_resource_v1_ControlOutcome__Output>;
                ControlRejected: MessageTypeDefinition<_maka_resource_v1_ControlRejected, _maka_resource_v1_ControlRejected__Output>;
                ExecutionBoundary: MessageTypeDefinition<_maka_resource_v1_ExecutionBoundary, _maka_resource_v1_ExecutionBoundary__Output>;
                FilesystemAccess: EnumTypeDefinition;
                FilesystemEntry: MessageTypeDefinition<_maka_resource_v1_FilesystemEntry, _maka_resource_v1_FilesystemEntry__Output>;
                GetRunRequest: MessageTypeDefinition<_maka_resource_v1_GetRunRequest, _maka_resource_v1_GetRunRequest__Output>;
                GetRunResponse: MessageTypeDefinition<_maka_resource_v1_GetRunResponse, _maka_resource_v1_GetRunResponse__Output>;
                GetServerInfoRequest: MessageTypeDefinition<_maka_resource_v1_GetServerInfoRequest, _maka_resource_v1_GetServerInfoRequest__Output>;
                GetServerInfoResponse: MessageTypeDefinition<_maka_resource_v1_GetServerInfoResponse, _maka_resource_v1_GetServerInfoResponse__Output>;
                ListRunsRequest: MessageTypeDefinition<_maka_resource_v1_ListRunsRequest, _maka_resource_v1_ListRunsRequest__Output>;
                ListRunsResponse: MessageTypeDefinition<_maka_resource_v1_ListRunsResponse, _maka_resource_v1_ListRunsResponse__Output>;
                OpenConnectionRequest: MessageTypeDefinition<_maka_resource_v1_OpenConnectionRequest, _maka_resource_v1_OpenConnectionRequest__Output>;
                OpenConnectionResponse: MessageTypeDefinition<_maka_resource_v1_OpenConnectionResponse, _maka_resource_v1_OpenConnectionResponse__Output>;
                OutputChunk: MessageTypeDefinition<_maka_resource_v1_OutputChunk, _maka_resource_v1_OutputChunk__Output>;
                OutputGap: MessageTypeDefinition<_maka_resource_v1_OutputGap, _maka_resource_v1_OutputGap__Output>;
                OutputStream: EnumTypeDefinition;
                PathMatch: EnumTypeDefinition;
                PermissionProfile: EnumTypeDefinition;
                PipesOutput: MessageTypeDefinition<_maka_resource_v1_PipesOutput, _maka_resource_v1_PipesOutput__Output>;
                ReadRunOutputRequest: MessageTypeDefinition<_maka_resource_v1_ReadRunOutputRequest, _maka_resource_v1_ReadRunOutputRequest__Output>;
                ReadRunOutputResponse: MessageTypeDefinition<_maka_resource_v1_ReadRunOutputResponse, _maka_resource_v1_ReadRunOutputResponse__Output>;
                RegisterSessionRequest: MessageTypeDefinition<_maka_resource_v1_RegisterSessionRequest, _maka_resource_v1_RegisterSessionRequest__Output>;
                RegisterSessionResponse: MessageTypeDefinition<_maka_resource_v1_RegisterSessionResponse, _maka_resource_v1_RegisterSessionResponse__Output>;
                ReleaseControllerRequest: MessageTypeDefinition<_maka_resource_v1_ReleaseControllerRequest, _maka_resource_v1_ReleaseControllerRequest__Output>;
                ReleaseControllerResponse: MessageTypeDefinition<_maka_resource_v1_ReleaseControllerResponse, _maka_resource_v1_ReleaseControllerResponse__Output>;
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
                ResourceService: SubtypeConstructor<typeof grpc.Client, _maka_resource_v1_ResourceServiceClient> & {
                    service: _maka_resource_v1_ResourceServiceDefinition;
                };
                Run: MessageTypeDefinition<_maka_resource_v1_Run, _maka_resource_v1_Run__Output>;
                RunCount: MessageTypeDefinition<_maka_resource_v1_RunCount, _maka_resource_v1_RunCount__Output>;
                RunForegroundRequest: MessageTypeDefinition<_maka_resource_v1_RunForegroundRequest, _maka_resource_v1_RunForegroundRequest__Output>;
                RunForegroundResponse: MessageTypeDefinition<_maka_resource_v1_RunForegroundResponse, _maka_resource_v1_RunForegroundResponse__Output>;
                RunKind: EnumTypeDefinition;
                RunMode: EnumTypeDefinition;
                RunSandbox: MessageTypeDefinition<_maka_resource_v1_RunSandbox, _maka_resource_v1_RunSandbox__Output>;
                RunStatus: EnumTypeDefinition;
                SandboxCapabilities: MessageTypeDefinition<_maka_resource_v1_SandboxCapabilities, _maka_resource_v1_SandboxCapabilities__Output>;
                Screen: MessageTypeDefinition<_maka_resource_v1_Screen, _maka_resource_v1_Screen__Output>;
                ShutdownRequest: MessageTypeDefinition<_maka_resource_v1_ShutdownRequest, _maka_resource_v1_ShutdownRequest__Output>;
                ShutdownResponse: MessageTypeDefinition<_maka_resource_v1_ShutdownResponse, _maka_resource_v1_ShutdownResponse__Output>;
                StartBackgroundRequest: MessageTypeDefinition<_maka_resource_v1_StartBackgroundRequest, _maka_resource_v1_StartBackgroundRequest__Output>;
                StartBackgroundResponse: MessageTypeDefinition<_maka_resource_v1_StartBackgroundResponse, _maka_resource_v1_StartBackgroundResponse__Output>;
                StopRunRequest: MessageTypeDefinition<_maka_resource_v1_StopRunRequest, _maka_resource_v1_StopRunRequest__Output>;
                StopRunResponse: MessageTypeDefinition<_maka_resource_v1_StopRunResponse, _maka_resource_v1_StopRunResponse__Output>;
                TerminalSize: MessageTypeDefinition<_maka_resource_v1_TerminalSize, _maka_resource_v1_TerminalSize__Output>;
                WatchRunsRequest: MessageTypeDefinition<_maka_resource_v1_WatchRunsRequest, _maka_resource_v1_WatchRunsRequest__Output>;
                WatchRunsResponse: MessageTypeDefinition<_maka_resource_v1_WatchRunsResponse, _maka_resource_v1_WatchRunsResponse__Output>;
            };
        };
    };
}
export {};
