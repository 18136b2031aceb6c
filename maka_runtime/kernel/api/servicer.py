"""``maka.kernel.v1.KernelService``: converts requests, calls the kernel, converts results.

Decisions live in the kernel; errors are mapped by :mod:`.status`. A StartTurn client that
cancels its stream (or disconnects) is the spec's *abandoned consumer*: the handler's cleanup
hands the turn to :meth:`~maka_runtime.kernel.core.TurnStream.abandon`, which stops it in a
kernel-owned task, so the cleanup runs to its end and records its failures (system note + log)
though nobody is listening.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc

from maka_runtime.common.per_caller import PerCaller
from maka_runtime.common.server import ServerHost
from maka_runtime.kernel.api import convert
from maka_runtime.kernel.api.info import server_info
from maka_runtime.kernel.api.session_protos import PageProtos, SessionProtos
from maka_runtime.kernel.api.status import streaming, unary
from maka_runtime.kernel.core import RuntimeKernel, TurnStream

Context = grpc.aio.ServicerContext[Any, Any]
#: A coalesced StartTurn response carries at most this many events beyond its first …
COALESCE_EVENTS = 255
#: … and stops adding them once they reach this many bytes.
COALESCE_BYTES = 1024 * 1024


def _coalesce(response: pb.StartTurnResponse, stream: TurnStream) -> None:
    """Add to *response* the events of *stream* already waiting (the client lags behind)."""
    size = 0
    more: list[pb.SessionEvent] = []
    while len(more) < COALESCE_EVENTS and size < COALESCE_BYTES:
        entry = stream.next_ready()
        if entry is None:
            break
        event = convert.event_to_proto(entry)
        size += event.ByteSize()
        more.append(event)
    if more:
        response.more_events.extend(more)


class KernelServicer(kernel_pb2_grpc.KernelServiceServicer):
    def __init__(
        self,
        kernel: RuntimeKernel,
        host: ServerHost,
        *,
        default_backend: str = "scripted",
        resource_address: str = "",
        session_protos: int = 1024,
        list_pages: int = 64,
    ) -> None:
        self._kernel = kernel
        self._host = host
        self._default_backend = default_backend
        #: As many as the store keeps headers (``--session-header-cache``).
        self._sessions = SessionProtos(session_protos)
        #: As many as the kernel keeps pages (``--list-page-cache``).
        self._pages = PageProtos(list_pages, self._sessions)
        self._info: PerCaller[bool, bytes] = PerCaller(
            lambda caller, draining: server_info(
                host,
                caller,
                draining=draining,
                default_backend=default_backend,
                resource_address=resource_address,
            ).SerializeToString()
        )

    # The kept answers below are handed to gRPC serialized (the pipeline's serializer passes
    # bytes through: maka_runtime.common.handlers.passing_bytes), hence the wider return type.
    async def GetServerInfo(  # type: ignore[override]
        self, request: pb.GetServerInfoRequest, context: Context
    ) -> bytes:
        return self._info(self._host.draining)

    @unary
    async def CreateSession(
        self, request: pb.CreateSessionRequest, context: Context
    ) -> pb.CreateSessionResponse:
        header = await self._kernel.create_session(
            convert.new_session(request, default_backend=self._default_backend)
        )
        return pb.CreateSessionResponse(session=convert.session_to_proto(header))

    @unary
    async def GetSession(  # type: ignore[override]
        self, request: pb.GetSessionRequest, context: Context
    ) -> bytes:
        header = self._kernel.session_now(request.session_id)
        if header is None:
            header = await self._kernel.get_session(request.session_id)
        return self._sessions.of(header)

    @unary
    async def ListSessions(  # type: ignore[override]
        self, request: pb.ListSessionsRequest, context: Context
    ) -> bytes:
        page = self._kernel.sessions_page_now(*convert.session_filters(request))
        if page is None:
            page = await self._kernel.list_sessions(convert.session_query(request))
        return self._pages.of(page)

    @unary
    async def UpdateSession(
        self, request: pb.UpdateSessionRequest, context: Context
    ) -> pb.UpdateSessionResponse:
        header = await self._kernel.update_session(
            request.session_id, convert.session_update(request)
        )
        return pb.UpdateSessionResponse(session=convert.session_to_proto(header))

    @unary
    async def DeleteSession(
        self, request: pb.DeleteSessionRequest, context: Context
    ) -> pb.DeleteSessionResponse:
        await self._kernel.delete_session(request.session_id)
        return pb.DeleteSessionResponse()

    @unary
    async def ReadMessages(
        self, request: pb.ReadMessagesRequest, context: Context
    ) -> pb.ReadMessagesResponse:
        entries = await self._kernel.read_messages(
            request.session_id,
            after_seq=request.after_seq,
            limit=request.limit or convert.DEFAULT_READ_LIMIT,
        )
        return pb.ReadMessagesResponse(events=[convert.event_to_proto(e) for e in entries])

    @unary
    async def ListTurns(
        self, request: pb.ListTurnsRequest, context: Context
    ) -> pb.ListTurnsResponse:
        page = await self._kernel.turns_page(
            request.session_id, after_seq=request.after_seq, limit=request.limit or None
        )
        return pb.ListTurnsResponse(
            turns=[convert.turn_to_proto(t) for t in page.turns],
            next_after_seq=page.next_after_seq,
        )

    @unary
    async def ListInteractions(
        self, request: pb.ListInteractionsRequest, context: Context
    ) -> pb.ListInteractionsResponse:
        page = await self._kernel.list_interactions(
            request.session_id,
            page_token=request.page_token,
            limit=request.limit or None,
            pending_only=request.pending_only,
        )
        return pb.ListInteractionsResponse(
            interactions=[convert.interaction_to_proto(r) for r in page.interactions],
            next_page_token=page.next_page_token,
        )

    @streaming
    async def StartTurn(
        self, request: pb.StartTurnRequest, context: Context
    ) -> AsyncIterator[pb.StartTurnResponse]:
        stream = self._kernel.start_turn(
            request.session_id,
            request.turn_id or None,
            text=request.text,
            report_not_started=True,
        )
        try:
            async for event in stream:
                response = pb.StartTurnResponse(event=convert.event_to_proto(event))
                if request.coalesce_events:
                    _coalesce(response, stream)
                yield response
        finally:
            # Ended early (client gone, call cancelled, error): abandon; no-op once settled.
            stream.abandon()

    @unary
    async def StopSession(
        self, request: pb.StopSessionRequest, context: Context
    ) -> pb.StopSessionResponse:
        outcome = await self._kernel.stop_session(
            request.session_id,
            source=request.source or "api",
            mode=convert.stop_mode(request.mode),
            turn_id=request.turn_id,
        )
        return pb.StopSessionResponse(
            turn_id=outcome.turn_id,
            mode=convert.STOP_MODE_VALUE[outcome.mode],  # type: ignore[arg-type]
            stopped=outcome.stopped,
        )

    @unary
    async def RespondToSandboxBoundary(
        self, request: pb.RespondToSandboxBoundaryRequest, context: Context
    ) -> pb.RespondToSandboxBoundaryResponse:
        record = await self._kernel.answer_sandbox_boundary(
            request.session_id,
            request.request_id,
            convert.sandbox_decision(request.decision),
            reason=request.reason,
        )
        return pb.RespondToSandboxBoundaryResponse(interaction=convert.interaction_to_proto(record))

    @unary
    async def RespondToUserQuestion(
        self, request: pb.RespondToUserQuestionRequest, context: Context
    ) -> pb.RespondToUserQuestionResponse:
        record = await self._kernel.answer_user_question(
            request.session_id, request.request_id, list(request.answers)
        )
        return pb.RespondToUserQuestionResponse(interaction=convert.interaction_to_proto(record))

    @unary
    async def SendMessage(
        self, request: pb.SendMessageRequest, context: Context
    ) -> pb.SendMessageResponse:
        queued = await self._kernel.send_message(
            request.session_id, request.text, turn_id=request.turn_id
        )
        return pb.SendMessageResponse(message_id=queued.message_id, turn_id=queued.turn_id)

    @streaming
    async def WatchSession(
        self, request: pb.WatchSessionRequest, context: Context
    ) -> AsyncIterator[pb.WatchSessionResponse]:
        watch = await self._kernel.watch_session(request.session_id, after_seq=request.after_seq)
        try:
            async for entry in watch:
                yield pb.WatchSessionResponse(event=convert.event_to_proto(entry))
        finally:
            await watch.aclose()

    @unary
    async def Shutdown(self, request: pb.ShutdownRequest, context: Context) -> pb.ShutdownResponse:
        # Refuse new turns before this call yields; the host then drains (the same path as
        # SIGTERM) and the process exits after this response.
        self._kernel.begin_drain()
        report: pb.ShutdownResponse = await asyncio.shield(self._host.shutdown("Shutdown RPC"))
        return report
