"""Blocking clients: ``from maka_runtime_client.sync import KernelClient, ResourceClient``.

Each sync client runs its async counterpart on a private event loop in a daemon thread and
waits for each call. One implementation means the sync clients get the same deadlines, typed
exceptions, stream resumption and lease bookkeeping as the async ones; the resource connection
(a stream that must stay open while the caller does something else) needs a running loop
anyway. Sync gRPC stubs would have meant writing all of that twice. The cost is one thread per
client. The clients are safe to use from several threads; streams should be read from one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterable, Iterator, Sequence
from typing import Any, Generic, Self, TypeVar

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from maka_runtime_client._kernel import KernelClient as AsyncKernelClient
from maka_runtime_client._kernel import TurnStream as AsyncTurnStream
from maka_runtime_client._lease import ControllerLease as AsyncControllerLease
from maka_runtime_client._resource import ResourceClient as AsyncResourceClient
from maka_runtime_client._transport import ClientOptions
from maka_runtime_client.errors import ClientClosedError, client_error

__all__ = ["ControllerLease", "KernelClient", "ResourceClient", "Stream", "TurnStream"]

T = TypeVar("T")


class _LoopThread:
    """An event loop running in its own daemon thread; :meth:`run` waits for a coroutine."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("a sync Maka client cannot be called from its own loop thread")
        if self.loop.is_closed():
            coroutine.close()
            raise client_error(
                ClientClosedError, "this client is closed", grpc.StatusCode.CANCELLED
            )
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result()
        except BaseException:
            # Interrupted (Ctrl-C) or failed: make sure the coroutine does not run on.
            future.cancel()
            raise

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class Stream(Generic[T]):
    """A blocking iterator over an async stream; :meth:`close` cancels it."""

    def __init__(self, runner: _LoopThread, stream: AsyncIterator[T]) -> None:
        self._runner = runner
        self._stream = stream

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        try:
            return self._runner.run(_next(self._stream))
        except StopAsyncIteration:
            raise StopIteration from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        closer = getattr(self._stream, "aclose", None)
        if closer is not None:
            self._runner.run(closer())

    @property
    def resumes(self) -> int:
        """How many times the stream was resumed after a dropped connection."""
        return int(getattr(self._stream, "resumes", 0))


async def _next(stream: AsyncIterator[T]) -> T:
    return await anext(stream)


class TurnStream(Stream[kpb.SessionEvent]):
    """The events of one turn (see :meth:`maka_runtime_client.aio.KernelClient.start_turn`)."""

    def __init__(self, runner: _LoopThread, stream: AsyncTurnStream) -> None:
        super().__init__(runner, stream)
        self._turn = stream

    @property
    def turn_id(self) -> str:
        return self._turn.turn_id

    @property
    def last_seq(self) -> int:
        return self._turn.last_seq


class KernelClient:
    """A blocking client of ``maka-kernel``; the methods mirror
    :class:`maka_runtime_client.aio.KernelClient`."""

    def __init__(
        self,
        address: str,
        *,
        options: ClientOptions | None = None,
        interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None,
    ) -> None:
        self._runner = _LoopThread("maka-kernel-client")

        async def make() -> AsyncKernelClient:
            return AsyncKernelClient(address, options=options, interceptors=interceptors)

        self._client = self._runner.run(make())
        self.address = address
        self.options = self._client.options

    def __enter__(self) -> KernelClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel and stop the loop thread; safe to repeat."""
        if not self._runner.loop.is_closed():
            try:
                self._runner.run(self._client.close())
            finally:
                self._runner.stop()

    def get_server_info(self, *, timeout: float | None = None) -> kpb.GetServerInfoResponse:
        return self._runner.run(self._client.get_server_info(timeout=timeout))

    def create_session(self, workspace_root: str, **kwargs: Any) -> kpb.Session:
        return self._runner.run(self._client.create_session(workspace_root, **kwargs))

    def get_session(self, session_id: str, *, timeout: float | None = None) -> kpb.Session:
        return self._runner.run(self._client.get_session(session_id, timeout=timeout))

    def list_sessions(self, **kwargs: Any) -> kpb.ListSessionsResponse:
        return self._runner.run(self._client.list_sessions(**kwargs))

    def update_session(self, session_id: str, **kwargs: Any) -> kpb.Session:
        return self._runner.run(self._client.update_session(session_id, **kwargs))

    def delete_session(self, session_id: str, *, timeout: float | None = None) -> None:
        self._runner.run(self._client.delete_session(session_id, timeout=timeout))

    def read_messages(self, session_id: str, **kwargs: Any) -> list[kpb.SessionEvent]:
        return self._runner.run(self._client.read_messages(session_id, **kwargs))

    def list_turns(self, session_id: str, *, timeout: float | None = None) -> list[kpb.Turn]:
        return self._runner.run(self._client.list_turns(session_id, timeout=timeout))

    def list_interactions(
        self, session_id: str, *, pending_only: bool = False, timeout: float | None = None
    ) -> list[kpb.Interaction]:
        return self._runner.run(
            self._client.list_interactions(session_id, pending_only=pending_only, timeout=timeout)
        )

    def start_turn(
        self, session_id: str, text: str, *, turn_id: str = "", timeout: float | None = None
    ) -> TurnStream:
        async def make() -> AsyncTurnStream:
            return self._client.start_turn(session_id, text, turn_id=turn_id, timeout=timeout)

        return TurnStream(self._runner, self._runner.run(make()))

    def watch_session(
        self, session_id: str, *, after_seq: int = 0, timeout: float | None = None
    ) -> Stream[kpb.SessionEvent]:
        async def make() -> AsyncIterator[kpb.SessionEvent]:
            return self._client.watch_session(session_id, after_seq=after_seq, timeout=timeout)

        return Stream(self._runner, self._runner.run(make()))

    def stop_session(self, session_id: str, **kwargs: Any) -> kpb.StopSessionResponse:
        return self._runner.run(self._client.stop_session(session_id, **kwargs))

    def respond_to_sandbox_boundary(
        self,
        session_id: str,
        request_id: str,
        decision: kpb.SandboxDecision.ValueType,
        *,
        reason: str = "",
        timeout: float | None = None,
    ) -> kpb.Interaction:
        return self._runner.run(
            self._client.respond_to_sandbox_boundary(
                session_id, request_id, decision, reason=reason, timeout=timeout
            )
        )

    def respond_to_user_question(
        self,
        session_id: str,
        request_id: str,
        answers: Iterable[str],
        *,
        timeout: float | None = None,
    ) -> kpb.Interaction:
        return self._runner.run(
            self._client.respond_to_user_question(session_id, request_id, answers, timeout=timeout)
        )

    def send_message(self, session_id: str, text: str, **kwargs: Any) -> kpb.SendMessageResponse:
        return self._runner.run(self._client.send_message(session_id, text, **kwargs))

    def shutdown(self, *, timeout: float | None = None) -> kpb.ShutdownResponse:
        return self._runner.run(self._client.shutdown(timeout=timeout))


class ControllerLease:
    """A blocking view of :class:`maka_runtime_client.aio.ControllerLease`."""

    def __init__(self, runner: _LoopThread, lease: AsyncControllerLease) -> None:
        self._runner = runner
        self._lease = lease

    def __enter__(self) -> ControllerLease:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    @property
    def controller_id(self) -> str:
        return self._lease.controller_id

    @property
    def next_sequence(self) -> int:
        return self._lease.next_sequence

    @property
    def screen(self) -> rpb.Screen:
        return self._lease.screen

    @property
    def lost(self) -> bool:
        return self._lease.lost

    def send_input(
        self, text: str, *, timeout: float | None = None
    ) -> rpb.ControlControllerResponse:
        return self._runner.run(self._lease.send_input(text, timeout=timeout))

    def resize(
        self, cols: int, rows: int, *, timeout: float | None = None
    ) -> rpb.ControlControllerResponse:
        return self._runner.run(self._lease.resize(cols, rows, timeout=timeout))

    def release(self, *, timeout: float | None = None) -> bool:
        return self._runner.run(self._lease.release(timeout=timeout))


class ResourceClient:
    """A blocking client of ``maka-resource``; the methods mirror
    :class:`maka_runtime_client.aio.ResourceClient`."""

    def __init__(
        self,
        address: str,
        *,
        options: ClientOptions | None = None,
        interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None,
    ) -> None:
        self._runner = _LoopThread("maka-resource-client")

        async def make() -> AsyncResourceClient:
            return AsyncResourceClient(address, options=options, interceptors=interceptors)

        self._client = self._runner.run(make())
        self.address = address
        self.options = self._client.options

    def __enter__(self) -> ResourceClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Release leases, close the connection and channel, stop the loop; safe to repeat."""
        if not self._runner.loop.is_closed():
            try:
                self._runner.run(self._client.close())
            finally:
                self._runner.stop()

    def connection_id(self) -> str:
        return self._runner.run(self._client.connection_id())

    def get_server_info(self, *, timeout: float | None = None) -> rpb.GetServerInfoResponse:
        return self._runner.run(self._client.get_server_info(timeout=timeout))

    def run_foreground(
        self, session_id: str, command: str, **kwargs: Any
    ) -> Stream[rpb.RunForegroundResponse]:
        async def make() -> AsyncIterator[rpb.RunForegroundResponse]:
            return self._client.run_foreground(session_id, command, **kwargs)

        return Stream(self._runner, self._runner.run(make()))

    def start_background(self, session_id: str, command: str, **kwargs: Any) -> rpb.Run:
        return self._runner.run(self._client.start_background(session_id, command, **kwargs))

    def get_run(self, session_id: str | None, ref: str, *, timeout: float | None = None) -> rpb.Run:
        return self._runner.run(self._client.get_run(session_id, ref, timeout=timeout))

    def read_run_output(
        self, session_id: str | None, ref: str, **kwargs: Any
    ) -> rpb.ReadRunOutputResponse:
        """One page of a run's kept output (see the async client)."""
        return self._runner.run(self._client.read_run_output(session_id, ref, **kwargs))

    def run_output_pages(
        self, session_id: str | None, ref: str, **kwargs: Any
    ) -> Stream[rpb.ReadRunOutputResponse]:
        """Every page of a run's kept output, in order (see the async client)."""

        async def make() -> AsyncIterator[rpb.ReadRunOutputResponse]:
            return self._client.run_output_pages(session_id, ref, **kwargs)

        return Stream(self._runner, self._runner.run(make()))

    def list_runs(self, session_id: str | None = None, **kwargs: Any) -> rpb.ListRunsResponse:
        return self._runner.run(self._client.list_runs(session_id, **kwargs))

    def stop_run(
        self, session_id: str | None, ref: str, *, timeout: float | None = None
    ) -> rpb.Run:
        return self._runner.run(self._client.stop_run(session_id, ref, timeout=timeout))

    def watch_runs(
        self, session_id: str, *, after_change_seq: int = 0, timeout: float | None = None
    ) -> Stream[rpb.Run]:
        async def make() -> AsyncIterator[rpb.Run]:
            return self._client.watch_runs(
                session_id, after_change_seq=after_change_seq, timeout=timeout
            )

        return Stream(self._runner, self._runner.run(make()))

    def attach(
        self,
        session_id: str | None,
        ref: str,
        *,
        after_sequence: int = 0,
        timeout: float | None = None,
    ) -> Stream[rpb.AttachResponse]:
        async def make() -> AsyncIterator[rpb.AttachResponse]:
            return self._client.attach(
                session_id, ref, after_sequence=after_sequence, timeout=timeout
            )

        return Stream(self._runner, self._runner.run(make()))

    def acquire_controller(
        self, session_id: str | None, ref: str, controller_id: str, *, timeout: float | None = None
    ) -> ControllerLease:
        lease = self._runner.run(
            self._client.acquire_controller(session_id, ref, controller_id, timeout=timeout)
        )
        return ControllerLease(self._runner, lease)

    def wait_ready(self, timeout: float) -> bool:
        return self._runner.run(self._client.wait_ready(timeout))

    def register_session(
        self, session_id: str, *, cwd: str = "", owner: str = "", timeout: float | None = None
    ) -> bool:
        return self._runner.run(
            self._client.register_session(session_id, cwd=cwd, owner=owner, timeout=timeout)
        )

    def archive_session(
        self, session_id: str, *, deleted: bool = False, timeout: float | None = None
    ) -> list[rpb.Run]:
        return self._runner.run(
            self._client.archive_session(session_id, deleted=deleted, timeout=timeout)
        )

    def shutdown(self, *, timeout: float | None = None) -> rpb.ShutdownResponse:
        return self._runner.run(self._client.shutdown(timeout=timeout))
