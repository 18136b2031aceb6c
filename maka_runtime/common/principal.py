"""Who is calling: the principal a call was authenticated as, and its roles.

Pure Python (no gRPC), so the domain cores can take a :class:`Principal` as a parameter.
The servicer boundary (:mod:`maka_runtime.common.auth`) authenticates each call and makes its
principal available through :func:`current_principal`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

#: May do everything, and sees every session and run (whoever owns them).
ADMIN = "admin"
#: May shut a service down.
OPERATOR = "operator"
#: The kernel's link to the resource service: RegisterSession, ArchiveSession, kernel-mode runs.
KERNEL = "kernel"
#: An ordinary client: sessions, turns, runs.
CLIENT = "client"
ROLES = frozenset({ADMIN, OPERATOR, KERNEL, CLIENT})
#: The principal of the local credential. It owns what the local user creates, and every
#: session and run recorded before ownership was (an empty owner on record means ``local``).
LOCAL = "local"


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: a stable id and the roles granted to it."""

    id: str
    roles: frozenset[str] = frozenset()

    def has_any(self, roles: frozenset[str] | set[str]) -> bool:
        return bool(self.roles & roles)


_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "maka_principal", default=None
)


def current_principal() -> Principal | None:
    """The principal of the call being served (``None`` outside a call, and for health)."""
    return _current.get()


def set_current_principal(principal: Principal | None) -> contextvars.Token[Principal | None]:
    return _current.set(principal)


@contextmanager
def acting_as(principal: Principal | None) -> Iterator[None]:
    """Run the block as *principal* (what the servicer boundary does for each call; core tests
    use it to call a core as a given principal)."""
    token = _current.set(principal)
    try:
        yield
    finally:
        _current.reset(token)


def owner_id(recorded: str) -> str:
    """The owner of a session or run whose record says *recorded* (empty: from before
    ownership was recorded, so the local principal's)."""
    return recorded or LOCAL
