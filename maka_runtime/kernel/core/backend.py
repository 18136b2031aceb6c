"""The agent backend protocol and the registry that builds one backend per session.

A backend is a pluggable agent. The kernel calls ``send`` once per turn and iterates the events
it yields; ``stop`` asks it to end the current turn (``immediate``: now; ``after_step``: at the
next step boundary) and returns once the request is accepted; ``dispose`` frees it for good.
Interaction answers come back through ``respond_to_sandbox_boundary`` /
``respond_to_user_question``. Backends never touch the store: the kernel records what they emit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from maka_runtime.kernel.core.boundary import Boundary
from maka_runtime.kernel.core.errors import BackendUnavailableError
from maka_runtime.kernel.core.log.events import BackendEvent, SandboxDecision
from maka_runtime.kernel.core.session import SessionHeader

StopReason = Literal["user_stop", "redirect"]
StopMode = Literal["immediate", "after_step"]
STOP_MODES = ("immediate", "after_step")


@dataclass(frozen=True, kw_only=True, slots=True)
class SandboxBoundaryResponse:
    """The answer to a sandbox-boundary request; ``reason`` explains denials the kernel made."""

    request_id: str
    decision: SandboxDecision
    reason: str = ""
    #: The session's boundary after the answer (``allow_session`` of an expansion: widened,
    #: at its new revision); ``None`` when the kernel did not read it.
    boundary: Boundary | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class UserQuestionResponse:
    """The answer to a user question; ``cancelled`` when it timed out or was closed."""

    request_id: str
    answers: tuple[str, ...] = ()
    cancelled: bool = False
    reason: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class QueuedMessage:
    """A message sent into a running turn, waiting for the backend to pull it."""

    message_id: str
    session_id: str
    turn_id: str
    text: str
    queued_at: int


class TurnInbox(Protocol):
    """Messages sent into the running turn; a backend pulls them at its step boundaries."""

    async def pull(self) -> Sequence[QueuedMessage]: ...

    async def ack(self, message_ids: Sequence[str]) -> None: ...

    async def nack(self, message_ids: Sequence[str], reason: str) -> None: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class BackendSendInput:
    """One turn for the backend to run."""

    session_id: str
    turn_id: str
    text: str
    header: SessionHeader
    inbox: TurnInbox | None = None


class AgentBackend(Protocol):
    """An agent implementation; one instance serves one session (one *generation*)."""

    @property
    def kind(self) -> str: ...

    def send(self, input: BackendSendInput) -> AsyncIterator[BackendEvent]: ...

    async def stop(self, reason: StopReason, mode: StopMode | None = None) -> None: ...

    async def respond_to_sandbox_boundary(self, response: SandboxBoundaryResponse) -> None: ...

    async def respond_to_user_question(self, response: UserQuestionResponse) -> None: ...

    async def dispose(self) -> None: ...


BackendFactory = Callable[[SessionHeader], AgentBackend]


class BackendRegistry:
    """Backend factories by kind; :meth:`build` makes a fresh backend for a session."""

    def __init__(self) -> None:
        self._factories: dict[str, BackendFactory] = {}

    def register(self, kind: str, factory: BackendFactory) -> None:
        self._factories[kind] = factory

    def kinds(self) -> Iterable[str]:
        return tuple(self._factories)

    def knows(self, kind: str) -> bool:
        return kind in self._factories

    def build(self, header: SessionHeader) -> AgentBackend:
        factory = self._factories.get(header.backend)
        if factory is None:
            raise BackendUnavailableError(header.backend, self._factories)
        return factory(header)
