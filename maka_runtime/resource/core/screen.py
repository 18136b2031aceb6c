"""A PTY run's screen, rendered by a real terminal emulator (pyte).

Bytes from the PTY are queued cheaply as they are read and rendered later in bounded slices
(:meth:`TerminalScreen.render`) or all at once when someone needs a snapshot. pyte renders well
under 1 MB/s, so the queue is bounded: when output arrives faster than it can be rendered, the
screen *skips ahead* to the newest half of ``max_pending`` bytes, cut at a line boundary, and
counts what it skipped (``skipped_bytes``). The replay log still holds the exact bytes; only the
server's rendering of a flood is approximate, and only about state that scrolled away inside the
skipped part.
"""

from __future__ import annotations

import codecs
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any, Final

import pyte
from pyte.screens import Char, Margins, StaticDefaultDict
from wcwidth import wcwidth

from maka_runtime.resource.core.records import PtyOutput
from maka_runtime.resource.core.screen_limits import DEFAULT_MAX_PENDING, DEFAULT_SCROLLBACK

__all__ = ["DEFAULT_MAX_PENDING", "DEFAULT_SCROLLBACK", "TerminalScreen"]

# Private modes that switch to the alternate screen (xterm): 47, 1047, and 1049 (which also
# saves the cursor).
_ALTERNATE_MODES: Final = frozenset({47, 1047, 1049})

_Line = StaticDefaultDict[int, Char]


def _render_line(line: _Line, columns: int) -> str:
    chars: list[str] = []
    wide = False
    for x in range(columns):
        if wide:  # the stub cell after a double-width character
            wide = False
            continue
        char = line[x].data
        wide = bool(char) and wcwidth(char[0]) == 2
        chars.append(char)
    return "".join(chars).rstrip()


class _Screen(pyte.Screen):
    """pyte's screen plus bounded scrollback and an alternate screen buffer."""

    def __init__(
        self, columns: int, lines: int, scrollback: int, respond: Callable[[str], None] | None
    ) -> None:
        self.scrollback: deque[_Line] = deque(maxlen=scrollback)
        self.alternate = False
        self._saved_main: tuple[Any, pyte.screens.Cursor] | None = None
        self._respond = respond
        super().__init__(columns, lines)

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y == bottom and top == 0 and not self.alternate:
            self.scrollback.append(self.buffer[top])
        super().index()

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private") and _ALTERNATE_MODES.intersection(modes):
            self._enter_alternate()
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private") and _ALTERNATE_MODES.intersection(modes):
            self._leave_alternate()
        super().reset_mode(*modes, **kwargs)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        super().erase_in_display(how, *args, **kwargs)
        if how == 3:  # "clear scrollback" (xterm)
            self.scrollback.clear()

    def reset(self) -> None:
        self.alternate = False
        self._saved_main = None
        super().reset()

    def write_process_input(self, data: str) -> None:
        # Answers to device status / attribute queries go back to the program, as a terminal's
        # would; programs that ask for the cursor position otherwise hang.
        if self._respond is not None:
            self._respond(data)

    def _enter_alternate(self) -> None:
        if self.alternate:
            return
        cursor = pyte.screens.Cursor(self.cursor.x, self.cursor.y, self.cursor.attrs)
        cursor.hidden = self.cursor.hidden
        self._saved_main = (self.buffer, cursor)
        self.buffer = self._fresh_buffer()
        self.alternate = True
        self.dirty.update(range(self.lines))

    def _leave_alternate(self) -> None:
        if not self.alternate or self._saved_main is None:
            return
        self.buffer, self.cursor = self._saved_main
        self._saved_main = None
        self.alternate = False
        self.ensure_hbounds()
        self.ensure_vbounds()
        self.dirty.update(range(self.lines))

    def _fresh_buffer(self) -> Any:
        return defaultdict(lambda: StaticDefaultDict[int, Char](self.default_char))


class TerminalScreen:
    """The emulated terminal of one PTY run.

    *respond* receives the terminal's answers to queries (cursor position reports) so they can
    be written back to the PTY.
    """

    def __init__(
        self,
        cols: int,
        rows: int,
        *,
        scrollback: int = DEFAULT_SCROLLBACK,
        max_pending: int = DEFAULT_MAX_PENDING,
        respond: Callable[[str], None] | None = None,
    ) -> None:
        self._screen = _Screen(cols, rows, scrollback, respond)
        self._stream = pyte.Stream(self._screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = bytearray()
        self._max_pending = max_pending
        #: Bytes never rendered because output outran the emulator.
        self.skipped_bytes = 0

    @property
    def cols(self) -> int:
        return int(self._screen.columns)

    @property
    def rows(self) -> int:
        return int(self._screen.lines)

    @property
    def pending(self) -> int:
        """Bytes queued but not yet rendered."""
        return len(self._pending)

    def feed(self, data: bytes) -> None:
        """Queue output for rendering (cheap; never renders)."""
        self._pending += data
        if len(self._pending) > self._max_pending:
            self._skip_ahead()

    def render(self, max_bytes: int | None = None) -> int:
        """Render up to *max_bytes* queued bytes (all if ``None``); return how many remain."""
        if not self._pending:
            return 0
        if max_bytes is None or max_bytes >= len(self._pending):
            data = bytes(self._pending)
            self._pending.clear()
        else:
            data = bytes(self._pending[:max_bytes])
            del self._pending[:max_bytes]
        text = self._decoder.decode(data)
        if text:
            self._stream.feed(text)
        return len(self._pending)

    def resize(self, cols: int, rows: int) -> None:
        self.render()
        self._screen.resize(lines=rows, columns=cols)

    def snapshot(self) -> PtyOutput:
        """Render everything queued and describe the screen."""
        self.render()
        screen = self._screen
        columns = screen.columns
        return PtyOutput(
            cols=columns,
            rows=screen.lines,
            screen=tuple(_render_line(screen.buffer[y], columns) for y in range(screen.lines)),
            scrollback=tuple(_render_line(line, columns) for line in screen.scrollback),
            cursor_row=screen.cursor.y,
            cursor_col=screen.cursor.x,
            cursor_visible=not screen.cursor.hidden,
            alternate_screen=screen.alternate,
        )

    def _skip_ahead(self) -> None:
        keep = self._max_pending // 2
        cut = len(self._pending) - keep
        newline = self._pending.find(b"\n", cut)
        if newline != -1 and newline + 1 < len(self._pending):
            cut = newline + 1
        self.skipped_bytes += cut
        del self._pending[:cut]
        # The skipped bytes may have ended inside a character or an escape sequence.
        self._decoder.reset()
        self._stream = pyte.Stream(self._screen)
