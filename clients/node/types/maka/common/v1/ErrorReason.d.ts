/**
 * ErrorReason is the registry of every google.rpc.ErrorInfo reason a Maka Runtime service
 * sends. The ErrorInfo `reason` string is the value's name without the `ERROR_REASON_` prefix:
 * ERROR_REASON_OPERATION_CONFLICT is sent as "OPERATION_CONFLICT". The numbers are never sent
 * (ErrorInfo carries the string); they only keep the registry a valid, append-only enum.
 * Each value says what it means and the gRPC status code it comes with; the domain
 * ("kernel.maka" or "resource.maka") says which service sent it. A client that meets a reason
 * it does not know falls back on the status code.
 */
export declare const ErrorReason: {
    /**
     * Never sent: the proto3 zero value.
     */
    readonly ERROR_REASON_UNSPECIFIED: "ERROR_REASON_UNSPECIFIED";
    /**
     * INVALID_ARGUMENT: the request is malformed; metadata "field" names the offending field.
     */
    readonly ERROR_REASON_INVALID_REQUEST: "ERROR_REASON_INVALID_REQUEST";
    /**
     * INVALID_ARGUMENT: the request bytes are not a valid message of the method's request type
     * (refused before the service sees it); metadata "message_type" (and "field").
     */
    readonly ERROR_REASON_REQUEST_UNDECODABLE: "ERROR_REASON_REQUEST_UNDECODABLE";
    /**
     * RESOURCE_EXHAUSTED: the request message is larger than --max-request-bytes (refused before
     * the service sees it); metadata "limit_bytes" and "size_bytes".
     */
    readonly ERROR_REASON_REQUEST_TOO_LARGE: "ERROR_REASON_REQUEST_TOO_LARGE";
    /**
     * OUT_OF_RANGE: a well-formed cursor beyond the end (a sequence number or offset past what
     * exists); metadata "field".
     */
    readonly ERROR_REASON_OUT_OF_RANGE: "ERROR_REASON_OUT_OF_RANGE";
    /**
     * NOT_FOUND: no such session, turn, run or interaction request.
     */
    readonly ERROR_REASON_NOT_FOUND: "ERROR_REASON_NOT_FOUND";
    /**
     * ALREADY_EXISTS: a client-chosen id is already taken (kernel).
     */
    readonly ERROR_REASON_ALREADY_EXISTS: "ERROR_REASON_ALREADY_EXISTS";
    /**
     * FAILED_PRECONDITION: the session is archived; unarchive it first.
     */
    readonly ERROR_REASON_SESSION_ARCHIVED: "ERROR_REASON_SESSION_ARCHIVED";
    /**
     * ABORTED: the request contradicts state recorded first (a lease held by another
     * controller, a control sent out of sequence, a PTY that is ending).
     */
    readonly ERROR_REASON_OPERATION_CONFLICT: "ERROR_REASON_OPERATION_CONFLICT";
    /**
     * ABORTED: another turn runs in the session (kernel); metadata "active_turn_id".
     */
    readonly ERROR_REASON_SESSION_BUSY: "ERROR_REASON_SESSION_BUSY";
    /**
     * ABORTED: the interaction request was already answered, timed out or closed (kernel).
     */
    readonly ERROR_REASON_ALREADY_RESOLVED: "ERROR_REASON_ALREADY_RESOLVED";
    /**
     * ABORTED: the turn went stale while it was being reserved; nothing was written, start it
     * again (kernel).
     */
    readonly ERROR_REASON_TURN_NOT_STARTED: "ERROR_REASON_TURN_NOT_STARTED";
    /**
     * FAILED_PRECONDITION: a stopped run of the session has not settled yet (kernel); metadata
     * "permanent" says whether it ever will.
     */
    readonly ERROR_REASON_SESSION_QUARANTINED: "ERROR_REASON_SESSION_QUARANTINED";
    /**
     * RESOURCE_EXHAUSTED: the turn's queue of pending messages is full (kernel).
     */
    readonly ERROR_REASON_MESSAGE_QUEUE_FULL: "ERROR_REASON_MESSAGE_QUEUE_FULL";
    /**
     * RESOURCE_EXHAUSTED: a limit of the resource service (live runs, PTYs, a session's share).
     */
    readonly ERROR_REASON_RESOURCE_EXHAUSTED: "ERROR_REASON_RESOURCE_EXHAUSTED";
    /**
     * UNAVAILABLE: the service is shutting down (draining) and admits nothing new; final, do not
     * retry on the same process.
     */
    readonly ERROR_REASON_HOST_DRAINING: "ERROR_REASON_HOST_DRAINING";
    /**
     * FAILED_PRECONDITION: no backend of the session's kind is available (kernel).
     */
    readonly ERROR_REASON_BACKEND_UNAVAILABLE: "ERROR_REASON_BACKEND_UNAVAILABLE";
    /**
     * UNAVAILABLE: the store refused a write (a full disk); retry once it takes writes again.
     * The resource service also sends it when its store's owner has closed.
     */
    readonly ERROR_REASON_PERSISTENCE_FAILED: "ERROR_REASON_PERSISTENCE_FAILED";
    /**
     * UNAVAILABLE: the session store's owner has closed (the kernel is closing).
     */
    readonly ERROR_REASON_STORE_CLOSED: "ERROR_REASON_STORE_CLOSED";
    /**
     * INTERNAL: releasing a run's owners failed (kernel); metadata "causes" counts the failures.
     */
    readonly ERROR_REASON_OWNER_CLEANUP_FAILED: "ERROR_REASON_OWNER_CLEANUP_FAILED";
    /**
     * INTERNAL: the interaction authority failed and stopped the turn (kernel).
     */
    readonly ERROR_REASON_INTERACTION_FAIL_STOP: "ERROR_REASON_INTERACTION_FAIL_STOP";
    /**
     * FAILED_PRECONDITION: an interaction rule was broken (kernel).
     */
    readonly ERROR_REASON_INTERACTION_INVARIANT: "ERROR_REASON_INTERACTION_INVARIANT";
    /**
     * INTERNAL: an unexpected failure inside the service (a bug); logged by the service with its
     * traceback, and it fails that request only.
     */
    readonly ERROR_REASON_INTERNAL_FAILURE: "ERROR_REASON_INTERNAL_FAILURE";
    /**
     * UNAUTHENTICATED: the call carries no credential, or one the service does not know (a bearer
     * token in the "authorization" metadata, or a client certificate under mutual TLS).
     */
    readonly ERROR_REASON_UNAUTHENTICATED: "ERROR_REASON_UNAUTHENTICATED";
    /**
     * PERMISSION_DENIED: the caller is known but has none of the roles the method needs;
     * metadata "needs" lists them.
     */
    readonly ERROR_REASON_PERMISSION_DENIED: "ERROR_REASON_PERMISSION_DENIED";
    /**
     * FAILED_PRECONDITION: the run's permission profile needs the sandbox and the resource
     * service cannot make one (bubblewrap is missing or cannot create namespaces); nothing was
     * started, and the message says how to install it (resource).
     */
    readonly ERROR_REASON_SANDBOX_UNAVAILABLE: "ERROR_REASON_SANDBOX_UNAVAILABLE";
};
/**
 * ErrorReason is the registry of every google.rpc.ErrorInfo reason a Maka Runtime service
 * sends. The ErrorInfo `reason` string is the value's name without the `ERROR_REASON_` prefix:
 * ERROR_REASON_OPERATION_CONFLICT is sent as "OPERATION_CONFLICT". The numbers are never sent
 * (ErrorInfo carries the string); they only keep the registry a valid, append-only enum.
 * Each value says what it means and the gRPC status code it comes with; the domain
 * ("kernel.maka" or "resource.maka") says which service sent it. A client that meets a reason
 * it does not know falls back on the status code.
 */
export type ErrorReason = 
/**
 * Never sent: the proto3 zero value.
 */
'ERROR_REASON_UNSPECIFIED' | 0
/**
 * INVALID_ARGUMENT: the request is malformed; metadata "field" names the offending field.
 */
 | 'ERROR_REASON_INVALID_REQUEST' | 1
/**
 * INVALID_ARGUMENT: the request bytes are not a valid message of the method's request type
 * (refused before the service sees it); metadata "message_type" (and "field").
 */
 | 'ERROR_REASON_REQUEST_UNDECODABLE' | 2
/**
 * RESOURCE_EXHAUSTED: the request message is larger than --max-request-bytes (refused before
 * the service sees it); metadata "limit_bytes" and "size_bytes".
 */
 | 'ERROR_REASON_REQUEST_TOO_LARGE' | 3
/**
 * OUT_OF_RANGE: a well-formed cursor beyond the end (a sequence number or offset past what
 * exists); metadata "field".
 */
 | 'ERROR_REASON_OUT_OF_RANGE' | 4
/**
 * NOT_FOUND: no such session, turn, run or interaction request.
 */
 | 'ERROR_REASON_NOT_FOUND' | 5
/**
 * ALREADY_EXISTS: a client-chosen id is already taken (kernel).
 */
 | 'ERROR_REASON_ALREADY_EXISTS' | 6
/**
 * FAILED_PRECONDITION: the session is archived; unarchive it first.
 */
 | 'ERROR_REASON_SESSION_ARCHIVED' | 7
/**
 * ABORTED: the request contradicts state recorded first (a lease held by another
 * controller, a control sent out of sequence, a PTY that is ending).
 */
 | 'ERROR_REASON_OPERATION_CONFLICT' | 8
/**
 * ABORTED: another turn runs in the session (kernel); metadata "active_turn_id".
 */
 | 'ERROR_REASON_SESSION_BUSY' | 9
/**
 * ABORTED: the interaction request was already answered, timed out or closed (kernel).
 */
 | 'ERROR_REASON_ALREADY_RESOLVED' | 10
/**
 * ABORTED: the turn went stale while it was being reserved; nothing was written, start it
 * again (kernel).
 */
 | 'ERROR_REASON_TURN_NOT_STARTED' | 11
/**
 * FAILED_PRECONDITION: a stopped run of the session has not settled yet (kernel); metadata
 * "permanent" says whether it ever will.
 */
 | 'ERROR_REASON_SESSION_QUARANTINED' | 12
/**
 * RESOURCE_EXHAUSTED: the turn's queue of pending messages is full (kernel).
 */
 | 'ERROR_REASON_MESSAGE_QUEUE_FULL' | 13
/**
 * RESOURCE_EXHAUSTED: a limit of the resource service (live runs, PTYs, a session's share).
 */
 | 'ERROR_REASON_RESOURCE_EXHAUSTED' | 14
/**
 * UNAVAILABLE: the service is shutting down (draining) and admits nothing new; final, do not
 * retry on the same process.
 */
 | 'ERROR_REASON_HOST_DRAINING' | 15
/**
 * FAILED_PRECONDITION: no backend of the session's kind is available (kernel).
 */
 | 'ERROR_REASON_BACKEND_UNAVAILABLE' | 16
/**
 * UNAVAILABLE: the store refused a write (a full disk); retry once it takes writes again.
 * The resource service also sends it when its store's owner has closed.
 */
 | 'ERROR_REASON_PERSISTENCE_FAILED' | 17
/**
 * UNAVAILABLE: the session store's owner has closed (the kernel is closing).
 */
 | 'ERROR_REASON_STORE_CLOSED' | 18
/**
 * INTERNAL: releasing a run's owners failed (kernel); metadata "causes" counts the failures.
 */
 | 'ERROR_REASON_OWNER_CLEANUP_FAILED' | 19
/**
 * INTERNAL: the interaction authority failed and stopped the turn (kernel).
 */
 | 'ERROR_REASON_INTERACTION_FAIL_STOP' | 20
/**
 * FAILED_PRECONDITION: an interaction rule was broken (kernel).
 */
 | 'ERROR_REASON_INTERACTION_INVARIANT' | 21
/**
 * INTERNAL: an unexpected failure inside the service (a bug); logged by the service with its
 * traceback, and it fails that request only.
 */
 | 'ERROR_REASON_INTERNAL_FAILURE' | 22
/**
 * UNAUTHENTICATED: the call carries no credential, or one the service does not know (a bearer
 * token in the "authorization" metadata, or a client certificate under mutual TLS).
 */
 | 'ERROR_REASON_UNAUTHENTICATED' | 23
/**
 * PERMISSION_DENIED: the caller is known but has none of the roles the method needs;
 * metadata "needs" lists them.
 */
 | 'ERROR_REASON_PERMISSION_DENIED' | 24
/**
 * FAILED_PRECONDITION: the run's permission profile needs the sandbox and the resource
 * service cannot make one (bubblewrap is missing or cannot create namespaces); nothing was
 * started, and the message says how to install it (resource).
 */
 | 'ERROR_REASON_SANDBOX_UNAVAILABLE' | 30;
/**
 * ErrorReason is the registry of every google.rpc.ErrorInfo reason a Maka Runtime service
 * sends. The ErrorInfo `reason` string is the value's name without the `ERROR_REASON_` prefix:
 * ERROR_REASON_OPERATION_CONFLICT is sent as "OPERATION_CONFLICT". The numbers are never sent
 * (ErrorInfo carries the string); they only keep the registry a valid, append-only enum.
 * Each value says what it means and the gRPC status code it comes with; the domain
 * ("kernel.maka" or "resource.maka") says which service sent it. A client that meets a reason
 * it does not know falls back on the status code.
 */
export type ErrorReason__Output = typeof ErrorReason[keyof typeof ErrorReason];
