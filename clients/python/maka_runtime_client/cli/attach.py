"""``maka attach REF``: a raw-mode terminal on a PTY run, like ``docker attach``.

The local terminal goes raw, the run's screen is replayed, and live output is copied to
stdout. Keystrokes go to the run through the controller lease (sequenced by the SDK), and a
window size change becomes a resize. The detach keys (default Ctrl-P Ctrl-Q) leave the run
running; when the run ends its status is printed and its exit code becomes ours. The terminal
settings are restored however attach ends.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import os
import signal
import sys
import uuid
from typing import Any

from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime_client._lease import ControllerLease
from maka_runtime_client._resource import ResourceClient
from maka_runtime_client.cli.context import CommandError, Context
from maka_runtime_client.cli.runs import TERMINAL, add_ref, describe_end, exit_code, run_ref
from maka_runtime_client.cli.terminal import (
    DEFAULT_DETACH_KEYS,
    DetachMatcher,
    parse_detach_keys,
    raw_mode,
    window_size,
)
from maka_runtime_client.errors import MakaError

MIN_COLS, MAX_COLS, MIN_ROWS, MAX_ROWS = 2, 240, 1, 100


def register(commands: Any) -> None:
    parser = commands.add_parser("attach", help="an interactive terminal on a PTY run")
    add_ref(parser)
    parser.add_argument(
        "--detach-keys",
        default=DEFAULT_DETACH_KEYS,
        help="key sequence that detaches and leaves the run running (default %(default)s)",
    )
    parser.set_defaults(handler=cmd_attach)


def clamp_size(cols: int, rows: int) -> tuple[int, int]:
    return max(MIN_COLS, min(MAX_COLS, cols)), max(MIN_ROWS, min(MAX_ROWS, rows))


def render_screen(screen: pb.Screen) -> bytes:
    """Escape sequences that clear the local terminal and draw *screen* with its cursor."""
    parts = ["\x1b[H\x1b[2J", "\r\n".join(line.rstrip() for line in screen.lines)]
    parts.append(f"\x1b[{screen.cursor_row + 1};{screen.cursor_col + 1}H")
    parts.append("\x1b[?25h" if screen.cursor_visible else "\x1b[?25l")
    return "".join(parts).encode()


def write_out(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


class Attachment:
    """One attached terminal: output in, keystrokes and resizes out, until end or detach."""

    def __init__(
        self,
        resource: ResourceClient,
        lease: ControllerLease,
        session_id: str,
        ref: str,
        detach_keys: bytes,
    ) -> None:
        self.resource = resource
        self.lease = lease
        self.session_id = session_id
        self.ref = ref
        self.fd = sys.stdin.fileno()
        self.matcher = DetachMatcher(detach_keys)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.controls: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.detached = asyncio.Event()
        self.ended: pb.Run | None = None
        self.size: tuple[int, int] | None = None

    def on_input(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            data = b""
        if not data:
            self.detached.set()  # our terminal went away
            return
        forward, detach = self.matcher.feed(data)
        text = self.decoder.decode(forward)
        if text:
            self.controls.put_nowait(("input", text))
        if detach:
            self.detached.set()

    def on_winch(self) -> None:
        self.controls.put_nowait(("resize", clamp_size(*window_size(self.fd))))

    async def follow(self) -> None:
        skip_through = 0
        async for event in self.resource.attach(self.session_id, self.ref):
            kind = event.WhichOneof("event")
            if kind == "attached":
                skip_through = event.attached.output_sequence
                screen = event.attached.screen
                write_out(render_screen(screen))
                local = clamp_size(*window_size(self.fd))
                # The run learns our size (its redraw arrives as output).
                if local != (screen.cols, screen.rows):
                    self.controls.put_nowait(("resize", local))
            elif kind == "output" and event.output.sequence > skip_through:
                write_out(event.output.data)
            elif kind == "ended":
                self.ended = event.ended
                return

    async def send(self) -> None:
        while True:
            kind, value = await self.controls.get()
            if kind == "input":
                await self.lease.send_input(value)
            else:
                await self.lease.resize(*value)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        loop.add_reader(self.fd, self.on_input)
        loop.add_signal_handler(signal.SIGWINCH, self.on_winch)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, self.detached.set)
        follower = asyncio.ensure_future(self.follow())
        sender = asyncio.ensure_future(self.send())
        detacher = asyncio.ensure_future(self.detached.wait())
        try:
            done, _ = await asyncio.wait(
                [follower, sender, detacher], return_when=asyncio.FIRST_COMPLETED
            )
            if sender in done and follower not in done and not self.detached.is_set():
                try:
                    sender.result()
                except MakaError:
                    # Input to a run that is ending is refused; its end is on its way.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(follower), 5)
                    if not follower.done():
                        raise
            if follower.done():
                follower.result()
        finally:
            loop.remove_reader(self.fd)
            for signum in (signal.SIGWINCH, signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(signum)
            for task in (follower, sender, detacher):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, MakaError):
                    await task


async def cmd_attach(ctx: Context, args: argparse.Namespace) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise CommandError("attach needs a terminal; follow the output with: maka logs -f REF")
    try:
        keys = parse_detach_keys(args.detach_keys)
    except ValueError as error:
        raise CommandError(str(error)) from None
    async with ctx.resource() as resource:
        ref = await run_ref(ctx, resource, args)
        run = await resource.get_run(None, ref)
        session = run.session_id
        if run.mode != pb.RUN_MODE_PTY:
            raise CommandError(
                f"{ref} is not a PTY run; follow it with: maka logs -f REF", "NOT_A_PTY"
            )
        if run.status in TERMINAL:
            ctx.out.note(f"maka: {describe_end(run)}")
            return exit_code(run)
        lease = await resource.acquire_controller(session, ref, f"maka-cli-{uuid.uuid4()}")
        attachment = Attachment(resource, lease, session, ref, keys)
        try:
            with raw_mode(sys.stdin.fileno()):
                await attachment.run()
        finally:
            write_out(b"\x1b[?25h")
            with contextlib.suppress(MakaError):
                await lease.release(timeout=5)
    if attachment.ended is not None:
        ctx.out.note(f"\nmaka: {describe_end(attachment.ended)}")
        return exit_code(attachment.ended)
    ctx.out.note(f"\nmaka: detached from {ref} (still running)")
    return 0
