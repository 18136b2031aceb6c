"""``ListSessions`` pages, each kept while nothing it shows has changed.

A page is a pure function of the query (filters, cursor, size, the byte bound) and of what the
store holds, and the store says when that may have changed: its ``listing_version`` moves with
every committed write that may change a listed session (a session created, a header updated
— the turns' own status updates included — archived, removed), before that write's call
returns (:class:`~maka_runtime.kernel.core.store.SessionStore`). So the page read for a query
is kept with the version read *before* the store was asked, and served again to the same
query while the version still has that value: a read that raced a write is kept under the
older version and never served after the write was acknowledged.

The query a page is kept under includes the owners the caller may list
(:func:`~maka_runtime.kernel.core.access.listed_owners`), so a page is only ever served to
callers who list exactly the sessions its first reader could. The same page object is served
on every hit, which lets the API layer keep its message too. At most ``limit`` pages are kept
(``--list-page-cache``), the least recently used forgotten first; 0 keeps none.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

from maka_runtime.common.principal import current_principal
from maka_runtime.kernel.core.access import listed_owners
from maka_runtime.kernel.core.errors import InvalidRequestError
from maka_runtime.kernel.core.session import SessionPage, SessionQuery
from maka_runtime.kernel.core.store import SessionStore
from maka_runtime.kernel.core.validation import KernelLimits, check_length

__all__ = ["SessionPages"]

#: A query as asked — archived filter, label, page size, page token — and the owners its
#: caller lists.
_Key = tuple[bool | None, str | None, int, str, tuple[str, ...] | None]


class SessionPages:
    """The kernel's ``list_sessions``: checks the query, then a kept page or the store's."""

    def __init__(self, store: SessionStore, limits: KernelLimits) -> None:
        self._store = store
        self._limits = limits
        self._kept: OrderedDict[_Key, tuple[int, SessionPage]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def kept(
        self, archived: bool | None, label: str | None, page_size: int, page_token: str
    ) -> SessionPage | None:
        """The page :meth:`page` would return for this query if it is kept and still right,
        without awaiting or building the query; ``None``: ask :meth:`page` (which also checks
        the query: only a query that passed its checks is ever kept)."""
        key = (archived, label, page_size, page_token, listed_owners(current_principal()))
        kept = self._kept.get(key)
        if kept is None or kept[0] != self._store.listing_version:
            return None
        self._kept.move_to_end(key)
        return kept[1]

    async def page(self, query: SessionQuery) -> SessionPage:
        limits = self._limits
        if not 1 <= query.page_size <= limits.max_page_size:
            raise InvalidRequestError("page_size", f"must be between 1 and {limits.max_page_size}")
        check_length("page_token", query.page_token)
        if query.label is not None:
            check_length("label", query.label)
        owners = listed_owners(current_principal())
        # Kept under the query as asked and the owners listed: the query the store is given
        # (the byte bound and those owners put in) is built only when the store is asked.
        key = (query.archived, query.label, query.page_size, query.page_token, owners)
        version = self._store.listing_version
        kept = self._kept.get(key)
        if kept is not None and kept[0] == version:
            self._kept.move_to_end(key)
            return kept[1]
        page = await self._store.list_sessions(
            dataclasses.replace(query, max_bytes=limits.max_response_bytes, owners=owners)
        )
        if limits.list_page_cache > 0:
            self._kept[key] = (version, page)
            self._kept.move_to_end(key)
            while len(self._kept) > limits.list_page_cache:
                self._kept.popitem(last=False)
        return page
