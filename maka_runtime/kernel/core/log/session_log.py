"""A session's log as the kernel serves it: serialized appends, commit then publish, readers.

Appends to one session go through one writer task, in the order they were submitted: the store
commits (and numbers) the entries, then they are published to a small in-memory ring and every
waiting reader is woken. What is submitted while a commit runs is committed together in the
next transaction (group commit). The writer is kernel-owned, so a caller that is cancelled while
its entries are being committed can never leave them committed but unpublished.

Readers keep only a cursor (the last ``seq`` they saw) and pull: from the ring when it still
covers their cursor, else from the store. Nothing is pushed into per-reader queues, so a slow
reader never blocks the turn that writes, never makes the kernel buffer without bound, and never
loses an entry — it just reads older entries from the store. A reader resuming "after N" sees
every entry once, whether the entries come from the store or live.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Sequence

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.errors import NotFoundError
from maka_runtime.kernel.core.log.events import StoredMessage
from maka_runtime.kernel.core.session import HeaderPatch
from maka_runtime.kernel.core.sizes import clip_entry, wire_size
from maka_runtime.kernel.core.store import SessionStore

#: Entries the ring keeps (RING_BYTES bounds it too): enough that a reader a few thousand small
#: entries behind a fast turn still reads from memory rather than from the store.
RING_SIZE = 4096
#: The ring also holds at most this many bytes (its entries' wire size): it is a cache of the
#: newest entries for live readers, and one stays per session the kernel has seen.
RING_BYTES = 1024 * 1024
READ_BATCH = 256
GROUP_LIMIT = 512
#: The largest entry the log takes (an upper bound of its encoded size); longer texts a
#: backend produced are cut, saying so (see :func:`~maka_runtime.kernel.core.sizes.clip_entry`).
MAX_ENTRY_BYTES = 1024 * 1024


#: One queued submission: its entries, the header patch committed with them, its outcome.
_Submission = tuple[list[StoredMessage], HeaderPatch | None, "asyncio.Future[list[StoredMessage]]"]


def _retrieve(future: asyncio.Future[list[StoredMessage]]) -> None:
    # A submitter that stopped waiting (cancelled) must not leave an unretrieved failure.
    if not future.cancelled():
        future.exception()


class SessionLog:
    def __init__(
        self,
        session_id: str,
        store: SessionStore,
        tasks: TaskOwner,
        ring_size: int = RING_SIZE,
        max_entry_bytes: int = MAX_ENTRY_BYTES,
    ) -> None:
        self.session_id = session_id
        self.max_entry_bytes = max_entry_bytes
        self._store = store
        self._tasks = tasks
        self._queue: deque[_Submission] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._ring: deque[StoredMessage] = deque(maxlen=ring_size)
        self._ring_sizes: deque[int] = deque(maxlen=ring_size)
        self._ring_bytes = 0
        self._waiters: set[asyncio.Future[None]] = set()
        self.last_seq: int | None = None
        self.closed = False
        #: The session was deleted: readers end with :class:`NotFoundError`.
        self.removed = False

    def submit(
        self, messages: Sequence[StoredMessage], header: HeaderPatch | None = None
    ) -> asyncio.Future[list[StoredMessage]]:
        """Queue *messages* for commit; the future gives them stamped once committed.

        Submissions are committed in order by one writer per session. Whatever is queued
        while a commit runs goes into the next transaction together (group commit), so a
        producer that does not wait for each commit is not limited by the commit latency.
        A *header* patch is committed in the same transaction as *messages* (and ends its
        group: what is queued after it goes into the next one).
        """
        result: asyncio.Future[list[StoredMessage]] = asyncio.get_running_loop().create_future()
        result.add_done_callback(_retrieve)
        bounded = [clip_entry(message, self.max_entry_bytes) for message in messages]
        self._queue.append((bounded, header, result))
        if self._writer is None:
            self._writer = self._tasks.spawn(self._write(), name="log-writer")
        return result

    async def append(
        self, messages: Sequence[StoredMessage], header: HeaderPatch | None = None
    ) -> list[StoredMessage]:
        """Commit *messages* (and *header*, in the same transaction), publish them, and
        return them stamped with their ``seq``.

        A caller cancelled meanwhile only stops waiting: the writer commits and publishes the
        entries all the same (it settles only a future still pending)."""
        return await self.submit(messages, header)

    async def _write(self) -> None:
        try:
            while self._queue:
                batch: list[_Submission] = []
                size = 0
                while self._queue and (not batch or size + len(self._queue[0][0]) <= GROUP_LIMIT):
                    submission = self._queue.popleft()
                    batch.append(submission)
                    size += len(submission[0])
                    if submission[1] is not None:
                        break
                await self._commit(batch)
        finally:
            self._writer = None
            for _, _, result in self._queue:
                if not result.done():
                    result.cancel()
            self._queue.clear()

    async def _commit(self, batch: list[_Submission]) -> None:
        entries = [m for messages, _, _ in batch for m in messages]
        header = batch[-1][1]  # only a group's last submission can carry one
        try:
            if self.last_seq is None:
                self.last_seq = await self._store.last_seq(self.session_id)
            if header is None:
                stamped = await self._store.append_messages(self.session_id, entries)
            else:
                stamped = await self._store.append_messages(self.session_id, entries, header=header)
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            if len(batch) > 1:
                # Nothing of the group was written; commit each submission on its own so
                # every caller gets its own outcome.
                for single in batch:
                    await self._commit([single])
                return
            if not batch[0][2].done():
                batch[0][2].set_exception(failure)
            return
        self._publish(stamped)
        offset = 0
        for messages, _, result in batch:
            if not result.done():
                result.set_result(stamped[offset : offset + len(messages)])
            offset += len(messages)

    def _publish(self, stamped: list[StoredMessage]) -> None:
        if not stamped:
            return
        if self.last_seq is not None and stamped[0].seq != self.last_seq + 1:
            # Someone wrote around the kernel (a sweep, another tool): the ring no longer holds
            # a contiguous suffix, so readers fall back to the store for anything older.
            self._ring.clear()
            self._ring_sizes.clear()
            self._ring_bytes = 0
        for entry in stamped:
            if len(self._ring) == self._ring.maxlen:
                self._ring_bytes -= self._ring_sizes[0]
            size = wire_size(entry)
            self._ring.append(entry)
            self._ring_sizes.append(size)
            self._ring_bytes += size
            while self._ring_bytes > RING_BYTES and len(self._ring) > 1:
                self._ring.popleft()
                self._ring_bytes -= self._ring_sizes.popleft()
        self.last_seq = stamped[-1].seq
        self.notify()

    async def read_after(self, after_seq: int, limit: int = READ_BATCH) -> list[StoredMessage]:
        """Up to *limit* committed entries with ``seq > after_seq``, in order."""
        if self.last_seq is not None and after_seq >= self.last_seq:
            return []
        ring = self._ring
        if ring and ring[0].seq <= after_seq + 1:
            return _ring_slice(ring, after_seq + 1 - ring[0].seq, limit)
        return await self._store.read_messages(self.session_id, after_seq=after_seq, limit=limit)

    def has_after(self, seq: int) -> bool:
        return self.last_seq is not None and self.last_seq > seq

    async def wait(self) -> None:
        """Return at the next publish, :meth:`notify` or :meth:`close` (callers re-check)."""
        if self.closed:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await waiter
        finally:
            self._waiters.discard(waiter)

    def notify(self) -> None:
        waiters, self._waiters = self._waiters, set()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def close(self, *, removed: bool = False) -> None:
        """End every reader: cleanly (the kernel drains or closes), or with
        :class:`NotFoundError` when the session was *removed*."""
        self.removed = self.removed or removed
        self.closed = True
        self.notify()


def _ring_slice(ring: deque[StoredMessage], start: int, limit: int) -> list[StoredMessage]:
    """``ring[start:start + limit]``, walking the deque from its nearer end: a reader that
    keeps up reads at the tail of a ring of thousands of entries."""
    after = len(ring) - start  # entries from start to the end
    if after <= start:
        count = min(limit, after)
        newest_first = list(itertools.islice(reversed(ring), after - count, after))
        newest_first.reverse()
        return newest_first
    return list(itertools.islice(ring, start, start + limit))


class SessionWatch:
    """Replays a session's log after a ``seq`` and then follows it live.

    Iteration ends when the log closes. Close it with :meth:`aclose` when done (or just stop
    iterating: it holds no resources but a cursor).
    """

    def __init__(self, log: SessionLog, after_seq: int) -> None:
        self._log = log
        self.cursor = after_seq
        self._buffer: deque[StoredMessage] = deque()
        self._closed = False

    def __aiter__(self) -> SessionWatch:
        return self

    async def __anext__(self) -> StoredMessage:
        while True:
            if self._buffer:
                entry = self._buffer.popleft()
                self.cursor = entry.seq
                return entry
            if self._closed:
                raise StopAsyncIteration
            if self._log.closed:
                if self._log.removed:
                    raise NotFoundError("session", self._log.session_id, "(it was deleted)")
                raise StopAsyncIteration
            batch = await self._log.read_after(self.cursor)
            if batch:
                self._buffer.extend(entry for entry in batch if entry.seq > self.cursor)
                continue
            if not self._log.has_after(self.cursor):
                await self._log.wait()

    async def aclose(self) -> None:
        self._closed = True
        self._buffer.clear()
