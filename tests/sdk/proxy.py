"""A TCP proxy between a client and a service, to break connections on purpose.

It runs its own event loop in a thread, so sync and async tests can use it alike. ``cut()``
aborts every open connection (both sides see a reset, as when a network path dies);
``retarget()`` sends new connections to another upstream (a restarted service).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Proxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.accepted = 0
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._server = self._run(asyncio.start_server(self._handle, "127.0.0.1", 0))
        port = self._server.sockets[0].getsockname()[1]
        self.address = f"127.0.0.1:{port}"

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(10)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        host, port = self.upstream.rsplit(":", 1)
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.transport.abort()
            return
        pair = (writer, up_writer)
        self._pairs.add(pair)
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            self._pairs.discard(pair)
            writer.transport.abort()
            up_writer.transport.abort()

    async def _cut(self) -> int:
        pairs = list(self._pairs)
        for client, upstream in pairs:
            client.transport.abort()
            upstream.transport.abort()
        return len(pairs)

    def cut(self) -> int:
        """Reset every open connection; returns how many there were."""
        return int(self._run(self._cut()))

    def retarget(self, upstream: str) -> None:
        self.upstream = upstream

    def close(self) -> None:
        self.cut()
        self._server.close()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.CancelledError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(OSError, RuntimeError):
        writer.transport.abort()
