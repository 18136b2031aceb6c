"""One harness for in-process servers of both services: ``maka_runtime.common.server.serve`` itself.

A test gets the same server a process gets (interceptors for authentication and request limits,
the keepalive policy, health, reflection, the drain-then-stop tail), minus the process-wide
signal handlers, and can reach the service object to inject faults where the spec does.
Tests that need a separate process (kill -9, SIGTERM) start the entry point instead.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from maka_runtime.common.aio import race
from maka_runtime.common.config import CommonConfig
from maka_runtime.common.server import ServerHost, Service, serve


class _ListeningLine(logging.Handler):
    """Sets an event on the ``listening on`` line ``serve()`` logs for *data_dir* once it
    serves: the sentinel the process tests read from stderr, read here from the log."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(logging.INFO)
        self.data_dir = str(data_dir)
        self.event = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if " listening on " in message and self.data_dir in message:
            self.event.set()


@dataclass
class InProcess:
    """A serving service: its host, address and the task running ``serve()``."""

    host: ServerHost
    address: str
    #: ``serve()`` itself; its result is the exit code the entry point would exit with.
    serving: asyncio.Task[int]
    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    def channel(self, *, own_connection: bool = True) -> grpc.aio.Channel:
        """A new channel (carrying the suite's credential); with *own_connection* its own TCP
        connection: without a local subchannel pool gRPC shares one between channels."""
        options = [("grpc.use_local_subchannel_pool", 1)] if own_connection else []
        channel = grpc.aio.insecure_channel(self.address, options=options)
        self.channels.append(channel)
        return channel

    async def stop(self) -> int:
        """Close the channels, shut down (if not already) and return ``serve()``'s exit code."""
        for channel in self.channels:
            await channel.close()
        if not self.serving.done():
            self.host.shutdown("test teardown")
        return await self.serving


async def serve_in_process(common: CommonConfig, service: Service) -> InProcess:
    """Start ``serve(common, service)`` and return once it listens (or fail if it returned)."""
    listening = _ListeningLine(common.service_data_dir)
    logger = logging.getLogger("maka.server")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(listening)
    try:
        serving = asyncio.get_running_loop().create_task(
            serve(common, service, handle_signals=False)
        )
        await race(asyncio.shield(serving), listening.event.wait())
    finally:
        logger.removeHandler(listening)
        logger.setLevel(level)
    if serving.done():
        raise AssertionError(f"serve() returned {serving.result()} before listening")
    host = getattr(service, "host", None)
    assert isinstance(host, ServerHost), "the service keeps the host serve() gave it"
    running = InProcess(host, host.listen_address, serving)
    serving.add_done_callback(lambda _: running.stopped.set())
    return running
