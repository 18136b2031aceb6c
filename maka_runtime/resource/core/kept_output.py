"""A run's kept output, live or ended: the events a follower gets (Attach, RunForeground) and
pages of it by ref (ReadRunOutput).

While a run is live its output comes from memory and its journal (:mod:`.output_follow`);
once it has ended (also after a restart) from its journal alone, as its terminal record's
:class:`~.output_counts.JournalSummary` describes it. Callers find the run first, through the
same lookup as every operation given a ref (``ResourceHost.run_session``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from maka_runtime.resource.core.errors import InvalidRequestError, OperationConflictError
from maka_runtime.resource.core.output import OutputChunk, OutputEvent, OutputGap
from maka_runtime.resource.core.output_counts import JournalSummary
from maka_runtime.resource.core.output_follow import check_after, follow_ended, read_journal
from maka_runtime.resource.core.records import ShellRunRecord

if TYPE_CHECKING:
    from maka_runtime.resource.core.supervisor import RunSupervisor

__all__ = ["OutputPage", "output_events", "read_output", "remove_session_output"]


@dataclass(frozen=True)
class OutputPage:
    """One page of a run's kept output."""

    chunks: tuple[OutputChunk, ...]
    #: Pass as ``after_sequence`` for the next page.
    next_after_sequence: int
    #: The run has ended and nothing after this page is kept: no more pages.
    end_reached: bool
    #: The run's newest output sequence now.
    last_sequence: int
    #: On the last page: the chunks that were not kept, with their bytes per stream.
    omitted: OutputGap | None
    #: The run's journal was removed (the total bound, or its session was archived).
    evicted: bool


async def output_events(
    supervisor: RunSupervisor, session_id: str, ref: str, *, after_sequence: int, coalesce: int
) -> tuple[AsyncIterator[OutputEvent], ShellRunRecord | None]:
    """The run's output after *after_sequence*: replay, then live until it ends; and its
    terminal record if it had already ended (the position is checked at once)."""
    if after_sequence < 0:
        raise InvalidRequestError("after_sequence must not be negative", field="after_sequence")
    try:
        return (
            supervisor.follow_output(
                session_id, ref, after_sequence=after_sequence, coalesce=coalesce
            ),
            None,
        )
    except OperationConflictError:
        record = await supervisor.wait_terminal(session_id, ref)
    summary = record.journal or JournalSummary()
    known = after_sequence in (0, summary.last_sequence)
    check_after(after_sequence, summary.last_sequence, summary.kept_sequence, known)
    journals = supervisor.journals
    events = follow_ended(
        summary, lambda: journals.reader(record.id), after_sequence, coalesce=coalesce
    )
    return events, record


async def read_output(
    supervisor: RunSupervisor, session_id: str, ref: str, *, after_sequence: int, max_bytes: int
) -> OutputPage:
    """The kept chunks after *after_sequence*, at least one if there is one and at most
    *max_bytes* of data beyond the first (0: ``max_page_bytes``, which also caps it)."""
    if after_sequence < 0:
        raise InvalidRequestError("after_sequence must not be negative", field="after_sequence")
    if max_bytes < 0:
        raise InvalidRequestError("max_bytes must not be negative", field="max_bytes")
    limit = min(max_bytes or supervisor.config.max_page_bytes, supervisor.config.max_page_bytes)
    record = await supervisor.inspect(session_id, ref)
    live = supervisor.live_output(session_id, ref) if record.active else None
    if live is None and record.active:
        record = await supervisor.wait_terminal(session_id, ref)
    if live is not None:
        summary, end = live.journal.summary(), live.journal.kept_end
        known = live.log.before(after_sequence + 1) is not None
    else:
        summary, end = record.journal or JournalSummary(), None
        known = after_sequence == summary.last_sequence
    last, kept = summary.last_sequence, summary.kept_sequence
    check_after(after_sequence, last, kept, known)
    chunks: list[OutputChunk] = []
    cursor, evicted = after_sequence, False
    if after_sequence < kept:
        reader = supervisor.journals.reader(record.id)
        if reader is None:
            evicted = True
        else:
            try:
                read = await read_journal(reader, after_sequence, end, limit)
            finally:
                reader.close()
            chunks = [OutputChunk(chunk.sequence, chunk.stream, chunk.data) for chunk in read]
            cursor = chunks[-1].sequence if chunks else cursor
            evicted = not chunks
    ended = live is None
    return _page(summary, chunks, cursor, ended=ended, evicted=evicted, after=after_sequence)


def _page(
    summary: JournalSummary,
    chunks: list[OutputChunk],
    cursor: int,
    *,
    ended: bool,
    evicted: bool,
    after: int,
) -> OutputPage:
    last, kept = summary.last_sequence, summary.kept_sequence
    omitted: OutputGap | None = None
    if ended and evicted:
        if after == 0 and last > 0:
            omitted = OutputGap.of(1, last, summary.kept.add(summary.omitted))
        return OutputPage((), last, True, last, omitted, True)
    end_reached = ended and cursor >= kept
    if end_reached:
        if cursor < last:
            omitted = OutputGap.of(kept + 1, last, summary.omitted)
        cursor = last
    return OutputPage(tuple(chunks), cursor, end_reached, last, omitted, False)


async def remove_session_output(supervisor: RunSupervisor, session_id: str) -> int:
    """Remove the journals of every run of the session (all ended); returns how many."""
    run_ids: list[str] = []
    token = ""
    while True:
        page = await supervisor.catalog.list_session(session_id, page_size=500, page_token=token)
        run_ids.extend(record.id for record in page.runs)
        token = page.next_page_token
        if not token:
            break
    return await supervisor.journals.remove(run_ids)
