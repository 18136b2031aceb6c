"""``ListRuns`` pages of one session, each kept while no run of the session has changed.

A page of a named session's runs is a pure function of the query (session, page size, cursor)
and of that session's committed records, unless it shows a run still active (whose output the
catalog overlays live: such a page is never kept). The store says when the session's records
may have changed: its ``session_version`` moves on every committed insert or update of one of
them (a run started, a state change, an exit), before that write's call returns
(:class:`~maka_runtime.resource.core.store.ShellRunStore`). So a page is kept with the version
read *before* the store was asked, and served again to the same query while the version still
has that value: a read that raced a write is kept under the older version and never served
after the write was acknowledged.

Only pages of a named session are kept: the host admits the caller to that session on every
call before the catalog is asked, so a kept page reaches no caller who may not see the session
(a listing of every session filters by the caller and is never kept). The same page object is
served on every hit, so the API layer keeps its message too. At most ``limit`` pages
(``--list-page-cache``), the least recently used forgotten first; 0 keeps none.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from maka_runtime.resource.core.catalog import ShellRunPage

__all__ = ["PageKey", "RunPages"]

#: A query: session, page size as asked, page token as given.
PageKey = tuple[str, int, str]


class RunPages:
    def __init__(self, limit: int, version: Callable[[str], int]) -> None:
        self._limit = limit
        self._version = version
        self._kept: OrderedDict[PageKey, tuple[int, ShellRunPage]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: PageKey) -> tuple[int, ShellRunPage | None]:
        """The session's version now, and the page kept for *key* if it is still right."""
        version = self._version(key[0])
        kept = self._kept.get(key)
        if kept is None or kept[0] != version:
            return version, None
        self._kept.move_to_end(key)
        return version, kept[1]

    def kept(self, key: PageKey) -> ShellRunPage | None:
        """The page kept for *key* if it is still right (:meth:`get` without the version)."""
        return self.get(key)[1]

    def keep(self, key: PageKey, version: int, page: ShellRunPage) -> None:
        """Keep *page*, read for *key* when the session's version was *version*."""
        if self._limit <= 0 or any(run.active for run in page.runs):
            return
        self._kept[key] = (version, page)
        self._kept.move_to_end(key)
        while len(self._kept) > self._limit:
            self._kept.popitem(last=False)
