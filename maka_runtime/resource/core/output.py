"""Live output of a run: numbered chunks, a bounded replay log in memory, and stream tails.

One reader per file descriptor always drains it and appends here; it never waits for a consumer,
so a child never blocks on its output because a client is slow. The log keeps the newest
``max_bytes`` of chunks in memory, each with the bytes per stream printed before it; the run's
journal (:mod:`.journal`) keeps every chunk up to the per-run bound on disk. Consumers follow
both (:mod:`.output_follow`): from memory while they keep up, from the journal when they fall
behind; only what neither holds is an :class:`OutputGap`, with its exact bytes per stream.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import TypeAlias

from maka_runtime.resource.core.output_counts import OutputStream, StreamBytes

__all__ = [
    "OutputChunk",
    "OutputEvent",
    "OutputGap",
    "OutputLog",
    "OutputStream",
    "TailBuffer",
    "merged",
]


@dataclass(frozen=True)
class OutputChunk:
    """Bytes read from one stream; ``sequence`` counts chunks of the run from 1, gap-free."""

    sequence: int
    stream: OutputStream
    data: bytes


@dataclass(frozen=True)
class OutputGap:
    """Chunks ``first_sequence..last_sequence`` were not kept for this consumer (beyond the
    run's journal bound, or no journal); the bytes they held, per stream."""

    first_sequence: int
    last_sequence: int
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    pty_bytes: int = 0

    @classmethod
    def of(cls, first: int, last: int, size: StreamBytes) -> OutputGap:
        return cls(first, last, size.stdout, size.stderr, size.pty)


OutputEvent: TypeAlias = OutputChunk | OutputGap


class OutputLog:
    """Numbered chunks of one run, the newest ``max_bytes`` kept in memory."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._chunks: deque[OutputChunk] = deque()
        #: The bytes per stream printed before each kept chunk.
        self._before: deque[StreamBytes] = deque()
        self._totals = StreamBytes()
        self._size = 0
        self._next_sequence = 1
        self._closed = False
        self._changed = asyncio.Event()

    @property
    def last_sequence(self) -> int:
        """The sequence of the newest chunk (0 before any output)."""
        return self._next_sequence - 1

    @property
    def oldest_sequence(self) -> int:
        """The sequence of the oldest chunk in memory (``last_sequence + 1`` if none)."""
        return self._chunks[0].sequence if self._chunks else self._next_sequence

    @property
    def totals(self) -> StreamBytes:
        """Bytes per stream of every chunk so far."""
        return self._totals

    @property
    def closed(self) -> bool:
        return self._closed

    def append(self, stream: OutputStream, data: bytes) -> OutputChunk:
        chunk = OutputChunk(self._next_sequence, stream, data)
        self._next_sequence += 1
        self._chunks.append(chunk)
        self._before.append(self._totals)
        self._totals = self._totals.plus(stream, len(data))
        self._size += len(data)
        while self._size > self._max_bytes and len(self._chunks) > 1:
            self._size -= len(self._chunks.popleft().data)
            self._before.popleft()
        self._wake()
        return chunk

    def close(self) -> None:
        """No more output will come; followers end after the last chunk."""
        if not self._closed:
            self._closed = True
            self._wake()

    def before(self, sequence: int) -> StreamBytes | None:
        """Bytes per stream printed before chunk *sequence*, if memory still knows it
        (from the oldest chunk kept to ``last_sequence + 1``)."""
        oldest = self.oldest_sequence
        if sequence == self._next_sequence:
            return self._totals
        if oldest <= sequence < self._next_sequence:
            return self._before[sequence - oldest]
        return None

    def after(self, after_sequence: int) -> list[OutputChunk]:
        """The chunks in memory with a sequence above *after_sequence*."""
        index = max(0, after_sequence + 1 - self.oldest_sequence)
        return [self._chunks[i] for i in range(index, len(self._chunks))]

    async def changed(self) -> None:
        """Wait for the next chunk or the close."""
        if not self._closed:
            await self._changed.wait()

    def _wake(self) -> None:
        # Swap the event so that waiters wake once and later waiters wait for the next change.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()


def merged(chunks: list[OutputChunk], limit: int) -> list[OutputChunk]:
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
