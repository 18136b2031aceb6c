import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.js';
import type { AssistantMessage as _maka_kernel_v1_AssistantMessage, AssistantMessage__Output as _maka_kernel_v1_AssistantMessage__Output } from './maka/kernel/v1/AssistantMessage.js';
import type { Complete as _maka_kernel_v1_Complete, Complete__Output as _maka_kernel_v1_Complete__Output } from './maka/kernel/v1/Complete.js';
import type { CreateSessionRequest as _maka_kernel_v1_CreateSessionRequest, CreateSessionRequest__Output as _maka_kernel_v1_CreateSessionRequest__Output } from './maka/kernel/v1/CreateSessionRequest.js';
import type { CreateSessionResponse as _maka_kernel_v1_CreateSessionResponse, CreateSessionResponse__Output as _maka_kernel_v1_CreateSessionResponse__Output } from './maka/kernel/v1/CreateSessionResponse.js';
import type { DeleteSessionRequest as _maka_kernel_v1_DeleteSessionRequest, DeleteSessionRequest__Output as _maka_kernel_v1_DeleteSessionRequest__Output } from './maka/kernel/v1/DeleteSessionRequest.js';
import type { DeleteSessionResponse as _maka_kernel_v1_DeleteSessionResponse, DeleteSessionResponse__Output as _maka_kernel_v1_DeleteSessionResponse__Output } from './maka/kernel/v1/DeleteSessionResponse.js';
import type { DrainedTurn as _maka_kernel_v1_DrainedTurn, DrainedTurn__Output as _maka_kernel_v1_DrainedTurn__Output } from './maka/kernel/v1/DrainedTurn.js';
import type { GetServerInfoRequest as _maka_kernel_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _maka_kernel_v1_GetServerInfoRequest__Output } from './maka/kernel/v1/GetServerInfoRequest.js';
import type { GetServerInfoResponse as _maka_kernel_v1_GetServerInfoResponse, GetServerInfoResponse__Output as _maka_kernel_v1_GetServerInfoResponse__Output } from './maka/kernel/v1/GetServerInfoResponse.js';
import type { GetSessionRequest as _maka_kernel_v1_GetSessionRequest, GetSessionRequest__Output as _maka_kernel_v1_GetSessionRequest__Output } from './maka/kernel/v1/GetSessionRequest.js';
import type { GetSessionResponse as _maka_kernel_v1_GetSessionResponse, GetSessionResponse__Output as _maka_kernel_v1_GetSessionResponse__Output } from './maka/kernel/v1/GetSessionResponse.js';
import type { Interaction as _maka_kernel_v1_Interaction, Interaction__Output as _maka_kernel_v1_Interaction__Output } from './maka/kernel/v1/Interaction.js';
import type { InteractionResolved as _maka_kernel_v1_InteractionResolved, InteractionResolved__Output as _maka_kernel_v1_InteractionResolved__Output } from './maka/kernel/v1/InteractionResolved.js';
import type { KernelServiceClient as _maka_kernel_v1_KernelServiceClient, KernelServiceDefinition as _maka_kernel_v1_KernelServiceDefinition } from './maka/kernel/v1/KernelService.js';
import type { Labels as _maka_kernel_v1_Labels, Labels__Output as _maka_kernel_v1_Labels__Output } from './maka/kernel/v1/Labels.js';
import type { ListInteractionsRequest as _maka_kernel_v1_ListInteractionsRequest, ListInteractionsRequest__Output as _maka_kernel_v1_ListInteractionsRequest__Output } from './maka/kernel/v1/ListInteractionsRequest.js';
import type { ListInteractionsResponse as _maka_kernel_v1_ListInteractionsResponse, ListInteractionsResponse__Output as _maka_kernel_v1_ListInteractionsResponse__Output } from './maka/kernel/v1/ListInteractionsResponse.js';
import type { ListSessionsRequest as _maka_kernel_v1_ListSessionsRequest, ListSessionsRequest__Output as _maka_kernel_v1_ListSessionsRequest__Output } from './maka/kernel/v1/ListSessionsRequest.js';
import type { ListSessionsResponse as _maka_kernel_v1_ListSessionsResponse, ListSessionsResponse__Output as _maka_kernel_v1_ListSessionsResponse__Output } from './maka/kernel/v1/ListSessionsResponse.js';
import type { ListTurnsRequest as _maka_kernel_v1_ListTurnsRequest, ListTurnsRequest__Output as _maka_kernel_v1_ListTurnsRequest__Output } from './maka/kernel/v1/ListTurnsRequest.js';
import type { ListTurnsResponse as _maka_kernel_v1_ListTurnsResponse, ListTurnsResponse__Output as _maka_kernel_v1_ListTurnsResponse__Output } from './maka/kernel/v1/ListTurnsResponse.js';
import type { ReadMessagesRequest as _maka_kernel_v1_ReadMessagesRequest, ReadMessagesRequest__Output as _maka_kernel_v1_ReadMessagesRequest__Output } from './maka/kernel/v1/ReadMessagesRequest.js';
import type { ReadMessagesResponse as _maka_kernel_v1_ReadMessagesResponse, ReadMessagesResponse__Output as _maka_kernel_v1_ReadMessagesResponse__Output } from './maka/kernel/v1/ReadMessagesResponse.js';
import type { ResourceShutdown as _maka_kernel_v1_ResourceShutdown, ResourceShutdown__Output as _maka_kernel_v1_ResourceShutdown__Output } from './maka/kernel/v1/ResourceShutdown.js';
import type { RespondToSandboxBoundaryRequest as _maka_kernel_v1_RespondToSandboxBoundaryRequest, RespondToSandboxBoundaryRequest__Output as _maka_kernel_v1_RespondToSandboxBoundaryRequest__Output } from './maka/kernel/v1/RespondToSandboxBoundaryRequest.js';
import type { RespondToSandboxBoundaryResponse as _maka_kernel_v1_RespondToSandboxBoundaryResponse, RespondToSandboxBoundaryResponse__Output as _maka_kernel_v1_RespondToSandboxBoundaryResponse__Output } from './maka/kernel/v1/RespondToSandboxBoundaryResponse.js';
import type { RespondToUserQuestionRequest as _maka_kernel_v1_RespondToUserQuestionRequest, RespondToUserQuestionRequest__Output as _maka_kernel_v1_RespondToUserQuestionRequest__Output } from './maka/kernel/v1/RespondToUserQuestionRequest.js';
import type { RespondToUserQuestionResponse as _maka_kernel_v1_RespondToUserQuestionResponse, RespondToUserQuestionResponse__Output as _maka_kernel_v1_RespondToUserQuestionResponse__Output } from './maka/kernel/v1/RespondToUserQuestionResponse.js';
import type { SandboxBoundaryRequest as _maka_kernel_v1_SandboxBoundaryRequest, SandboxBoundaryRequest__Output as _maka_kernel_v1_SandboxBoundaryRequest__Output } from './maka/kernel/v1/SandboxBoundaryRequest.js';
import type { SandboxFailure as _maka_kernel_v1_SandboxFailure, SandboxFailure__Output as _maka_kernel_v1_SandboxFailure__Output } from './maka/kernel/v1/SandboxFailure.js';
import type { SendMessageRequest as _maka_kernel_v1_SendMessageRequest, SendMessageRequest__Output as _maka_kernel_v1_SendMessageRequest__Output } from './maka/kernel/v1/SendMessageRequest.js';
import type { SendMessageResponse as _maka_kernel_v1_SendMessageResponse, SendMessageResponse__Output as _maka_kernel_v1_SendMessageResponse__Output } from './maka/kernel/v1/SendMessageResponse.js';
import type { Session as _maka_kernel_v1_Session, Session__Output as _maka_kernel_v1_Session__Output } from './maka/kernel/v1/Session.js';
import type { SessionEvent as _maka_kernel_v1_SessionEvent, SessionEvent__Output as _maka_kernel_v1_SessionEvent__Output } from './maka/kernel/v1/SessionEvent.js';
import type { ShutdownRequest as _maka_kernel_v1_ShutdownRequest, ShutdownRequest__Output as _maka_kernel_v1_ShutdownRequest__Output } from './maka/kernel/v1/ShutdownRequest.js';
import type { ShutdownResponse as _maka_kernel_v1_ShutdownResponse, ShutdownResponse__Output as _maka_kernel_v1_ShutdownResponse__Output } from './maka/kernel/v1/ShutdownResponse.js';
import type { StartTurnRequest as _maka_kernel_v1_StartTurnRequest, StartTurnRequest__Output as _maka_kernel_v1_StartTurnRequest__Output } from './maka/kernel/v1/StartTurnRequest.js';
import type { StartTurnResponse as _maka_kernel_v1_StartTurnResponse, StartTurnResponse__Output as _maka_kernel_v1_StartTurnResponse__Output } from './maka/kernel/v1/StartTurnResponse.js';
import type { StopSessionRequest as _maka_kernel_v1_StopSessionRequest, StopSessionRequest__Output as _maka_kernel_v1_StopSessionRequest__Output } from './maka/kernel/v1/StopSessionRequest.js';
import type { StopSessionResponse as _maka_kernel_v1_StopSessionResponse, StopSessionResponse__Output as _maka_kernel_v1_StopSessionResponse__Output } from './maka/kernel/v1/StopSessionResponse.js';
import type { SystemNote as _maka_kernel_v1_SystemNote, SystemNote__Output as _maka_kernel_v1_SystemNote__Output } from './maka/kernel/v1/SystemNote.js';
import type { TextDelta as _maka_kernel_v1_TextDelta, TextDelta__Output as _maka_kernel_v1_TextDelta__Output } from './maka/kernel/v1/TextDelta.js';
import type { ToolCall as _maka_kernel_v1_ToolCall, ToolCall__Output as _maka_kernel_v1_ToolCall__Output } from './maka/kernel/v1/ToolCall.js';
import type { ToolOutput as _maka_kernel_v1_ToolOutput, ToolOutput__Output as _maka_kernel_v1_ToolOutput__Output } from './maka/kernel/v1/ToolOutput.js';
import type { ToolOutputTruncation as _maka_kernel_v1_ToolOutputTruncation, ToolOutputTruncation__Output as _maka_kernel_v1_ToolOutputTruncation__Output } from './maka/kernel/v1/ToolOutputTruncation.js';
import type { ToolResult as _maka_kernel_v1_ToolResult, ToolResult__Output as _maka_kernel_v1_ToolResult__Output } from './maka/kernel/v1/ToolResult.js';
import type { Turn as _maka_kernel_v1_Turn, Turn__Output as _maka_kernel_v1_Turn__Output } from './maka/kernel/v1/Turn.js';
import type { TurnError as _maka_kernel_v1_TurnError, TurnError__Output as _maka_kernel_v1_TurnError__Output } from './maka/kernel/v1/TurnError.js';
import type { TurnState as _maka_kernel_v1_TurnState, TurnState__Output as _maka_kernel_v1_TurnState__Output } from './maka/kernel/v1/TurnState.js';
import type { UpdateSessionRequest as _maka_kernel_v1_UpdateSessionRequest, UpdateSessionRequest__Output as _maka_kernel_v1_UpdateSessionRequest__Output } from './maka/kernel/v1/UpdateSessionRequest.js';
import type { UpdateSessionResponse as _maka_kernel_v1_UpdateSessionResponse, UpdateSessionResponse__Output as _maka_kernel_v1_UpdateSessionResponse__Output } from './maka/kernel/v1/UpdateSessionResponse.js';
import type { UserMessage as _maka_kernel_v1_UserMessage, UserMessage__Output as _maka_kernel_v1_UserMessage__Output } from './maka/kernel/v1/UserMessage.js';
import type { UserQuestionRequest as _maka_kernel_v1_UserQuestionRequest, UserQuestionRequest__Output as _maka_kernel_v1_UserQuestionRequest__Output } from './maka/kernel/v1/UserQuestionRequest.js';
import type { WatchSessionRequest as _maka_kernel_v1_WatchSessionRequest, WatchSessionRequest__Output as _maka_kernel_v1_WatchSessionRequest__Output } from './maka/kernel/v1/WatchSessionRequest.js';
import type { WatchSessionResponse as _maka_kernel_v1_WatchSessionResponse, WatchSessionResponse__Output as _maka_kernel_v1_WatchSessionResponse__Output } from './maka/kernel/v1/WatchSessionResponse.js';
import type { BoundaryExpansion as _maka_resource_v1_BoundaryExpansion, BoundaryExpansion__Output as _maka_resource_v1_BoundaryExpansion__Output } from './maka/resource/v1/BoundaryExpansion.js';
import type { ExecutionBoundary as _maka_resource_v1_ExecutionBoundary, ExecutionBoundary__Output as _maka_resource_v1_ExecutionBoundary__Output } from './maka/resource/v1/ExecutionBoundary.js';
import type { FilesystemEntry as _maka_resource_v1_FilesystemEntry, FilesystemEntry__Output as _maka_resource_v1_FilesystemEntry__Output } from './maka/resource/v1/FilesystemEntry.js';
import type { RunSandbox as _maka_resource_v1_RunSandbox, RunSandbox__Output as _maka_resource_v1_RunSandbox__Output } from './maka/resource/v1/RunSandbox.js';
import type { SandboxCapabilities as _maka_resource_v1_SandboxCapabilities, SandboxCapabilities__Output as _maka_resource_v1_SandboxCapabilities__Output } from './maka/resource/v1/SandboxCapabilities.js';
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
        kernel: {
            v1: {
                AssistantMessage: MessageTypeDefinition<_maka_kernel_v1_AssistantMessage, _maka_kernel_v1_AssistantMessage__Output>;
                Complete: MessageTypeDefinition<_maka_kernel_v1_Complete, _maka_kernel_v1_Complete__Output>;
                CreateSessionRequest: MessageTypeDefinition<_maka_kernel_v1_CreateSessionRequest, _maka_kernel_v1_CreateSessionRequest__Output>;
                CreateSessionResponse: MessageTypeDefinition<_maka_kernel_v1_CreateSessionResponse, _maka_kernel_v1_CreateSessionResponse__Output>;
                DeleteSessionRequest: MessageTypeDefinition<_maka_kernel_v1_DeleteSessionRequest, _maka_kernel_v1_DeleteSessionRequest__Output>;
                DeleteSessionResponse: MessageTypeDefinition<_maka_kernel_v1_DeleteSessionResponse, _maka_kernel_v1_DeleteSessionResponse__Output>;
                DrainOutcome: EnumTypeDefinition;
                DrainedTurn: MessageTypeDefinition<_maka_kernel_v1_DrainedTurn, _maka_kernel_v1_DrainedTurn__Output>;
                GetServerInfoRequest: MessageTypeDefinition<_maka_kernel_v1_GetServerInfoRequest, _maka_kernel_v1_GetServerInfoRequest__Output>;
                GetServerInfoResponse: MessageTypeDefinition<_maka_kernel_v1_GetServerInfoResponse, _maka_kernel_v1_GetServerInfoResponse__Output>;
                GetSessionRequest: MessageTypeDefinition<_maka_kernel_v1_GetSessionRequest, _maka_kernel_v1_GetSessionRequest__Output>;
                GetSessionResponse: MessageTypeDefinition<_maka_kernel_v1_GetSessionResponse, _maka_kernel_v1_GetSessionResponse__Output>;
                Interaction: MessageTypeDefinition<_maka_kernel_v1_Interaction, _maka_kernel_v1_Interaction__Output>;
                InteractionKind: EnumTypeDefinition;
                InteractionOutcome: EnumTypeDefinition;
                InteractionResolved: MessageTypeDefinition<_maka_kernel_v1_InteractionResolved, _maka_kernel_v1_InteractionResolved__Output>;
                InteractionStatus: EnumTypeDefinition;
                /**
                 * KernelService owns sessions and the turns that run in them.
                 *
                 * Errors are a gRPC status with a google.rpc.ErrorInfo detail (domain "kernel.maka"): the
                 * reason is a stable upper-case code (INVALID_REQUEST, NOT_FOUND, SESSION_BUSY,
                 * SESSION_QUARANTINED, HOST_DRAINING, ALREADY_RESOLVED …) and the metadata carries specifics
                 * such as the offending "field" or the "active_turn_id". Every reason is in the registry
                 * maka.common.v1.ErrorReason.
                 */
                KernelService: SubtypeConstructor<typeof grpc.Client, _maka_kernel_v1_KernelServiceClient> & {
                    service: _maka_kernel_v1_KernelServiceDefinition;
                };
                Labels: MessageTypeDefinition<_maka_kernel_v1_Labels, _maka_kernel_v1_Labels__Output>;
                ListInteractionsRequest: MessageTypeDefinition<_maka_kernel_v1_ListInteractionsRequest, _maka_kernel_v1_ListInteractionsRequest__Output>;
                ListInteractionsResponse: MessageTypeDefinition<_maka_kernel_v1_ListInteractionsResponse, _maka_kernel_v1_ListInteractionsResponse__Output>;
                ListSessionsRequest: MessageTypeDefinition<_maka_kernel_v1_ListSessionsRequest, _maka_kernel_v1_ListSessionsRequest__Output>;
                ListSessionsResponse: MessageTypeDefinition<_maka_kernel_v1_ListSessionsResponse, _maka_kernel_v1_ListSessionsResponse__Output>;
                ListTurnsRequest: MessageTypeDefinition<_maka_kernel_v1_ListTurnsRequest, _maka_kernel_v1_ListTurnsRequest__Output>;
                ListTurnsResponse: MessageTypeDefinition<_maka_kernel_v1_ListTurnsResponse, _maka_kernel_v1_ListTurnsResponse__Output>;
                PermissionMode: EnumTypeDefinition;
                ReadMessagesRequest: MessageTypeDefinition<_maka_kernel_v1_ReadMessagesRequest, _maka_kernel_v1_ReadMessagesRequest__Output>;
                ReadMessagesResponse: MessageTypeDefinition<_maka_kernel_v1_ReadMessagesResponse, _maka_kernel_v1_ReadMessagesResponse__Output>;
                ResourceShutdown: MessageTypeDefinition<_maka_kernel_v1_ResourceShutdown, _maka_kernel_v1_ResourceShutdown__Output>;
                RespondToSandboxBoundaryRequest: MessageTypeDefinition<_maka_kernel_v1_RespondToSandboxBoundaryRequest, _maka_kernel_v1_RespondToSandboxBoundaryRequest__Output>;
                RespondToSandboxBoundaryResponse: MessageTypeDefinition<_maka_kernel_v1_RespondToSandboxBoundaryResponse, _maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>;
                RespondToUserQuestionRequest: MessageTypeDefinition<_maka_kernel_v1_RespondToUserQuestionRequest, _maka_kernel_v1_RespondToUserQuestionRequest__Output>;
                RespondToUserQuestionResponse: MessageTypeDefinition<_maka_kernel_v1_RespondToUserQuestionResponse, _maka_kernel_v1_RespondToUserQuestionResponse__Output>;
                SandboxBoundaryRequest: MessageTypeDefinition<_maka_kernel_v1_SandboxBoundaryRequest, _maka_kernel_v1_SandboxBoundaryRequest__Output>;
                SandboxDecision: EnumTypeDefinition;
                SandboxFailure: MessageTypeDefinition<_maka_kernel_v1_SandboxFailure, _maka_kernel_v1_SandboxFailure__Output>;
                SendMessageRequest: MessageTypeDefinition<_maka_kernel_v1_SendMessageRequest, _maka_kernel_v1_SendMessageRequest__Output>;
                SendMessageResponse: MessageTypeDefinition<_maka_kernel_v1_SendMessageResponse, _maka_kernel_v1_SendMessageResponse__Output>;
                Session: MessageTypeDefinition<_maka_kernel_v1_Session, _maka_kernel_v1_Session__Output>;
                SessionEvent: MessageTypeDefinition<_maka_kernel_v1_SessionEvent, _maka_kernel_v1_SessionEvent__Output>;
                SessionStatus: EnumTypeDefinition;
                ShutdownRequest: MessageTypeDefinition<_maka_kernel_v1_ShutdownRequest, _maka_kernel_v1_ShutdownRequest__Output>;
                ShutdownResponse: MessageTypeDefinition<_maka_kernel_v1_ShutdownResponse, _maka_kernel_v1_ShutdownResponse__Output>;
                StartTurnRequest: MessageTypeDefinition<_maka_kernel_v1_StartTurnRequest, _maka_kernel_v1_StartTurnRequest__Output>;
                StartTurnResponse: MessageTypeDefinition<_maka_kernel_v1_StartTurnResponse, _maka_kernel_v1_StartTurnResponse__Output>;
                StopMode: EnumTypeDefinition;
                StopSessionRequest: MessageTypeDefinition<_maka_kernel_v1_StopSessionRequest, _maka_kernel_v1_StopSessionRequest__Output>;
                StopSessionResponse: MessageTypeDefinition<_maka_kernel_v1_StopSessionResponse, _maka_kernel_v1_StopSessionResponse__Output>;
                SystemNote: MessageTypeDefinition<_maka_kernel_v1_SystemNote, _maka_kernel_v1_SystemNote__Output>;
                SystemNoteKind: EnumTypeDefinition;
                TextDelta: MessageTypeDefinition<_maka_kernel_v1_TextDelta, _maka_kernel_v1_TextDelta__Output>;
                ToolCall: MessageTypeDefinition<_maka_kernel_v1_ToolCall, _maka_kernel_v1_ToolCall__Output>;
                ToolOutput: MessageTypeDefinition<_maka_kernel_v1_ToolOutput, _maka_kernel_v1_ToolOutput__Output>;
                ToolOutputStream: EnumTypeDefinition;
                ToolOutputTruncation: MessageTypeDefinition<_maka_kernel_v1_ToolOutputTruncation, _maka_kernel_v1_ToolOutputTruncation__Output>;
                ToolResult: MessageTypeDefinition<_maka_kernel_v1_ToolResult, _maka_kernel_v1_ToolResult__Output>;
                Turn: MessageTypeDefinition<_maka_kernel_v1_Turn, _maka_kernel_v1_Turn__Output>;
                TurnError: MessageTypeDefinition<_maka_kernel_v1_TurnError, _maka_kernel_v1_TurnError__Output>;
                TurnState: MessageTypeDefinition<_maka_kernel_v1_TurnState, _maka_kernel_v1_TurnState__Output>;
                TurnStatus: EnumTypeDefinition;
                UpdateSessionRequest: MessageTypeDefinition<_maka_kernel_v1_UpdateSessionRequest, _maka_kernel_v1_UpdateSessionRequest__Output>;
                UpdateSessionResponse: MessageTypeDefinition<_maka_kernel_v1_UpdateSessionResponse, _maka_kernel_v1_UpdateSessionResponse__Output>;
                UserMessage: MessageTypeDefinition<_maka_kernel_v1_UserMessage, _maka_kernel_v1_UserMessage__Output>;
                UserQuestionRequest: MessageTypeDefinition<_maka_kernel_v1_UserQuestionRequest, _maka_kernel_v1_UserQuestionRequest__Output>;
                WatchSessionRequest: MessageTypeDefinition<_maka_kernel_v1_WatchSessionRequest, _maka_kernel_v1_WatchSessionRequest__Output>;
                WatchSessionResponse: MessageTypeDefinition<_maka_kernel_v1_WatchSessionResponse, _maka_kernel_v1_WatchSessionResponse__Output>;
            };
        };
        resource: {
            v1: {
                BoundaryExpansion: MessageTypeDefinition<_maka_resource_v1_BoundaryExpansion, _maka_resource_v1_BoundaryExpansion__Output>;
                Containment: EnumTypeDefinition;
                ExecutionBoundary: MessageTypeDefinition<_maka_resource_v1_ExecutionBoundary, _maka_resource_v1_ExecutionBoundary__Output>;
                FilesystemAccess: EnumTypeDefinition;
                FilesystemEntry: MessageTypeDefinition<_maka_resource_v1_FilesystemEntry, _maka_resource_v1_FilesystemEntry__Output>;
                PathMatch: EnumTypeDefinition;
                PermissionProfile: EnumTypeDefinition;
                RunSandbox: MessageTypeDefinition<_maka_resource_v1_RunSandbox, _maka_resource_v1_RunSandbox__Output>;
                SandboxCapabilities: MessageTypeDefinition<_maka_resource_v1_SandboxCapabilities, _maka_resource_v1_SandboxCapabilities__Output>;
            };
        };
    };
}
export {};
