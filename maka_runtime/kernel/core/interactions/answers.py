"""What clients send into a running turn: answers to its interaction requests, queued messages.

Answers go through the hosted interaction authority (durable, answered once, see
:mod:`.authority`); without one, the legacy direct responder hands a user question's answer to
the run. Messages are queued only into a turn that is on the record, not stopped and not
settled, and only while the kernel admits work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from maka_runtime.kernel.core.backend import QueuedMessage
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import (
    HostDrainingError,
    NotFoundError,
    OperationConflictError,
    RuntimeInteractionInvariantError,
)
from maka_runtime.kernel.core.interactions.authority import AnsweringAuthority, legacy_answer
from maka_runtime.kernel.core.interactions.messaging import HostedMessageAuthority, MessageQueue
from maka_runtime.kernel.core.sessions import SessionTable
from maka_runtime.kernel.core.store import InteractionRecord
from maka_runtime.kernel.core.turns.recording import TurnRecorder
from maka_runtime.kernel.core.turns.run import Run
from maka_runtime.kernel.core.validation import (
    KernelLimits,
    check_answers,
    check_id,
    check_length,
    check_text,
)


class TurnInteractions:
    def __init__(
        self,
        deps: KernelDeps,
        sessions: SessionTable,
        recorder: TurnRecorder,
        limits: KernelLimits,
        draining: Callable[[], bool],
    ) -> None:
        self._deps = deps
        self._sessions = sessions
        self._recorder = recorder
        self._limits = limits
        self._draining = draining

    def _answering(self) -> AnsweringAuthority:
        authority = self._deps.interaction_authority
        if not isinstance(authority, AnsweringAuthority):
            raise RuntimeInteractionInvariantError(
                "no hosted interaction authority is configured to take answers"
            )
        return authority

    async def answer_sandbox_boundary(
        self, session_id: str, request_id: str, decision: str, *, reason: str = ""
    ) -> InteractionRecord:
        """Answer a pending sandbox-boundary request through the hosted authority (once)."""
        check_id("session_id", session_id)
        check_id("request_id", request_id)
        check_length("reason", reason)
        authority = self._answering()
        return await authority.answer_sandbox_boundary(session_id, request_id, decision, reason)

    async def answer_user_question(
        self, session_id: str, request_id: str, answers: Sequence[str]
    ) -> InteractionRecord:
        """Answer a pending user question through the hosted authority (once)."""
        check_id("session_id", session_id)
        check_id("request_id", request_id)
        answers = check_answers(answers, self._limits.max_text_bytes)
        authority = self._answering()
        return await authority.answer_user_question(session_id, request_id, answers)

    async def respond_to_user_question(
        self, session_id: str, request_id: str, answers: Sequence[str]
    ) -> None:
        """The legacy direct responder: only valid when no hosted authority is configured.

        With a hosted authority, answers must go through it (durable, answered once), so this
        path fails closed with :class:`RuntimeInteractionInvariantError`.
        """
        if self._deps.interaction_authority is not None:
            raise RuntimeInteractionInvariantError(
                "a hosted interaction authority is configured; answer user questions through it"
            )
        check_id("session_id", session_id)
        answers = check_answers(answers, self._limits.max_text_bytes)
        run = self._sessions.active_run(session_id)
        if run is None or run.pending_requests.get(request_id) != "user_question":
            raise NotFoundError("user question", request_id, f"in session {session_id!r}")
        answer = legacy_answer(run, request_id, answers, self._deps.now())
        await self._recorder.deliver(run, answer)

    async def send_message(self, session_id: str, text: str, *, turn_id: str = "") -> QueuedMessage:
        """Queue *text* for the running turn; its backend pulls it at its next step."""
        check_id("session_id", session_id)
        check_text("text", text, self._limits.max_text_bytes)
        if turn_id:
            check_id("turn_id", turn_id)
        if self._draining():
            raise HostDrainingError()
        authority = self._deps.message_authority
        if not isinstance(authority, MessageQueue):
            raise RuntimeInteractionInvariantError("no hosted message authority is configured")
        await self._deps.store.read_header(session_id)
        run = self._running(session_id)
        if turn_id and run.turn_id != turn_id:
            raise OperationConflictError(
                f"turn {turn_id!r} is not running in session {session_id!r} "
                f"(running: {run.turn_id!r})"
            )
        return authority.enqueue(run.identity, text, self._deps.now())

    def pending_messages(self) -> tuple[int, int]:
        """Messages queued into running turns and not yet taken by a backend, and their bytes
        (0, 0 without a hosted message authority)."""
        authority = self._deps.message_authority
        if isinstance(authority, HostedMessageAuthority):
            return authority.pending()
        return 0, 0

    def _running(self, session_id: str) -> Run:
        run = self._sessions.active_run(session_id)
        if run is None or not run.on_record or run.stopped or run.settled.is_set():
            raise OperationConflictError(f"session {session_id!r} has no running turn")
        return run
