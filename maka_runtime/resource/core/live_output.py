"""The output side of one live run: its replay log, its stream tails (pipes) or its terminal
screen (PTY), rendered at a bounded rate."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from maka_runtime.resource.core.config import ShellRunConfig
from maka_runtime.resource.core.journal import JournalReader, JournalWriter
from maka_runtime.resource.core.output import (
    OutputChunk,
    OutputEvent,
    OutputLog,
    OutputStream,
    TailBuffer,
)
from maka_runtime.resource.core.output_counts import JournalSummary
from maka_runtime.resource.core.output_follow import check_after, follow_live
from maka_runtime.resource.core.records import (
    PipesOutput,
    PtyOutput,
    ShellRunOutput,
    ShellRunRecord,
)

if TYPE_CHECKING:
    from maka_runtime.resource.core.screen import TerminalScreen

__all__ = ["RunOutput"]

log = logging.getLogger(__name__)


class RunOutput:
    """What a run printed: every chunk goes to the replay log, the journal, and to the tails or
    the screen."""

    def __init__(
        self,
        record: ShellRunRecord,
        config: ShellRunConfig,
        *,
        journal: JournalWriter,
        open_journal: Callable[[], JournalReader | None],
        emit_output: Callable[[OutputChunk], None] | None,
        respond: Callable[[str], None],
    ) -> None:
        self.ref = record.ref
        self.log = OutputLog(config.replay_bytes)
        self.journal = journal
        self._open_journal = open_journal
        self.tails: dict[OutputStream, TailBuffer] = {}
        self.screen: TerminalScreen | None = None
        if record.mode == "pty":
            # Imported with the first PTY run: the emulator is a fifth of the start-up imports.
            from maka_runtime.resource.core.screen import TerminalScreen

            self.screen = TerminalScreen(
                record.output.cols if isinstance(record.output, PtyOutput) else 80,
                record.output.rows if isinstance(record.output, PtyOutput) else 24,
                scrollback=config.scrollback_rows,
                max_pending=config.screen_max_pending,
                respond=respond,
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

    def on_output(self, stream: OutputStream, data: bytes) -> None:
        """Sink for the process readers; runs on the event loop for every read."""
        chunk = self.log.append(stream, data)
        self.journal.append(chunk.sequence, stream, data)
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

    def snapshot(self) -> ShellRunOutput:
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

    def follow(self, after_sequence: int, *, coalesce: int) -> AsyncIterator[OutputEvent]:
        """Output after *after_sequence*: from memory or the journal, then live, until the run
        ends (the position is checked at once)."""
        log_, journal = self.log, self.journal
        known = log_.before(after_sequence + 1) is not None
        check_after(after_sequence, log_.last_sequence, journal.kept_sequence, known)
        return follow_live(log_, journal, self._open_journal, after_sequence, coalesce=coalesce)

    def close(self) -> JournalSummary:
        """No more output: followers end after the last chunk; the journal is complete."""
        self.log.close()
        return self.journal.close()

    def _render_step(self) -> None:
        # Rendering is rate-limited (one slice per interval) so that a flood cannot monopolise
        # the event loop: pyte renders well under 1 MB/s. What rendering cannot keep up with
        # is skipped, and while it is, no slice is drawn (see screen.py); snapshots render
        # whatever is still queued.
        if self.screen is None:
            return
        loop = asyncio.get_running_loop()
        remaining = self.screen.render_slice(self._render_slice)
        self._next_render_at = loop.time() + self._render_interval
        if remaining:
            loop.call_later(self._render_interval, self._render_step)
        else:
            self._render_scheduled = False
