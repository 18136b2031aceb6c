"""A kernel wired like the server: scripted backend, hosted authorities, a real store."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from maka_runtime.kernel.backends.scripted import KIND, scripted_factory
from maka_runtime.kernel.core import (
    BackendRegistry,
    HostedInteractionAuthority,
    HostedMessageAuthority,
    NewSession,
    RuntimeKernel,
    SessionHeader,
    SessionStore,
)
from maka_runtime.kernel.core.log.events import StoredMessage
from maka_runtime.kernel.core.tools import ToolHost
from maka_runtime.kernel.core.validation import KernelLimits

WORKSPACE = "/tmp/maka-kernel-tests"
# Sessions need a workspace root that exists.
os.makedirs(WORKSPACE, exist_ok=True)


@dataclass
class ManualTimers:
    """A scheduler for answer timeouts that fires only when the test says so."""

    armed: list[tuple[float, Callable[[], None], list[bool]]] = field(default_factory=list)

    def schedule(self, delay: float, callback: Callable[[], None]) -> Any:
        cancelled = [False]
        self.armed.append((delay, callback, cancelled))

        class Handle:
            def cancel(self) -> None:
                cancelled[0] = True

        return Handle()

    def live(self) -> int:
        return sum(not cancelled[0] for _, _, cancelled in self.armed)

    def fire_all(self) -> None:
        for _, callback, cancelled in self.armed:
            if not cancelled[0]:
                cancelled[0] = True
                callback()


@dataclass
class Harness:
    kernel: RuntimeKernel
    store: Any
    interactions: HostedInteractionAuthority
    messages: HostedMessageAuthority
    timers: ManualTimers

    async def session(self, **fields: Any) -> SessionHeader:
        fields.setdefault("workspace_root", WORKSPACE)
        fields.setdefault("backend", KIND)
        return await self.kernel.create_session(NewSession(**fields))

    async def close(self) -> None:
        await self.kernel.close()
        await self.interactions.aclose()


def make_harness(
    store: SessionStore, *, answer_timeout: float | None = None, real_timers: bool = False
) -> Harness:
    backends = BackendRegistry()
    backends.register(KIND, scripted_factory)
    return build_harness(store, backends, answer_timeout=answer_timeout, real_timers=real_timers)


def build_harness(
    store: SessionStore,
    backends: BackendRegistry,
    *,
    answer_timeout: float | None = None,
    real_timers: bool = False,
    tool_host: ToolHost | None = None,
    limits: KernelLimits | None = None,
) -> Harness:
    """A kernel on *store* with *backends*, hosted authorities and a deterministic clock."""
    timers = ManualTimers()
    clock = iter(range(1_000, 10**9))
    now: Callable[[], int] = lambda: next(clock)  # noqa: E731
    interactions = HostedInteractionAuthority(
        store,  # type: ignore[arg-type]
        now=now,
        answer_timeout=answer_timeout,
        schedule=None if real_timers else timers.schedule,
    )
    messages = HostedMessageAuthority()
    kernel = RuntimeKernel(
        store=store,
        backends=backends,
        interaction_authority=interactions,
        message_authority=messages,
        now=now,
        tool_host=tool_host,
        limits=limits,
    )
    return Harness(kernel, store, interactions, messages, timers)


def kinds(entries: list[StoredMessage]) -> list[str]:
    """A compact picture of a log: type, plus status/kind/outcome where it has one."""
    out = []
    for entry in entries:
        detail = getattr(entry, "status", None) or getattr(entry, "kind", None) or ""
        if entry.type == "interaction_resolved":
            detail = entry.outcome
        out.append(f"{entry.type}:{detail}" if detail else entry.type)
    return out
