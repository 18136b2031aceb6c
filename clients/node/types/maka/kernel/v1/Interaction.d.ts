import type { InteractionKind as _maka_kernel_v1_InteractionKind, InteractionKind__Output as _maka_kernel_v1_InteractionKind__Output } from '../../../maka/kernel/v1/InteractionKind.js';
import type { InteractionStatus as _maka_kernel_v1_InteractionStatus, InteractionStatus__Output as _maka_kernel_v1_InteractionStatus__Output } from '../../../maka/kernel/v1/InteractionStatus.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { SandboxBoundaryRequest as _maka_kernel_v1_SandboxBoundaryRequest, SandboxBoundaryRequest__Output as _maka_kernel_v1_SandboxBoundaryRequest__Output } from '../../../maka/kernel/v1/SandboxBoundaryRequest.js';
import type { UserQuestionRequest as _maka_kernel_v1_UserQuestionRequest, UserQuestionRequest__Output as _maka_kernel_v1_UserQuestionRequest__Output } from '../../../maka/kernel/v1/UserQuestionRequest.js';
import type { InteractionOutcome as _maka_kernel_v1_InteractionOutcome, InteractionOutcome__Output as _maka_kernel_v1_InteractionOutcome__Output } from '../../../maka/kernel/v1/InteractionOutcome.js';
/**
 * Interaction is a stored interaction request and what became of it.
 */
export interface Interaction {
    /**
     * The session id.
     */
    'sessionId'?: (string);
    /**
     * The request id.
     */
    'requestId'?: (string);
    /**
     * The turn that raised it.
     */
    'turnId'?: (string);
    /**
     * The kind of request.
     */
    'kind'?: (_maka_kernel_v1_InteractionKind);
    /**
     * Where it is.
     */
    'status'?: (_maka_kernel_v1_InteractionStatus);
    /**
     * The decision on a sandbox-boundary request ("allow_once", "allow_session", "deny").
     */
    'decision'?: (string);
    /**
     * The answers to a user question.
     */
    'answers'?: (string)[];
    /**
     * Why it was denied or closed.
     */
    'reason'?: (string);
    /**
     * When it was raised.
     */
    'createdAt'?: (_google_protobuf_Timestamp | null);
    /**
     * When it ended.
     */
    'resolvedAt'?: (_google_protobuf_Timestamp | null);
    /**
     * The sandbox-boundary request, when kind is SANDBOX_BOUNDARY.
     */
    'sandboxBoundaryRequest'?: (_maka_kernel_v1_SandboxBoundaryRequest | null);
    /**
     * The user question, when kind is USER_QUESTION.
     */
    'userQuestionRequest'?: (_maka_kernel_v1_UserQuestionRequest | null);
    /**
     * How it ended, as its interaction_resolved log entry says; UNSPECIFIED while pending.
     */
    'outcome'?: (_maka_kernel_v1_InteractionOutcome);
    /**
     * What was asked (as in the request event).
     */
    'request'?: "sandboxBoundaryRequest" | "userQuestionRequest";
}
/**
 * Interaction is a stored interaction request and what became of it.
 */
export interface Interaction__Output {
    /**
     * The session id.
     */
    'sessionId': (string);
    /**
     * The request id.
     */
    'requestId': (string);
    /**
     * The turn that raised it.
     */
    'turnId': (string);
    /**
     * The kind of request.
     */
    'kind': (_maka_kernel_v1_InteractionKind__Output);
    /**
     * Where it is.
     */
    'status': (_maka_kernel_v1_InteractionStatus__Output);
    /**
     * The decision on a sandbox-boundary request ("allow_once", "allow_session", "deny").
     */
    'decision': (string);
    /**
     * The answers to a user question.
     */
    'answers': (string)[];
    /**
     * Why it was denied or closed.
     */
    'reason': (string);
    /**
     * When it was raised.
     */
    'createdAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * When it ended.
     */
    'resolvedAt': (_google_protobuf_Timestamp__Output | null);
    /**
     * The sandbox-boundary request, when kind is SANDBOX_BOUNDARY.
     */
    'sandboxBoundaryRequest'?: (_maka_kernel_v1_SandboxBoundaryRequest__Output | null);
    /**
     * The user question, when kind is USER_QUESTION.
     */
    'userQuestionRequest'?: (_maka_kernel_v1_UserQuestionRequest__Output | null);
    /**
     * How it ended, as its interaction_resolved log entry says; UNSPECIFIED while pending.
     */
    'outcome': (_maka_kernel_v1_InteractionOutcome__Output);
    /**
     * What was asked (as in the request event).
     */
    'request'?: "sandboxBoundaryRequest" | "userQuestionRequest";
}
