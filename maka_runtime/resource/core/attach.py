"""The rules of one Attach stream: what it sees and who may send controls on it.

An Attach stream is its own client connection. It sees the run's screen and output (replay,
then live) and, once the run has ended, its final record. It may send controls only if it
attached with a controller id: then it holds the run's controller lease (taken at attach, ended
with the stream's connection) and each control goes through the lease like a
``ControlController`` call (sequence order, exact retry). Without one, every control is refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from maka_runtime.resource.core.errors import InvalidRequestError, OperationConflictError
from maka_runtime.resource.core.facade_types import Attachment, ConnectionContext
from maka_runtime.resource.core.kept_output import output_events
from maka_runtime.resource.core.lease import (
    ControllerIdentity,
    ControlRequest,
    ControlResult,
    PtyControl,
)
from maka_runtime.resource.core.output import OutputEvent
from maka_runtime.resource.core.records import PtyOutput, ShellRunRecord

if TYPE_CHECKING:
    from maka_runtime.resource.core.host import ResourceHost
    from maka_runtime.resource.core.supervisor import RunSupervisor

__all__ = ["AttachSession", "attachment"]


async def attachment(
    supervisor: RunSupervisor, session_id: str, ref: str, *, after_sequence: int, coalesce: int
) -> Attachment:
    """The run's screen now and its output after *after_sequence*: replay (from memory or its
    journal), then live until it ends. An ended run replays its kept output (also after a
    restart), then one gap for what was not kept; its record carries the final screen."""
    record = await supervisor.inspect(session_id, ref)
    screen: PtyOutput | None = None
    sequence = 0
    if record.active:
        with contextlib.suppress(OperationConflictError):  # it has just ended
            sequence = supervisor.last_output_sequence(session_id, ref)
            screen = supervisor.screen(session_id, ref) if record.mode == "pty" else None
    # Nothing awaits between the screen and the start of the feed (while the run is live).
    events, ended = await output_events(
        supervisor, session_id, ref, after_sequence=after_sequence, coalesce=coalesce
    )
    if ended is None:
        return Attachment(ref, record, screen, sequence, events)
    screen = ended.output if isinstance(ended.output, PtyOutput) else None
    last = ended.journal.last_sequence if ended.journal else 0
    return Attachment(ref, ended, screen, last, events)


class AttachSession:
    """One attached client: the attachment, its lease (if any) and its controls."""

    def __init__(
        self,
        host: ResourceHost,
        supervisor: RunSupervisor,
        attachment: Attachment,
        connection: ConnectionContext,
        *,
        identity: ControllerIdentity | None,
        next_sequence: int,
    ) -> None:
        self._host = host
        self._supervisor = supervisor
        self._attachment = attachment
        self._connection = connection
        self._identity = identity
        #: The next control sequence the lease expects (0 without a controller).
        self.next_sequence = next_sequence

    @classmethod
    async def open(
        cls,
        host: ResourceHost,
        supervisor: RunSupervisor,
        attachment: Attachment,
        connection: ConnectionContext,
        *,
        controller_id: str,
    ) -> AttachSession:
        """Attach; with *controller_id*, take the run's controller lease for *connection*."""
        identity: ControllerIdentity | None = None
        next_sequence = 0
        if controller_id:
            # The run's own session: the one the stream named may be empty.
            identity = ControllerIdentity(
                attachment.record.session_id, attachment.ref, controller_id
            )
            acquired = await host.acquire_controller(identity, connection)
            next_sequence = acquired.next_sequence
        return cls(
            host, supervisor, attachment, connection, identity=identity, next_sequence=next_sequence
        )

    @property
    def record(self) -> ShellRunRecord:
        """The run as of attach time."""
        return self._attachment.record

    @property
    def screen(self) -> PtyOutput | None:
        return self._attachment.screen

    @property
    def output_sequence(self) -> int:
        return self._attachment.output_sequence

    @property
    def events(self) -> AsyncIterator[OutputEvent]:
        """The run's output after the attach sequence, until the run ends."""
        return self._attachment.events

    async def ended(self) -> ShellRunRecord:
        """The run's terminal record, once it has one."""
        record = self._attachment.record
        return await self._supervisor.wait_terminal(record.session_id, record.ref)

    async def control(self, sequence: int, control: Callable[[], PtyControl]) -> ControlResult:
        """Apply a control of the stream's client: only a stream that attached with a
        controller id may, under its lease. *control* makes the control from what the client
        sent; it is called only once the stream may send controls, so a stream without a
        controller is told that first, whatever it sent."""
        if self._identity is None:
            raise InvalidRequestError(
                "attach with a controller_id to send controls", field="controller_id"
            )
        identity = self._identity
        return await self._host.control_controller(
            ControlRequest(
                identity.session_id, identity.ref, identity.controller_id, sequence, control()
            ),
            self._connection,
        )
