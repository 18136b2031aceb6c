"""``maka.resource.v1.ResourceService``: converts requests, calls the resource host (the core's
façade), converts back.

It decides nothing: rules live in the domain core (who may send controls on an Attach stream:
:class:`~maka_runtime.resource.core.AttachSession`), error mapping in :mod:`.status`. It only
converts and pumps.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc

from maka_runtime.common.aio import TaskOwner, race
from maka_runtime.common.kept_answers import AnswersByObject
from maka_runtime.common.per_caller import DEFAULT_LIMIT as PER_CALLER_LIMIT
from maka_runtime.resource.api import convert
from maka_runtime.resource.api.connections import ConnectionRegistry
from maka_runtime.resource.api.run_protos import PageProtos, RunProtos
from maka_runtime.resource.api.status import failure_of, streaming, unary
from maka_runtime.resource.core import (
    AttachSession,
    ControllerIdentity,
    ControlRequest,
    ForegroundStarted,
    InvalidRequestError,
    OutputChunk,
    OutputGap,
    ResourceHost,
)

__all__ = ["ResourceServicer"]

_T = TypeVar("_T")
_Context = Any  # grpc.aio.ServicerContext; typed loosely to match the generated base class

#: Output chunks waiting for a lagging client are merged into messages of up to this size.
_COALESCE = 256 * 1024
#: How many attach events may wait for a slow client before output reading pauses (the run's
#: replay log keeps going; the client then sees a gap).
_ATTACH_BACKLOG = 64
_ATTACH_FIELDS = {
    "control.input": "control.input",
    "control.kind": "control.input",
    "control.cols": "control.resize.cols",
    "control.rows": "control.resize.rows",
    "controller_id": "start.controller_id",
    "ref": "start.ref",
    "session_id": "start.session_id",
    "after_sequence": "start.after_sequence",
}


class ResourceServicer(resource_pb2_grpc.ResourceServiceServicer):
    def __init__(
        self,
        *,
        resources: ResourceHost,
        connections: ConnectionRegistry,
        server_info: Callable[[], pb.GetServerInfoResponse],
        shutdown: Callable[[], Awaitable[pb.ShutdownResponse]],
        closing: asyncio.Event,
        finished_run_cache_bytes: int = 0,
        list_pages: int = 0,
    ) -> None:
        self._resources = resources
        #: Messages of finished runs, built once (:mod:`.run_protos`).
        self._protos = RunProtos(finished_run_cache_bytes)
        #: ``ListRuns`` answers of the pages the catalog keeps (``--list-page-cache``).
        self._pages = PageProtos(list_pages, self._protos)
        self._connections = connections
        self._server_info = server_info
        #: The answer *server_info* keeps per caller and state, serialized once per message.
        self._info: AnswersByObject[pb.GetServerInfoResponse, bytes] = AnswersByObject(
            PER_CALLER_LIMIT, lambda message: message.SerializeToString()
        )
        self._shutdown = shutdown
        self._closing = closing

    # The kept answers below are handed to gRPC serialized (the pipeline's serializer passes
    # bytes through: maka_runtime.common.handlers.passing_bytes), hence the wider return type.
    @unary()
    async def GetServerInfo(  # type: ignore[override]
        self, request: pb.GetServerInfoRequest, context: _Context
    ) -> bytes:
        return self._info.of(self._server_info())

    @streaming()
    async def OpenConnection(
        self, request: pb.OpenConnectionRequest, context: _Context
    ) -> AsyncIterator[pb.OpenConnectionResponse]:
        connection = self._connections.open(request.client_name, peer=context.peer())
        try:
            yield pb.OpenConnectionResponse(connection_id=connection.connection_id)
            # The connection lives as long as this stream: until the client cancels it or
            # goes away (the call is cancelled), or the server shuts down.
            await self._closing.wait()
        finally:
            self._connections.close(connection.connection_id)

    @streaming()
    async def RunForeground(
        self, request: pb.RunForegroundRequest, context: _Context
    ) -> AsyncIterator[pb.RunForegroundResponse]:
        run = self._resources.stream_foreground_bash(
            convert.bash_input_from_foreground(request),
            coalesce=_COALESCE,
            announce_start=request.announce_start,
        )
        # aclosing: if the client goes away, closing the generator cancels the run.
        async with contextlib.aclosing(run) as events:
            async for event in events:
                if isinstance(event, ForegroundStarted):
                    yield pb.RunForegroundResponse(started=convert.run_to_proto(event.record))
                elif isinstance(event, OutputChunk):
                    response = pb.RunForegroundResponse()
                    convert.chunk_into(response.output, event)  # its data copied once
                    yield response
                elif isinstance(event, OutputGap):
                    yield pb.RunForegroundResponse(gap=convert.gap_to_proto(event))
                else:
                    yield pb.RunForegroundResponse(result=convert.run_to_proto(event))

    @unary(fields=convert.BACKGROUND_FIELDS)
    async def StartBackground(
        self, request: pb.StartBackgroundRequest, context: _Context
    ) -> pb.StartBackgroundResponse:
        record = await self._resources.run_background_bash(
            convert.bash_input_from_background(request)
        )
        return pb.StartBackgroundResponse(run=convert.run_to_proto(record))

    @unary()
    async def GetRun(  # type: ignore[override]
        self, request: pb.GetRunRequest, context: _Context
    ) -> bytes:
        record = await self._resources.get(request.session_id, request.ref)
        return self._protos.answer(record)

    @unary()
    async def ListRuns(  # type: ignore[override]
        self, request: pb.ListRunsRequest, context: _Context
    ) -> bytes:
        page = await self._resources.list_runs(
            request.session_id, page_size=request.page_size, page_token=request.page_token
        )
        return self._pages.of(page)

    @unary()
    async def StopRun(self, request: pb.StopRunRequest, context: _Context) -> pb.StopRunResponse:
        record = await self._resources.stop(request.session_id, request.ref)
        return pb.StopRunResponse(run=convert.run_to_proto(record))

    @streaming()
    async def WatchRuns(
        self, request: pb.WatchRunsRequest, context: _Context
    ) -> AsyncIterator[pb.WatchRunsResponse]:
        watch = self._resources.watch(request.session_id, after_change_seq=request.after_change_seq)
        async with contextlib.aclosing(watch) as records:
            async for record in _until(self._closing, records):
                yield pb.WatchRunsResponse(run=convert.run_to_proto(record))

    @unary()
    async def AcquireController(
        self, request: pb.AcquireControllerRequest, context: _Context
    ) -> pb.AcquireControllerResponse:
        acquired = await self._resources.acquire_controller(
            ControllerIdentity(request.session_id, request.ref, request.controller_id),
            self._connections.context(request.connection_id),
        )
        return pb.AcquireControllerResponse(
            controller_id=acquired.controller_id,
            next_sequence=acquired.next_sequence,
            screen=convert.screen_to_proto(acquired.screen),
            output_sequence=acquired.output_sequence,
        )

    @unary(fields=convert.CONTROL_FIELDS)
    async def ControlController(
        self, request: pb.ControlControllerRequest, context: _Context
    ) -> pb.ControlControllerResponse:
        control = convert.control_from_proto(
            request.input, request.resize if request.HasField("resize") else None
        )
        result = await self._resources.control_controller(
            ControlRequest(
                request.session_id, request.ref, request.controller_id, request.sequence, control
            ),
            self._connections.context(request.connection_id),
        )
        return convert.control_result_to_proto(result)

    @unary()
    async def ReleaseController(
        self, request: pb.ReleaseControllerRequest, context: _Context
    ) -> pb.ReleaseControllerResponse:
        released = await self._resources.release_controller(
            ControllerIdentity(request.session_id, request.ref, request.controller_id),
            self._connections.context(request.connection_id),
        )
        return pb.ReleaseControllerResponse(
            controller_id=released.controller_id, released=released.released
        )

    @streaming(fields=_ATTACH_FIELDS)
    async def Attach(
        self, request_iterator: AsyncIterator[pb.AttachRequest], context: _Context
    ) -> AsyncIterator[pb.AttachResponse]:
        first = await anext(request_iterator, None)
        if first is None or first.WhichOneof("action") != "start":
            raise InvalidRequestError("the first message must be start", field="start")
        start = first.start
        # The stream is its own connection: a lease it takes ends with it.
        connection = self._connections.open("attach", peer=context.peer(), surface="attach")
        try:
            session = await self._resources.open_attach(
                start.session_id,
                start.ref,
                connection,
                controller_id=start.controller_id,
                after_sequence=start.after_sequence,
                coalesce=_COALESCE,
            )
            yield pb.AttachResponse(
                attached=pb.Attached(
                    run=convert.run_to_proto(session.record),
                    screen=convert.screen_to_proto(session.screen)
                    if session.screen is not None
                    else None,
                    output_sequence=session.output_sequence,
                    next_sequence=session.next_sequence,
                )
            )
            async for response in _attach_events(session, request_iterator):
                yield response
        finally:
            self._connections.close(connection.connection_id)

    @unary()
    async def RegisterSession(
        self, request: pb.RegisterSessionRequest, context: _Context
    ) -> pb.RegisterSessionResponse:
        changed = await self._resources.register_session(
            request.session_id, cwd=request.cwd, owner=request.owner
        )
        return pb.RegisterSessionResponse(changed=changed)

    @unary()
    async def ArchiveSession(
        self, request: pb.ArchiveSessionRequest, context: _Context
    ) -> pb.ArchiveSessionResponse:
        stopped = await self._resources.archive_session(request.session_id, deleted=request.deleted)
        return pb.ArchiveSessionResponse(stopped=[convert.run_to_proto(run) for run in stopped])

    @unary()
    async def ReadRunOutput(
        self, request: pb.ReadRunOutputRequest, context: _Context
    ) -> pb.ReadRunOutputResponse:
        page = await self._resources.read_output(
            request.session_id,
            request.ref,
            after_sequence=request.after_sequence,
            max_bytes=request.max_bytes,
        )
        return convert.output_page_to_proto(page)

    @unary()
    async def Shutdown(self, request: pb.ShutdownRequest, context: _Context) -> pb.ShutdownResponse:
        return await self._shutdown()


async def _attach_events(
    session: AttachSession, requests: AsyncIterator[pb.AttachRequest]
) -> AsyncIterator[pb.AttachResponse]:
    """Output (then the final run) merged with the outcomes of the client's controls."""
    queue: asyncio.Queue[pb.AttachResponse | BaseException | None] = asyncio.Queue(_ATTACH_BACKLOG)

    async def pump_output() -> None:
        try:
            async with contextlib.aclosing(session.events) as output:  # type: ignore[type-var]
                async for event in output:
                    if isinstance(event, OutputChunk):
                        response = pb.AttachResponse()
                        convert.chunk_into(response.output, event)
                        await queue.put(response)
                    else:
                        await queue.put(pb.AttachResponse(gap=convert.gap_to_proto(event)))
            final = await session.ended()
            await queue.put(pb.AttachResponse(ended=convert.run_to_proto(final)))
            await queue.put(None)
        except Exception as error:
            await queue.put(error)

    async def apply_controls() -> None:
        async for message in requests:
            await queue.put(pb.AttachResponse(control=await _control_outcome(session, message)))

    tasks = TaskOwner()
    tasks.spawn(pump_output(), name="attach output")
    tasks.spawn(apply_controls(), name="attach controls")
    try:
        while True:
            item = await queue.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        await tasks.close()


async def _control_outcome(session: AttachSession, message: pb.AttachRequest) -> pb.ControlOutcome:
    """What became of one message the client sent after start: applied, or why not."""
    control = message.control
    try:
        if message.WhichOneof("action") != "control":
            raise InvalidRequestError("start may only be sent once", field="start")
        result = await session.control(
            control.sequence,
            lambda: convert.control_from_proto(
                control.input, control.resize if control.HasField("resize") else None
            ),
        )
        return pb.ControlOutcome(
            sequence=control.sequence, applied=convert.control_result_to_proto(result)
        )
    except Exception as error:
        failure = failure_of(error, _ATTACH_FIELDS)
        return pb.ControlOutcome(
            sequence=control.sequence,
            rejected=pb.ControlRejected(
                code=failure.code.value[0],
                reason=failure.reason,
                message=failure.message,
                field=failure.field,
            ),
        )


async def _until(stop: asyncio.Event, source: AsyncIterator[_T]) -> AsyncIterator[_T]:
    """Items of *source* until it ends or *stop* is set.

    However this ends (also when the call is cancelled), a pending ``anext`` is cancelled and
    awaited first (:func:`maka_runtime.common.aio.race`), so that *source* is no longer running when
    its owner closes it.
    """
    while True:
        item = asyncio.ensure_future(anext(source))
        if await race(item, stop.wait()) != 0:
            return
        try:
            value = item.result()
        except StopAsyncIteration:
            return
        yield value
