"""Run commands: ``run`` (foreground), ``bg``, ``ps``, ``logs``, ``output``, ``stop``."""

from __future__ import annotations

import argparse
import asyncio
import base64
import shlex
import signal
import sys
from collections.abc import Sequence
from typing import Any

from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime_client._resource import ResourceClient
from maka_runtime_client.cli.context import CommandError, Context
from maka_runtime_client.cli.output import to_dict
from maka_runtime_client.cli.resolve import all_runs, named_session, resolve_ref, session_for

TERMINAL = frozenset(
    {
        pb.RUN_STATUS_COMPLETED,
        pb.RUN_STATUS_FAILED,
        pb.RUN_STATUS_TIMED_OUT,
        pb.RUN_STATUS_CANCELLED,
        pb.RUN_STATUS_ORPHANED,
    }
)


def add_session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session",
        default=None,
        help='session of the run: id, name or id prefix (env MAKA_SESSION, else "default")',
    )


def add_ref(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ref", help="the run: its ref, its id, or a unique prefix of either")
    parser.add_argument(
        "--session",
        default=None,
        help="only look for the run in this session (id, name or id prefix); a ref needs none",
    )


def add_command(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD …")


def register(commands: Any) -> None:
    run = commands.add_parser("run", help="run a command in the foreground")
    add_session(run)
    run.add_argument("--cwd", default="")
    run.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    add_command(run)
    run.set_defaults(handler=cmd_run)

    bg = commands.add_parser("bg", help="start a background run and print its ref")
    add_session(bg)
    bg.add_argument("--pty", action="store_true", help="in a pseudo-terminal")
    bg.add_argument("--cols", type=int, default=None)
    bg.add_argument("--rows", type=int, default=None)
    bg.add_argument("--cwd", default="")
    bg.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    add_command(bg)
    bg.set_defaults(handler=cmd_bg)

    ps = commands.add_parser("ps", help="a session's runs (--all: every session's)")
    which = ps.add_mutually_exclusive_group()
    which.add_argument(
        "--session",
        default=None,
        help='the session: id, name or id prefix (env MAKA_SESSION, else "default")',
    )
    which.add_argument("-a", "--all", action="store_true", help="the runs of every session")
    ps.set_defaults(handler=cmd_ps)

    logs = commands.add_parser("logs", help="a run's output")
    add_ref(logs)
    logs.add_argument("-f", "--follow", action="store_true", help="follow live output")
    logs.set_defaults(handler=cmd_logs)

    output = commands.add_parser(
        "output", help="a run's complete kept output, exactly as it printed it, to stdout"
    )
    add_ref(output)
    output.add_argument(
        "--stream",
        choices=("all", "stdout", "stderr"),
        default="all",
        help="which stream's bytes to write (all: every stream, in the order printed)",
    )
    output.set_defaults(handler=cmd_output)

    stop = commands.add_parser("stop", help="cancel a run")
    add_ref(stop)
    stop.set_defaults(handler=cmd_stop)


async def session_of(ctx: Context, args: argparse.Namespace) -> str:
    return await session_for(ctx, args.session)


async def run_ref(ctx: Context, resource: ResourceClient, args: argparse.Namespace) -> str:
    """The ref *args.ref* names, in ``--session`` if given (a ref needs no session)."""
    session = await named_session(ctx, args.session) if args.session else None
    return await resolve_ref(resource, args.ref, session)


def command_line(cmd: Sequence[str]) -> str:
    """The shell command for ``-- CMD …``: one argument as written, several quoted."""
    words = list(cmd)
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise CommandError("no command given: maka run -- CMD …")
    return words[0] if len(words) == 1 else shlex.join(words)


def timeout_ms(seconds: float | None) -> int | None:
    return None if seconds is None else max(1, round(seconds * 1000))


def status_name(status: int) -> str:
    return str(pb.RunStatus.Name(status)).removeprefix("RUN_STATUS_").lower()  # type: ignore[arg-type]


def exit_code(run: pb.Run) -> int:
    """The exit status ``maka`` passes through for a finished run."""
    if run.status == pb.RUN_STATUS_TIMED_OUT:
        return 124
    if run.status == pb.RUN_STATUS_CANCELLED:
        return 130
    if run.HasField("exit_code"):
        return run.exit_code
    if run.HasField("signal"):
        return 128 + run.signal
    return 0 if run.status == pb.RUN_STATUS_COMPLETED else 1


def describe_end(run: pb.Run) -> str:
    code = f", exit {run.exit_code}" if run.HasField("exit_code") else ""
    message = f": {run.message}" if run.message else ""
    return f"{run.ref} {status_name(run.status)}{code}{message}"


def write_chunk(chunk: pb.OutputChunk) -> None:
    target = sys.stderr if chunk.stream == pb.OUTPUT_STREAM_STDERR else sys.stdout
    target.buffer.write(chunk.data)
    target.flush()


def chunk_record(chunk: pb.OutputChunk) -> dict[str, Any]:
    stream = str(pb.OutputStream.Name(chunk.stream)).removeprefix("OUTPUT_STREAM_").lower()
    return {
        "sequence": chunk.sequence,
        "stream": stream,
        "data": chunk.data.decode(errors="replace"),
        # The exact bytes: ``data`` shows bytes that are not UTF-8 as U+FFFD.
        "data_base64": base64.b64encode(chunk.data).decode("ascii"),
    }


async def cmd_run(ctx: Context, args: argparse.Namespace) -> int:
    command = command_line(args.cmd)
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    # Ctrl-C cancels the call, and the service cancels a run whose caller goes away.
    loop.add_signal_handler(signal.SIGINT, main.cancel)
    result: pb.Run | None = None
    try:
        session = await session_of(ctx, args)
        async with ctx.resource() as resource:
            async for response in resource.run_foreground(
                session, command, cwd=args.cwd, timeout_ms=timeout_ms(args.timeout)
            ):
                kind = response.WhichOneof("event")
                if kind == "output":
                    if ctx.out.json:
                        ctx.out.record(chunk_record(response.output))
                    else:
                        write_chunk(response.output)
                elif kind == "gap":
                    ctx.out.note(f"maka: output lost ({response.gap.last_sequence})")
                elif kind == "result":
                    result = response.result
    except asyncio.CancelledError:
        ctx.out.note("maka: run cancelled")
        return 130
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    if result is None:
        raise CommandError("the run ended without a result", "INTERNAL_FAILURE")
    if ctx.out.json:
        ctx.out.record({"result": to_dict(result)})
    elif result.status not in (pb.RUN_STATUS_COMPLETED, pb.RUN_STATUS_FAILED):
        ctx.out.note(f"maka: {describe_end(result)}")
    return exit_code(result)


async def cmd_bg(ctx: Context, args: argparse.Namespace) -> int:
    command = command_line(args.cmd)
    size = None
    if args.cols is not None or args.rows is not None:
        if not args.pty:
            raise CommandError("--cols/--rows need --pty")
        size = (args.cols or 80, args.rows or 24)
    async with ctx.resource() as resource:
        run = await resource.start_background(
            await session_of(ctx, args),
            command,
            pty=args.pty,
            size=size,
            cwd=args.cwd,
            timeout_ms=timeout_ms(args.timeout),
        )
    if ctx.out.json:
        ctx.out.record(run)
    else:
        ctx.out.line(run.ref)
    return 0


async def cmd_ps(ctx: Context, args: argparse.Namespace) -> int:
    session = None if args.all else await session_of(ctx, args)
    async with ctx.resource() as resource:
        runs = await all_runs(resource, session)
    if ctx.out.json:
        for run in runs:
            run.ClearField("output")
            ctx.out.record(run)
        return 0
    rows = [
        [
            run.ref,
            *([run.session_id] if args.all else []),
            status_name(run.status),
            "pty" if run.mode == pb.RUN_MODE_PTY else "pipes",
            str(run.exit_code) if run.HasField("exit_code") else "",
            run.command,
        ]
        for run in runs
    ]
    session_column = ["SESSION"] if args.all else []
    ctx.out.table(["REF", *session_column, "STATUS", "MODE", "EXIT", "COMMAND"], rows)
    return 0


def screen_text(screen: pb.Screen) -> str:
    lines = [*screen.scrollback, *screen.lines]
    while lines and not lines[-1].strip():
        lines.pop()
    return "".join(line.rstrip() + "\n" for line in lines)


async def cmd_logs(ctx: Context, args: argparse.Namespace) -> int:
    async with ctx.resource() as resource:
        ref = await run_ref(ctx, resource, args)
        run = await resource.get_run(None, ref)
        if not args.follow or run.status in TERMINAL:
            _print_output(ctx, run)
            return 0
        skip_through = 0
        async for event in resource.attach(None, ref):
            kind = event.WhichOneof("event")
            if kind == "attached" and event.attached.run.mode == pb.RUN_MODE_PTY:
                # The screen stands for the output so far; the chunks after it are live.
                skip_through = event.attached.output_sequence
                _emit(ctx, "screen", screen_text(event.attached.screen))
            elif kind == "output" and event.output.sequence > skip_through:
                if ctx.out.json:
                    ctx.out.record(chunk_record(event.output))
                else:
                    write_chunk(event.output)
            elif kind == "ended":
                if ctx.out.json:
                    ctx.out.record({"ended": to_dict(event.ended)})
                else:
                    ctx.out.status(describe_end(event.ended))
    return 0


def _emit(ctx: Context, stream: str, text: str) -> None:
    if ctx.out.json:
        ctx.out.record({"stream": stream, "data": text})
    elif text:
        target = sys.stderr if stream == "stderr" else sys.stdout
        target.write(text)
        target.flush()


def _print_output(ctx: Context, run: pb.Run) -> None:
    if run.HasField("screen"):
        _emit(ctx, "screen", screen_text(run.screen))
    elif run.HasField("pipes"):
        _emit(ctx, "stdout", run.pipes.stdout)
        _emit(ctx, "stderr", run.pipes.stderr)


async def cmd_output(ctx: Context, args: argparse.Namespace) -> int:
    """Write the run's kept output (its journal) to stdout, page by page; say on stderr what
    was not kept."""
    wanted = {
        "all": None,
        "stdout": pb.OUTPUT_STREAM_STDOUT,
        "stderr": pb.OUTPUT_STREAM_STDERR,
    }[args.stream]
    last: pb.ReadRunOutputResponse | None = None
    async with ctx.resource() as resource:
        ref = await run_ref(ctx, resource, args)
        async for page in resource.run_output_pages(None, ref):
            last = page
            for chunk in page.chunks:
                if wanted is not None and chunk.stream != wanted:
                    continue
                if ctx.out.json:
                    ctx.out.record(chunk_record(chunk))
                else:
                    sys.stdout.buffer.write(chunk.data)
            sys.stdout.flush()
    assert last is not None
    if last.evicted:
        ctx.out.note(
            f"maka: the output of {ref} is no longer kept (removed under the service's "
            "--max-kept-output-bytes, or when its session was archived)"
        )
        return 1
    if last.HasField("omitted"):
        gap = last.omitted
        ctx.out.note(
            f"maka: output after the first part was not kept: sequences {gap.first_sequence} "
            f"to {gap.last_sequence}, {gap.stdout_bytes} bytes of stdout, {gap.stderr_bytes} of "
            f"stderr, {gap.pty_bytes} of the terminal (the service's --max-run-output-bytes)"
        )
    elif not last.end_reached:
        ctx.out.note(f"maka: {ref} is still running; this is its output so far")
    return 0


async def cmd_stop(ctx: Context, args: argparse.Namespace) -> int:
    async with ctx.resource() as resource:
        run = await resource.stop_run(None, await run_ref(ctx, resource, args), timeout=60)
    if ctx.out.json:
        run.ClearField("output")
        ctx.out.record(run)
    else:
        ctx.out.line(describe_end(run))
    return 0
