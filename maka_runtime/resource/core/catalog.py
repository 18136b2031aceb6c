"""Reading runs back: pages of a session's runs and the feed of committed changes.

The catalog reads the store and overlays the live output of runs still active (through the
supervisor's ``live_output`` view); it owns only the wake-up events of its watchers.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, replace

from maka_runtime.resource.core.catalog_pages import RunPages
from maka_runtime.resource.core.context import RunContext
from maka_runtime.resource.core.errors import InvalidRequestError, OutOfRangeError
from maka_runtime.resource.core.finished import FinishedRuns
from maka_runtime.resource.core.records import PipesOutput, PtyOutput, ShellRunRecord, format_ref
from maka_runtime.resource.core.requests import check_length, check_session_id
from maka_runtime.resource.core.sizes import fitting, wire_size

__all__ = ["RunCatalog", "ShellRunPage", "without_output_beyond"]

_DEFAULT_PAGE_SIZE = 50
_MAX_PAGE_SIZE = 500
_CHANGES_BATCH = 100


@dataclass(frozen=True)
class ShellRunPage:
    runs: tuple[ShellRunRecord, ...]
    #: Pass back to get the next page; empty when this is the last page.
    next_page_token: str


class _Watcher:
    """One watch's live revisions not yet delivered, at most *backlog*; past that they are
    dropped and the watch reads the store again from its cursor (the collapse)."""

    def __init__(self, backlog: int) -> None:
        self.backlog = backlog
        self.pending: deque[ShellRunRecord] = deque()
        self.behind = True  # read the store first
        self.wake = asyncio.Event()

    def push(self, record: ShellRunRecord) -> None:
        if not self.behind:
            if len(self.pending) < self.backlog:
                self.pending.append(record)
            else:
                self.behind = True
                self.pending.clear()
        self.wake.set()


class RunCatalog:
    """Pages and change feeds of the runs in the store, with live output where it is live."""

    def __init__(
        self,
        context: RunContext,
        live_output: Callable[[ShellRunRecord], ShellRunRecord],
        finished: FinishedRuns | None = None,
    ) -> None:
        self._ctx = context
        self._live_output = live_output
        #: Finished runs held in memory: not decoded again, their sizes known.
        self._finished = finished if finished is not None else FinishedRuns(0)
        self._watchers: dict[str, set[_Watcher]] = {}
        self._closed = False
        #: Pages of a named session, kept while none of its runs changed (:mod:`.catalog_pages`).
        self._pages = RunPages(context.config.list_page_cache, context.store.session_version)
        self.pages = self._pages

    def changed(self, record: ShellRunRecord) -> None:
        """A revision of *record* was committed: queue it for the session's watchers."""
        for watcher in self._watchers.get(record.session_id, ()):
            watcher.push(record)

    def close(self) -> None:
        """End every watch."""
        self._closed = True
        for watchers in self._watchers.values():
            for watcher in watchers:
                watcher.wake.set()

    async def list_session(
        self,
        session_id: str | None,
        *,
        page_size: int = 0,
        page_token: str = "",
        visible: Callable[[str], Awaitable[bool]] | None = None,
    ) -> ShellRunPage:
        """Runs of a session (``None``: of every session), oldest first, *page_size* (default
        50, at most 500) at a time. With *visible*, only runs of the sessions it accepts count.
        A named session's page is served from memory while none of its runs changed."""
        if session_id is None or visible is not None:
            return await self._read_page(session_id, page_size, page_token, visible)
        key = (session_id, page_size, page_token)
        version, kept = self._pages.get(key)
        if kept is not None:
            return kept
        page = await self._read_page(session_id, page_size, page_token, None)
        self._pages.keep(key, version, page)
        return page

    async def _read_page(
        self,
        session_id: str | None,
        page_size: int,
        page_token: str,
        visible: Callable[[str], Awaitable[bool]] | None,
    ) -> ShellRunPage:
        if session_id is not None:
            check_session_id(session_id)
        if page_size < 0 or page_size > _MAX_PAGE_SIZE:
            raise InvalidRequestError(
                f"page_size must be between 0 and {_MAX_PAGE_SIZE}", field="page_size"
            )
        limit = page_size or _DEFAULT_PAGE_SIZE
        check_length("page_token", page_token)
        after = _parse_page_token(page_token)
        records: list[ShellRunRecord] = []
        # Runs the filter drops do not shorten the page: read on until it is full (one more
        # than a page says whether another follows) or the store has no more.
        while len(records) <= limit:
            batch = await self._ctx.store_call(
                self._ctx.store.list_session(
                    session_id, after=after, limit=limit + 1, known=self._finished.peek
                ),
                None,
            )
            for record in batch:
                self._finished.keep(record)
                if visible is None or await visible(record.session_id):
                    records.append(record)
            if len(batch) <= limit:
                break
            after = (batch[-1].created_at, batch[-1].ref)
        runs = tuple(
            fitting(
                [self._live_output(record) for record in records[:limit]],
                self._ctx.config.max_page_bytes,
                self._finished.size_of,
            )
        )
        more = len(records) > len(runs)
        token = _page_token(runs[-1]) if more and runs else ""
        return ShellRunPage(runs=runs, next_page_token=token)

    async def watch(
        self, session_id: str, *, after_change_seq: int = 0
    ) -> AsyncGenerator[ShellRunRecord, None]:
        """The session's run changes after *after_change_seq*, until the catalog closes.

        First the store's replay: the latest revision of each run changed after the cursor, in
        ``change_seq`` order (the store keeps only a run's latest revision). Then every revision
        committed from then on, once each, in commit order, while this watcher is at most
        ``watch_backlog`` revisions behind; past that its queued revisions are dropped and it
        reads the store again from the last ``change_seq`` it delivered (the same collapse as
        the replay). ``change_seq`` always grows and nothing committed after the cursor is
        missed: a collapse shows only as a jump in a run's ``revision``."""
        self._check_cursor(session_id, after_change_seq)
        watcher = _Watcher(self._ctx.config.watch_backlog)
        watchers = self._watchers.setdefault(session_id, set())
        watchers.add(watcher)
        try:
            cursor = after_change_seq
            while not self._closed:
                if watcher.behind:
                    # Queue live revisions from here on; those the store read also returns
                    # are skipped below by their change_seq.
                    watcher.behind = False
                    records: list[ShellRunRecord] | None = None
                    while records is None or (len(records) == _CHANGES_BATCH and not self._closed):
                        records = await self._changes(session_id, cursor)
                        for record in records:
                            cursor = record.change_seq
                            yield self._live_output(record)
                elif watcher.pending:
                    record = watcher.pending.popleft()
                    if record.change_seq > cursor:
                        cursor = record.change_seq
                        yield self._live_output(record)
                else:
                    watcher.wake.clear()
                    await watcher.wake.wait()
        finally:
            watchers.discard(watcher)
            if not watchers and self._watchers.get(session_id) is watchers:
                del self._watchers[session_id]

    def _check_cursor(self, session_id: str, after_change_seq: int) -> None:
        check_session_id(session_id)
        if after_change_seq < 0:
            raise InvalidRequestError(
                "after_change_seq must not be negative", field="after_change_seq"
            )
        last = self._ctx.store.last_change_seq
        if after_change_seq > last:
            raise OutOfRangeError(
                f"after_change_seq {after_change_seq} is beyond the newest change {last}",
                field="after_change_seq",
                last=last,
            )

    async def _changes(self, session_id: str, after_change_seq: int) -> list[ShellRunRecord]:
        """One batch of the store's latest revisions changed after *after_change_seq*."""
        changes = self._ctx.store.list_changes(
            session_id, after_change_seq=after_change_seq, limit=_CHANGES_BATCH
        )
        return list(await self._ctx.store_call(changes, None))


#: Page tokens are opaque to clients: urlsafe base64 (unpadded) of a small versioned JSON array,
#: ``[version, "runs", created_at, run_id]``. Anything else is refused as malformed.
_PAGE_TOKEN_VERSION = 1
_MAX_PAGE_TOKEN_CHARS = 1024
_MAX_CURSOR_INT = 2**63 - 1


def _page_token(record: ShellRunRecord) -> str:
    raw = json.dumps(
        [_PAGE_TOKEN_VERSION, "runs", record.created_at, record.id], separators=(",", ":")
    )
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _parse_page_token(token: str) -> tuple[int, str] | None:
    """The cursor inside a token :func:`_page_token` issued; whatever else a client sends is
    :class:`InvalidRequestError` on ``page_token`` and never reaches the store."""
    if not token:
        return None
    refused = InvalidRequestError(
        "malformed page_token: not a token this service issued; pass back a next_page_token "
        "unchanged",
        field="page_token",
    )
    if len(token) > _MAX_PAGE_TOKEN_CHARS:
        raise refused
    try:
        value = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode())
    except (ValueError, UnicodeDecodeError):
        raise refused from None
    match value:
        case [int(version), "runs", int(created_at), str(run_id)] if (
            type(version) is int
            and version == _PAGE_TOKEN_VERSION
            and type(created_at) is int
            and 0 <= created_at <= _MAX_CURSOR_INT
        ):
            try:
                return created_at, format_ref(run_id)
            except ValueError:
                raise refused from None
    raise refused


def without_output_beyond(
    records: tuple[ShellRunRecord, ...], max_bytes: int
) -> tuple[ShellRunRecord, ...]:
    """*records* in full while they fit *max_bytes*, the rest without their output (pipes:
    empty streams flagged truncated; PTY: an empty screen): a reply listing many runs stays
    bounded. The stored records keep their output."""
    kept: list[ShellRunRecord] = []
    total = 0
    for record in records:
        total += wire_size(record)
        if kept and total > max_bytes:
            output: PipesOutput | PtyOutput
            if isinstance(record.output, PtyOutput):
                output = PtyOutput(cols=record.output.cols, rows=record.output.rows)
            else:
                output = PipesOutput(stdout_truncated=True, stderr_truncated=True)
            kept.append(replace(record, output=output))
        else:
            kept.append(record)
    return tuple(kept)
