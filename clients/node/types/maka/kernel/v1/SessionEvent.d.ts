import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { UserMessage as _maka_kernel_v1_UserMessage, UserMessage__Output as _maka_kernel_v1_UserMessage__Output } from '../../../maka/kernel/v1/UserMessage.js';
import type { AssistantMessage as _maka_kernel_v1_AssistantMessage, AssistantMessage__Output as _maka_kernel_v1_AssistantMessage__Output } from '../../../maka/kernel/v1/AssistantMessage.js';
import type { SystemNote as _maka_kernel_v1_SystemNote, SystemNote__Output as _maka_kernel_v1_SystemNote__Output } from '../../../maka/kernel/v1/SystemNote.js';
import type { TextDelta as _maka_kernel_v1_TextDelta, TextDelta__Output as _maka_kernel_v1_TextDelta__Output } from '../../../maka/kernel/v1/TextDelta.js';
import type { ToolCall as _maka_kernel_v1_ToolCall, ToolCall__Output as _maka_kernel_v1_ToolCall__Output } from '../../../maka/kernel/v1/ToolCall.js';
import type { ToolOutput as _maka_kernel_v1_ToolOutput, ToolOutput__Output as _maka_kernel_v1_ToolOutput__Output } from '../../../maka/kernel/v1/ToolOutput.js';
import type { ToolResult as _maka_kernel_v1_ToolResult, ToolResult__Output as _maka_kernel_v1_ToolResult__Output } from '../../../maka/kernel/v1/ToolResult.js';
import type { SandboxBoundaryRequest as _maka_kernel_v1_SandboxBoundaryRequest, SandboxBoundaryRequest__Output as _maka_kernel_v1_SandboxBoundaryRequest__Output } from '../../../maka/kernel/v1/SandboxBoundaryRequest.js';
import type { UserQuestionRequest as _maka_kernel_v1_UserQuestionRequest, UserQuestionRequest__Output as _maka_kernel_v1_UserQuestionRequest__Output } from '../../../maka/kernel/v1/UserQuestionRequest.js';
import type { InteractionResolved as _maka_kernel_v1_InteractionResolved, InteractionResolved__Output as _maka_kernel_v1_InteractionResolved__Output } from '../../../maka/kernel/v1/InteractionResolved.js';
import type { TurnState as _maka_kernel_v1_TurnState, TurnState__Output as _maka_kernel_v1_TurnState__Output } from '../../../maka/kernel/v1/TurnState.js';
import type { Complete as _maka_kernel_v1_Complete, Complete__Output as _maka_kernel_v1_Complete__Output } from '../../../maka/kernel/v1/Complete.js';
import type { TurnError as _maka_kernel_v1_TurnError, TurnError__Output as _maka_kernel_v1_TurnError__Output } from '../../../maka/kernel/v1/TurnError.js';
import type { Long } from '@grpc/proto-loader';
/**
 * SessionEvent is one entry of a session's log: something streamed during a turn or stored on
 * the session's record. Every entry has a per-session sequence number; entries are committed
 * before they are sent to anyone.
 */
export interface SessionEvent {
    /**
     * The entry's sequence number: 1, 2, 3 … within the session.
     */
    'seq'?: (number | string | Long);
    /**
     * The entry's id.
     */
    'id'?: (string);
    /**
     * The turn it belongs to (empty for session-level entries).
     */
    'turnId'?: (string);
    /**
     * When it was recorded.
     */
    'time'?: (_google_protobuf_Timestamp | null);
    /**
     * Text a user sent.
     */
    'user'?: (_maka_kernel_v1_UserMessage | null);
    /**
     * A complete assistant message.
     */
    'assistant'?: (_maka_kernel_v1_AssistantMessage | null);
    /**
     * A note the kernel recorded.
     */
    'systemNote'?: (_maka_kernel_v1_SystemNote | null);
    /**
     * A piece of assistant text.
     */
    'textDelta'?: (_maka_kernel_v1_TextDelta | null);
    /**
     * A tool call.
     */
    'toolCall'?: (_maka_kernel_v1_ToolCall | null);
    /**
     * Tool output.
     */
    'toolOutput'?: (_maka_kernel_v1_ToolOutput | null);
    /**
     * A tool result.
     */
    'toolResult'?: (_maka_kernel_v1_ToolResult | null);
    /**
     * A sandbox-boundary request.
     */
    'sandboxBoundaryRequest'?: (_maka_kernel_v1_SandboxBoundaryRequest | null);
    /**
     * A user question.
     */
    'userQuestionRequest'?: (_maka_kernel_v1_UserQuestionRequest | null);
    /**
     * An interaction request's end.
     */
    'interactionResolved'?: (_maka_kernel_v1_InteractionResolved | null);
    /**
     * A turn status change.
     */
    'turnState'?: (_maka_kernel_v1_TurnState | null);
    /**
     * The backend finished the turn.
     */
    'complete'?: (_maka_kernel_v1_Complete | null);
    /**
     * An error inside the turn.
     */
    'error'?: (_maka_kernel_v1_TurnError | null);
    /**
     * What it is.
     */
    'event'?: "user" | "assistant" | "systemNote" | "textDelta" | "toolCall" | "toolOutput" | "toolResult" | "sandboxBoundaryRequest" | "userQuestionRequest" | "interactionResolved" | "turnState" | "complete" | "error";
}
/**
 * SessionEvent is one entry of a session's log: something streamed during a turn or stored on
 * the session's record. Every entry has a per-session sequence number; entries are committed
 * before they are sent to anyone.
 */
export interface SessionEvent__Output {
    /**
     * The entry's sequence number: 1, 2, 3 … within the session.
     */
    'seq': (string);
    /**
     * The entry's id.
     */
    'id': (string);
    /**
     * The turn it belongs to (empty for session-level entries).
     */
    'turnId': (string);
    /**
     * When it was recorded.
     */
    'time': (_google_protobuf_Timestamp__Output | null);
    /**
     * Text a user sent.
     */
    'user'?: (_maka_kernel_v1_UserMessage__Output | null);
    /**
     * A complete assistant message.
     */
    'assistant'?: (_maka_kernel_v1_AssistantMessage__Output | null);
    /**
     * A note the kernel recorded.
     */
    'systemNote'?: (_maka_kernel_v1_SystemNote__Output | null);
    /**
     * A piece of assistant text.
     */
    'textDelta'?: (_maka_kernel_v1_TextDelta__Output | null);
    /**
     * A tool call.
     */
    'toolCall'?: (_maka_kernel_v1_ToolCall__Output | null);
    /**
     * Tool output.
     */
    'toolOutput'?: (_maka_kernel_v1_ToolOutput__Output | null);
    /**
     * A tool result.
     */
    'toolResult'?: (_maka_kernel_v1_ToolResult__Output | null);
    /**
     * A sandbox-boundary request.
     */
    'sandboxBoundaryRequest'?: (_maka_kernel_v1_SandboxBoundaryRequest__Output | null);
    /**
     * A user question.
     */
    'userQuestionRequest'?: (_maka_kernel_v1_UserQuestionRequest__Output | null);
    /**
     * An interaction request's end.
     */
    'interactionResolved'?: (_maka_kernel_v1_InteractionResolved__Output | null);
    /**
     * A turn status change.
     */
    'turnState'?: (_maka_kernel_v1_TurnState__Output | null);
    /**
     * The backend finished the turn.
     */
    'complete'?: (_maka_kernel_v1_Complete__Output | null);
    /**
     * An error inside the turn.
     */
    'error'?: (_maka_kernel_v1_TurnError__Output | null);
    /**
     * What it is.
     */
    'event'?: "user" | "assistant" | "systemNote" | "textDelta" | "toolCall" | "toolOutput" | "toolResult" | "sandboxBoundaryRequest" | "userQuestionRequest" | "interactionResolved" | "turnState" | "complete" | "error";
}
