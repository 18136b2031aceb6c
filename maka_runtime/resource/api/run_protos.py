"""The messages of finished runs, built once: a finished run's record never changes, so the
``Run`` message built for the record the core holds (:mod:`..core.finished`) answers every later
``GetRun`` (the whole answer is kept, serialized: gRPC sends those bytes as they are,
:func:`~maka_runtime.common.handlers.passing_bytes`) and ``ListRuns`` of it as it is.

An entry is used only for the very record object it was built from (the core hands out the
record it holds), so a record read anew is never answered with another's message. At most
``max_bytes`` of messages (their encoded size) are kept, the least recently used dropped first;
a message above a quarter of that is not kept; 0 keeps none. Active runs are always built anew.
A ``ListRuns`` page's answer is kept serialized in the same way, for the very page object the
catalog keeps.
"""

from __future__ import annotations

from collections import OrderedDict

from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.common.kept_answers import AnswersByObject
from maka_runtime.resource.api.convert import run_to_proto
from maka_runtime.resource.core import ShellRunPage, ShellRunRecord

__all__ = ["PageProtos", "RunProtos"]

#: A finished record, its answer, that answer serialized, and the size of its ``Run``.
_Entry = tuple[ShellRunRecord, pb.GetRunResponse, bytes, int]


class RunProtos:
    """A bounded, least-recently-used map of ref → (finished record, its ``GetRun`` answer as a
    message and serialized)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def of(self, record: ShellRunRecord) -> pb.Run:
        """The ``Run`` message of *record* (callers copy it into their reply, never change it)."""
        entry = self._kept(record)
        return entry[1].run if entry is not None else run_to_proto(record)

    def answer(self, record: ShellRunRecord) -> bytes:
        """``GetRun``'s answer for *record*, serialized: kept whole for a finished run, so a
        call neither builds nor encodes anything."""
        entry = self._kept(record)
        if entry is not None:
            return entry[2]
        return pb.GetRunResponse(run=run_to_proto(record)).SerializeToString()

    def _kept(self, record: ShellRunRecord) -> _Entry | None:
        """The entry of *record*, built now if it is to be kept; ``None`` if it is not."""
        if record.active or not self.max_bytes:
            return None
        entry = self._entries.get(record.ref)
        if entry is not None and entry[0] is record:
            self._entries.move_to_end(record.ref)
            return entry
        message = pb.GetRunResponse(run=run_to_proto(record))
        size = message.run.ByteSize()
        built = (record, message, message.SerializeToString(), size)
        if size * 4 <= self.max_bytes:
            if entry is not None:
                self._bytes -= entry[3]
            self._entries[record.ref] = built
            self._entries.move_to_end(record.ref)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, _, _, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
        return built


class PageProtos(AnswersByObject[ShellRunPage, bytes]):
    """The ``ListRunsResponse`` of a page object, built and serialized once.

    The catalog serves the very page object it keeps for a query while none of the session's
    runs changed (:mod:`maka_runtime.resource.core.catalog_pages`), so the answer built for a
    page object is kept with it and used again while the catalog hands out that object; a page
    read anew is a new object and gets a new answer. At most *limit* answers
    (``--list-page-cache``), the oldest forgotten first; a page with an active run is never
    kept (the catalog keeps none).
    """

    def __init__(self, limit: int, runs: RunProtos) -> None:
        super().__init__(
            limit,
            lambda page: pb.ListRunsResponse(
                runs=[runs.of(record) for record in page.runs],
                next_page_token=page.next_page_token,
            ).SerializeToString(),
            keep=lambda page: not any(record.active for record in page.runs),
        )
