"""The in-memory side of one active run: its process, output, and the futures that tell callers
when it is running and when it has ended."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal, TypeAlias

from resource_service.core._child import ChildProcess
from resource_service.core.config import ShellRunConfig
from resource_service.core.output import OutputChunk, OutputLog, OutputStream, TailBuffer
from resource_service.core.pty import PtyRunProcess
from resource_service.core.records import (
    PipesOutput,
    PtyOutput,
    ShellRunOutput,
    ShellRunRecord,
)
from resource_service.core.screen import TerminalScreen
from resource_service.core.termination import TerminationStep

__all__ = ["EndCallback", "LiveRun", "TerminationReason"]

log = logging.getLogger(__name__)

TerminationReason: TypeAlias = Literal["timed_out", "cancelled"]
#: Called exactly once when a run ends, with its terminal record (``None`` if it was lost).
EndCallback = Callable[[ShellRunRecord | None], None]


class LiveRun:
    """One run between creation and its terminal record."""

    def __init__(
        self,
        record: ShellRunRecord,
        config: ShellRunConfig,
        *,
        emit_output: Callable[[OutputChunk], None] | None,
        on_end: EndCallback | None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self.record = record
        #: False until the ``starting`` record is committed; until then nobody may see the run.
        self.inserted = False
        self.process: ChildProcess | None = None
        self.log = OutputLog(config.replay_bytes)
        self.tails: dict[OutputStream, TailBuffer] = {}
        self.screen: TerminalScreen | None = None
        if record.mode == "pty":
            self.screen = TerminalScreen(
                record.output.cols if isinstance(record.output, PtyOutput) else 80,
                record.output.rows if isinstance(record.output, PtyOutput) else 24,
                scrollback=config.scrollback_rows,
                max_pending=config.screen_max_pending,
                respond=self._answer_terminal_query,
            )
        else:
            self.tails = {
                "stdout": TailBuffer(config.stream_tail_bytes),
                "stderr": TailBuffer(config.stream_tail_bytes),
            }
        self._render_slice = config.render_slice_bytes
        self._render_interval = config.render_interval
        self._next_render_at = 0.0
        self._render_scheduled = False
        self._emit_output = emit_output
        self._on_end = on_end
        #: Why the host is ending the run, recorded before any signal is sent.
        self.termination_reason: TerminationReason | None = None
        self.termination_step: TerminationStep | None = None
        self.termination_task: asyncio.Task[TerminationStep] | None = None
        self.supervisor: asyncio.Task[None] | None = None
        self.timeout_handle: asyncio.TimerHandle | None = None
        #: Set once control is closed: termination began or the process exited.
        self.closing = asyncio.Event()
        self.running: asyncio.Future[ShellRunRecord] = loop.create_future()
        self.terminal: asyncio.Future[ShellRunRecord] = loop.create_future()
        # Callers that only observe these futures must not cause "exception never retrieved".
        self.running.add_done_callback(_consume)
        self.terminal.add_done_callback(_consume)

    @property
    def ref(self) -> str:
        return self.record.ref

    @property
    def pty(self) -> PtyRunProcess | None:
        return self.process if isinstance(self.process, PtyRunProcess) else None

    def on_output(self, stream: OutputStream, data: bytes) -> None:
        """Sink for the process readers; runs on the event loop for every read."""
        chunk = self.log.append(stream, data)
        if self.screen is not None:
            self.screen.feed(data)
            if not self._render_scheduled:
                self._render_scheduled = True
                loop = asyncio.get_running_loop()
                delay = self._next_render_at - loop.time()
                if delay <= 0:
                    loop.call_soon(self._render_step)  # quiet terminal: render at once
                else:
                    loop.call_later(delay, self._render_step)
        else:
            self.tails[stream].append(data)
        if self._emit_output is not None:
            try:
                self._emit_output(chunk)
            except Exception:
                log.exception("emit_output callback of %s failed; output continues", self.ref)

    def output(self) -> ShellRunOutput:
        """The output as of now."""
        if self.screen is not None:
            return self.screen.snapshot()
        stdout, stderr = self.tails["stdout"], self.tails["stderr"]
        return PipesOutput(
            stdout=stdout.text(),
            stderr=stderr.text(),
            stdout_truncated=stdout.truncated,
            stderr_truncated=stderr.truncated,
        )

    def snapshot(self) -> ShellRunRecord:
        """The current revision with its live output."""
        if not self.record.active:
            return self.record
        return self.record.with_output(self.output())

    def end(self, record: ShellRunRecord | None) -> None:
        """Run the end callback; exactly once."""
        on_end, self._on_end = self._on_end, None
        if on_end is not None:
            try:
                on_end(record)
            except Exception:
                log.exception("end callback of %s failed", self.ref)

    def _render_step(self) -> None:
        # Rendering is rate-limited (one slice per interval) so that a flood cannot monopolise
        # the event loop: pyte renders well under 1 MB/s. What rendering cannot keep up with
        # is skipped (see screen.py); snapshots render whatever is still queued.
        if self.screen is None:
            return
        loop = asyncio.get_running_loop()
        remaining = self.screen.render(self._render_slice)
        self._next_render_at = loop.time() + self._render_interval
        if remaining:
            loop.call_later(self._render_interval, self._render_step)
        else:
            self._render_scheduled = False

    def _answer_terminal_query(self, answer: str) -> None:
        pty = self.pty
        if pty is not None and not pty.input_closed and not self.closing.is_set():
            try:
                pty.write(answer.encode())
            except Exception:
                log.debug("could not answer a terminal query of %s", self.ref, exc_info=True)


def _consume(future: asyncio.Future[ShellRunRecord]) -> None:
    if not future.cancelled():
        future.exception()
