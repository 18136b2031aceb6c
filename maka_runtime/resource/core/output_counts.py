"""Byte counts per output stream, and what a run's output journal kept (:mod:`.journal`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["JournalSummary", "OutputStream", "StreamBytes"]

OutputStream: TypeAlias = Literal["stdout", "stderr", "pty"]


@dataclass(frozen=True)
class StreamBytes:
    """A number of bytes per stream."""

    stdout: int = 0
    stderr: int = 0
    pty: int = 0

    @property
    def total(self) -> int:
        return self.stdout + self.stderr + self.pty

    def plus(self, stream: OutputStream, size: int) -> StreamBytes:
        """These counts with *size* more bytes of *stream*."""
        if stream == "stdout":
            return StreamBytes(self.stdout + size, self.stderr, self.pty)
        if stream == "stderr":
            return StreamBytes(self.stdout, self.stderr + size, self.pty)
        return StreamBytes(self.stdout, self.stderr, self.pty + size)

    def minus(self, other: StreamBytes) -> StreamBytes:
        return StreamBytes(
            self.stdout - other.stdout, self.stderr - other.stderr, self.pty - other.pty
        )

    def add(self, other: StreamBytes) -> StreamBytes:
        return StreamBytes(
            self.stdout + other.stdout, self.stderr + other.stderr, self.pty + other.pty
        )


@dataclass(frozen=True)
class JournalSummary:
    """What a run's journal kept, written with its terminal record.

    The journal keeps every chunk from the first one while its data fits the per-run bound
    (``--max-run-output-bytes``); chunks ``kept_sequence + 1 .. last_sequence`` were not kept,
    and ``omitted`` counts their bytes exactly.
    """

    #: The run's newest output sequence (0: it printed nothing).
    last_sequence: int = 0
    #: Chunks ``1 .. kept_sequence`` are in the journal.
    kept_sequence: int = 0
    #: Bytes per stream of the kept chunks.
    kept: StreamBytes = StreamBytes()
    #: Bytes per stream of the chunks after ``kept_sequence``.
    omitted: StreamBytes = StreamBytes()
