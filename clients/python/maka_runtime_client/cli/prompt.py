"""Answering sandbox-boundary requests and user questions at the terminal.

The prompt reads stdin through the event loop (``add_reader``), so a prompt can be cancelled
at any moment: when Ctrl-C stops the turn or another client answers first.
"""

from __future__ import annotations

import asyncio
import os
import sys

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime_client.cli.output import Output, printable, printable_lines

DECISIONS = {
    "once": pb.SANDBOX_DECISION_ALLOW_ONCE,
    "session": pb.SANDBOX_DECISION_ALLOW_SESSION,
    "deny": pb.SANDBOX_DECISION_DENY,
}
_CHOICES = {
    "o": "once",
    "once": "once",
    "1": "once",
    "s": "session",
    "session": "session",
    "2": "session",
    "d": "deny",
    "deny": "deny",
    "3": "deny",
}


async def read_line(fd: int | None = None) -> str | None:
    """The next line typed on *fd* (stdin), without its newline; None at end of input."""
    fd = sys.stdin.fileno() if fd is None else fd
    loop = asyncio.get_running_loop()
    buffer = bytearray()
    while True:
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, lambda f=ready: f.done() or f.set_result(None))  # type: ignore[misc]
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        chunk = os.read(fd, 4096)
        if not chunk:
            return buffer.decode(errors="replace") if buffer else None
        buffer.extend(chunk)
        if b"\n" in buffer:
            return buffer.split(b"\n", 1)[0].decode(errors="replace").rstrip("\r")


def _ask(out: Output, text: str) -> None:
    # The prompt goes to stderr in --json mode so stdout stays parseable.
    if out.json:
        sys.stderr.write(printable_lines(text))
        sys.stderr.flush()
    else:
        out.write(text)


async def ask_decision(out: Output) -> str | None:
    """once / session / deny, asked until the answer is one of them; None at end of input."""
    while True:
        _ask(out, "Allow? [o]nce / [s]ession / [d]eny: ")
        line = await read_line()
        if line is None:
            return None
        choice = _CHOICES.get(line.strip().lower())
        if choice is not None:
            return choice


async def ask_answer(out: Output, options: list[str]) -> str | None:
    """An option (by number or text) or a typed answer; None at end of input."""
    for index, option in enumerate(options, 1):
        _ask(out, f"  {index}) {printable(option)}\n")
    hint = f"Pick 1-{len(options)} or type an answer: " if options else "Answer: "
    while True:
        _ask(out, hint)
        line = await read_line()
        if line is None:
            return None
        answer = line.strip()
        if answer.isdigit() and 1 <= int(answer) <= len(options):
            return options[int(answer) - 1]
        if answer:
            return answer
