"""The hosted message authority: messages sent into a running turn.

``enqueue`` queues a message for the run currently bound for a session; the run's backend pulls
queued messages at its next step boundary and acks (delivered: the kernel records them as
``user`` messages with ``queued=True``) or nacks them (rejected: a ``message_rejected`` note).
What is still queued when the turn ends is rejected with reason "turn ended". Queues live in
memory: a message that was never delivered is lost with the process that held it.
"""

from __future__ import annotations

import itertools
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from kernel_service.core.backend import QueuedMessage
from kernel_service.core.errors import OperationConflictError
from kernel_service.core.owners import RunIdentity


@runtime_checkable
class MessageQueue(Protocol):
    def enqueue(self, identity: RunIdentity, text: str, now: int) -> QueuedMessage: ...


class HostedMessageAuthority:
    def __init__(self, new_id: Callable[[], str] | None = None) -> None:
        counter = itertools.count(1)
        self._new_id = new_id or (lambda: f"msg-{uuid.uuid4().hex[:12]}-{next(counter)}")
        self._owners: dict[str, HostedMessageOwner] = {}

    def bind_run(self, identity: RunIdentity) -> HostedMessageOwner:
        owner = HostedMessageOwner(self, identity)
        self._owners[identity.run_id] = owner
        return owner

    def enqueue(self, identity: RunIdentity, text: str, now: int) -> QueuedMessage:
        owner = self._owners.get(identity.run_id)
        if owner is None:
            raise OperationConflictError(
                f"turn {identity.turn_id!r} does not accept messages (it is not running)"
            )
        message = QueuedMessage(
            message_id=self._new_id(),
            session_id=identity.session_id,
            turn_id=identity.turn_id,
            text=text,
            queued_at=now,
        )
        owner.queued.append(message)
        return message


class HostedMessageOwner:
    def __init__(self, authority: HostedMessageAuthority, identity: RunIdentity) -> None:
        self._authority = authority
        self.identity = identity
        self.queued: deque[QueuedMessage] = deque()
        self.in_flight: dict[str, QueuedMessage] = {}
        self.delivered: list[str] = []
        self.rejected: list[tuple[str, str]] = []

    def pull(self) -> Sequence[QueuedMessage]:
        pulled = list(self.queued)
        self.queued.clear()
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
        self._authority._owners.pop(self.identity.run_id, None)
