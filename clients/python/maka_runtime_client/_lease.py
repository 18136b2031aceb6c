"""The resource connection (``OpenConnection``) and the controller-lease helper.

A lease belongs to a connection: the server releases it when the connection's stream ends. The
client opens one connection lazily, keeps it for its lifetime and cancels it on close, after
releasing its leases explicitly (so that another client can take them at once).
"""

# `timeout` parameters are gRPC deadlines handed to the call, not asyncio timeouts.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc as rpc

from maka_runtime_client._transport import ClientOptions, translated, wait_ready
from maka_runtime_client.errors import (
    LeaseLostError,
    UnavailableError,
    client_error,
    from_rpc_error,
)

if TYPE_CHECKING:
    from collections.abc import Callable


class Connection:
    """One open ``OpenConnection`` stream: its id and whether it is still open."""

    def __init__(self, call: Any, connection_id: str) -> None:
        self._call = call
        self.connection_id = connection_id
        self.closed = asyncio.Event()
        self._watcher = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        # The server sends the id once and then nothing: the stream ending is the signal.
        with contextlib.suppress(grpc.RpcError, asyncio.CancelledError):
            while await self._call.read() is not grpc.aio.EOF:
                pass
        self.closed.set()

    async def close(self) -> None:
        self._call.cancel()
        self._watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._watcher
        self.closed.set()


class ConnectionHolder:
    """Opens the connection on first use and again after it was lost."""

    def __init__(self, stub: rpc.ResourceServiceAsyncStub, options: ClientOptions) -> None:
        self._stub = stub
        self._options = options
        self._current: Connection | None = None
        self._lock = asyncio.Lock()

    @property
    def current(self) -> Connection | None:
        return self._current

    async def get(self) -> Connection:
        async with self._lock:
            if self._current is not None and not self._current.closed.is_set():
                return self._current
            call = self._stub.OpenConnection(
                pb.OpenConnectionRequest(client_name=self._options.client_name)
            )
            try:
                with translated():
                    first = await asyncio.wait_for(call.read(), self._options.timeout)
            except TimeoutError:
                call.cancel()
                raise client_error(
                    UnavailableError, "OpenConnection did not answer in time"
                ) from None
            except BaseException:
                call.cancel()
                raise
            if not isinstance(first, pb.OpenConnectionResponse):
                call.cancel()
                raise client_error(UnavailableError, "OpenConnection ended without an id")
            self._current = Connection(call, first.connection_id)
            return self._current

    async def close(self) -> None:
        if self._current is not None:
            await self._current.close()


class ControllerLease:
    """The controller lease of one PTY run, held on the client's connection.

    :meth:`send_input` and :meth:`resize` carry the next sequence automatically. A control whose
    answer is lost to the transport (UNAVAILABLE, or its deadline) is retried with exactly the
    same sequence and payload, which the server answers with the identical result; if every
    retry fails the control stays *pending* and is completed (exactly) before the next one.
    Controls on one lease are serialized. ``async with`` releases the lease on exit.
    """

    def __init__(
        self,
        stub: rpc.ResourceServiceAsyncStub,
        channel: grpc.aio.Channel,
        *,
        options: ClientOptions,
        connection: Connection,
        request: pb.AcquireControllerRequest,
        acquired: pb.AcquireControllerResponse,
        forget: Callable[[ControllerLease], None],
    ) -> None:
        self._stub = stub
        self._channel = channel
        self._options = options
        self._connection = connection
        self._forget = forget
        self.session_id = request.session_id
        self.ref = request.ref
        self.controller_id = acquired.controller_id or request.controller_id
        self.connection_id = connection.connection_id
        #: The sequence the next control carries.
        self.next_sequence = acquired.next_sequence
        #: The screen and newest output sequence when the lease was acquired.
        self.screen = acquired.screen
        self.output_sequence = acquired.output_sequence
        self.released = False
        self.pending: pb.ControlControllerRequest | None = None
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> ControllerLease:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.release()

    @property
    def lost(self) -> bool:
        """True once the lease is released or its connection has closed."""
        return self.released or self._connection.closed.is_set()

    async def send_input(
        self, text: str, *, timeout: float | None = None
    ) -> pb.ControlControllerResponse:
        """Type *text* (e.g. ``"ls\\r"``) into the run's terminal."""
        return await self.control(input=text, timeout=timeout)

    async def resize(
        self, cols: int, rows: int, *, timeout: float | None = None
    ) -> pb.ControlControllerResponse:
        """Resize the run's terminal."""
        return await self.control(resize=(cols, rows), timeout=timeout)

    async def control(
        self,
        *,
        input: str = "",
        resize: tuple[int, int] | None = None,
        timeout: float | None = None,
    ) -> pb.ControlControllerResponse:
        """Send input and/or a resize (the resize first) with the next sequence."""
        async with self._lock:
            if self.pending is not None:
                await self._send(self.pending, timeout)
            request = pb.ControlControllerRequest(
                session_id=self.session_id,
                ref=self.ref,
                controller_id=self.controller_id,
                connection_id=self.connection_id,
                sequence=self.next_sequence,
                input=input,
            )
            if resize is not None:
                request.resize.cols, request.resize.rows = resize
            self.pending = request
            return await self._send(request, timeout)

    async def _send(
        self, request: pb.ControlControllerRequest, timeout: float | None
    ) -> pb.ControlControllerResponse:
        if self.lost:
            raise client_error(
                LeaseLostError,
                f"the lease of {self.controller_id!r} on {self.ref} has ended; acquire it again",
                grpc.StatusCode.ABORTED,
            )
        policy = self._options.resume
        deadline = self._options.timeout if timeout is None else timeout
        failures = 0
        while True:
            try:
                response: pb.ControlControllerResponse = await self._stub.ControlController(
                    request, timeout=deadline
                )
            except grpc.RpcError as error:
                failure = from_rpc_error(error)
                code = error.code() if hasattr(error, "code") else None
                retriable = code == grpc.StatusCode.DEADLINE_EXCEEDED or (
                    code == grpc.StatusCode.UNAVAILABLE and not failure.reason
                )
                if not retriable or self._connection.closed.is_set():
                    if not retriable:
                        # Refused: the sequence was not used.
                        self.pending = None
                    raise failure from error
                failures += 1
                if failures > policy.max_attempts:
                    raise failure from error
                delay = policy.backoff(failures)
                if delay:
                    await asyncio.sleep(delay)
                await wait_ready(self._channel, policy.connect_timeout)
                continue
            self.pending = None
            self.next_sequence = request.sequence + 1
            return response

    async def release(self, *, timeout: float | None = None) -> bool:
        """Give the lease up; False when the server says it was not held any more. Idempotent."""
        if self.released:
            return False
        self.released = True
        self._forget(self)
        if self._connection.closed.is_set():
            return False
        request = pb.ReleaseControllerRequest(
            session_id=self.session_id,
            ref=self.ref,
            controller_id=self.controller_id,
            connection_id=self.connection_id,
        )
        deadline = self._options.timeout if timeout is None else timeout
        with translated():
            response = await self._stub.ReleaseController(request, timeout=deadline)
        return bool(response.released)
