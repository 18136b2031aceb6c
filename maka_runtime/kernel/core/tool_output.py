"""What the kernel keeps of a tool call's output: a bounded, exact record.

A command may print without bound; the session's log (and the kernel's memory) must not grow
with it. One deterministic policy, per tool call and per stream (stdout, stderr):

- the stream's first bytes, up to the budget (``--tool-output-budget-bytes``), are kept
  exactly: decoded as UTF-8 only at character boundaries (a character split across two reads is
  decoded once whole), never cut inside a character (the kept figure then stops before it), and
  otherwise unaltered (invalid UTF-8 becomes U+FFFD, as everywhere in the kernel);
- what comes after is counted, not kept: the :class:`Truncation` record gives the exact bytes
  kept and omitted per stream, and the run's ref, where the complete output can be read;
- chunks the resource service dropped before the kernel read them (an ``OutputGap``) are
  omitted bytes as well, and a stream that lost bytes keeps nothing after the gap (so what is
  kept is always a prefix of what the command printed).

Kept output is emitted in coalesced pieces (:meth:`ToolOutputRecord.pieces`) of at most
:data:`PIECE_BYTES` (cut between characters), flushed when a piece is full, when
:data:`PACE_SECONDS` pass without one and at the end (:func:`pumped`, which reads the run's
stream as fast as it comes). Where pieces begin and end depends on timing; the text kept and
the figures do not.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

from maka_runtime.kernel.core.tools import RunEvent, RunGap, RunOutput

Stream = Literal["stdout", "stderr"]
STREAMS: tuple[Stream, Stream] = ("stdout", "stderr")
#: The budget per stream when none is configured (bytes).
DEFAULT_BUDGET_BYTES = 1024 * 1024
#: The largest budget a kernel may be configured with (bytes).
MAX_BUDGET_BYTES = 64 * 1024 * 1024
#: A piece of kept output is flushed once it holds this many bytes.
PIECE_BYTES = 64 * 1024
#: Kept output waits at most this long (seconds) for more before it is flushed.
PACE_SECONDS = 0.1
#: A tool result shows at most this many characters of the run's output (its tail).
RESULT_CHARS = 16_000


@dataclass(frozen=True, slots=True)
class StreamFigures:
    """One stream's exact figures: bytes kept in the log and bytes omitted from it."""

    kept: int = 0
    omitted: int = 0

    @property
    def total(self) -> int:
        return self.kept + self.omitted


@dataclass(frozen=True, slots=True)
class Truncation:
    """What a tool call's record left out: exact bytes per stream, and where to read it all."""

    stdout: StreamFigures
    stderr: StreamFigures
    budget_bytes: int
    run_ref: str = ""

    @property
    def truncated(self) -> bool:
        return bool(self.stdout.omitted or self.stderr.omitted)

    def as_tuple(self) -> tuple[int, int, int, int, int]:
        """The figures as a ``tool_result`` stores them (see ``ToolResult.truncation``)."""
        return (
            self.stdout.kept,
            self.stdout.omitted,
            self.stderr.kept,
            self.stderr.omitted,
            self.budget_bytes,
        )

    def describe(self) -> str:
        """One line for the model and for people: the exact figures and the ref."""
        parts = [
            f"{name} {figures.total} bytes, {figures.omitted} omitted"
            for name, figures in (("stdout", self.stdout), ("stderr", self.stderr))
            if figures.omitted
        ]
        where = f"; the complete output is kept by run {self.run_ref}" if self.run_ref else ""
        return (
            f"[output truncated at {self.budget_bytes} bytes per stream: {'; '.join(parts)}{where}]"
        )


@dataclass(slots=True)
class _StreamRecord:
    budget: int
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    #: Bytes handed to the decoder (kept, or held as the start of a character).
    taken: int = 0
    omitted: int = 0
    closed: bool = False
    pending: list[str] = field(default_factory=list)
    pending_bytes: int = 0

    def feed(self, data: bytes) -> None:
        if self.closed:
            self.omitted += len(data)
            return
        room = self.budget - self.taken
        part, rest = data[:room], data[room:]
        self._keep(self.decoder.decode(part), len(part))
        if rest:
            self.close()
            self.omitted += len(rest)

    def _keep(self, text: str, size: int) -> None:
        self.taken += size
        if text:
            self.pending.append(text)
            self.pending_bytes += size

    def close(self) -> None:
        """Keep nothing more: a character started but not finished is omitted."""
        if self.closed:
            return
        held, _ = self.decoder.getstate()
        self.taken -= len(held)
        self.omitted += len(held)
        self.closed = True

    def finish(self) -> None:
        """The stream ended: flush what the decoder holds (an unfinished last character)."""
        if not self.closed:
            self._keep(self.decoder.decode(b"", final=True), 0)
            self.closed = True

    def hold(self, text: str) -> None:
        """Put *text* (taken, not emitted) back as the pending output."""
        self.pending.insert(0, text)
        self.pending_bytes += len(text.encode("utf-8", "surrogatepass"))

    def take(self) -> str:
        text = "".join(self.pending)
        self.pending.clear()
        self.pending_bytes = 0
        return text

    @property
    def figures(self) -> StreamFigures:
        return StreamFigures(kept=self.taken, omitted=self.omitted)


class ToolOutputRecord:
    """One tool call's output as the kernel keeps it (see the module docstring)."""

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        if budget_bytes < 0:
            raise ValueError(f"the output budget must be at least 0 bytes, not {budget_bytes}")
        self.budget_bytes = budget_bytes
        self._streams = {stream: _StreamRecord(budget_bytes) for stream in STREAMS}
        self._order: list[Stream] = []

    def feed(self, stream: Stream, data: bytes) -> bool:
        """Take *data* the command wrote to *stream*; True when a piece is full (emit
        :meth:`pieces` now)."""
        record = self._streams[stream]
        record.feed(data)
        if record.pending and stream not in self._order:
            self._order.append(stream)
        return record.pending_bytes >= PIECE_BYTES

    def gap(self, *, stdout_bytes: int = 0, stderr_bytes: int = 0) -> None:
        """Chunks were dropped before the kernel read them: their bytes are omitted, and a
        stream that lost bytes keeps nothing after the gap (a gap without byte counts, from a
        resource service that does not report them, closes both streams)."""
        unknown = stdout_bytes <= 0 and stderr_bytes <= 0
        sizes: tuple[tuple[Stream, int], ...] = (("stdout", stdout_bytes), ("stderr", stderr_bytes))
        for stream, size in sizes:
            if size > 0 or unknown:
                record = self._streams[stream]
                record.close()
                record.omitted += max(0, size)

    @property
    def has_pending(self) -> bool:
        return bool(self._order)

    def pieces(self, *, everything: bool = False) -> list[tuple[Stream, str]]:
        """What is kept and not yet emitted, per stream (first-written first), in pieces of at
        most :data:`PIECE_BYTES` UTF-8 bytes, cut only between characters. Without
        *everything*, a short last piece after full ones stays pending (coalesced with what
        comes next, or flushed by the pace)."""
        out: list[tuple[Stream, str]] = []
        order, self._order = self._order, []
        for stream in order:
            parts = split_text(self._streams[stream].take())
            if not everything and len(parts) > 1:
                self._streams[stream].hold(parts.pop())
                self._order.append(stream)
            out += [(stream, part) for part in parts]
        return out

    def finish(self, run_ref: str = "") -> tuple[list[tuple[Stream, str]], Truncation]:
        """The output ended: the last pieces and the call's figures."""
        for stream in STREAMS:
            record = self._streams[stream]
            record.finish()
            if record.pending and stream not in self._order:
                self._order.append(stream)
        return self.pieces(everything=True), self.truncation(run_ref)

    def truncation(self, run_ref: str = "") -> Truncation:
        """The figures so far (exact for what the kernel has been given)."""
        return Truncation(
            stdout=self._streams["stdout"].figures,
            stderr=self._streams["stderr"].figures,
            budget_bytes=self.budget_bytes,
            run_ref=run_ref,
        )


def split_text(text: str, limit: int = PIECE_BYTES) -> list[str]:
    """*text* in pieces of at most *limit* UTF-8 bytes (at least one character each), cut only
    at character boundaries; nothing for empty text."""
    data = text.encode("utf-8", "surrogatepass")
    pieces: list[str] = []
    start = 0
    while start < len(data):
        end = min(start + limit, len(data))
        while end < len(data) and end > start and data[end] & 0xC0 == 0x80:
            end -= 1  # back to the first byte of the character the limit falls in
        if end == start:  # a character longer than the limit (only for a tiny limit)
            end = start + 1
            while end < len(data) and data[end] & 0xC0 == 0x80:
                end += 1
        pieces.append(data[start:end].decode("utf-8", "surrogatepass"))
        start = end
    return pieces


class _Flush:
    """A marker: kept output is waiting to be emitted."""


class _Pump:
    """Reads a run's events into a record and a queue (see :func:`pumped`)."""

    def __init__(self, record: ToolOutputRecord, interval: float) -> None:
        self.record = record
        self.interval = interval
        self.queue: asyncio.Queue[RunEvent | _Flush | BaseException | None] = asyncio.Queue()
        self.flagged = False
        self.timer: asyncio.TimerHandle | None = None

    def flag(self) -> None:
        self.timer = None
        if not self.flagged:
            self.flagged = True
            self.queue.put_nowait(_Flush())

    def take(self, event: RunEvent) -> None:
        record = self.record
        if isinstance(event, RunOutput):
            if record.feed(event.stream, event.data):
                self.flag()
            elif record.has_pending and self.timer is None:
                # Kept output waits at most the interval for more.
                self.timer = asyncio.get_running_loop().call_later(self.interval, self.flag)
        elif isinstance(event, RunGap):
            record.gap(stdout_bytes=event.stdout_bytes, stderr_bytes=event.stderr_bytes)
        else:
            self.queue.put_nowait(event)

    async def read(self, events: AsyncIterator[RunEvent]) -> None:
        try:
            async for event in events:
                self.take(event)
        except Exception as error:
            self.queue.put_nowait(error)
        else:
            self.queue.put_nowait(None)


async def pumped(
    events: AsyncIterator[RunEvent], record: ToolOutputRecord, interval: float = PACE_SECONDS
) -> AsyncIterator[RunEvent | None]:
    """A foreground run's *events*, read as fast as they come: output goes straight into
    *record* (kept up to its budget, the rest counted, so memory stays bounded and a slow log
    never holds the reading back); the other events come out in order, and ``None`` whenever
    kept output is waiting (a piece is full, or *interval* seconds passed): then the caller
    emits :meth:`ToolOutputRecord.pieces`. Errors of *events* are raised here; closing this
    stops the reading (and closes *events*)."""
    pump = _Pump(record, interval)
    reader = asyncio.ensure_future(pump.read(events))
    try:
        while True:
            item = await pump.queue.get()
            if isinstance(item, BaseException):
                raise item
            if item is None:
                return
            if isinstance(item, _Flush):
                pump.flagged = False
                yield None
                if record.has_pending and pump.timer is None:  # a short piece held back
                    pump.timer = asyncio.get_running_loop().call_later(interval, pump.flag)
            else:
                yield item
    finally:
        if pump.timer is not None:
            pump.timer.cancel()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


def result_text(output: str, truncation: Truncation | None) -> str:
    """A tool result's text: the tail of the run's *output* (at most :data:`RESULT_CHARS`,
    saying so when it is cut), then, when the record left output out, the exact figures."""
    if len(output) > RESULT_CHARS:
        output = f"[… the last {RESULT_CHARS} characters …]\n" + output[-RESULT_CHARS:]
    if truncation is None or not truncation.truncated:
        return output
    separator = "" if not output or output.endswith("\n") else "\n"
    return f"{output}{separator}{truncation.describe()}"
