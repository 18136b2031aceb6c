"""Streams that survive a dropped connection: reconnect, resume after the last position seen.

A :class:`ResumableStream` owns at most one gRPC call at a time. Its :class:`StreamSource`
opens a call from the current position, decides which items the caller sees (dropping what it
has seen already) and which item ends the stream. When the call fails with a transport error
(UNAVAILABLE without a server reason) or ends without that terminal item, the stream waits for
the channel and opens a new call from the last position, so the caller sees every item exactly
once, in order. A server decision (any other status) ends iteration with its typed exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Generic, Protocol, TypeVar

import grpc

from maka_runtime_client._transport import ResumePolicy, translated, wait_ready
from maka_runtime_client.errors import ResumeFailedError, client_error, is_transport_failure

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Call(Protocol[T_co]):
    """The part of a ``grpc.aio`` streaming call the resumer uses."""

    def __aiter__(self) -> AsyncIterator[T_co]: ...

    def cancel(self) -> bool: ...


class StreamSource(Protocol[T]):
    """What one kind of stream knows: how to (re)open it and how to read its items."""

    def open(self, resumed: bool) -> Call[T]:
        """Start a call from the current position (*resumed*: after a failure)."""
        ...

    def accept(self, item: T) -> bool:
        """Record *item*'s position; False to hide it (seen already, or not for this caller)."""
        ...

    def is_terminal(self, item: T) -> bool:
        """True when *item* is the last one (after it, the stream ends)."""
        ...


class ResumableStream(Generic[T]):
    """An async iterator of a stream's items that resumes after transport failures.

    ``resumes`` counts the calls opened after a failure. ``aclose()`` cancels the current
    call; it is safe to repeat. Use it as ``async with`` to close it when done.
    """

    def __init__(
        self,
        source: StreamSource[T],
        channel: grpc.aio.Channel,
        policy: ResumePolicy,
        *,
        ends_at_terminal: bool = True,
    ) -> None:
        self._source = source
        self._channel = channel
        self._policy = policy
        self._ends_at_terminal = ends_at_terminal
        self._call: Call[T] | None = None
        self._iterator: AsyncIterator[T] | None = None
        self._failures = 0
        self._done = False
        self._terminal_seen = False
        self.resumes = 0

    def __aiter__(self) -> ResumableStream[T]:
        return self

    async def __aenter__(self) -> ResumableStream[T]:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop iterating and cancel the call (the server sees the client go away).

        After the terminal item a call that ends on its own (``StartTurn``) is read to its end
        instead: cancelling it then would still count as abandoning the turn.
        """
        self._done = True
        await self._finish()

    async def _finish(self) -> None:
        call, iterator = self._call, self._iterator
        if (
            call is not None
            and iterator is not None
            and self._terminal_seen
            and getattr(call, "drain_on_end", False)
        ):
            try:
                async with asyncio.timeout(self._policy.connect_timeout):
                    async for _ in iterator:
                        pass
            except (grpc.RpcError, TimeoutError):
                pass
        self._drop_call()

    def _drop_call(self) -> None:
        if self._call is not None:
            self._call.cancel()
        self._call = None
        self._iterator = None

    async def __anext__(self) -> T:
        while not self._done:
            if self._iterator is None:
                self._call = self._source.open(resumed=self.resumes > 0 or self._failures > 0)
                self._iterator = self._call.__aiter__()
            try:
                with translated():
                    try:
                        item = await anext(self._iterator)
                    except grpc.RpcError as error:
                        if not is_transport_failure(error):
                            self._done = True
                            self._drop_call()
                            raise
                        await self._recover(error)
                        continue
            except StopAsyncIteration:
                # Ended cleanly but before its terminal item (server restarting, proxy gone):
                # the same as a dropped connection.
                await self._recover(None)
                continue
            if not self._source.accept(item):
                continue
            self._failures = 0
            if self._ends_at_terminal and self._source.is_terminal(item):
                self._done = True
                self._terminal_seen = True
            return item
        await self._finish()
        raise StopAsyncIteration

    async def _recover(self, cause: grpc.RpcError | None) -> None:
        self._drop_call()
        self._failures += 1
        policy = self._policy
        while self._failures <= policy.max_attempts:
            delay = policy.backoff(self._failures)
            if delay:
                await asyncio.sleep(delay)
            if await wait_ready(self._channel, policy.connect_timeout):
                self.resumes += 1
                return
            self._failures += 1
        self._done = True
        error = client_error(
            ResumeFailedError,
            f"the stream dropped and could not be resumed after {policy.max_attempts} attempts",
        )
        raise error from cause
