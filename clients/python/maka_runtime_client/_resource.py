"""The async client of ``maka.resource.v1.ResourceService``."""

# `timeout` parameters are gRPC deadlines handed to the call, not asyncio timeouts.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc as rpc
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

from maka_runtime_client._lease import ConnectionHolder, ControllerLease
from maka_runtime_client._resume import Call, ResumableStream
from maka_runtime_client._transport import (
    ClientOptions,
    Lifecycle,
    open_channel,
    translated,
    wait_ready,
)


class _WatchRunsSource:
    def __init__(
        self, stub: rpc.ResourceServiceAsyncStub, session_id: str, after: int, timeout: Any
    ) -> None:
        self.stub = stub
        self.session_id = session_id
        self.last_change_seq = after
        self.timeout = timeout

    def open(self, resumed: bool) -> Call[pb.Run]:
        request = pb.WatchRunsRequest(
            session_id=self.session_id, after_change_seq=self.last_change_seq
        )
        return _Mapped(self.stub.WatchRuns(request, timeout=self.timeout), lambda r: r.run)

    def accept(self, run: pb.Run) -> bool:
        if run.change_seq <= self.last_change_seq:
            return False
        self.last_change_seq = run.change_seq
        return True

    def is_terminal(self, run: pb.Run) -> bool:
        return False


class _AttachSource:
    def __init__(
        self,
        stub: rpc.ResourceServiceAsyncStub,
        session_id: str | None,
        ref: str,
        after_sequence: int,
        timeout: Any,
    ) -> None:
        self.stub = stub
        self.session_id = session_id or ""
        self.ref = ref
        self.last_sequence = after_sequence
        self.attached = False
        self.timeout = timeout

    def open(self, resumed: bool) -> Call[pb.AttachResponse]:
        start = pb.AttachStart(
            session_id=self.session_id, ref=self.ref, after_sequence=self.last_sequence
        )

        async def requests() -> AsyncIterator[pb.AttachRequest]:
            yield pb.AttachRequest(start=start)
            # Keep our half open: the stream ends when the run does (or we cancel it).
            await asyncio.Event().wait()

        return _Mapped(self.stub.Attach(requests(), timeout=self.timeout), lambda r: r)

    def accept(self, item: pb.AttachResponse) -> bool:
        kind = item.WhichOneof("event")
        if kind == "attached":
            if self.attached:
                return False  # a resumed stream's snapshot; its output follows as chunks
            self.attached = True
            return True
        if kind == "output":
            if item.output.sequence <= self.last_sequence:
                return False
            self.last_sequence = item.output.sequence
            return True
        if kind == "gap":
            if item.gap.last_sequence <= self.last_sequence:
                return False
            self.last_sequence = item.gap.last_sequence
            return True
        return kind == "ended"

    def is_terminal(self, item: pb.AttachResponse) -> bool:
        return item.WhichOneof("event") == "ended"


class _Mapped:
    """A streaming call seen through *pick* (the resumer reads items, cancels the call)."""

    def __init__(self, call: Any, pick: Any) -> None:
        self._call = call
        self._pick = pick

    async def _items(self) -> Any:
        async for response in self._call:
            yield self._pick(response)

    def __aiter__(self) -> Any:
        return self._items()

    def cancel(self) -> bool:
        return bool(self._call.cancel())


class ResourceClient:
    """An async client of ``maka-resource``.

    Methods return the protobuf messages of ``maka.resource.v1`` and raise the exceptions of
    :mod:`maka_runtime_client.errors`; every unary call has a deadline (``options.timeout`` or the
    method's ``timeout``). The client's connection (``OpenConnection``, which owns controller
    leases) is opened on first need and kept until :meth:`close`.

    A ref names one run: the methods that take a ref take its session too, but ``None`` (or
    ``""``) lets the service take it from the run's record. A session that is not the run's is
    :class:`~maka_runtime_client.errors.NotFoundError`.
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
        self._stub = rpc.ResourceServiceStub(self._channel)
        self._connection = ConnectionHolder(self._stub, self.options)
        self._leases: list[ControllerLease] = []
        self._state = Lifecycle("ResourceClient")

    async def __aenter__(self) -> ResourceClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Release held leases, close the connection and the channel; safe to repeat."""
        if self._state.closed:
            return
        self._state.closed = True
        try:
            for lease in list(self._leases):
                # Best effort: closing the connection releases them anyway, a moment later.
                with contextlib.suppress(Exception):
                    await lease.release(timeout=min(self.options.timeout, 5.0))
        finally:
            await self._connection.close()
            await self._channel.close()

    def _timeout(self, timeout: float | None) -> float:
        self._state.check()
        return self.options.timeout if timeout is None else timeout

    def _stream_timeout(self, timeout: float | None) -> float | None:
        self._state.check()
        return self.options.stream_timeout if timeout is None else timeout

    async def wait_ready(self, timeout: float) -> bool:
        """True once the channel is connected (connecting if needed); False after *timeout*.

        Calls fail at once while the service is unreachable; a caller that knows the service
        is coming back (restarting) waits here first instead of failing.
        """
        self._state.check()
        return await wait_ready(self._channel, timeout)

    async def connection_id(self) -> str:
        """The id of this client's connection, opening it if needed."""
        self._state.check()
        return (await self._connection.get()).connection_id

    async def get_server_info(self, *, timeout: float | None = None) -> pb.GetServerInfoResponse:
        """This resource process: version, address, data directory, draining flag."""
        t = self._timeout(timeout)
        with translated():
            return await self._stub.GetServerInfo(pb.GetServerInfoRequest(), timeout=t)

    async def run_foreground(
        self,
        session_id: str,
        command: str,
        *,
        cwd: str = "",
        env: Mapping[str, str] | None = None,
        timeout_ms: int | None = None,
        source_turn_id: str = "",
        source_tool_call_id: str = "",
        announce_start: bool = False,
        timeout: float | None = None,
        boundary: sb.ExecutionBoundary | None = None,
    ) -> AsyncIterator[pb.RunForegroundResponse]:
        """Run *command* over pipes: its output chunks, then one ``result`` (the final run).
        With *announce_start*, ``started`` (the run once started: its ref, to stop it with
        :meth:`stop_run` from elsewhere) comes first.

        Not resumed: the server cancels a foreground run whose caller goes away. Start a
        background run and :meth:`attach` to it for output that survives a reconnect.
        """
        t = self._stream_timeout(timeout)
        request = pb.RunForegroundRequest(
            session_id=session_id,
            command=command,
            cwd=cwd,
            env=dict(env or {}),
            source_turn_id=source_turn_id,
            source_tool_call_id=source_tool_call_id,
            announce_start=announce_start,
            boundary=boundary,
        )
        if timeout_ms is not None:
            request.timeout_ms = timeout_ms
        call = self._stub.RunForeground(request, timeout=t)
        try:
            with translated():
                async for response in call:
                    yield response
        finally:
            call.cancel()

    async def start_background(
        self,
        session_id: str,
        command: str,
        *,
        pty: bool = False,
        size: tuple[int, int] | None = None,
        cwd: str = "",
        env: Mapping[str, str] | None = None,
        timeout_ms: int | None = None,
        source_turn_id: str = "",
        source_tool_call_id: str = "",
        timeout: float | None = None,
        boundary: sb.ExecutionBoundary | None = None,
    ) -> pb.Run:
        """Start *command* over pipes or a PTY (*size* = (cols, rows)) inside *boundary* (the
        service's default when unset); returns the run."""
        t = self._timeout(timeout)
        request = pb.StartBackgroundRequest(
            session_id=session_id,
            command=command,
            cwd=cwd,
            env=dict(env or {}),
            pty=pty,
            source_turn_id=source_turn_id,
            source_tool_call_id=source_tool_call_id,
            boundary=boundary,
        )
        if timeout_ms is not None:
            request.timeout_ms = timeout_ms
        if size is not None:
            request.size.cols, request.size.rows = size
        with translated():
            response = await self._stub.StartBackground(request, timeout=t)
        return response.run

    async def get_run(
        self, session_id: str | None, ref: str, *, timeout: float | None = None
    ) -> pb.Run:
        """A run as of now (with live output for an active run); *session_id* may be ``None``."""
        t = self._timeout(timeout)
        with translated():
            response = await self._stub.GetRun(
                pb.GetRunRequest(session_id=session_id or "", ref=ref), timeout=t
            )
        return response.run

    async def read_run_output(
        self,
        session_id: str | None,
        ref: str,
        *,
        after_sequence: int = 0,
        max_bytes: int = 0,
        timeout: float | None = None,
    ) -> pb.ReadRunOutputResponse:
        """One page of a run's kept output after *after_sequence* (0: from the start); pass
        the page's ``next_after_sequence`` for the next, until ``end_reached``. *max_bytes*
        0 means the service's page bound. *session_id* may be ``None``."""
        t = self._timeout(timeout)
        request = pb.ReadRunOutputRequest(
            session_id=session_id or "",
            ref=ref,
            after_sequence=after_sequence,
            max_bytes=max_bytes,
        )
        with translated():
            return await self._stub.ReadRunOutput(request, timeout=t)

    async def run_output_pages(
        self, session_id: str | None, ref: str, *, after_sequence: int = 0, max_bytes: int = 0
    ) -> AsyncIterator[pb.ReadRunOutputResponse]:
        """Every page of a run's kept output, in order: until the last one (``end_reached``),
        or, for a run that is still active, until a page brings nothing new."""
        after = after_sequence
        while True:
            page = await self.read_run_output(
                session_id, ref, after_sequence=after, max_bytes=max_bytes
            )
            yield page
            if page.end_reached or not page.chunks:
                return
            after = page.next_after_sequence

    async def list_runs(
        self,
        session_id: str | None = None,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> pb.ListRunsResponse:
        """One page of a session's runs, oldest first; ``None``: of every session."""
        t = self._timeout(timeout)
        request = pb.ListRunsRequest(
            session_id=session_id or "", page_size=page_size, page_token=page_token
        )
        with translated():
            return await self._stub.ListRuns(request, timeout=t)

    async def stop_run(
        self, session_id: str | None, ref: str, *, timeout: float | None = None
    ) -> pb.Run:
        """Cancel a run and return its final state; *session_id* may be ``None``."""
        t = self._timeout(timeout)
        with translated():
            response = await self._stub.StopRun(
                pb.StopRunRequest(session_id=session_id or "", ref=ref), timeout=t
            )
        return response.run

    def watch_runs(
        self, session_id: str, *, after_change_seq: int = 0, timeout: float | None = None
    ) -> ResumableStream[pb.Run]:
        """Every change of a session's runs after *after_change_seq*, then live; resumes after
        drops from the last ``change_seq`` seen, until closed."""
        t = self._stream_timeout(timeout)
        source = _WatchRunsSource(self._stub, session_id, after_change_seq, t)
        return ResumableStream(source, self._channel, self.options.resume, ends_at_terminal=False)

    def attach(
        self,
        session_id: str | None,
        ref: str,
        *,
        after_sequence: int = 0,
        timeout: float | None = None,
    ) -> ResumableStream[pb.AttachResponse]:
        """Follow a run: ``attached`` (the run and its screen, once), output chunks (each
        sequence once, in order, resumed after drops), then ``ended``. *session_id* may be
        ``None``.

        Read-only: control a PTY run through :meth:`acquire_controller`.
        """
        t = self._stream_timeout(timeout)
        source = _AttachSource(self._stub, session_id, ref, after_sequence, t)
        return ResumableStream(source, self._channel, self.options.resume)

    async def acquire_controller(
        self,
        session_id: str | None,
        ref: str,
        controller_id: str,
        *,
        timeout: float | None = None,
    ) -> ControllerLease:
        """Take the controller lease of an active PTY run on this client's connection.

        *session_id* may be ``None`` (the run's own). Another holder's lease is
        ConflictError. Use the lease as ``async with``, or call
        :meth:`ControllerLease.release`; closing the client releases it too.
        """
        t = self._timeout(timeout)
        connection = await self._connection.get()
        request = pb.AcquireControllerRequest(
            session_id=session_id or "",
            ref=ref,
            controller_id=controller_id,
            connection_id=connection.connection_id,
        )
        with translated():
            acquired = await self._stub.AcquireController(request, timeout=t)
        lease = ControllerLease(
            self._stub,
            self._channel,
            options=self.options,
            connection=connection,
            request=request,
            acquired=acquired,
            forget=self._forget,
        )
        self._leases.append(lease)
        return lease

    def _forget(self, lease: ControllerLease) -> None:
        with contextlib.suppress(ValueError):
            self._leases.remove(lease)

    async def register_session(
        self, session_id: str, *, cwd: str = "", owner: str = "", timeout: float | None = None
    ) -> bool:
        """Tell the service the session exists (the kernel does; a service in kernel mode
        admits only registered sessions), with *cwd* as its runs' default working directory.
        Lifts an archive. *owner* is the principal that owns the session (only the kernel
        role may register). Returns whether anything changed."""
        t = self._timeout(timeout)
        with translated():
            response = await self._stub.RegisterSession(
                pb.RegisterSessionRequest(session_id=session_id, cwd=cwd, owner=owner), timeout=t
            )
        return response.changed

    async def archive_session(
        self, session_id: str, *, deleted: bool = False, timeout: float | None = None
    ) -> list[pb.Run]:
        """Archive (or delete) the session: stop its active runs and refuse its operations
        from now on. Returns the final state of every run it stopped."""
        t = self._timeout(timeout)
        with translated():
            response = await self._stub.ArchiveSession(
                pb.ArchiveSessionRequest(session_id=session_id, deleted=deleted), timeout=t
            )
        return list(response.stopped)

    async def shutdown(self, *, timeout: float | None = None) -> pb.ShutdownResponse:
        """Drain the service (cancel live runs, report how they ended); it then exits."""
        t = self._timeout(timeout)
        with translated():
            return await self._stub.Shutdown(pb.ShutdownRequest(), timeout=t)
