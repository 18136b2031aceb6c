"""Where the CLI's output goes: JSON lines for scripts, rich text for people.

Colour and status lines appear only when stdout is a terminal; ``--json`` writes one JSON
object per line and never colours anything.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from rich.console import Console
from rich.table import Table
from rich.text import Text

#: Every control character (C0 with ESC, CR and newline; DEL; C1) as a visible escape.
_ESCAPES: dict[int, str] = {
    code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F, *range(0x80, 0xA0))
}
#: The same, but newline and tab kept: for text that is several lines by design.
_LINE_ESCAPES: dict[int, str] = {
    code: text for code, text in _ESCAPES.items() if code not in (0x09, 0x0A)
}


def printable(text: str) -> str:
    """*text* with every control character shown as an escape (``\\x1b``, ``\\x0d``, ``\\x0a``).

    For one field of a line that came from a model, a command, a session or the kernel (a
    path, a justification, a cwd, an error message): it can neither move the cursor, erase
    or colour a line nor start a line of its own that looks like one of maka's.
    """
    return text.translate(_ESCAPES)


def printable_lines(text: str) -> str:
    """:func:`printable`, but newlines and tabs stay: every line the CLI prints goes
    through it, so no terminal control sequence reaches the terminal from any of them."""
    return text.translate(_LINE_ESCAPES)


def to_dict(message: Message) -> dict[str, Any]:
    """A protobuf message as the JSON object ``--json`` prints (proto field names)."""
    return MessageToDict(message, preserving_proto_field_name=True)


class Output:
    """The CLI's stdout (and stderr for notes), in JSON or human form."""

    def __init__(self, *, json_mode: bool) -> None:
        self.json = json_mode
        self.tty = sys.stdout.isatty()
        color = self.tty and not json_mode
        self.console = Console(
            file=sys.stdout,
            highlight=False,
            emoji=False,
            no_color=not color,
            force_terminal=color or None,
        )
        self.errors = Console(file=sys.stderr, highlight=False, emoji=False, no_color=not color)

    def record(self, obj: dict[str, Any] | Message) -> None:
        """One JSON line (``--json`` mode)."""
        data = to_dict(obj) if isinstance(obj, Message) else obj
        sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")
        sys.stdout.flush()

    def line(self, text: str, style: str = "") -> None:
        """A line of human output (styled on a terminal; control characters escaped)."""
        self.console.print(printable_lines(text), style=style or None, markup=False, soft_wrap=True)

    def status(self, text: str) -> None:
        """A progress/status line: only when stdout is a terminal."""
        if self.tty and not self.json:
            self.console.print(printable_lines(text), style="dim", markup=False, soft_wrap=True)

    def note(self, text: str, style: str = "") -> None:
        """A line on stderr (prompts and notes that must not mix with ``--json`` output)."""
        self.errors.print(printable_lines(text), style=style or None, markup=False, soft_wrap=True)

    def write(self, text: str) -> None:
        """Text without a newline (streamed assistant text), control characters escaped."""
        sys.stdout.write(printable_lines(text))
        sys.stdout.flush()

    def table(self, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        """A table on a terminal; tab-separated lines with a header elsewhere. Cells are
        text, never markup, and their control characters (tabs too) are escaped."""
        rows = [[printable(cell) for cell in row] for row in rows]
        if not self.tty:
            for row in [columns, *rows]:
                sys.stdout.write("\t".join(row) + "\n")
            sys.stdout.flush()
            return
        table = Table(*columns, box=None, header_style="bold", pad_edge=False)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        self.console.print(table)
