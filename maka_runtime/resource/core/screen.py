"""A PTY run's screen, rendered by a real terminal emulator (pyte).

Bytes from the PTY are queued cheaply as they are read and rendered later in bounded slices
(:meth:`TerminalScreen.render`) or all at once when someone needs a snapshot. pyte renders well
under 1 MB/s, so the queue is bounded: when output arrives faster than it can be rendered, the
screen *skips ahead* to the newest half of ``max_pending`` bytes, cut at a line boundary, and
counts what it skipped (``skipped_bytes``). The replay log still holds the exact bytes; only the
server's rendering of a flood is approximate, and only about state that scrolled away inside the
skipped part. While output outruns the emulator, the periodic render draws nothing
(:meth:`TerminalScreen.render_slice`): the queue then holds only the newest part of a flood, which
the rest of the flood skips or scrolls away, and each slice drawn of it cost the event loop 1 to 5
ms per interval (0.8 to 4 ms of CPU per MB of a flood through ``Attach``: the slower the flood, the
more). The first slice after the flood, and any snapshot, draw the newest output.
"""

from __future__ import annotations

import codecs
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any, Final

import pyte
from pyte import modes
from pyte.screens import Char, Margins, StaticDefaultDict
from wcwidth import wcwidth

from maka_runtime.resource.core.records import PtyOutput
from maka_runtime.resource.core.screen_limits import DEFAULT_MAX_PENDING, DEFAULT_SCROLLBACK

__all__ = ["DEFAULT_MAX_PENDING", "DEFAULT_SCROLLBACK", "TerminalScreen"]

# Private modes that switch to the alternate screen (xterm): 47, 1047, and 1049 (which also
# saves the cursor).
_ALTERNATE_MODES: Final = frozenset({47, 1047, 1049})

_Line = StaticDefaultDict[int, Char]

#: No character below this one is double-width (``wcwidth`` is 2 from U+1100, Hangul Jamo, on).
_FIRST_WIDE: Final = "\u1100"


def _render_line(line: _Line, columns: int) -> str:
    # Only the cells written are in the line; the others are its default (blank) cell.
    chars = [line.default.data] * columns
    for x, cell in line.items():
        if x < columns:
            chars[x] = cell.data
    text = "".join(chars)
    if not text or max(text) < _FIRST_WIDE:  # no double-width character
        return text.rstrip()
    kept: list[str] = []
    wide = False
    for char in chars:
        if wide:  # the stub cell after a double-width character
            wide = False
            continue
        wide = char >= _FIRST_WIDE and wcwidth(char[0]) == 2
        kept.append(char)
    return "".join(kept).rstrip()


class _Screen(pyte.Screen):
    """pyte's screen plus bounded scrollback, an alternate screen buffer, and a fast way to
    draw plain text."""

    def __init__(
        self, columns: int, lines: int, scrollback: int, respond: Callable[[str], None] | None
    ) -> None:
        self.scrollback: deque[_Line] = deque(maxlen=scrollback)
        self.alternate = False
        self._saved_main: tuple[Any, pyte.screens.Cursor] | None = None
        self._respond = respond
        #: The cells drawn with the current attributes, by character (cells are immutable).
        self._cells: dict[str, Char] = {}
        self._cells_attrs: Char | None = None
        super().__init__(columns, lines)

    def draw(self, data: str) -> None:
        # pyte draws one character at a time (a width lookup and a new cell each). Printable
        # ASCII that fits on the cursor's line, outside insert mode, is drawn here instead, cell
        # for cell what pyte draws: one cell per character, the cursor after the last one.
        text = data.translate(self.g1_charset if self.charset else self.g0_charset)
        cursor = self.cursor
        start = cursor.x
        end = start + len(text)
        if (
            end > self.columns  # it wraps, or the cursor waits at the end of the line
            or not (text.isascii() and text.isprintable())
            or modes.IRM in self.mode
        ):
            super().draw(data)
            return
        attrs = cursor.attrs
        if attrs is not self._cells_attrs:
            self._cells, self._cells_attrs = {}, attrs
        cells = self._cells
        line = self.buffer[cursor.y]
        for x, char in enumerate(text, start):
            cell = cells.get(char)
            if cell is None:
                cell = cells[char] = attrs._replace(data=char)
            line[x] = cell
        cursor.x = end
        self.dirty.add(cursor.y)

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
        #: Whether the parser has been fed since it was last made (it may be inside a sequence).
        self._parsed = False
        #: Bytes never rendered because output outran the emulator.
        self.skipped_bytes = 0
        #: Whether output skipped ahead since the last slice (see render_slice).
        self._outran = False

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
        if len(self._pending) + len(data) <= self._max_pending:
            self._pending += data
        else:
            self._skip_ahead(data)

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
            self._parsed = True
            self._stream.feed(text)
        return len(self._pending)

    def render_slice(self, max_bytes: int) -> int:
        """The periodic render: up to *max_bytes* queued bytes, unless output skipped ahead
        since the last slice (a flood outruns the emulator): then nothing, until a slice finds
        that it has stopped. Returns how many bytes remain queued."""
        if self._outran:
            self._outran = False
            return len(self._pending)
        return self.render(max_bytes)

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

    def _skip_ahead(self, data: bytes) -> None:
        """Queue *data*, keeping only the newest half of ``max_pending`` bytes of the queue and
        *data*, from a line start if there is one in them."""
        self._outran = True
        pending = self._pending
        total = len(pending) + len(data)
        cut = total - self._max_pending // 2
        if cut >= len(pending):
            # Only the newest part of *data* stays: cut it alone, without joining the two.
            at = cut - len(pending)
            newline = data.find(b"\n", at)
            if newline != -1 and newline + 1 < len(data):
                at = newline + 1
            self.skipped_bytes += len(pending) + at
            self._pending = bytearray(memoryview(data)[at:])
        else:
            pending += data
            newline = pending.find(b"\n", cut)
            if newline != -1 and newline + 1 < len(pending):
                cut = newline + 1
            self.skipped_bytes += cut
            del pending[:cut]
        # The skipped bytes may have ended inside a character or an escape sequence; a parser
        # fed nothing since it was made is still at its start.
        self._decoder.reset()
        if self._parsed:
            self._parsed = False
            self._stream = pyte.Stream(self._screen)
