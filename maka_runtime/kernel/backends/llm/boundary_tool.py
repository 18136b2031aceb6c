"""The LLM backend's ``request_sandbox_boundary`` tool: the model asks to widen the session's
execution boundary, naming the smallest expansion and why.

The call raises a sandbox-boundary request carrying the expansion and the justification (in
permission mode ``ask``; ``bypass`` never asks, so the call fails and nothing is widened).
``allow_once`` grants the expansion to the turn's next ``bash`` call only, ``allow_session``
adds it to the session's boundary (a new revision, durable), ``deny`` grants nothing; the
model reads the outcome in the tool result and the turn goes on. An expansion the boundary
already covers is granted at once, unasked.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from maka_runtime.kernel.backends.agent import BashTool, Stopped, TurnControl
from maka_runtime.kernel.core.backend import BackendSendInput, SandboxBoundaryResponse
from maka_runtime.kernel.core.boundary import (
    Boundary,
    BoundaryError,
    Expansion,
    Grant,
    check_path,
    describe,
    expansion,
    missing,
    outside,
    resolve,
)
from maka_runtime.kernel.core.log.events import BackendEvent, SandboxBoundaryRequest, ToolResult

NAME = "request_sandbox_boundary"
MAX_JUSTIFICATION = 4096

SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": NAME,
        "description": (
            "Ask the user to widen the sandbox your commands run in, when a command needs to "
            "write outside the workspace, to write protected metadata (.git, .maka) or to use "
            "the network. Ask for the smallest expansion and say why. If allowed, retry the "
            "command with bash (allowed once: the next bash call only)."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "description": "Absolute paths to grant (at most 32).",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "access": {"type": "string", "enum": ["read", "write"]},
                            "match": {"type": "string", "enum": ["exact", "subtree"]},
                        },
                        "required": ["path"],
                    },
                },
                "network": {"type": "boolean", "description": "Grant the network."},
                "justification": {"type": "string", "description": "Why it is needed."},
            },
            "required": ["justification"],
        },
    },
}


def visible(text: str) -> str:
    """*text* with every character that is not printable (controls and newlines, format and
    bidirectional marks; a space stays) written as a visible ``\\uXXXX`` escape."""
    return "".join(c if c == " " or c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def parse(args: dict[str, Any]) -> tuple[Expansion, str]:
    """The expansion and justification a call asks for (:class:`BoundaryError` says what is
    wrong with them)."""
    justification = args.get("justification")
    if not isinstance(justification, str) or not justification.strip():
        raise BoundaryError('"justification" must be a non-empty string')
    if len(justification.encode()) > MAX_JUSTIFICATION:
        raise BoundaryError(f'"justification" is at most {MAX_JUSTIFICATION} bytes')
    justification = visible(justification.strip())
    paths = args.get("paths") or []
    network = args.get("network") or False
    if not isinstance(paths, list) or not isinstance(network, bool):
        raise BoundaryError('"paths" must be a list and "network" true or false')
    grants = []
    for item in paths:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise BoundaryError('every entry of "paths" needs a "path" string')
        access, match = item.get("access", "write"), item.get("match", "subtree")
        if access not in ("read", "write") or match not in ("exact", "subtree"):
            raise BoundaryError('"access" is read or write, "match" exact or subtree')
        grants.append(
            Grant(path=resolve(check_path(item["path"]), "/"), access=access, match=match)
        )
    return expansion(tuple(grants), network), justification


class BoundaryTool:
    """Runs ``request_sandbox_boundary`` calls for one backend (sharing its :class:`BashTool`,
    which applies an ``allow_once`` grant to its next call)."""

    def __init__(self, control: TurnControl, bash: BashTool) -> None:
        self.control = control
        self.bash = bash

    async def run(
        self, input: BackendSendInput, call_id: str, need: Expansion, justification: str
    ) -> AsyncGenerator[BackendEvent, None]:
        """The request (unless covered) and the call's ``tool_result``."""
        approvals, session_id = self.bash.approvals, input.session_id
        boundary = approvals.boundary(session_id, input.header.boundary)
        need = missing(boundary, need)
        try:
            outside(need, approvals.protected)
        except BoundaryError as error:
            yield self._result(input, call_id, f"not granted: {error}", boundary, error=True)
            return
        if not need:
            yield self._result(input, call_id, "granted: the boundary already covers it", boundary)
            return
        if input.header.permission_mode != "ask":
            text = "not granted: permission mode bypass never widens the boundary"
            yield self._result(input, call_id, text, boundary, error=True)
            return
        request_id = f"{call_id}-boundary"
        waiter = self.control.expect_answer(request_id)
        yield SandboxBoundaryRequest(
            turn_id=input.turn_id,
            request_id=request_id,
            command="",
            cwd=input.header.cwd,
            reason=f"the model asks for {describe(need)}: {justification}",
            expansion=need,
            justification=justification,
            base_revision=boundary.revision,
        )
        try:
            response = await self.control.answer(request_id, waiter)
        except Stopped:
            yield self._result(input, call_id, "not granted: the turn was stopped", boundary, True)
            raise
        assert isinstance(response, SandboxBoundaryResponse)
        yield self._answered(input, call_id, need, boundary, response)

    def _answered(
        self,
        input: BackendSendInput,
        call_id: str,
        need: Expansion,
        boundary: Boundary,
        response: SandboxBoundaryResponse,
    ) -> ToolResult:
        if response.decision == "deny":
            why = f" ({response.reason})" if response.reason else ""
            return self._result(input, call_id, f"denied{why}", boundary, error=True)
        if response.decision == "allow_session" and response.boundary is not None:
            self.bash.approvals.widened(input.session_id, response.boundary)
            text = f"granted for the session (boundary revision {response.boundary.revision})"
            return self._result(input, call_id, text, response.boundary)
        self.control.once = need  # the turn's next bash call only (TurnControl.begin drops it)
        return self._result(input, call_id, "granted once: for the next bash call", boundary)

    @staticmethod
    def _result(
        input: BackendSendInput, call_id: str, text: str, boundary: Boundary, error: bool = False
    ) -> ToolResult:
        return ToolResult(
            turn_id=input.turn_id,
            tool_call_id=call_id,
            output=text,
            is_error=error,
            profile=boundary.profile,
            boundary_revision=boundary.revision,
        )
