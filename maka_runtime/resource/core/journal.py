"""A run's output journal: every chunk it printed, in one file, bounded per run.

The reader of a run's output appends each chunk here as it arrives (one small ``pwritev`` to the
page cache, on the event loop: no thread, no queue, nothing a child could wait on). The journal
keeps chunks from the first while their data fits ``limit`` bytes (``--max-run-output-bytes``);
from the first chunk that does not fit, no more data is written, and one fixed-size *omitted*
record, rewritten in place after each further chunk, counts exactly what was not kept (its
sequence range and bytes per stream). A crashed host's journal is therefore still exact up to
the last chunk the kernel accepted: :func:`scan_journal` reads it back after a restart.

File layout: an 8-byte magic, then records. A record is a 14-byte header (kind, stream,
sequence, length; little-endian) and *length* bytes. Kind 1 is a chunk (its data follows);
kind 2 is the omitted record (first omitted sequence in the header, then the last omitted
sequence and the omitted bytes of stdout, stderr and the PTY, 8 bytes each). A torn last
record (a crash mid-write) is ignored.
"""

from __future__ import annotations

import logging
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from maka_runtime.resource.core.output_counts import JournalSummary, OutputStream, StreamBytes

__all__ = ["JournalReader", "JournalWriter", "scan_journal"]

log = logging.getLogger(__name__)

MAGIC: Final = b"MAKAOUT1"
_HEADER: Final = struct.Struct("<BBQI")
_OMITTED: Final = struct.Struct("<Qqqq")
_CHUNK: Final = 1
_OMITTED_KIND: Final = 2
_STREAMS: Final[tuple[OutputStream, ...]] = ("stdout", "stderr", "pty")
_STREAM_CODE: Final = {name: code for code, name in enumerate(_STREAMS)}


@dataclass(frozen=True)
class JournalChunk:
    """One chunk as the journal holds it."""

    sequence: int
    stream: OutputStream
    data: bytes


class JournalWriter:
    """Appends a live run's chunks to its journal file (or only counts them without one).

    The file is created with the run's first chunk: a run that prints nothing has no journal
    (most commands of an agent print nothing or little, and a file made and removed per run
    is a cost on every run's path)."""

    def __init__(self, path: Path | None, limit: int) -> None:
        self.path = path
        self._limit = limit
        self._fd = -1
        #: True until the first chunk creates the file (never, without a path or a limit).
        self._unopened = path is not None and limit > 0
        #: Bytes of the file that hold kept chunks (readers read up to here).
        self.kept_end = 0
        self.last_sequence = 0
        self.kept_sequence = 0
        self.kept = StreamBytes()
        self.omitted = StreamBytes()
        self._cut = not self._unopened

    def _create(self) -> None:
        """Create the file for the first chunk; without it, no chunk is kept."""
        self._unopened = False
        assert self.path is not None
        try:
            self._fd = os.open(
                self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600
            )
            os.write(self._fd, MAGIC)
        except OSError as error:
            log.warning("cannot create the output journal %s: %s", self.path, error)
            self._close_fd()
            self._cut = True
            return
        self.kept_end = len(MAGIC)

    @property
    def cut(self) -> bool:
        """True once a chunk was not kept: every later chunk is not kept either."""
        return self._cut

    def append(self, sequence: int, stream: OutputStream, data: bytes) -> bool:
        """Record the chunk; returns whether its data was kept."""
        self.last_sequence = sequence
        if self._unopened:
            self._create()
        if not self._cut and self.kept.total + len(data) <= self._limit:
            header = _HEADER.pack(_CHUNK, _STREAM_CODE[stream], sequence, len(data))
            try:
                os.pwritev(self._fd, [header, data], self.kept_end)
            except OSError as error:
                log.warning("output journal %s: %s; no more output is kept", self.path, error)
                self._cut = True
            else:
                self.kept_end += len(header) + len(data)
                self.kept_sequence = sequence
                self.kept = self.kept.plus(stream, len(data))
                return True
        self._cut = True
        self.omitted = self.omitted.plus(stream, len(data))
        self._write_omitted()
        return False

    @property
    def size(self) -> int:
        """Bytes of the journal file."""
        if self.kept_end == 0:
            return 0
        return self.kept_end + (_HEADER.size + _OMITTED.size if self.omitted.total else 0)

    def summary(self) -> JournalSummary:
        return JournalSummary(self.last_sequence, self.kept_sequence, self.kept, self.omitted)

    def close(self) -> JournalSummary:
        """No more output: close the file; returns what it kept (idempotent)."""
        self._unopened = False
        self._close_fd()
        self._cut = True
        return self.summary()

    def _write_omitted(self) -> None:
        if self._fd < 0:
            return
        record = _HEADER.pack(
            _OMITTED_KIND, 0, self.kept_sequence + 1, _OMITTED.size
        ) + _OMITTED.pack(
            self.last_sequence, self.omitted.stdout, self.omitted.stderr, self.omitted.pty
        )
        try:
            os.pwrite(self._fd, record, self.kept_end)
        except OSError as error:
            log.warning("output journal %s: cannot count omitted output: %s", self.path, error)
            self._close_fd()

    def _close_fd(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)


class JournalReader:
    """Reads a journal's kept chunks in order from a position (blocking: call off the loop)."""

    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self._offset = len(MAGIC)
        #: The sequence of the last chunk passed (read or skipped).
        self.sequence = 0
        #: Bytes per stream of the chunks passed.
        self.passed = StreamBytes()
        if os.pread(self._fd, len(MAGIC), 0) != MAGIC:
            self.close()
            raise OSError(f"{path} is not an output journal")

    def skip_to(self, after_sequence: int, end: int | None = None) -> None:
        """Pass the chunks up to *after_sequence* (headers only)."""
        while self.sequence < after_sequence:
            header = self._header(end)
            if header is None:
                return
            _kind, stream, sequence, size = header
            if sequence > after_sequence:
                return
            self._offset += _HEADER.size + size
            self.sequence = sequence
            self.passed = self.passed.plus(stream, size)

    def read(self, max_bytes: int, end: int | None = None) -> list[JournalChunk]:
        """The next chunks, at least one if there is one, at most *max_bytes* of data beyond
        the first; *end* bounds the bytes of the file read (a live journal's ``kept_end``)."""
        chunks: list[JournalChunk] = []
        size = 0
        while True:
            header = self._header(end)
            if header is None:
                return chunks
            _kind, stream, sequence, length = header
            if chunks and size + length > max_bytes:
                return chunks
            data = os.pread(self._fd, length, self._offset + _HEADER.size)
            self._offset += _HEADER.size + length
            self.sequence = sequence
            self.passed = self.passed.plus(stream, length)
            chunks.append(JournalChunk(sequence, stream, data))
            size += length

    def peek(self, size: int) -> bytes:
        """Up to *size* bytes after the chunks passed."""
        return os.pread(self._fd, size, self._offset)

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def _header(self, end: int | None) -> tuple[int, OutputStream, int, int] | None:
        """The next chunk's header, or ``None`` at the end of the kept chunks."""
        if end is None:
            end = os.fstat(self._fd).st_size
        if self._offset + _HEADER.size > end:
            return None
        raw = os.pread(self._fd, _HEADER.size, self._offset)
        if len(raw) < _HEADER.size:
            return None
        kind, code, sequence, length = _HEADER.unpack(raw)
        if kind != _CHUNK or code >= len(_STREAMS):
            return None
        if self._offset + _HEADER.size + length > end:
            return None  # a torn record (a crash mid-write), or not written yet
        return kind, _STREAMS[code], sequence, length


def scan_journal(path: Path) -> JournalSummary | None:
    """What the journal at *path* holds (blocking), or ``None`` if there is none: for a run a
    previous host left active, whose summary was never written."""
    try:
        reader = JournalReader(path)
    except OSError:
        return None
    try:
        reader.skip_to(1 << 62)
        summary = JournalSummary(reader.sequence, reader.sequence, reader.passed)
        raw = reader.peek(_HEADER.size + _OMITTED.size)
        if len(raw) == _HEADER.size + _OMITTED.size:
            kind, _code, first, _length = _HEADER.unpack_from(raw)
            if kind == _OMITTED_KIND and first == reader.sequence + 1:
                last, stdout, stderr, pty = _OMITTED.unpack_from(raw, _HEADER.size)
                summary = JournalSummary(
                    last, reader.sequence, reader.passed, StreamBytes(stdout, stderr, pty)
                )
        return summary
    finally:
        reader.close()
