"""Finished runs from memory: the terminal records of recently ended runs, as committed.

A terminal record never changes again (the store refuses to update a run that is not active),
so a copy of it read back, or heard of as it was committed, answers every later query of that
run exactly as the store would: ``GetRun`` of a finished run (the ref's session, then the
record) costs no store call, no thread hop and no JSON decode.

The cache holds at most ``max_bytes`` of records (:func:`.sizes.wire_size`, an upper bound of
each one's encoded size: a run keeps up to 1 MiB of each pipe stream), dropping the least
recently used first; a record bigger than a quarter of the bound is not kept. ``max_bytes`` 0
turns it off. Only terminal records go in, and only once committed: a terminal record the store
refused (:mod:`.pending`) is not heard of until it is written.
"""

from __future__ import annotations

from collections import OrderedDict

from maka_runtime.resource.core.records import ShellRunRecord
from maka_runtime.resource.core.sizes import wire_size

__all__ = ["FinishedRuns"]


class FinishedRuns:
    """A bounded, least-recently-used map of ref → committed terminal record."""

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError("max_bytes must not be negative")
        self.max_bytes = max_bytes
        self._records: OrderedDict[str, tuple[ShellRunRecord, int]] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._records)

    @property
    def size_bytes(self) -> int:
        """The sizes of the records held, added up."""
        return self._bytes

    def get(self, ref: str) -> ShellRunRecord | None:
        entry = self._records.get(ref)
        if entry is None:
            return None
        self._records.move_to_end(ref)
        return entry[0]

    def peek(self, ref: str) -> ShellRunRecord | None:
        """The record of *ref* if held, without making it recent: safe to call from the store's
        thread (one atomic lookup), so a page read there need not decode what is held."""
        entry = self._records.get(ref)
        return None if entry is None else entry[0]

    def size_of(self, record: ShellRunRecord) -> int:
        """:func:`.sizes.wire_size` of *record*, from memory when it is the record held."""
        entry = self._records.get(record.ref)
        if entry is not None and entry[0] is record:
            return entry[1]
        return wire_size(record)

    def keep(self, record: ShellRunRecord) -> None:
        """Remember *record* if it is terminal (an active one is ignored: it will change)."""
        if record.active or not self.max_bytes or record.ref in self._records:
            return
        size = wire_size(record)
        if size * 4 > self.max_bytes:
            return
        self._records[record.ref] = (record, size)
        self._bytes += size
        while self._bytes > self.max_bytes:
            _, (_, dropped) = self._records.popitem(last=False)
            self._bytes -= dropped
