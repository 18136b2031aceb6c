"""Each session header's ``GetSession`` answer, built once.

A ``Session`` message is about twenty fields and three timestamps converted from the header: in
a loaded server that was most of a ``GetSession`` call's own CPU. Headers are immutable, and
the store hands out the same header object for as long as it is what was committed (its header
cache, ``--session-header-cache``), so the message built for a header object is kept with it
(with the whole ``GetSessionResponse`` serialized: gRPC sends those bytes as they are,
:func:`~maka_runtime.common.handlers.passing_bytes`, so a call neither builds nor encodes
anything) and used again while the store keeps handing out that object. A changed header is a
new object, and gets a new message: an answer is never older than the header it came from.

At most as many messages are kept as the store keeps headers; the oldest is forgotten first.
A kept message is shared between calls (``ListSessions`` pages copy it): nothing may change it.
"""

from __future__ import annotations

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.common.kept_answers import AnswersByObject
from maka_runtime.kernel.api import convert
from maka_runtime.kernel.core import SessionHeader, SessionPage

__all__ = ["PageProtos", "SessionProtos"]


class SessionProtos:
    """The ``GetSessionResponse`` of a header object (see the module docstring)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._built: dict[str, tuple[SessionHeader, pb.Session, bytes]] = {}

    def session_of(self, header: SessionHeader) -> pb.Session:
        """The ``Session`` message of *header* (kept: copy it, never change it)."""
        return self._entry(header)[1]

    def of(self, header: SessionHeader) -> bytes:
        """``GetSession``'s answer for *header*, serialized."""
        return self._entry(header)[2]

    def _entry(self, header: SessionHeader) -> tuple[SessionHeader, pb.Session, bytes]:
        found = self._built.get(header.id)
        if found is not None and found[0] is header:
            return found
        answer = pb.GetSessionResponse(session=convert.session_to_proto(header))
        built = (header, answer.session, answer.SerializeToString())
        if self._limit > 0:
            self._built.pop(header.id, None)
            if len(self._built) >= self._limit:
                del self._built[next(iter(self._built))]
            self._built[header.id] = built
        return built


class PageProtos(AnswersByObject[SessionPage, bytes]):
    """The ``ListSessionsResponse`` of a page object, built and serialized once.

    The kernel serves the very page object it keeps for a query while nothing that page shows
    has changed (:mod:`maka_runtime.kernel.core.session_pages`), so the answer built for a page
    object is kept with it and used again while the kernel hands out that object; a page read
    anew is a new object and gets a new answer. At most *limit* answers (``--list-page-cache``),
    the oldest forgotten first.
    """

    def __init__(self, limit: int, sessions: SessionProtos) -> None:
        super().__init__(
            limit,
            lambda page: pb.ListSessionsResponse(
                sessions=[sessions.session_of(h) for h in page.sessions],
                next_page_token=page.next_page_token,
            ).SerializeToString(),
        )
