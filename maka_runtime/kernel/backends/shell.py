"""The shell backend: each user turn is a command, run as a ``bash`` tool call.

The turn text is the command line. It runs on the resource service in the session's working
directory:

* in the foreground over pipes (the default): its output streams as ``tool_output`` and the
  ``tool_result`` carries the exit code; the turn then says how it went in one line of text;
* as a background PTY run when the text starts with ``/bg`` or the program is interactive
  (an editor, a pager, ``top``, a shell or REPL without arguments …): the result reports the
  run's ref at once, and a client attaches to it (``maka attach REF``).

Permission mode ``ask`` raises a sandbox-boundary request before anything runs (command, cwd,
reason); ``deny`` ends the turn with a ``denied`` note and runs nothing; ``allow_session``
allows that exact command line for the rest of the session; ``bypass`` runs at once.

Every run carries the session's execution boundary. ``/net CMD`` and ``/write PATH CMD``
declare what CMD needs beyond it (see :mod:`maka_runtime.kernel.backends.needs`): the request names
the expansion, ``allow_once`` grants it to this run, ``allow_session`` adds it to the session's
boundary. A command whose output reports a path read-only or no network, for what the
boundary does not cover, is asked about once more, naming what it would need and quoting the
line, and run again if allowed.

Messages sent into a running turn are further commands: they run, in order, after the current
one (each is a step). An ``after_step`` stop lets the running command finish; an ``immediate``
stop (or an abandoned turn stream) kills its process group before the stop returns.

Session options (``backend_options``): ``timeout_ms`` — the foreground timeout (default: the
resource service's, two minutes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable

from maka_runtime.kernel.backends.agent import (
    BashCall,
    BashTool,
    ControlledBackend,
    Denied,
    SessionApprovals,
    Stopped,
    TurnControl,
    program_of,
)
from maka_runtime.kernel.backends.factories import SHELL, STOP_CONFIRM_TIMEOUT
from maka_runtime.kernel.backends.needs import Declared, declared
from maka_runtime.kernel.core.backend import (
    BackendSendInput,
)
from maka_runtime.kernel.core.boundary import BOUNDARY_REQUIRED, BoundaryError
from maka_runtime.kernel.core.log.events import BackendEvent, Complete, TextDelta
from maka_runtime.kernel.core.session import SessionHeader
from maka_runtime.kernel.core.tool_output import DEFAULT_BUDGET_BYTES
from maka_runtime.kernel.core.tools import ToolHost

KIND = SHELL
BACKGROUND_PREFIX = "/bg"
#: Programs that need a terminal: they start as background PTY runs.
INTERACTIVE = frozenset(
    {
        "vi",
        "vim",
        "nvim",
        "nano",
        "emacs",
        "top",
        "htop",
        "less",
        "more",
        "man",
        "watch",
        "tmux",
        "screen",
        "ssh",
    }
)
#: Programs that are interactive when run without arguments (shells and REPLs).
REPLS = frozenset(
    {"bash", "sh", "zsh", "fish", "python", "python3", "node", "irb", "psql", "sqlite3", "mysql"}
)


def wants_terminal(command: str) -> bool:
    program = program_of(command)
    if program in INTERACTIVE:
        return True
    return program in REPLS and command.strip() == program


def parse_timeout(header: SessionHeader) -> int | None:
    raw = header.backend_options.get("timeout_ms", "")
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 600_000:
        raise ValueError(f"backend option timeout_ms must be 1..600000, not {raw!r}")
    return int(raw)


class ShellBackend(ControlledBackend):
    """One session's shell agent (see the module docstring)."""

    kind = KIND

    def __init__(
        self,
        header: SessionHeader,
        host: ToolHost | None,
        approvals: SessionApprovals,
        *,
        confirm_timeout: float = STOP_CONFIRM_TIMEOUT,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
    ) -> None:
        self.header = header
        self.control = TurnControl(host, confirm_timeout)
        self.bash = BashTool(host, self.control, approvals, budget_bytes)

    async def send(self, input: BackendSendInput) -> AsyncIterator[BackendEvent]:
        self.control.begin(input.session_id)
        timeout_ms = parse_timeout(input.header)
        commands = [input.text]
        step = 0
        stop_reason = "end_turn"
        try:
            while commands:
                self.control.boundary()
                step += 1
                async for event in self._step(input, step, commands.pop(0), timeout_ms):
                    yield event
                self.control.boundary()
                if input.inbox is not None:
                    queued = await input.inbox.pull()
                    if queued:
                        await input.inbox.ack([message.message_id for message in queued])
                        commands.extend(message.text for message in queued)
        except Stopped:
            stop_reason = self.control.stop_reason or "user_stop"
        except Denied:
            stop_reason = "denied"
        yield Complete(turn_id=input.turn_id, stop_reason=stop_reason)

    async def _step(
        self, input: BackendSendInput, step: int, text: str, timeout_ms: int | None
    ) -> AsyncIterator[BackendEvent]:
        command = text.strip()
        background = False
        if command == BACKGROUND_PREFIX or command.startswith(BACKGROUND_PREFIX + " "):
            command = command[len(BACKGROUND_PREFIX) :].strip()
            background = True
        background = background or wants_terminal(command)
        say: Callable[[str], TextDelta] = lambda text: TextDelta(  # noqa: E731
            turn_id=input.turn_id, message_id=f"{input.turn_id}-msg-{step}", text=text
        )
        try:
            wanted = declared(command, input.header.cwd, self.bash.approvals.protected)
        except BoundaryError as error:
            yield say(f"nothing run: {error}")
            return
        command = wanted.command
        if not command:
            yield say("nothing to run: the command is empty")
            return
        call = BashCall(
            call_id=f"{input.turn_id}-bash-{step}",
            command=command,
            background=background,
            pty=True,
            timeout_ms=None if background else timeout_ms,
            reason="the shell backend runs the turn's command",
            need=wanted.need,
            justification=_declared_why(wanted),
        )
        async for event in self.bash.run(input, call):
            yield event
        retry = self._retry(input, call)
        if retry is not None:
            async for event in self.bash.run(input, retry):
                yield event
        outcome = self.bash.last
        if outcome is None or outcome.run is None:
            return
        run = outcome.run
        if background:
            yield say(f"started `{command}` in the background as {run.ref}")
        elif run.status in ("completed", "failed") and run.exit_code is not None:
            yield say(f"`{command}` exited with {run.exit_code}")
        else:
            yield say(f"`{command}` {run.status}" + (f": {run.message}" if run.message else ""))

    def _retry(self, input: BackendSendInput, call: BashCall) -> BashCall | None:
        """The call again with the need its run's sandbox refusal showed (asked for first), or
        ``None``: the run did not fail on the boundary, it had declared its needs (asked
        already), or the session never asks."""
        outcome = self.bash.last
        if outcome is None or call.need or input.header.permission_mode != "ask":
            return None
        result = outcome.result
        if result.sandbox_failure != BOUNDARY_REQUIRED:
            return None
        return dataclasses.replace(
            call,
            call_id=f"{call.call_id}-retry",
            need=result.required_expansion,
            justification=result.failure_detail,
        )


def _declared_why(wanted: Declared) -> str:
    """The justification of a declared need, naming the paths as written when they resolved
    to other ones."""
    if not wanted.need:
        return ""
    return "declared with the command" + (f" ({wanted.resolved})" if wanted.resolved else "")


def shell_factory(
    host: ToolHost | None,
    approvals: SessionApprovals,
    confirm_timeout: float = STOP_CONFIRM_TIMEOUT,
    budget_bytes: int = DEFAULT_BUDGET_BYTES,
) -> Callable[[SessionHeader], ShellBackend]:
    """A registry factory: every session's shell backend shares *host* and *approvals*;
    *confirm_timeout* bounds an immediate stop's confirmation (``--stop-confirm-timeout``) and
    *budget_bytes* is what each stream of a tool call's output keeps."""
    return lambda header: ShellBackend(
        header, host, approvals, confirm_timeout=confirm_timeout, budget_bytes=budget_bytes
    )
