import type * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { CreateSessionRequest as _maka_kernel_v1_CreateSessionRequest, CreateSessionRequest__Output as _maka_kernel_v1_CreateSessionRequest__Output } from '../../../maka/kernel/v1/CreateSessionRequest.js';
import type { CreateSessionResponse as _maka_kernel_v1_CreateSessionResponse, CreateSessionResponse__Output as _maka_kernel_v1_CreateSessionResponse__Output } from '../../../maka/kernel/v1/CreateSessionResponse.js';
import type { DeleteSessionRequest as _maka_kernel_v1_DeleteSessionRequest, DeleteSessionRequest__Output as _maka_kernel_v1_DeleteSessionRequest__Output } from '../../../maka/kernel/v1/DeleteSessionRequest.js';
import type { DeleteSessionResponse as _maka_kernel_v1_DeleteSessionResponse, DeleteSessionResponse__Output as _maka_kernel_v1_DeleteSessionResponse__Output } from '../../../maka/kernel/v1/DeleteSessionResponse.js';
import type { GetServerInfoRequest as _maka_kernel_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _maka_kernel_v1_GetServerInfoRequest__Output } from '../../../maka/kernel/v1/GetServerInfoRequest.js';
import type { GetServerInfoResponse as _maka_kernel_v1_GetServerInfoResponse, GetServerInfoResponse__Output as _maka_kernel_v1_GetServerInfoResponse__Output } from '../../../maka/kernel/v1/GetServerInfoResponse.js';
import type { GetSessionRequest as _maka_kernel_v1_GetSessionRequest, GetSessionRequest__Output as _maka_kernel_v1_GetSessionRequest__Output } from '../../../maka/kernel/v1/GetSessionRequest.js';
import type { GetSessionResponse as _maka_kernel_v1_GetSessionResponse, GetSessionResponse__Output as _maka_kernel_v1_GetSessionResponse__Output } from '../../../maka/kernel/v1/GetSessionResponse.js';
import type { ListInteractionsRequest as _maka_kernel_v1_ListInteractionsRequest, ListInteractionsRequest__Output as _maka_kernel_v1_ListInteractionsRequest__Output } from '../../../maka/kernel/v1/ListInteractionsRequest.js';
import type { ListInteractionsResponse as _maka_kernel_v1_ListInteractionsResponse, ListInteractionsResponse__Output as _maka_kernel_v1_ListInteractionsResponse__Output } from '../../../maka/kernel/v1/ListInteractionsResponse.js';
import type { ListSessionsRequest as _maka_kernel_v1_ListSessionsRequest, ListSessionsRequest__Output as _maka_kernel_v1_ListSessionsRequest__Output } from '../../../maka/kernel/v1/ListSessionsRequest.js';
import type { ListSessionsResponse as _maka_kernel_v1_ListSessionsResponse, ListSessionsResponse__Output as _maka_kernel_v1_ListSessionsResponse__Output } from '../../../maka/kernel/v1/ListSessionsResponse.js';
import type { ListTurnsRequest as _maka_kernel_v1_ListTurnsRequest, ListTurnsRequest__Output as _maka_kernel_v1_ListTurnsRequest__Output } from '../../../maka/kernel/v1/ListTurnsRequest.js';
import type { ListTurnsResponse as _maka_kernel_v1_ListTurnsResponse, ListTurnsResponse__Output as _maka_kernel_v1_ListTurnsResponse__Output } from '../../../maka/kernel/v1/ListTurnsResponse.js';
import type { ReadMessagesRequest as _maka_kernel_v1_ReadMessagesRequest, ReadMessagesRequest__Output as _maka_kernel_v1_ReadMessagesRequest__Output } from '../../../maka/kernel/v1/ReadMessagesRequest.js';
import type { ReadMessagesResponse as _maka_kernel_v1_ReadMessagesResponse, ReadMessagesResponse__Output as _maka_kernel_v1_ReadMessagesResponse__Output } from '../../../maka/kernel/v1/ReadMessagesResponse.js';
import type { RespondToSandboxBoundaryRequest as _maka_kernel_v1_RespondToSandboxBoundaryRequest, RespondToSandboxBoundaryRequest__Output as _maka_kernel_v1_RespondToSandboxBoundaryRequest__Output } from '../../../maka/kernel/v1/RespondToSandboxBoundaryRequest.js';
import type { RespondToSandboxBoundaryResponse as _maka_kernel_v1_RespondToSandboxBoundaryResponse, RespondToSandboxBoundaryResponse__Output as _maka_kernel_v1_RespondToSandboxBoundaryResponse__Output } from '../../../maka/kernel/v1/RespondToSandboxBoundaryResponse.js';
import type { RespondToUserQuestionRequest as _maka_kernel_v1_RespondToUserQuestionRequest, RespondToUserQuestionRequest__Output as _maka_kernel_v1_RespondToUserQuestionRequest__Output } from '../../../maka/kernel/v1/RespondToUserQuestionRequest.js';
import type { RespondToUserQuestionResponse as _maka_kernel_v1_RespondToUserQuestionResponse, RespondToUserQuestionResponse__Output as _maka_kernel_v1_RespondToUserQuestionResponse__Output } from '../../../maka/kernel/v1/RespondToUserQuestionResponse.js';
import type { SendMessageRequest as _maka_kernel_v1_SendMessageRequest, SendMessageRequest__Output as _maka_kernel_v1_SendMessageRequest__Output } from '../../../maka/kernel/v1/SendMessageRequest.js';
import type { SendMessageResponse as _maka_kernel_v1_SendMessageResponse, SendMessageResponse__Output as _maka_kernel_v1_SendMessageResponse__Output } from '../../../maka/kernel/v1/SendMessageResponse.js';
import type { ShutdownRequest as _maka_kernel_v1_ShutdownRequest, ShutdownRequest__Output as _maka_kernel_v1_ShutdownRequest__Output } from '../../../maka/kernel/v1/ShutdownRequest.js';
import type { ShutdownResponse as _maka_kernel_v1_ShutdownResponse, ShutdownResponse__Output as _maka_kernel_v1_ShutdownResponse__Output } from '../../../maka/kernel/v1/ShutdownResponse.js';
import type { StartTurnRequest as _maka_kernel_v1_StartTurnRequest, StartTurnRequest__Output as _maka_kernel_v1_StartTurnRequest__Output } from '../../../maka/kernel/v1/StartTurnRequest.js';
import type { StartTurnResponse as _maka_kernel_v1_StartTurnResponse, StartTurnResponse__Output as _maka_kernel_v1_StartTurnResponse__Output } from '../../../maka/kernel/v1/StartTurnResponse.js';
import type { StopSessionRequest as _maka_kernel_v1_StopSessionRequest, StopSessionRequest__Output as _maka_kernel_v1_StopSessionRequest__Output } from '../../../maka/kernel/v1/StopSessionRequest.js';
import type { StopSessionResponse as _maka_kernel_v1_StopSessionResponse, StopSessionResponse__Output as _maka_kernel_v1_StopSessionResponse__Output } from '../../../maka/kernel/v1/StopSessionResponse.js';
import type { UpdateSessionRequest as _maka_kernel_v1_UpdateSessionRequest, UpdateSessionRequest__Output as _maka_kernel_v1_UpdateSessionRequest__Output } from '../../../maka/kernel/v1/UpdateSessionRequest.js';
import type { UpdateSessionResponse as _maka_kernel_v1_UpdateSessionResponse, UpdateSessionResponse__Output as _maka_kernel_v1_UpdateSessionResponse__Output } from '../../../maka/kernel/v1/UpdateSessionResponse.js';
import type { WatchSessionRequest as _maka_kernel_v1_WatchSessionRequest, WatchSessionRequest__Output as _maka_kernel_v1_WatchSessionRequest__Output } from '../../../maka/kernel/v1/WatchSessionRequest.js';
import type { WatchSessionResponse as _maka_kernel_v1_WatchSessionResponse, WatchSessionResponse__Output as _maka_kernel_v1_WatchSessionResponse__Output } from '../../../maka/kernel/v1/WatchSessionResponse.js';
/**
 * KernelService owns sessions and the turns that run in them.
 *
 * Errors are a gRPC status with a google.rpc.ErrorInfo detail (domain "kernel.maka"): the
 * reason is a stable upper-case code (INVALID_REQUEST, NOT_FOUND, SESSION_BUSY,
 * SESSION_QUARANTINED, HOST_DRAINING, ALREADY_RESOLVED …) and the metadata carries specifics
 * such as the offending "field" or the "active_turn_id". Every reason is in the registry
 * maka.common.v1.ErrorReason.
 */
export interface KernelServiceClient extends grpc.Client {
    /**
     * CreateSession creates a session and records its session_start note.
     * Who may call: Any authenticated principal; the session belongs to the caller (Session.owner).
     */
    CreateSession(argument: _maka_kernel_v1_CreateSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    CreateSession(argument: _maka_kernel_v1_CreateSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    CreateSession(argument: _maka_kernel_v1_CreateSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    CreateSession(argument: _maka_kernel_v1_CreateSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * CreateSession creates a session and records its session_start note.
     * Who may call: Any authenticated principal; the session belongs to the caller (Session.owner).
     */
    createSession(argument: _maka_kernel_v1_CreateSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    createSession(argument: _maka_kernel_v1_CreateSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    createSession(argument: _maka_kernel_v1_CreateSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    createSession(argument: _maka_kernel_v1_CreateSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * DeleteSession removes a session and its log; refused (SESSION_BUSY) while a turn runs.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    DeleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    DeleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    DeleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    DeleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * DeleteSession removes a session and its log; refused (SESSION_BUSY) while a turn runs.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    deleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    deleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    deleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    deleteSession(argument: _maka_kernel_v1_DeleteSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_DeleteSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetServerInfo describes this kernel process: version, state and where it keeps its data.
     * Who may call: Any authenticated principal.
     */
    GetServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    GetServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    GetServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    GetServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetServerInfo describes this kernel process: version, state and where it keeps its data.
     * Who may call: Any authenticated principal.
     */
    getServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    getServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    getServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    getServerInfo(argument: _maka_kernel_v1_GetServerInfoRequest, callback: grpc.requestCallback<_maka_kernel_v1_GetServerInfoResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetSession returns one session's header.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    GetSession(argument: _maka_kernel_v1_GetSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    GetSession(argument: _maka_kernel_v1_GetSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    GetSession(argument: _maka_kernel_v1_GetSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    GetSession(argument: _maka_kernel_v1_GetSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * GetSession returns one session's header.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    getSession(argument: _maka_kernel_v1_GetSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    getSession(argument: _maka_kernel_v1_GetSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    getSession(argument: _maka_kernel_v1_GetSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    getSession(argument: _maka_kernel_v1_GetSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_GetSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListInteractions returns a session's interaction requests (pending and resolved), oldest
     * first, so a client that reattaches can render what is waiting without replaying the log.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    ListInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    ListInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    ListInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    ListInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListInteractions returns a session's interaction requests (pending and resolved), oldest
     * first, so a client that reattaches can render what is waiting without replaying the log.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    listInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    listInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    listInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    listInteractions(argument: _maka_kernel_v1_ListInteractionsRequest, callback: grpc.requestCallback<_maka_kernel_v1_ListInteractionsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListSessions pages through sessions, newest first, optionally filtered.
     * Who may call: Any authenticated principal: it lists its own sessions; admin lists every
     * session.
     */
    ListSessions(argument: _maka_kernel_v1_ListSessionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    ListSessions(argument: _maka_kernel_v1_ListSessionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    ListSessions(argument: _maka_kernel_v1_ListSessionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    ListSessions(argument: _maka_kernel_v1_ListSessionsRequest, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListSessions pages through sessions, newest first, optionally filtered.
     * Who may call: Any authenticated principal: it lists its own sessions; admin lists every
     * session.
     */
    listSessions(argument: _maka_kernel_v1_ListSessionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    listSessions(argument: _maka_kernel_v1_ListSessionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    listSessions(argument: _maka_kernel_v1_ListSessionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    listSessions(argument: _maka_kernel_v1_ListSessionsRequest, callback: grpc.requestCallback<_maka_kernel_v1_ListSessionsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListTurns returns a session's turns in the order they started.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    ListTurns(argument: _maka_kernel_v1_ListTurnsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    ListTurns(argument: _maka_kernel_v1_ListTurnsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    ListTurns(argument: _maka_kernel_v1_ListTurnsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    ListTurns(argument: _maka_kernel_v1_ListTurnsRequest, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ListTurns returns a session's turns in the order they started.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    listTurns(argument: _maka_kernel_v1_ListTurnsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    listTurns(argument: _maka_kernel_v1_ListTurnsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    listTurns(argument: _maka_kernel_v1_ListTurnsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    listTurns(argument: _maka_kernel_v1_ListTurnsRequest, callback: grpc.requestCallback<_maka_kernel_v1_ListTurnsResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ReadMessages returns a session's stored log entries after a sequence number.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    ReadMessages(argument: _maka_kernel_v1_ReadMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    ReadMessages(argument: _maka_kernel_v1_ReadMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    ReadMessages(argument: _maka_kernel_v1_ReadMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    ReadMessages(argument: _maka_kernel_v1_ReadMessagesRequest, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    /**
     * ReadMessages returns a session's stored log entries after a sequence number.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    readMessages(argument: _maka_kernel_v1_ReadMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    readMessages(argument: _maka_kernel_v1_ReadMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    readMessages(argument: _maka_kernel_v1_ReadMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    readMessages(argument: _maka_kernel_v1_ReadMessagesRequest, callback: grpc.requestCallback<_maka_kernel_v1_ReadMessagesResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RespondToSandboxBoundary answers a pending sandbox-boundary request (once).
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND.
     */
    RespondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    RespondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    RespondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    RespondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RespondToSandboxBoundary answers a pending sandbox-boundary request (once).
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND.
     */
    respondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    respondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    respondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    respondToSandboxBoundary(argument: _maka_kernel_v1_RespondToSandboxBoundaryRequest, callback: grpc.requestCallback<_maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RespondToUserQuestion answers a pending user question (once).
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND.
     */
    RespondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    RespondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    RespondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    RespondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * RespondToUserQuestion answers a pending user question (once).
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND.
     */
    respondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    respondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    respondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    respondToUserQuestion(argument: _maka_kernel_v1_RespondToUserQuestionRequest, callback: grpc.requestCallback<_maka_kernel_v1_RespondToUserQuestionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * SendMessage queues a message for the running turn; its backend reads it at its next step.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    SendMessage(argument: _maka_kernel_v1_SendMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    SendMessage(argument: _maka_kernel_v1_SendMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    SendMessage(argument: _maka_kernel_v1_SendMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    SendMessage(argument: _maka_kernel_v1_SendMessageRequest, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    /**
     * SendMessage queues a message for the running turn; its backend reads it at its next step.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    sendMessage(argument: _maka_kernel_v1_SendMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    sendMessage(argument: _maka_kernel_v1_SendMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    sendMessage(argument: _maka_kernel_v1_SendMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    sendMessage(argument: _maka_kernel_v1_SendMessageRequest, callback: grpc.requestCallback<_maka_kernel_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
    /**
     * Shutdown stops admitting turns, stops running turns (after their current step within the
     * shutdown grace period, then immediately), records everything and then ends the process.
     * Who may call: The operator or admin role; anyone else gets PERMISSION_DENIED.
     */
    Shutdown(argument: _maka_kernel_v1_ShutdownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    Shutdown(argument: _maka_kernel_v1_ShutdownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    Shutdown(argument: _maka_kernel_v1_ShutdownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    Shutdown(argument: _maka_kernel_v1_ShutdownRequest, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    /**
     * Shutdown stops admitting turns, stops running turns (after their current step within the
     * shutdown grace period, then immediately), records everything and then ends the process.
     * Who may call: The operator or admin role; anyone else gets PERMISSION_DENIED.
     */
    shutdown(argument: _maka_kernel_v1_ShutdownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    shutdown(argument: _maka_kernel_v1_ShutdownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    shutdown(argument: _maka_kernel_v1_ShutdownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    shutdown(argument: _maka_kernel_v1_ShutdownRequest, callback: grpc.requestCallback<_maka_kernel_v1_ShutdownResponse__Output>): grpc.ClientUnaryCall;
    /**
     * StartTurn runs a turn and streams its events. Retrying with the same turn_id (and text)
     * attaches to the same turn instead of starting another. A second turn while one runs is
     * refused with ABORTED / SESSION_BUSY naming the active turn. Cancelling the stream abandons
     * the turn: it is stopped and its cleanup recorded even though nobody listens.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    StartTurn(argument: _maka_kernel_v1_StartTurnRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_StartTurnResponse__Output>;
    StartTurn(argument: _maka_kernel_v1_StartTurnRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_StartTurnResponse__Output>;
    /**
     * StartTurn runs a turn and streams its events. Retrying with the same turn_id (and text)
     * attaches to the same turn instead of starting another. A second turn while one runs is
     * refused with ABORTED / SESSION_BUSY naming the active turn. Cancelling the stream abandons
     * the turn: it is stopped and its cleanup recorded even though nobody listens.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    startTurn(argument: _maka_kernel_v1_StartTurnRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_StartTurnResponse__Output>;
    startTurn(argument: _maka_kernel_v1_StartTurnRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_StartTurnResponse__Output>;
    /**
     * StopSession stops the session's running turn. IMMEDIATE returns once the turn's tool runs
     * are confirmed ended and the turn is recorded (its terminal turn_state last); AFTER_STEP
     * returns once the backend has been told (the turn ends, and is recorded, at its next step
     * boundary). A failed stop reports every cause; a tool run the resource service did not
     * confirm ended within --stop-confirm-timeout fails with UNAVAILABLE / OWNER_CLEANUP_FAILED
     * (metadata run_ref, session_id) and the session refuses turns (SESSION_QUARANTINED) until
     * the kernel has confirmed the run's end.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    StopSession(argument: _maka_kernel_v1_StopSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    StopSession(argument: _maka_kernel_v1_StopSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    StopSession(argument: _maka_kernel_v1_StopSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    StopSession(argument: _maka_kernel_v1_StopSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * StopSession stops the session's running turn. IMMEDIATE returns once the turn's tool runs
     * are confirmed ended and the turn is recorded (its terminal turn_state last); AFTER_STEP
     * returns once the backend has been told (the turn ends, and is recorded, at its next step
     * boundary). A failed stop reports every cause; a tool run the resource service did not
     * confirm ended within --stop-confirm-timeout fails with UNAVAILABLE / OWNER_CLEANUP_FAILED
     * (metadata run_ref, session_id) and the session refuses turns (SESSION_QUARANTINED) until
     * the kernel has confirmed the run's end.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    stopSession(argument: _maka_kernel_v1_StopSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    stopSession(argument: _maka_kernel_v1_StopSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    stopSession(argument: _maka_kernel_v1_StopSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    stopSession(argument: _maka_kernel_v1_StopSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_StopSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * UpdateSession changes the fields that are set in the request; archiving stops a running turn.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    UpdateSession(argument: _maka_kernel_v1_UpdateSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    UpdateSession(argument: _maka_kernel_v1_UpdateSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    UpdateSession(argument: _maka_kernel_v1_UpdateSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    UpdateSession(argument: _maka_kernel_v1_UpdateSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * UpdateSession changes the fields that are set in the request; archiving stops a running turn.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    updateSession(argument: _maka_kernel_v1_UpdateSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    updateSession(argument: _maka_kernel_v1_UpdateSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    updateSession(argument: _maka_kernel_v1_UpdateSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    updateSession(argument: _maka_kernel_v1_UpdateSessionRequest, callback: grpc.requestCallback<_maka_kernel_v1_UpdateSessionResponse__Output>): grpc.ClientUnaryCall;
    /**
     * WatchSession replays a session's log after a sequence number, then follows it live.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    WatchSession(argument: _maka_kernel_v1_WatchSessionRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_WatchSessionResponse__Output>;
    WatchSession(argument: _maka_kernel_v1_WatchSessionRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_WatchSessionResponse__Output>;
    /**
     * WatchSession replays a session's log after a sequence number, then follows it live.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    watchSession(argument: _maka_kernel_v1_WatchSessionRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_WatchSessionResponse__Output>;
    watchSession(argument: _maka_kernel_v1_WatchSessionRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_maka_kernel_v1_WatchSessionResponse__Output>;
}
/**
 * KernelService owns sessions and the turns that run in them.
 *
 * Errors are a gRPC status with a google.rpc.ErrorInfo detail (domain "kernel.maka"): the
 * reason is a stable upper-case code (INVALID_REQUEST, NOT_FOUND, SESSION_BUSY,
 * SESSION_QUARANTINED, HOST_DRAINING, ALREADY_RESOLVED …) and the metadata carries specifics
 * such as the offending "field" or the "active_turn_id". Every reason is in the registry
 * maka.common.v1.ErrorReason.
 */
export interface KernelServiceHandlers extends grpc.UntypedServiceImplementation {
    /**
     * CreateSession creates a session and records its session_start note.
     * Who may call: Any authenticated principal; the session belongs to the caller (Session.owner).
     */
    CreateSession: grpc.handleUnaryCall<_maka_kernel_v1_CreateSessionRequest__Output, _maka_kernel_v1_CreateSessionResponse>;
    /**
     * DeleteSession removes a session and its log; refused (SESSION_BUSY) while a turn runs.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    DeleteSession: grpc.handleUnaryCall<_maka_kernel_v1_DeleteSessionRequest__Output, _maka_kernel_v1_DeleteSessionResponse>;
    /**
     * GetServerInfo describes this kernel process: version, state and where it keeps its data.
     * Who may call: Any authenticated principal.
     */
    GetServerInfo: grpc.handleUnaryCall<_maka_kernel_v1_GetServerInfoRequest__Output, _maka_kernel_v1_GetServerInfoResponse>;
    /**
     * GetSession returns one session's header.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    GetSession: grpc.handleUnaryCall<_maka_kernel_v1_GetSessionRequest__Output, _maka_kernel_v1_GetSessionResponse>;
    /**
     * ListInteractions returns a session's interaction requests (pending and resolved), oldest
     * first, so a client that reattaches can render what is waiting without replaying the log.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    ListInteractions: grpc.handleUnaryCall<_maka_kernel_v1_ListInteractionsRequest__Output, _maka_kernel_v1_ListInteractionsResponse>;
    /**
     * ListSessions pages through sessions, newest first, optionally filtered.
     * Who may call: Any authenticated principal: it lists its own sessions; admin lists every
     * session.
     */
    ListSessions: grpc.handleUnaryCall<_maka_kernel_v1_ListSessionsRequest__Output, _maka_kernel_v1_ListSessionsResponse>;
    /**
     * ListTurns returns a session's turns in the order they started.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    ListTurns: grpc.handleUnaryCall<_maka_kernel_v1_ListTurnsRequest__Output, _maka_kernel_v1_ListTurnsResponse>;
    /**
     * ReadMessages returns a session's stored log entries after a sequence number.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    ReadMessages: grpc.handleUnaryCall<_maka_kernel_v1_ReadMessagesRequest__Output, _maka_kernel_v1_ReadMessagesResponse>;
    /**
     * RespondToSandboxBoundary answers a pending sandbox-boundary request (once).
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND.
     */
    RespondToSandboxBoundary: grpc.handleUnaryCall<_maka_kernel_v1_RespondToSandboxBoundaryRequest__Output, _maka_kernel_v1_RespondToSandboxBoundaryResponse>;
    /**
     * RespondToUserQuestion answers a pending user question (once).
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND.
     */
    RespondToUserQuestion: grpc.handleUnaryCall<_maka_kernel_v1_RespondToUserQuestionRequest__Output, _maka_kernel_v1_RespondToUserQuestionResponse>;
    /**
     * SendMessage queues a message for the running turn; its backend reads it at its next step.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    SendMessage: grpc.handleUnaryCall<_maka_kernel_v1_SendMessageRequest__Output, _maka_kernel_v1_SendMessageResponse>;
    /**
     * Shutdown stops admitting turns, stops running turns (after their current step within the
     * shutdown grace period, then immediately), records everything and then ends the process.
     * Who may call: The operator or admin role; anyone else gets PERMISSION_DENIED.
     */
    Shutdown: grpc.handleUnaryCall<_maka_kernel_v1_ShutdownRequest__Output, _maka_kernel_v1_ShutdownResponse>;
    /**
     * StartTurn runs a turn and streams its events. Retrying with the same turn_id (and text)
     * attaches to the same turn instead of starting another. A second turn while one runs is
     * refused with ABORTED / SESSION_BUSY naming the active turn. Cancelling the stream abandons
     * the turn: it is stopped and its cleanup recorded even though nobody listens.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    StartTurn: grpc.handleServerStreamingCall<_maka_kernel_v1_StartTurnRequest__Output, _maka_kernel_v1_StartTurnResponse>;
    /**
     * StopSession stops the session's running turn. IMMEDIATE returns once the turn's tool runs
     * are confirmed ended and the turn is recorded (its terminal turn_state last); AFTER_STEP
     * returns once the backend has been told (the turn ends, and is recorded, at its next step
     * boundary). A failed stop reports every cause; a tool run the resource service did not
     * confirm ended within --stop-confirm-timeout fails with UNAVAILABLE / OWNER_CLEANUP_FAILED
     * (metadata run_ref, session_id) and the session refuses turns (SESSION_QUARANTINED) until
     * the kernel has confirmed the run's end.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    StopSession: grpc.handleUnaryCall<_maka_kernel_v1_StopSessionRequest__Output, _maka_kernel_v1_StopSessionResponse>;
    /**
     * UpdateSession changes the fields that are set in the request; archiving stops a running turn.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    UpdateSession: grpc.handleUnaryCall<_maka_kernel_v1_UpdateSessionRequest__Output, _maka_kernel_v1_UpdateSessionResponse>;
    /**
     * WatchSession replays a session's log after a sequence number, then follows it live.
     * Who may call: The session's owner, or admin; anyone else gets NOT_FOUND, as for an unknown id.
     */
    WatchSession: grpc.handleServerStreamingCall<_maka_kernel_v1_WatchSessionRequest__Output, _maka_kernel_v1_WatchSessionResponse>;
}
export interface KernelServiceDefinition extends grpc.ServiceDefinition {
    CreateSession: MethodDefinition<_maka_kernel_v1_CreateSessionRequest, _maka_kernel_v1_CreateSessionResponse, _maka_kernel_v1_CreateSessionRequest__Output, _maka_kernel_v1_CreateSessionResponse__Output>;
    DeleteSession: MethodDefinition<_maka_kernel_v1_DeleteSessionRequest, _maka_kernel_v1_DeleteSessionResponse, _maka_kernel_v1_DeleteSessionRequest__Output, _maka_kernel_v1_DeleteSessionResponse__Output>;
    GetServerInfo: MethodDefinition<_maka_kernel_v1_GetServerInfoRequest, _maka_kernel_v1_GetServerInfoResponse, _maka_kernel_v1_GetServerInfoRequest__Output, _maka_kernel_v1_GetServerInfoResponse__Output>;
    GetSession: MethodDefinition<_maka_kernel_v1_GetSessionRequest, _maka_kernel_v1_GetSessionResponse, _maka_kernel_v1_GetSessionRequest__Output, _maka_kernel_v1_GetSessionResponse__Output>;
    ListInteractions: MethodDefinition<_maka_kernel_v1_ListInteractionsRequest, _maka_kernel_v1_ListInteractionsResponse, _maka_kernel_v1_ListInteractionsRequest__Output, _maka_kernel_v1_ListInteractionsResponse__Output>;
    ListSessions: MethodDefinition<_maka_kernel_v1_ListSessionsRequest, _maka_kernel_v1_ListSessionsResponse, _maka_kernel_v1_ListSessionsRequest__Output, _maka_kernel_v1_ListSessionsResponse__Output>;
    ListTurns: MethodDefinition<_maka_kernel_v1_ListTurnsRequest, _maka_kernel_v1_ListTurnsResponse, _maka_kernel_v1_ListTurnsRequest__Output, _maka_kernel_v1_ListTurnsResponse__Output>;
    ReadMessages: MethodDefinition<_maka_kernel_v1_ReadMessagesRequest, _maka_kernel_v1_ReadMessagesResponse, _maka_kernel_v1_ReadMessagesRequest__Output, _maka_kernel_v1_ReadMessagesResponse__Output>;
    RespondToSandboxBoundary: MethodDefinition<_maka_kernel_v1_RespondToSandboxBoundaryRequest, _maka_kernel_v1_RespondToSandboxBoundaryResponse, _maka_kernel_v1_RespondToSandboxBoundaryRequest__Output, _maka_kernel_v1_RespondToSandboxBoundaryResponse__Output>;
    RespondToUserQuestion: MethodDefinition<_maka_kernel_v1_RespondToUserQuestionRequest, _maka_kernel_v1_RespondToUserQuestionResponse, _maka_kernel_v1_RespondToUserQuestionRequest__Output, _maka_kernel_v1_RespondToUserQuestionResponse__Output>;
    SendMessage: MethodDefinition<_maka_kernel_v1_SendMessageRequest, _maka_kernel_v1_SendMessageResponse, _maka_kernel_v1_SendMessageRequest__Output, _maka_kernel_v1_SendMessageResponse__Output>;
    Shutdown: MethodDefinition<_maka_kernel_v1_ShutdownRequest, _maka_kernel_v1_ShutdownResponse, _maka_kernel_v1_ShutdownRequest__Output, _maka_kernel_v1_ShutdownResponse__Output>;
    StartTurn: MethodDefinition<_maka_kernel_v1_StartTurnRequest, _maka_kernel_v1_StartTurnResponse, _maka_kernel_v1_StartTurnRequest__Output, _maka_kernel_v1_StartTurnResponse__Output>;
    StopSession: MethodDefinition<_maka_kernel_v1_StopSessionRequest, _maka_kernel_v1_StopSessionResponse, _maka_kernel_v1_StopSessionRequest__Output, _maka_kernel_v1_StopSessionResponse__Output>;
    UpdateSession: MethodDefinition<_maka_kernel_v1_UpdateSessionRequest, _maka_kernel_v1_UpdateSessionResponse, _maka_kernel_v1_UpdateSessionRequest__Output, _maka_kernel_v1_UpdateSessionResponse__Output>;
    WatchSession: MethodDefinition<_maka_kernel_v1_WatchSessionRequest, _maka_kernel_v1_WatchSessionResponse, _maka_kernel_v1_WatchSessionRequest__Output, _maka_kernel_v1_WatchSessionResponse__Output>;
}
