"""Regression: a connection whose HTTP/2 handshake takes longer than 100 ms failed.

``grpc.min_reconnect_backoff_ms`` is also gRPC's minimum *connect timeout*; the SDK set it to
100 ms (for quick reconnects), so any peer slower than that to send its SETTINGS frame — a
loaded machine, a TLS handshake across a network, a second host — got UNAVAILABLE "connection
attempt timed out before receiving SETTINGS frame". The SDK now reconnects quickly
(``initial_reconnect_backoff_ms``) but gives every attempt gRPC's default 20 s.
"""

from __future__ import annotations

import asyncio
import threading

from maka_runtime_client import aio

from tests.support.processes import ServiceProcess

#: Longer than the old 100 ms connect timeout, far shorter than the SDK's unary deadline.
HANDSHAKE_DELAY = 0.6


class _SlowStartProxy:
    """Forwards TCP to *upstream*, holding the server's first bytes back for a while."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self.loop
        ).result(10)
        self.server = server
        self.address = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, port = self.upstream.rsplit(":", 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, delay: float) -> None:
            first = True
            try:
                while data := await src.read(65536):
                    if first and delay:
                        await asyncio.sleep(delay)  # the slow peer itself, not a test wait
                    first = False
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pump(reader, up_writer, 0.0), pump(up_reader, writer, HANDSHAKE_DELAY))

    def close(self) -> None:
        async def stop() -> None:
            self.server.close()
            # End the connections still forwarding (their pumps close both sockets), so no
            # transport outlives the loop and warns later inside another test.
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.server.wait_closed()
            await asyncio.sleep(0)  # one turn for the closed transports to let go

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def test_a_peer_slower_than_100_ms_to_handshake_is_reached(
    kernel_server: ServiceProcess,
) -> None:
    proxy = _SlowStartProxy(kernel_server.address)
    try:
        async with aio.KernelClient(proxy.address) as kernel:
            info = await kernel.get_server_info(timeout=10)
        assert info.service == "maka-kernel"
    finally:
        proxy.close()
