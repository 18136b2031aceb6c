"""The session store's cache of session headers: ``read_header`` without a trip to SQLite.

The store is the only writer of its file (it holds the storage root's owner lease), so it can
keep the headers it has read or written, as they were committed. The store fills the cache
from what it committed (a create, a header update) and from reads; a read fills it only if no
write whatever ran meanwhile (:attr:`epoch`), so a read that raced a write never puts an older
header back. A write the cache knows nothing about (any other write of the store) forgets every
header (:meth:`forget_all`): correct first, fast for the writes that matter (plain appends do
not touch headers; header updates, and appends carrying a header patch, refresh their entry).

At most ``limit`` headers are kept, the least recently used forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict

from maka_runtime.kernel.core.session import SessionHeader

#: Default number of headers kept (``--session-header-cache``).
DEFAULT_LIMIT = 1024


class HeaderCache:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._limit = limit
        self._headers: OrderedDict[str, SessionHeader] = OrderedDict()
        #: Moves on every write: a read that saw it move must not fill the cache.
        self.epoch = 0

    def get(self, session_id: str) -> SessionHeader | None:
        header = self._headers.get(session_id)
        if header is not None:
            self._headers.move_to_end(session_id)
        return header

    def fill(self, header: SessionHeader, read_epoch: int) -> None:
        """Keep *header*, read when the epoch was *read_epoch* (ignored if a write ran since)."""
        if read_epoch == self.epoch:
            self.put(header)

    def put(self, header: SessionHeader) -> None:
        """Keep *header*, just committed."""
        self.epoch += 1
        if self._limit <= 0:
            return
        self._headers[header.id] = header
        self._headers.move_to_end(header.id)
        while len(self._headers) > self._limit:
            self._headers.popitem(last=False)

    def forget(self, session_id: str) -> None:
        self.epoch += 1
        self._headers.pop(session_id, None)

    def forget_all(self) -> None:
        self.epoch += 1
        self._headers.clear()
