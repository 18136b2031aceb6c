"""Answers that depend only on who calls and a little state: each built once.

``GetServerInfo`` answers with what the process is (its name, version, address, data directory,
start time), which never changes, plus the caller (principal and roles) and a few states
(draining). Building that message — a dozen fields, a ``Timestamp``, a path turned into text —
was most of the call's own CPU, and the call is what probes and load baselines make most. Here
the answer is built the first time a caller asks in a state, and that same message is returned
after; a changed state is a new key, so an answer is never stale.

The message returned is shared between calls: callers must not change it (gRPC only
serializes it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from maka_runtime.common.principal import Principal, current_principal

__all__ = ["PerCaller"]

_State = TypeVar("_State", bound=Hashable)
_Answer = TypeVar("_Answer")

#: Answers kept; all are forgotten when full (principals and states are few).
DEFAULT_LIMIT = 64


class PerCaller(Generic[_State, _Answer]):
    """``build(caller, state)`` once per caller and state (see the module docstring)."""

    def __init__(
        self,
        build: Callable[[Principal | None, _State], _Answer],
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self._build = build
        self._limit = limit
        self._answers: dict[tuple[Principal | None, _State], _Answer] = {}

    def __call__(self, state: _State) -> _Answer:
        """The answer for the current caller (:func:`current_principal`) in *state*."""
        key = (current_principal(), state)
        found = self._answers.get(key)
        if found is None:
            if len(self._answers) >= self._limit:
                self._answers.clear()
            found = self._answers[key] = self._build(*key)
        return found
