"""Session commands: ``new``, ``ls``, ``show``, ``rename``, ``archive``, ``unarchive``, ``rm``."""

from __future__ import annotations

import argparse
import collections
import os
from typing import Any

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime_client.boundary import PROFILES, profile_name
from maka_runtime_client.boundary import describe as describe_boundary
from maka_runtime_client.cli.context import CommandError, Context
from maka_runtime_client.cli.events import describe_entry
from maka_runtime_client.cli.output import to_dict
from maka_runtime_client.cli.resolve import resolve_session

SESSION_HELP = "the session: its id, its name, or a unique prefix of its id"
PERMISSION_MODES = {"ask": pb.PERMISSION_MODE_ASK, "bypass": pb.PERMISSION_MODE_BYPASS}


def register(commands: Any) -> None:
    _register_new(commands)
    _register_management(commands)


def _register_new(commands: Any) -> None:
    new = commands.add_parser("new", help="create a session")
    new.add_argument("workspace", nargs="?", default=None, help="workspace root (default: .)")
    new.add_argument(
        "--remote",
        action="store_true",
        help="the workspace is a path where the kernel runs (a container's volume): sent as "
        "given, and checked by the kernel instead of here",
    )
    new.add_argument("--name", default="")
    new.add_argument("--cwd", default="")
    new.add_argument("--permission-mode", choices=sorted(PERMISSION_MODES), default=None)
    new.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="",
        help="the execution boundary: read-only, workspace-write (default) or "
        "danger-full-access (no sandbox)",
    )
    new.add_argument(
        "--backend", default="", help="shell, llm or scripted (default: the kernel's, shell)"
    )
    new.add_argument("--model", default="", help="the model (llm backend)")
    new.add_argument("--connection", default="", help="the LLM connection's slug (llm backend)")
    new.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a backend option (repeatable), e.g. timeout_ms=5000",
    )
    new.set_defaults(handler=cmd_new)


def _register_management(commands: Any) -> None:
    ls = commands.add_parser("ls", help="list sessions, newest first")
    ls.add_argument("--archived", action="store_true", help="archived sessions instead")
    ls.add_argument("--label", default="")
    ls.set_defaults(handler=cmd_ls)

    show = commands.add_parser("show", help="a session's header and recent log")
    show.add_argument("session", help=SESSION_HELP)
    show.add_argument("--limit", type=int, default=20, help="log entries to show")
    show.set_defaults(handler=cmd_show)

    rename = commands.add_parser("rename", help="rename a session")
    rename.add_argument("session", help=SESSION_HELP)
    rename.add_argument("name")
    rename.set_defaults(handler=cmd_rename)

    for name, archived in (("archive", True), ("unarchive", False)):
        parser = commands.add_parser(name, help=f"{name} a session")
        parser.add_argument("session", help=SESSION_HELP)
        parser.set_defaults(handler=cmd_archive, archived=archived)

    rm = commands.add_parser("rm", help="delete a session and its log")
    rm.add_argument("session", help=SESSION_HELP)
    rm.set_defaults(handler=cmd_rm)

    interrupt = commands.add_parser(
        "interrupt", help="stop a session's running turn (now, or after the current step)"
    )
    interrupt.add_argument("session", help=SESSION_HELP)
    interrupt.add_argument(
        "--after-step", action="store_true", help="let the current step finish first"
    )
    interrupt.add_argument(
        "--turn",
        default="",
        metavar="TURN_ID",
        help="stop only this turn; one whose start has not reached the kernel yet ends "
        "aborted as soon as it is admitted",
    )
    interrupt.set_defaults(handler=cmd_interrupt)


def status_name(session: pb.Session) -> str:
    return pb.SessionStatus.Name(session.status).removeprefix("SESSION_STATUS_").lower()


def print_session(ctx: Context, session: pb.Session) -> None:
    if ctx.out.json:
        ctx.out.record(session)
        return
    ctx.out.line(session.id, "bold")


def absolute(path: str | None) -> str:
    return os.path.abspath(path or os.getcwd())


def existing_directory(path: str) -> str:
    """*path*, if it is a directory; else the one-line error (nothing is created)."""
    if not os.path.isdir(path):
        what = "is not a directory" if os.path.exists(path) else "does not exist"
        raise CommandError(f"workspace {path} {what}", "INVALID_REQUEST")
    return path


async def cmd_new(ctx: Context, args: argparse.Namespace) -> int:
    if args.remote:
        if not args.workspace or not os.path.isabs(args.workspace):
            raise CommandError("--remote needs the workspace as an absolute path", "USAGE")
        workspace = args.workspace
    else:
        workspace = existing_directory(absolute(args.workspace))
    mode = PERMISSION_MODES.get(args.permission_mode or "", pb.PERMISSION_MODE_UNSPECIFIED)
    options = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CommandError(f"--option needs KEY=VALUE, not {item!r}")
        options[key] = value
    async with ctx.kernel() as kernel:
        session = await kernel.create_session(
            workspace,
            name=args.name,
            cwd=args.cwd,
            permission_mode=mode,
            profile=args.profile,
            backend=args.backend,
            model=args.model,
            llm_connection_slug=args.connection,
            backend_options=options,
        )
    print_session(ctx, session)
    return 0


async def cmd_ls(ctx: Context, args: argparse.Namespace) -> int:
    sessions: list[pb.Session] = []
    token = ""
    async with ctx.kernel() as kernel:
        while True:
            page = await kernel.list_sessions(
                page_token=token, archived=args.archived, label=args.label
            )
            sessions.extend(page.sessions)
            token = page.next_page_token
            if not token:
                break
    if ctx.out.json:
        for session in sessions:
            ctx.out.record(session)
        return 0
    rows = [
        [
            s.id,
            s.name,
            status_name(s),
            profile_name(s.boundary.profile),
            ",".join(s.labels),
            s.last_used_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S"),
            s.workspace_root,
        ]
        for s in sessions
    ]
    ctx.out.table(["ID", "NAME", "STATUS", "PROFILE", "LABELS", "LAST USED", "WORKSPACE"], rows)
    return 0


async def cmd_show(ctx: Context, args: argparse.Namespace) -> int:
    async with ctx.kernel() as kernel:
        session = await kernel.get_session(await resolve_session(kernel, args.session))
        recent: collections.deque[pb.SessionEvent] = collections.deque(maxlen=max(args.limit, 0))
        after = 0
        while True:
            events = await kernel.read_messages(session.id, after_seq=after)
            if not events:
                break
            after = events[-1].seq
            # Text deltas are summed up by the assistant message that follows them.
            recent.extend(e for e in events if e.WhichOneof("event") != "text_delta")
    if ctx.out.json:
        ctx.out.record({"session": to_dict(session), "log": [to_dict(e) for e in recent]})
        return 0
    out = ctx.out
    out.line(f"{session.id}  {session.name}", "bold")
    mode = pb.PermissionMode.Name(session.permission_mode).removeprefix("PERMISSION_MODE_")
    for label, value in (
        ("status", status_name(session)),
        ("workspace", session.workspace_root),
        ("cwd", session.cwd),
        ("backend", session.backend),
        ("permission", mode.lower()),
        ("boundary", describe_boundary(session.boundary)),
        ("labels", ", ".join(session.labels)),
        ("archived", "yes" if session.archived else "no"),
    ):
        out.line(f"  {label:<11}{value}")
    if recent:
        out.line("")
    for entry in recent:
        text, style = describe_entry(entry)
        # Every line of an entry (a result's "ran without a sandbox", its truncation) carries
        # the entry's sequence number: no line reads as part of the entry above.
        out.line("\n".join(f"{entry.seq:>5}  {line}" for line in text.split("\n")), style)
    return 0


async def cmd_rename(ctx: Context, args: argparse.Namespace) -> int:
    async with ctx.kernel() as kernel:
        session_id = await resolve_session(kernel, args.session)
        session = await kernel.update_session(session_id, name=args.name)
    print_session(ctx, session)
    return 0


async def cmd_archive(ctx: Context, args: argparse.Namespace) -> int:
    async with ctx.kernel() as kernel:
        session_id = await resolve_session(kernel, args.session)
        session = await kernel.update_session(session_id, archived=args.archived)
    print_session(ctx, session)
    return 0


async def cmd_rm(ctx: Context, args: argparse.Namespace) -> int:
    async with ctx.kernel() as kernel:
        session_id = await resolve_session(kernel, args.session)
        await kernel.delete_session(session_id)
    if ctx.out.json:
        ctx.out.record({"deleted": session_id})
    else:
        ctx.out.line(f"deleted {session_id}")
    return 0


async def cmd_interrupt(ctx: Context, args: argparse.Namespace) -> int:
    """Also the way out of a turn stopped ``after_step`` whose step never ends: an immediate
    stop escalates it, the run settles and the session takes turns again."""
    mode = pb.STOP_MODE_AFTER_STEP if args.after_step else pb.STOP_MODE_IMMEDIATE
    async with ctx.kernel() as kernel:
        session_id = await resolve_session(kernel, args.session)
        stopped = await kernel.stop_session(session_id, source="cli", mode=mode, turn_id=args.turn)
    if ctx.out.json:
        ctx.out.record(stopped)
    elif stopped.stopped:
        ctx.out.line(f"stopped turn {stopped.turn_id}")
    else:
        ctx.out.line("no turn was running")
    return 0
