"""The async client of ``maka.kernel.v1.KernelService``."""

# `timeout` parameters are gRPC deadlines handed to the call, not asyncio timeouts.
# ruff: noqa: ASYNC109

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc as rpc

from maka_runtime_client._resume import Call, ResumableStream
from maka_runtime_client._transport import ClientOptions, Lifecycle, open_channel, translated
from maka_runtime_client.boundary import profile_value

SessionEvent = pb.SessionEvent

#: The event kinds a turn's stream carries (StartTurn filters the session log to these).
TURN_EVENT_KINDS = frozenset(
    {
        "text_delta",
        "tool_call",
        "tool_output",
        "tool_result",
        "sandbox_boundary_request",
        "user_question_request",
        "interaction_resolved",
        "turn_state",
        "complete",
        "error",
    }
)
TERMINAL_TURN_STATUSES = frozenset(
    {pb.TURN_STATUS_COMPLETED, pb.TURN_STATUS_ABORTED, pb.TURN_STATUS_FAILED}
)


def is_turn_end(event: pb.SessionEvent) -> bool:
    """True for the event that ends a turn: its terminal ``turn_state``."""
    return event.WhichOneof("event") == "turn_state" and (
        event.turn_state.status in TERMINAL_TURN_STATUSES
    )


class TurnStream(ResumableStream[pb.SessionEvent]):
    """The events of one turn, each once and in order, ending with its terminal ``turn_state``.

    ``turn_id`` is the turn's id (chosen by the client when the caller gives none, so that a
    retried start is idempotent); ``last_seq`` is the sequence of the last event seen.
    """

    def __init__(self, source: _TurnSource, channel: grpc.aio.Channel, options: ClientOptions):
        super().__init__(source, channel, options.resume)
        self._turn = source

    @property
    def turn_id(self) -> str:
        return self._turn.turn_id

    @property
    def last_seq(self) -> int:
        return self._turn.last_seq


class _TurnSource:
    def __init__(
        self,
        stub: rpc.KernelServiceAsyncStub,
        session_id: str,
        turn_id: str,
        text: str,
        timeout: Any,
    ) -> None:
        self.stub = stub
        self.session_id = session_id
        self.turn_id = turn_id
        self.text = text
        self.timeout = timeout
        self.last_seq = 0

    def open(self, resumed: bool) -> Call[pb.SessionEvent]:
        if self.last_seq == 0:
            # Nothing seen yet, so the start may never have reached the server: start again
            # with the same turn id, which attaches to the turn if it exists.
            request = pb.StartTurnRequest(
                session_id=self.session_id,
                turn_id=self.turn_id,
                text=self.text,
                coalesce_events=True,
            )
            return _Events(self.stub.StartTurn(request, timeout=self.timeout), drain_on_end=True)
        watch = pb.WatchSessionRequest(session_id=self.session_id, after_seq=self.last_seq)
        return _Events(self.stub.WatchSession(watch, timeout=self.timeout))

    def accept(self, event: pb.SessionEvent) -> bool:
        if event.seq <= self.last_seq:
            return False
        self.last_seq = event.seq
        if event.turn_id != self.turn_id or event.WhichOneof("event") not in TURN_EVENT_KINDS:
            return False
        return not (
            event.WhichOneof("event") == "turn_state"
            and event.turn_state.status == pb.TURN_STATUS_RUNNING
        )

    def is_terminal(self, event: pb.SessionEvent) -> bool:
        return is_turn_end(event)


class _WatchSource:
    def __init__(
        self, stub: rpc.KernelServiceAsyncStub, session_id: str, after_seq: int, timeout: Any
    ) -> None:
        self.stub = stub
        self.session_id = session_id
        self.last_seq = after_seq
        self.timeout = timeout

    def open(self, resumed: bool) -> Call[pb.SessionEvent]:
        request = pb.WatchSessionRequest(session_id=self.session_id, after_seq=self.last_seq)
        return _Events(self.stub.WatchSession(request, timeout=self.timeout))

    def accept(self, event: pb.SessionEvent) -> bool:
        if event.seq <= self.last_seq:
            return False
        self.last_seq = event.seq
        return True

    def is_terminal(self, event: pb.SessionEvent) -> bool:
        return False


class _Events:
    """A StartTurn or WatchSession call, seen as a stream of its ``SessionEvent``s."""

    def __init__(self, call: Any, *, drain_on_end: bool = False) -> None:
        self._call = call
        # StartTurn: cancelling it abandons the turn, so after its last event it is read to its
        # end rather than cancelled.
        self.drain_on_end = drain_on_end

    async def _events(self) -> Any:
        # A StartTurn response may carry several events (it asks for coalesce_events); a
        # WatchSession response has no more_events.
        async for response in self._call:
            yield response.event
            for event in getattr(response, "more_events", ()):
                yield event

    def __aiter__(self) -> Any:
        return self._events()

    def cancel(self) -> bool:
        return bool(self._call.cancel())


class KernelClient:
    """An async client of ``maka-kernel``.

    Methods return the protobuf messages of ``maka.kernel.v1`` and raise the exceptions of
    :mod:`maka_runtime_client.errors`. Every unary call has a deadline (``options.timeout``, or the
    method's ``timeout``). Use it as ``async with KernelClient(address) as kernel: ...`` or call
    :meth:`close`.
    """

    def __init__(
        self,
        address: str,
        *,
        options: ClientOptions | None = None,
        interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None,
    ) -> None:
        self.address = address
        self.options = options or ClientOptions()
        self._channel = open_channel(address, self.options, interceptors)
        self._stub = rpc.KernelServiceStub(self._channel)
        self._state = Lifecycle("KernelClient")

    async def __aenter__(self) -> KernelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel (cancelling its streams); safe to repeat."""
        if self._state.closed:
            return
        self._state.closed = True
        await self._channel.close()

    def _timeout(self, timeout: float | None) -> float:
        self._state.check()
        return self.options.timeout if timeout is None else timeout

    def _stream_timeout(self, timeout: float | None) -> float | None:
        self._state.check()
        return self.options.stream_timeout if timeout is None else timeout

    async def get_server_info(self, *, timeout: float | None = None) -> pb.GetServerInfoResponse:
        """This kernel process: version, address, data directory, draining flag."""
        t = self._timeout(timeout)
        with translated():
            return await self._stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=t)

    async def create_session(
        self,
        workspace_root: str,
        *,
        session_id: str = "",
        cwd: str = "",
        name: str = "",
        backend: str = "",
        model: str = "",
        permission_mode: pb.PermissionMode.ValueType = pb.PERMISSION_MODE_UNSPECIFIED,
        labels: Iterable[str] = (),
        backend_options: Mapping[str, str] | None = None,
        llm_connection_slug: str = "",
        timeout: float | None = None,
        profile: str | int = "",
    ) -> pb.Session:
        """Create a session and return it (empty *backend*: the kernel's default, "shell").

        *profile* is its execution boundary's permission profile: ``"read-only"``,
        ``"workspace-write"`` (empty: the default) or ``"danger-full-access"`` (no sandbox), or a
        ``PermissionProfile`` value; the session's ``boundary`` shows it with the expansions
        approved so far and their revision."""
        t = self._timeout(timeout)
        request = pb.CreateSessionRequest(
            session_id=session_id,
            workspace_root=workspace_root,
            cwd=cwd,
            name=name,
            backend=backend,
            model=model,
            permission_mode=permission_mode,
            labels=list(labels),
            backend_options=dict(backend_options or {}),
            llm_connection_slug=llm_connection_slug,
            profile=profile_value(profile),  # type: ignore[arg-type]
        )
        with translated():
            response = await self._stub.CreateSession(request, timeout=t)
        return response.session

    async def get_session(self, session_id: str, *, timeout: float | None = None) -> pb.Session:
        """One session's header."""
        t = self._timeout(timeout)
        with translated():
            response = await self._stub.GetSession(
                pb.GetSessionRequest(session_id=session_id), timeout=t
            )
        return response.session

    async def list_sessions(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        archived: bool | None = None,
        label: str = "",
        timeout: float | None = None,
    ) -> pb.ListSessionsResponse:
        """One page of sessions, newest first (``next_page_token`` for the next)."""
        t = self._timeout(timeout)
        request = pb.ListSessionsRequest(page_size=page_size, page_token=page_token, label=label)
        if archived is not None:
            request.archived = archived
        with translated():
            return await self._stub.ListSessions(request, timeout=t)

    async def update_session(
        self,
        session_id: str,
        *,
        name: str | None = None,
        flagged: bool | None = None,
        labels: Iterable[str] | None = None,
        model: str | None = None,
        permission_mode: pb.PermissionMode.ValueType = pb.PERMISSION_MODE_UNSPECIFIED,
        archived: bool | None = None,
        has_unread: bool | None = None,
        cwd: str | None = None,
        timeout: float | None = None,
    ) -> pb.Session:
        """Change the given fields (``None``: unchanged) and return the session."""
        t = self._timeout(timeout)
        request = pb.UpdateSessionRequest(session_id=session_id, permission_mode=permission_mode)
        for key, value in (
            ("name", name),
            ("flagged", flagged),
            ("model", model),
            ("archived", archived),
            ("has_unread", has_unread),
            ("cwd", cwd),
        ):
            if value is not None:
                setattr(request, key, value)
        if labels is not None:
            request.labels.values.extend(labels)
            request.labels.SetInParent()
        with translated():
            response = await self._stub.UpdateSession(request, timeout=t)
        return response.session

    async def delete_session(self, session_id: str, *, timeout: float | None = None) -> None:
        """Delete a session and its log (refused with SessionBusyError while a turn runs)."""
        t = self._timeout(timeout)
        with translated():
            await self._stub.DeleteSession(
                pb.DeleteSessionRequest(session_id=session_id), timeout=t
            )

    async def read_messages(
        self,
        session_id: str,
        *,
        after_seq: int = 0,
        limit: int = 0,
        timeout: float | None = None,
    ) -> list[pb.SessionEvent]:
        """Stored log entries after *after_seq* (at most *limit*, 0: the server's maximum)."""
        t = self._timeout(timeout)
        request = pb.ReadMessagesRequest(session_id=session_id, after_seq=after_seq, limit=limit)
        with translated():
            response = await self._stub.ReadMessages(request, timeout=t)
        return list(response.events)

    async def list_turns(self, session_id: str, *, timeout: float | None = None) -> list[pb.Turn]:
        """A session's turns in the order they started (every page of them)."""
        t = self._timeout(timeout)
        turns: list[pb.Turn] = []
        after_seq = 0
        while True:
            with translated():
                response = await self._stub.ListTurns(
                    pb.ListTurnsRequest(session_id=session_id, after_seq=after_seq), timeout=t
                )
            turns.extend(response.turns)
            after_seq = response.next_after_seq
            if not after_seq:
                return turns

    async def list_interactions(
        self, session_id: str, *, pending_only: bool = False, timeout: float | None = None
    ) -> list[pb.Interaction]:
        """A session's interaction requests, oldest first (every page of them): pending and
        resolved, or only those still waiting with *pending_only*."""
        t = self._timeout(timeout)
        interactions: list[pb.Interaction] = []
        token = ""
        while True:
            with translated():
                response = await self._stub.ListInteractions(
                    pb.ListInteractionsRequest(
                        session_id=session_id, page_token=token, pending_only=pending_only
                    ),
                    timeout=t,
                )
            interactions.extend(response.interactions)
            token = response.next_page_token
            if not token:
                return interactions

    def start_turn(
        self,
        session_id: str,
        text: str,
        *,
        turn_id: str = "",
        timeout: float | None = None,
    ) -> TurnStream:
        """Start a turn (or attach to it, same *turn_id* and *text*) and stream its events.

        The call starts when iteration starts. If the connection drops, the stream resumes with
        ``WatchSession`` after the last ``seq`` seen (or starts again with the same turn id if
        nothing was seen), so every event of the turn arrives once, in order; iteration ends
        after the turn's terminal ``turn_state``. Note that the kernel stops a turn whose
        ``StartTurn`` stream goes away (``abort_source`` ``stream_abandoned``): after a drop
        you see how the turn ended rather than losing it. Follow a turn without owning it with
        :meth:`watch_session`.
        """
        t = self._stream_timeout(timeout)
        source = _TurnSource(self._stub, session_id, turn_id or os.urandom(16).hex(), text, t)
        return TurnStream(source, self._channel, self.options)

    async def wait_until_settled(
        self, session_id: str, turn_id: str, text: str, *, timeout: float | None = None
    ) -> None:
        """Wait until the turn has fully ended on the kernel.

        A stop is recorded as soon as it is delivered, but an ``after_step`` stop lets the
        current step finish first, and the session takes no new turn until it has. This
        attaches to the turn (same id and text; the kernel ends that stream once the turn has
        settled) and reads it to the end.
        """
        t = self._stream_timeout(timeout)
        request = pb.StartTurnRequest(
            session_id=session_id, turn_id=turn_id, text=text, coalesce_events=True
        )
        with translated():
            async for _ in self._stub.StartTurn(request, timeout=t):
                pass

    def watch_session(
        self, session_id: str, *, after_seq: int = 0, timeout: float | None = None
    ) -> ResumableStream[pb.SessionEvent]:
        """Every log entry after *after_seq*, then live ones, until closed; resumes after drops."""
        t = self._stream_timeout(timeout)
        source = _WatchSource(self._stub, session_id, after_seq, t)
        return ResumableStream(source, self._channel, self.options.resume, ends_at_terminal=False)

    async def stop_session(
        self,
        session_id: str,
        *,
        source: str = "",
        mode: pb.StopMode.ValueType = pb.STOP_MODE_IMMEDIATE,
        turn_id: str = "",
        timeout: float | None = None,
    ) -> pb.StopSessionResponse:
        """Stop the running turn; returns once the stop is delivered and recorded.

        With *turn_id* (the id passed to :meth:`start_turn`, or its stream's ``turn_id``) only
        that turn is stopped, even when its start has not reached the kernel yet: it then ends
        aborted as soon as it is admitted. ``stopped`` in the response says whether a turn was.
        """
        t = self._timeout(timeout)
        request = pb.StopSessionRequest(
            session_id=session_id, source=source, mode=mode, turn_id=turn_id
        )
        with translated():
            return await self._stub.StopSession(request, timeout=t)

    async def respond_to_sandbox_boundary(
        self,
        session_id: str,
        request_id: str,
        decision: pb.SandboxDecision.ValueType,
        *,
        reason: str = "",
        timeout: float | None = None,
    ) -> pb.Interaction:
        """Answer a sandbox-boundary request (AlreadyResolvedError if it was answered)."""
        t = self._timeout(timeout)
        request = pb.RespondToSandboxBoundaryRequest(
            session_id=session_id, request_id=request_id, decision=decision, reason=reason
        )
        with translated():
            response = await self._stub.RespondToSandboxBoundary(request, timeout=t)
        return response.interaction

    async def respond_to_user_question(
        self,
        session_id: str,
        request_id: str,
        answers: Iterable[str],
        *,
        timeout: float | None = None,
    ) -> pb.Interaction:
        """Answer a user question (AlreadyResolvedError if it was answered)."""
        t = self._timeout(timeout)
        request = pb.RespondToUserQuestionRequest(
            session_id=session_id, request_id=request_id, answers=list(answers)
        )
        with translated():
            response = await self._stub.RespondToUserQuestion(request, timeout=t)
        return response.interaction

    async def send_message(
        self, session_id: str, text: str, *, turn_id: str = "", timeout: float | None = None
    ) -> pb.SendMessageResponse:
        """Queue a message for the running turn (its backend reads it at its next step)."""
        t = self._timeout(timeout)
        request = pb.SendMessageRequest(session_id=session_id, text=text, turn_id=turn_id)
        with translated():
            return await self._stub.SendMessage(request, timeout=t)

    async def shutdown(self, *, timeout: float | None = None) -> pb.ShutdownResponse:
        """Drain the kernel (stop its turns, record everything); the process then exits."""
        t = self._timeout(timeout)
        with translated():
            return await self._stub.Shutdown(pb.ShutdownRequest(), timeout=t)
