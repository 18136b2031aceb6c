"""Following a run's output: from memory while the consumer keeps up, from the run's journal when
it falls behind, and after the run has ended (also after a restart) from the journal alone.

A follower knows the bytes per stream of everything before its position, so the one event for
output that was not kept, :class:`~.output.OutputGap`, carries their exact count. It reads
the journal off the event loop, a bounded batch at a time, so neither a slow consumer nor a
large journal costs memory or stalls the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Final

from maka_runtime.resource.core.errors import OutOfRangeError
from maka_runtime.resource.core.journal import JournalChunk, JournalReader, JournalWriter
from maka_runtime.resource.core.output import OutputChunk, OutputEvent, OutputGap, OutputLog, merged
from maka_runtime.resource.core.output_counts import JournalSummary, StreamBytes

__all__ = ["check_after", "follow_ended", "follow_live", "read_journal"]

#: Most bytes of chunk data read from a journal at once (per follower).
BATCH_BYTES: Final = 1024 * 1024

OpenReader = Callable[[], JournalReader | None]


def check_after(after_sequence: int, last: int, kept: int, known: bool) -> None:
    """Refuse a position a follower cannot start from: beyond the newest output, or inside
    output that was not kept and that memory no longer holds (*known*: memory has it)."""
    if after_sequence > last:
        # Following from there would silently skip output still to come.
        raise OutOfRangeError(
            f"after_sequence {after_sequence} is beyond the newest output sequence {last}",
            field="after_sequence",
            last=last,
        )
    if kept < after_sequence < last and not known:
        raise OutOfRangeError(
            f"after_sequence {after_sequence} is inside output that was not kept (sequences "
            f"{kept + 1} to {last}); resume after {kept} (the end of the kept output) or after "
            f"{last}",
            field="after_sequence",
            last=last,
        )


@dataclass
class _Position:
    """Where a follower is: the last sequence it passed, and the bytes per stream up to there
    (``None`` until the journal has told it)."""

    cursor: int
    passed: StreamBytes | None


async def follow_live(
    log: OutputLog,
    writer: JournalWriter,
    open_reader: OpenReader,
    after_sequence: int,
    *,
    coalesce: int,
) -> AsyncIterator[OutputEvent]:
    """The output of a live run after *after_sequence* (checked with :func:`check_after`
    first), until its log closes."""
    at = _Position(after_sequence, log.before(after_sequence + 1) if after_sequence else None)
    if not after_sequence:
        at.passed = StreamBytes()
    reader: JournalReader | None = None
    try:
        while True:
            if at.cursor + 1 < log.oldest_sequence and at.cursor < writer.kept_sequence:
                reader = reader or open_reader()
                chunks = await read_journal(reader, at.cursor, writer.kept_end) if reader else []
                if reader is not None and chunks:
                    for chunk in _coalesced(chunks, coalesce):
                        yield chunk
                    at.cursor, at.passed = reader.sequence, reader.passed
                    continue
            if at.passed is None:  # only the journal knew the position, and it is gone
                raise OutOfRangeError(
                    f"the output before sequence {at.cursor + 1} is no longer kept",
                    field="after_sequence",
                    last=log.last_sequence,
                )
            events = _from_memory(log, at, at.passed, coalesce)
            for event in events:
                yield event
            if not events:
                if log.closed:
                    return
                await log.changed()
    finally:
        if reader is not None:
            reader.close()


def _from_memory(
    log: OutputLog, at: _Position, passed: StreamBytes, coalesce: int
) -> list[OutputEvent]:
    """What memory holds after the position, and before it the gap for what it no longer
    holds, taken at once (nothing awaits): one stretch of lost output is one gap, however
    long the consumer then takes. Moves the position past them."""
    events: list[OutputEvent] = []
    oldest = log.oldest_sequence
    if at.cursor + 1 < oldest:
        before = log.before(oldest) or passed
        events.append(OutputGap.of(at.cursor + 1, oldest - 1, before.minus(passed)))
        at.cursor, passed = oldest - 1, before
    fresh = log.after(at.cursor)
    for chunk in merged(fresh, coalesce) if coalesce > 0 else fresh:
        at.cursor = chunk.sequence
        passed = passed.plus(chunk.stream, len(chunk.data))
        events.append(chunk)
    at.passed = passed
    return events


async def follow_ended(
    summary: JournalSummary, open_reader: OpenReader, after_sequence: int, *, coalesce: int
) -> AsyncIterator[OutputEvent]:
    """The kept output of an ended run after *after_sequence* (checked with
    :func:`check_after` first), then one gap for what was not kept (all of it, if the journal
    was removed)."""
    cursor = after_sequence
    passed = summary.kept.add(summary.omitted) if cursor == summary.last_sequence else None
    if cursor == 0:
        passed = StreamBytes()
    reader = open_reader() if cursor < summary.kept_sequence else None
    try:
        while reader is not None and cursor < summary.kept_sequence:
            chunks = await read_journal(reader, cursor, None)
            if not chunks:
                break
            for chunk in _coalesced(chunks, coalesce):
                yield chunk
            cursor, passed = reader.sequence, reader.passed
    finally:
        if reader is not None:
            reader.close()
    if cursor < summary.last_sequence:
        total = summary.kept.add(summary.omitted)
        if passed is None:
            raise OutOfRangeError(
                f"the output before sequence {cursor + 1} is no longer kept",
                field="after_sequence",
                last=summary.last_sequence,
            )
        yield OutputGap.of(cursor + 1, summary.last_sequence, total.minus(passed))


async def read_journal(
    reader: JournalReader, after_sequence: int, end: int | None, max_bytes: int = BATCH_BYTES
) -> list[JournalChunk]:
    """The next chunks after *after_sequence* (at most *max_bytes* of data beyond the first),
    read in a thread."""

    def read() -> list[JournalChunk]:
        if reader.sequence != after_sequence:
            reader.skip_to(after_sequence, end)
            if reader.sequence != after_sequence:
                return []
        return reader.read(max_bytes, end)

    reading = asyncio.ensure_future(asyncio.to_thread(read))
    try:
        return await asyncio.shield(reading)
    except asyncio.CancelledError:
        # The caller closes the reader once this returns: not while the thread still reads.
        with contextlib.suppress(Exception):
            await reading
        raise


def _coalesced(chunks: list[JournalChunk], coalesce: int) -> list[OutputChunk]:
    plain = [OutputChunk(chunk.sequence, chunk.stream, chunk.data) for chunk in chunks]
    return merged(plain, coalesce) if coalesce > 0 else plain
