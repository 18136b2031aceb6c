"""Controller leases: which client connection may drive an active PTY run, and in what order.

A lease belongs to one *holder*: a connection and a controller id. The rules, exactly as the
spec's host has them:

* a second holder is refused (``operation_conflict``); the same holder acquiring again gets its
  existing lease back (idempotent);
* each control carries ``sequence``, which must be exactly the next one (the first is 1);
* an exact retry (same sequence, same payload) returns the identical earlier result; the same
  sequence with another payload is a conflict;
* a lease ends on release, when its connection goes away, or when the run stops accepting
  control (termination began or the process exited). After that, release answers
  ``released=False``; control by the former holder is a :class:`ShellRunPtyControlClosedError`
  (a conflict, never a host failure), except that an exact retry of a control applied before
  the run closed still returns its result.

This module is bookkeeping only: no I/O, no awaits, so each check-and-update is atomic on the
event loop.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

from maka_runtime.resource.core.errors import (
    InvalidRequestError,
    OperationConflictError,
    ShellRunPtyControlClosedError,
)
from maka_runtime.resource.core.records import PtyOutput, parse_ref
from maka_runtime.resource.core.requests import (
    MAX_INPUT_BYTES,
    check_controller_id,
    check_session_id,
    check_size,
)

__all__ = [
    "ControlKind",
    "ControlRequest",
    "ControlResult",
    "ControllerAcquireResult",
    "ControllerIdentity",
    "ControllerLeases",
    "ControllerReleaseResult",
    "PtyControl",
]

ControlKind: TypeAlias = Literal["input", "resize", "both"]
_KEPT_RESULTS: Final = 64
_KEPT_CLOSED: Final = 1024


@dataclass(frozen=True)
class PtyControl:
    """Input, a resize, or both (the resize is applied first)."""

    kind: ControlKind
    input: str = ""
    cols: int = 0
    rows: int = 0

    def check(self) -> None:
        if self.kind not in ("input", "resize", "both"):
            raise InvalidRequestError(
                "control kind must be input, resize or both", field="control.kind"
            )
        if self.kind in ("input", "both"):
            size = len(self.input.encode())
            if size == 0:
                raise InvalidRequestError("input must not be empty", field="control.input")
            if size > MAX_INPUT_BYTES:
                raise InvalidRequestError(
                    f"input is {size} bytes; at most {MAX_INPUT_BYTES} per control",
                    field="control.input",
                    limit=MAX_INPUT_BYTES,
                )
        elif self.input:
            raise InvalidRequestError(
                "a resize control carries no input; use kind both", field="control.input"
            )
        if self.kind in ("resize", "both"):
            check_size(self.cols, self.rows, prefix="control.")

    @property
    def input_bytes(self) -> bytes:
        return self.input.encode() if self.kind != "resize" else b""

    def fingerprint(self) -> bytes:
        """Equal for equal controls; what a lease remembers instead of up to 32 KiB of input."""
        digest = hashlib.sha256(f"{self.kind}\0{self.cols}\0{self.rows}\0".encode())
        digest.update(self.input.encode())
        return digest.digest()


@dataclass(frozen=True)
class ControllerIdentity:
    session_id: str
    ref: str
    controller_id: str

    def check(self) -> None:
        """Refuse a malformed identity; its session may be empty (a ref names its run)."""
        if self.session_id:
            check_session_id(self.session_id)
        parse_ref(self.ref)
        check_controller_id(self.controller_id)


@dataclass(frozen=True)
class ControlRequest:
    session_id: str
    ref: str
    controller_id: str
    sequence: int
    control: PtyControl

    @property
    def identity(self) -> ControllerIdentity:
        return ControllerIdentity(self.session_id, self.ref, self.controller_id)


@dataclass(frozen=True)
class ControllerAcquireResult:
    controller_id: str
    ref: str
    #: The sequence the next control must carry.
    next_sequence: int
    #: The screen at the moment of acquisition.
    screen: PtyOutput
    #: The run's newest output chunk sequence at that moment (attach from here).
    output_sequence: int


@dataclass(frozen=True)
class ControlResult:
    controller_id: str
    sequence: int
    #: Bytes of input queued for the program (0 for a resize).
    input_bytes: int
    #: Terminal size after the control.
    cols: int
    rows: int


@dataclass(frozen=True)
class ControllerReleaseResult:
    controller_id: str
    #: False when this holder held no lease (already released, dropped, or never acquired).
    released: bool


@dataclass(frozen=True)
class _Holder:
    connection_id: str
    controller_id: str


@dataclass
class _Lease:
    holder: _Holder
    next_sequence: int = 1
    #: Applied controls by sequence: a fingerprint of the payload and the result.
    results: OrderedDict[int, tuple[bytes, ControlResult]] = field(default_factory=OrderedDict)


class ControllerLeases:
    """The lease table of one host."""

    def __init__(self) -> None:
        self._leases: dict[str, _Lease] = {}
        # Leases that ended because their run closed, by (ref, holder): an exact retry of an
        # applied control still gets its result, anything else the precise "terminal is
        # closing" conflict rather than "you hold no lease".
        self._closed: OrderedDict[tuple[str, _Holder], _Lease] = OrderedDict()

    def __len__(self) -> int:
        return len(self._leases)

    def holder(self, ref: str) -> tuple[str, str] | None:
        """(connection id, controller id) of the current holder of *ref*."""
        lease = self._leases.get(ref)
        return None if lease is None else (lease.holder.connection_id, lease.holder.controller_id)

    def acquire(self, ref: str, connection_id: str, controller_id: str) -> int:
        """Take (or re-take) the lease; returns the next sequence."""
        holder = _Holder(connection_id, controller_id)
        lease = self._leases.get(ref)
        if lease is None:
            lease = self._leases[ref] = _Lease(holder)
            self._closed.pop((ref, holder), None)
        elif lease.holder != holder:
            raise OperationConflictError(
                f"{ref} is controlled by controller {lease.holder.controller_id!r} on another "
                "connection; wait for it to release"
                if lease.holder.connection_id != connection_id
                else f"{ref} is controlled by controller {lease.holder.controller_id!r}"
            )
        return lease.next_sequence

    def check_control(
        self, ref: str, connection_id: str, controller_id: str, sequence: int, control: PtyControl
    ) -> ControlResult | None:
        """The earlier result for an exact retry, ``None`` if the control should be applied
        now, or a conflict."""
        holder = _Holder(connection_id, controller_id)
        lease = self._leases.get(ref)
        if lease is None or lease.holder != holder:
            closed = self._closed.get((ref, holder))
            if closed is not None:
                earlier = closed.results.get(sequence)
                if earlier is not None and earlier[0] == control.fingerprint():
                    return earlier[1]  # a retry of a control applied before the run closed
                raise ShellRunPtyControlClosedError(
                    f"the terminal of {ref} is closing or has ended; the lease was dropped"
                )
            if lease is None:
                raise OperationConflictError(
                    f"controller {controller_id!r} holds no lease on {ref}; acquire it first"
                )
            raise OperationConflictError(
                f"{ref} is controlled by controller {lease.holder.controller_id!r}"
            )
        if sequence == lease.next_sequence:
            return None
        earlier = lease.results.get(sequence)
        if earlier is not None:
            if earlier[0] == control.fingerprint():
                return earlier[1]
            raise OperationConflictError(
                f"sequence {sequence} was already used with a different control"
            )
        raise OperationConflictError(
            f"sequence {sequence} is out of order; the next sequence is {lease.next_sequence}"
        )

    def record(
        self,
        ref: str,
        connection_id: str,
        controller_id: str,
        control: PtyControl,
        result: ControlResult,
    ) -> None:
        """Remember an applied control and advance the sequence."""
        lease = self._leases.get(ref)
        if lease is None or lease.holder != _Holder(connection_id, controller_id):
            return  # the lease ended while the control was applied
        lease.results[result.sequence] = (control.fingerprint(), result)
        while len(lease.results) > _KEPT_RESULTS:
            lease.results.popitem(last=False)
        lease.next_sequence = result.sequence + 1

    def release(self, ref: str, connection_id: str, controller_id: str) -> bool:
        holder = _Holder(connection_id, controller_id)
        self._closed.pop((ref, holder), None)
        lease = self._leases.get(ref)
        if lease is None or lease.holder != holder:
            return False
        del self._leases[ref]
        return True

    def drop_run(self, ref: str) -> bool:
        """The run stopped accepting control: end its lease, remembering the holder."""
        lease = self._leases.pop(ref, None)
        if lease is None:
            return False
        self._closed[(ref, lease.holder)] = lease
        while len(self._closed) > _KEPT_CLOSED:
            self._closed.popitem(last=False)
        return True

    def drop_connection(self, connection_id: str) -> list[str]:
        """End every lease held through *connection_id*; returns their refs."""
        refs = [
            ref
            for ref, lease in self._leases.items()
            if lease.holder.connection_id == connection_id
        ]
        for ref in refs:
            del self._leases[ref]
        for key in [key for key in self._closed if key[1].connection_id == connection_id]:
            del self._closed[key]
        return refs

    def drop_all(self) -> int:
        """End every lease (the host is draining)."""
        count = len(self._leases)
        for ref in list(self._leases):
            self.drop_run(ref)
        return count
