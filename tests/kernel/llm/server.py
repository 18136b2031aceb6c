"""A local OpenAI-compatible chat-completions server for the LLM backend tests.

A real HTTP/1.1 server on ``127.0.0.1:0`` (asyncio streams, in the test's event loop) that
answers ``POST /v1/chat/completions`` with scripted replies, one per request, in order:

* :class:`Stream` — ``200`` with ``Content-Type: text/event-stream`` and a chunked body of SSE
  ``data:`` lines, then ``data: [DONE]``. A :class:`Chunk` may wait for an
  :class:`asyncio.Event` (its *gate*) before it is sent, which is how tests hold a stream open
  at a known point; while it waits the server watches the connection, and a client that hangs
  up is counted in :attr:`ChatServer.hangups` (and sets :attr:`ChatServer.hung_up`).
* :class:`Failure` — an HTTP error status with a JSON (or text) body.

Every request is recorded (:attr:`ChatServer.requests`: path, headers, decoded JSON body) so
tests assert exactly what the model was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

MODEL = "test-model"


@dataclass
class Chunk:
    """One SSE event: ``data`` is sent as is (JSON text, or anything for malformed tests)."""

    data: str
    gate: asyncio.Event | None = None
    event: str = ""


@dataclass
class Stream:
    """A streamed reply.

    ``done``: end with ``data: [DONE]``; ``complete``: end the chunked body properly (``False``
    drops the connection in the middle of the body).
    """

    chunks: list[Chunk]
    done: bool = True
    complete: bool = True


@dataclass
class Failure:
    """An HTTP error reply."""

    status: int
    body: Any = None


Reply = Stream | Failure


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.body["messages"]
        return messages


# -- chunk builders ----------------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
    )


def content(text: str, *, gate: asyncio.Event | None = None) -> Chunk:
    return Chunk(_chunk({"content": text}), gate=gate)


def role() -> Chunk:
    return Chunk(_chunk({"role": "assistant", "content": ""}))


def finish(reason: str, *, gate: asyncio.Event | None = None) -> Chunk:
    return Chunk(_chunk({}, reason), gate=gate)


def tool_piece(
    index: int,
    *,
    call_id: str | None = None,
    name: str | None = None,
    arguments: str = "",
    gate: asyncio.Event | None = None,
) -> Chunk:
    """A ``delta.tool_calls`` piece: the first of a call carries its id and name."""
    call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
        call["type"] = "function"
    if name is not None:
        call["function"]["name"] = name
    return Chunk(_chunk({"tool_calls": [call]}), gate=gate)


def text_reply(*pieces: str, reason: str = "stop") -> Stream:
    return Stream([role(), *(content(piece) for piece in pieces), finish(reason)])


def tool_reply(*calls: tuple[str, str, str], text: str = "") -> Stream:
    """A reply asking for whole tool calls ``(id, name, arguments)``, one chunk each."""
    chunks = [role()]
    if text:
        chunks.append(content(text))
    chunks += [
        tool_piece(index, call_id=call_id, name=name, arguments=arguments)
        for index, (call_id, name, arguments) in enumerate(calls)
    ]
    chunks.append(finish("tool_calls"))
    return Stream(chunks)


# -- the server --------------------------------------------------------------------------------


@dataclass
class ChatServer:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[Received] = field(default_factory=list)
    #: Streams the client abandoned while the server held a chunk.
    hangups: int = 0
    hung_up: asyncio.Event = field(default_factory=asyncio.Event)
    _server: asyncio.Server | None = None
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)
    port: int = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def wait_requests(self, count: int) -> list[Received]:
        """Wait until *count* requests have arrived (an event, not a poll)."""
        async with self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)
        return self.requests

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self._writers.add(writer)
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
            self._handlers.discard(task)

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection is done."""
        request_line = await reader.readline()
        if not request_line:
            return False
        method, path, _ = request_line.decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        body = json.loads(raw) if raw else {}
        async with self._arrived:
            self.requests.append(Received(method, path, headers, body))
            self._arrived.notify_all()
        if method != "POST" or path != "/v1/chat/completions":
            return await self._fail(writer, Failure(404, {"error": {"message": f"no {path}"}}))
        if not self.replies:
            message = "the test server has no reply scripted"
            return await self._fail(writer, Failure(500, {"error": {"message": message}}))
        reply = self.replies.popleft()
        if isinstance(reply, Failure):
            return await self._fail(writer, reply)
        return await self._stream(reader, writer, reply)

    async def _fail(self, writer: asyncio.StreamWriter, failure: Failure) -> bool:
        if isinstance(failure.body, str):
            data, kind = failure.body.encode(), "text/plain"
        else:
            data, kind = json.dumps(failure.body).encode(), "application/json"
        phrase = HTTPStatus(failure.status).phrase
        writer.write(
            f"HTTP/1.1 {failure.status} {phrase}\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        await writer.drain()
        return True

    async def _stream(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stream: Stream
    ) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        for chunk in stream.chunks:
            if chunk.gate is not None:
                await writer.drain()
                if not await self._hold(chunk.gate, reader):
                    self.hangups += 1
                    self.hung_up.set()
                    return False
            event = f"event: {chunk.event}\n" if chunk.event else ""
            self._write_chunk(writer, f"{event}data: {chunk.data}\n\n".encode())
        if stream.done:
            self._write_chunk(writer, b"data: [DONE]\n\n")
        await writer.drain()
        if not stream.complete:
            return False  # drop the connection in the middle of the chunked body
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    @staticmethod
    def _write_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    async def _hold(self, gate: asyncio.Event, reader: asyncio.StreamReader) -> bool:
        """Wait for *gate*; False if the client hung up first (read returns end of file)."""
        opened = asyncio.ensure_future(gate.wait())
        hangup = asyncio.ensure_future(reader.read(1))
        try:
            await asyncio.wait([opened, hangup], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (opened, hangup):
                task.cancel()
            outcomes = await asyncio.gather(opened, hangup, return_exceptions=True)
        if outcomes[0] is True:
            return True
        if isinstance(outcomes[1], bytes) and outcomes[1]:
            raise AssertionError("the client sent data while waiting for a response")
        return False
