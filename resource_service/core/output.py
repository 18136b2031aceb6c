"""Live output of a run: numbered chunks, a bounded replay log, and stream tails.

One reader per file descriptor always drains it and appends here; it never waits for a consumer,
so a child never blocks on its output because a client is slow. Consumers follow the log with a
cursor. The slow-consumer policy: the log keeps the newest ``max_bytes`` of chunks; a consumer
that falls further behind is told exactly which sequence numbers it missed (an
:class:`OutputGap`) and continues with the oldest chunk still kept. Nothing is dropped silently,
and memory never grows with the amount of output.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["OutputChunk", "OutputEvent", "OutputGap", "OutputLog", "OutputStream", "TailBuffer"]

OutputStream: TypeAlias = Literal["stdout", "stderr", "pty"]


@dataclass(frozen=True)
class OutputChunk:
    """Bytes read from one stream; ``sequence`` counts chunks of the run from 1, gap-free."""

    sequence: int
    stream: OutputStream
    data: bytes


@dataclass(frozen=True)
class OutputGap:
    """Chunks ``first_sequence..last_sequence`` were dropped before this consumer read them."""

    first_sequence: int
    last_sequence: int


OutputEvent: TypeAlias = OutputChunk | OutputGap


class OutputLog:
    """Numbered chunks of one run, the newest ``max_bytes`` kept for replay and fan-out."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._chunks: deque[OutputChunk] = deque()
        self._size = 0
        self._next_sequence = 1
        self._closed = False
        self._changed = asyncio.Event()

    @property
    def last_sequence(self) -> int:
        """The sequence of the newest chunk (0 before any output)."""
        return self._next_sequence - 1

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, stream: OutputStream, data: bytes) -> OutputChunk:
        chunk = OutputChunk(self._next_sequence, stream, data)
        self._next_sequence += 1
        self._chunks.append(chunk)
        self._size += len(data)
        while self._size > self._max_bytes and len(self._chunks) > 1:
            self._size -= len(self._chunks.popleft().data)
        self._wake()
        return chunk

    def close(self) -> None:
        """No more output will come; followers end after the last chunk."""
        if not self._closed:
            self._closed = True
            self._wake()

    def read(self, after_sequence: int) -> tuple[OutputGap | None, list[OutputChunk]]:
        """Chunks with a sequence above *after_sequence* that are still kept, and the gap
        before them if some were dropped."""
        if not self._chunks:
            return None, []
        oldest = self._chunks[0].sequence
        gap = None
        start = after_sequence + 1
        if start < oldest:
            gap = OutputGap(start, oldest - 1)
            start = oldest
        index = start - oldest
        return gap, [self._chunks[i] for i in range(index, len(self._chunks))]

    async def follow(
        self, after_sequence: int = 0, *, coalesce: int = 0
    ) -> AsyncIterator[OutputEvent]:
        """Replay kept chunks after *after_sequence*, then live chunks until the log closes.

        With *coalesce* > 0, consecutive chunks of one stream that are already waiting are
        merged, up to that many bytes, into one chunk carrying the sequence of the last of them
        (resuming after it still loses and repeats nothing). A reader that keeps up sees chunks
        as they come; one that lags catches up in fewer, larger pieces.
        """
        cursor = after_sequence
        while True:
            gap, chunks = self.read(cursor)
            if gap is not None:
                yield gap
            for chunk in _merged(chunks, coalesce) if coalesce > 0 else chunks:
                cursor = chunk.sequence
                yield chunk
            if gap is None and not chunks:
                if self._closed:
                    return
                await self._changed.wait()

    def _wake(self) -> None:
        # Swap the event so that waiters wake once and later waiters wait for the next change.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()


def _merged(chunks: list[OutputChunk], limit: int) -> list[OutputChunk]:
    """Runs of consecutive same-stream chunks joined (up to *limit* bytes each)."""
    merged: list[OutputChunk] = []
    group: list[OutputChunk] = []
    size = 0
    for chunk in [*chunks, None]:
        if group and (
            chunk is None or chunk.stream != group[-1].stream or size + len(chunk.data) > limit
        ):
            last = group[-1]
            data = last.data if len(group) == 1 else b"".join(part.data for part in group)
            merged.append(OutputChunk(last.sequence, last.stream, data))
            group, size = [], 0
        if chunk is not None:
            group.append(chunk)
            size += len(chunk.data)
    return merged


class TailBuffer:
    """The newest ``limit`` bytes of a stream, and whether anything older was dropped."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: deque[bytes] = deque()
        self._size = 0
        self.truncated = False

    def append(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)
        while self._parts and self._size - len(self._parts[0]) >= self._limit:
            self._size -= len(self._parts.popleft())
            self.truncated = True

    def getvalue(self) -> bytes:
        data = b"".join(self._parts)
        if len(data) > self._limit:
            self.truncated = True
            data = data[-self._limit :]
        return data

    def text(self) -> str:
        """The tail decoded as UTF-8 (invalid bytes replaced), at most ``limit`` bytes of UTF-8;
        a character cut in half by truncation is dropped rather than shown as a replacement
        character."""
        data = self.getvalue()
        if self.truncated:
            skip = 0
            while skip < min(3, len(data)) and 0x80 <= data[skip] <= 0xBF:
                skip += 1
            data = data[skip:]
        text = data.decode("utf-8", errors="replace")
        # Each invalid byte becomes U+FFFD (3 bytes): keep the newest limit bytes of the text too,
        # so a run record stays bounded whatever the output was.
        encoded = text.encode("utf-8")
        if len(encoded) > self._limit:
            self.truncated = True
            text = encoded[-self._limit :].decode("utf-8", errors="ignore")
        return text
