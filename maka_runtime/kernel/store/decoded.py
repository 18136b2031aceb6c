"""Session headers decoded from their stored JSON, each stored text decoded once.

A page of ``ListSessions`` read every header of the page from its JSON and measured its wire
size: about 40 µs of Python a session in a tight loop (the JSON decode 25, the size 13), several
times that in a loaded server, for a text that had not changed since the last page. Decoding
is a pure function of the text, so the header decoded from a text (and its wire size) is kept
under that exact text and used again whenever the same text is read: a changed header is a
changed text, decoded anew. Equal texts give the same header object, which also lets the API
layer reuse the message it built for it (:mod:`maka_runtime.kernel.api.session_protos`).

A header update reads the stored header through it too (:meth:`DecodedHeaders.header`) and
leaves the header it wrote under the text it wrote (:meth:`DecodedHeaders.remember`), so a
session's next update (a turn marks its session ``running``, then ``active``) decodes nothing;
the wire size of such an entry is measured only when a page first asks for it.

Only the store's worker thread uses it (the reads that decode run there). At most ``limit``
texts are kept (the store's header cache size, ``--session-header-cache``), the least recently
read forgotten first; 0 keeps none.
"""

from __future__ import annotations

from maka_runtime.common.sizes import wire_size
from maka_runtime.kernel.core import SessionHeader
from maka_runtime.kernel.store._shared import header_from_json

__all__ = ["DecodedHeaders"]


#: The wire size of an entry not measured yet (one an update left, no page has read).
_UNMEASURED = -1


class DecodedHeaders:
    """Stored header text → (its header, the header's :func:`wire_size`)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._entries: dict[str, tuple[SessionHeader, int]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, text: str) -> tuple[SessionHeader, int]:
        """The header stored as *text* and its wire size."""
        found = self._entries.pop(text, None)
        if found is None:
            header = header_from_json(text)
            found = (header, wire_size(header))
        elif found[1] == _UNMEASURED:
            found = (found[0], wire_size(found[0]))
        self._keep(text, found)
        return found

    def header(self, text: str) -> SessionHeader:
        """The header stored as *text* (its size is not measured)."""
        found = self._entries.pop(text, None)
        if found is None:
            found = (header_from_json(text), _UNMEASURED)
        self._keep(text, found)
        return found[0]

    def remember(self, text: str, header: SessionHeader) -> None:
        """*header* is what *text*, just stored, decodes to."""
        self._entries.pop(text, None)
        self._keep(text, (header, _UNMEASURED))

    def _keep(self, text: str, entry: tuple[SessionHeader, int]) -> None:
        if self._limit > 0:
            if len(self._entries) >= self._limit:
                del self._entries[next(iter(self._entries))]
            self._entries[text] = entry
