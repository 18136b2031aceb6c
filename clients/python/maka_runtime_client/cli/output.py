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
            file=sys.stdout, highlight=False, no_color=not color, force_terminal=color or None
        )
        self.errors = Console(file=sys.stderr, highlight=False, no_color=not color)

    def record(self, obj: dict[str, Any] | Message) -> None:
        """One JSON line (``--json`` mode)."""
        data = to_dict(obj) if isinstance(obj, Message) else obj
        sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")
        sys.stdout.flush()

    def line(self, text: str, style: str = "") -> None:
        """A line of human output (styled on a terminal)."""
        self.console.print(text, style=style or None, markup=False, soft_wrap=True)

    def status(self, text: str) -> None:
        """A progress/status line: only when stdout is a terminal."""
        if self.tty and not self.json:
            self.console.print(text, style="dim", markup=False, soft_wrap=True)

    def note(self, text: str, style: str = "") -> None:
        """A line on stderr (prompts and notes that must not mix with ``--json`` output)."""
        self.errors.print(text, style=style or None, markup=False, soft_wrap=True)

    def write(self, text: str) -> None:
        """Raw text without a newline (streamed assistant text)."""
        sys.stdout.write(text)
        sys.stdout.flush()

    def table(self, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        """A table on a terminal; tab-separated lines with a header elsewhere."""
        if not self.tty:
            for row in [columns, *rows]:
                sys.stdout.write("\t".join(row) + "\n")
            sys.stdout.flush()
            return
        table = Table(*columns, box=None, header_style="bold", pad_edge=False)
        for row in rows:
            table.add_row(*row)
        self.console.print(table)
