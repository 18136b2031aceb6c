"""The hosted message authority: messages sent into a running turn.

``enqueue`` queues a message for the run currently bound for a session; the run's backend pulls
queued messages at its next step boundary and acks (delivered: the kernel records them as
``user`` messages with ``queued=True``) or nacks them (rejected: a ``message_rejected`` note).
What is still queued when the turn ends is rejected with reason "turn ended". Queues live in
memory: a message that was never delivered is lost with the process that held it.

Each turn's queue is bounded by ``max_messages`` and ``max_bytes`` (UTF-8 bytes of the texts):
a message that would go beyond either is refused with :class:`MessageQueueFullError` and
nothing is queued. A message counts until the backend takes it (``pull``). When the turn ends
its owner is released and nothing of its queue is kept: :meth:`HostedMessageAuthority.pending`
is how much is queued now, over every running turn.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from maka_runtime.kernel.core.backend import QueuedMessage
from maka_runtime.kernel.core.errors import MessageQueueFullError, OperationConflictError
from maka_runtime.kernel.core.interactions.owners import RunIdentity

DEFAULT_MAX_MESSAGES = 100
DEFAULT_MAX_BYTES = 4 * 1024 * 1024


@runtime_checkable
class MessageQueue(Protocol):
    def enqueue(self, identity: RunIdentity, text: str, now: int) -> QueuedMessage: ...


class HostedMessageAuthority:
    def __init__(
        self,
        new_id: Callable[[], str] | None = None,
        *,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        counter = itertools.count(1)
        self._new_id = new_id or (lambda: f"msg-{os.urandom(6).hex()}-{next(counter)}")
        self._owners: dict[str, HostedMessageOwner] = {}
        self.max_messages = max_messages
        self.max_bytes = max_bytes

    def pending(self) -> tuple[int, int]:
        """Messages queued and not yet taken by a backend, and their bytes, over every turn."""
        count = sum(len(owner.queued) for owner in self._owners.values())
        size = sum(owner.queued_bytes for owner in self._owners.values())
        return count, size

    def bind_run(self, identity: RunIdentity) -> HostedMessageOwner:
        owner = HostedMessageOwner(self, identity)
        self._owners[identity.run_id] = owner
        return owner

    def unbind(self, run_id: str) -> None:
        self._owners.pop(run_id, None)

    def enqueue(self, identity: RunIdentity, text: str, now: int) -> QueuedMessage:
        owner = self._owners.get(identity.run_id)
        if owner is None:
            raise OperationConflictError(
                f"turn {identity.turn_id!r} does not accept messages (it is not running)"
            )
        size = len(text.encode("utf-8", "surrogatepass"))
        if len(owner.queued) + 1 > self.max_messages:
            raise MessageQueueFullError(
                identity.turn_id,
                limit_name="max_queued_messages",
                limit=self.max_messages,
                current=len(owner.queued),
            )
        if owner.queued_bytes + size > self.max_bytes:
            raise MessageQueueFullError(
                identity.turn_id,
                limit_name="max_queued_bytes",
                limit=self.max_bytes,
                current=owner.queued_bytes,
            )
        message = QueuedMessage(
            message_id=self._new_id(),
            session_id=identity.session_id,
            turn_id=identity.turn_id,
            text=text,
            queued_at=now,
        )
        owner.queued.append(message)
        owner.queued_bytes += size
        return message


class HostedMessageOwner:
    def __init__(self, authority: HostedMessageAuthority, identity: RunIdentity) -> None:
        self._authority = authority
        self.identity = identity
        self.queued: deque[QueuedMessage] = deque()
        self.queued_bytes = 0
        self.in_flight: dict[str, QueuedMessage] = {}
        self.delivered: list[str] = []
        self.rejected: list[tuple[str, str]] = []

    def pull(self) -> Sequence[QueuedMessage]:
        pulled = list(self.queued)
        self.queued.clear()
        self.queued_bytes = 0
        self.in_flight.update((message.message_id, message) for message in pulled)
        return pulled

    def ack(self, message_ids: Sequence[str]) -> None:
        for message_id in message_ids:
            if self.in_flight.pop(message_id, None) is not None:
                self.delivered.append(message_id)

    def nack(self, message_ids: Sequence[str], reason: str) -> None:
        for message_id in message_ids:
            if self.in_flight.pop(message_id, None) is not None:
                self.rejected.append((message_id, reason))

    def release(self) -> None:
        self._authority.unbind(self.identity.run_id)
