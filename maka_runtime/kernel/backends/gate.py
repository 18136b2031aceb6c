"""The gate every ``bash`` call passes before it runs: the session's boundary, the call's
declared need and the per-command approval (see :mod:`maka_runtime.kernel.backends.needs`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any

from maka_runtime.kernel.backends.approvals import SessionApprovals
from maka_runtime.kernel.backends.bash_call import BashCall, BashOutcome, Denied, Stopped
from maka_runtime.kernel.backends.needs import refused
from maka_runtime.kernel.core.backend import BackendSendInput, SandboxBoundaryResponse
from maka_runtime.kernel.core.boundary import Boundary, Expansion, describe, missing
from maka_runtime.kernel.core.log.events import BackendEvent, SandboxBoundaryRequest, ToolResult


class BoundaryGate:
    """What :class:`~maka_runtime.kernel.backends.agent.BashTool` does before a call runs."""

    control: Any
    approvals: SessionApprovals
    boundary: Boundary
    carried: Expansion
    last: BashOutcome | None

    def _result(
        self, input: BackendSendInput, call: BashCall, output: str, *, error: bool = False
    ) -> ToolResult:
        raise NotImplementedError

    async def _gate(
        self, input: BackendSendInput, call: BashCall
    ) -> AsyncGenerator[BackendEvent, None]:
        """Set :attr:`boundary` for the call's run, asking first where the session's
        permission mode says so; a call refused unrun leaves its outcome in :attr:`last`."""
        header, allowed = input.header, self.approvals.allows(input.session_id, call.command)
        self.boundary = self.approvals.boundary(input.session_id, header.boundary)
        # A once-only grant is the next call's alone, and only in the mode it was given in.
        once, self.control.once = self.control.once, ()
        self.carried = once if header.permission_mode == "ask" else ()
        self.boundary = self.boundary.with_once(self.carried)
        need = missing(self.boundary, call.need)
        if need and header.permission_mode != "ask":
            why = "declared; permission mode bypass never asks to widen the boundary"
            self._result(input, call, f"not run: needs {describe(need)} ({why})", error=True)
            self.last = refused(self.last, need, why)
            assert self.last is not None
            yield self.last.result
            return
        if need or (header.permission_mode == "ask" and not allowed):
            async with contextlib.aclosing(self._approval(input, call, need)) as approval:
                async for event in approval:
                    yield event

    async def _approval(
        self, input: BackendSendInput, call: BashCall, need: Expansion
    ) -> AsyncGenerator[BackendEvent, None]:
        """Ask for the call's sandbox-boundary approval (widening the boundary by *need* when
        it names one); raise unless it is granted. :attr:`boundary` is then what the run gets."""
        request_id = f"{call.call_id}-approval"
        reason = call.reason or "run a shell command"
        widen = f"; it needs {describe(need)}" if need else ""
        waiter = self.control.expect_answer(request_id)
        yield SandboxBoundaryRequest(
            turn_id=input.turn_id,
            request_id=request_id,
            command=call.command,
            cwd=call.cwd or input.header.cwd,
            reason=f"{reason}{widen} (allow_session allows this exact command line)",
            expansion=need,
            justification=call.justification,
            base_revision=self.boundary.revision,
        )
        try:
            response = await self.control.answer(request_id, waiter)
        except Stopped:
            yield self._result(input, call, "not run: the turn was stopped", error=True)
            raise
        assert isinstance(response, SandboxBoundaryResponse)
        if response.decision == "deny":
            why = f" ({response.reason})" if response.reason else ""
            yield self._result(input, call, f"not run: denied{why}", error=True)
            raise Denied(call.command)
        if response.decision == "allow_session":
            self.approvals.allow(input.session_id, call.command)
            if response.boundary is not None:
                self.approvals.widened(input.session_id, response.boundary)
                self.boundary = response.boundary.with_once(self.carried)
        # allow_once (or an expansion the store could not add): this run only.
        once = missing(self.boundary, need)
        self.boundary, self.carried = self.boundary.with_once(once), (*self.carried, *once)
