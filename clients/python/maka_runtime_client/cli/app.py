"""The ``maka`` argument parser, dispatch, and the one place errors become exit codes."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

from maka_runtime_client.cli import attach, runs, services, sessions, turn
from maka_runtime_client.cli.context import (
    DEFAULT_KERNEL,
    DEFAULT_RESOURCE,
    OPTIONS,
    CommandError,
    Context,
)
from maka_runtime_client.cli.output import Output, printable
from maka_runtime_client.credentials import TlsFiles, discover_token
from maka_runtime_client.errors import (
    MakaError,
    PermissionDeniedError,
    UnauthenticatedError,
    UnavailableError,
)

Handler = Callable[[Context, argparse.Namespace], Coroutine[Any, Any, int]]


class Parser(argparse.ArgumentParser):
    """Usage errors print the usage, then the same one-line form as every error; exit 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, error_line(message, "USAGE") + "\n")


def version() -> str:
    """The installed package's version."""
    try:
        return metadata.version("maka-runtime")
    except metadata.PackageNotFoundError:
        return "unknown"


def add_global_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The options every command takes, before or after its name. Only the top-level parser
    has defaults: a subcommand's copy sets a value only when it is given there, so it never
    overwrites one given before the subcommand."""

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    parser.add_argument(
        "--kernel",
        metavar="HOST:PORT",
        default=default(os.environ.get("MAKA_KERNEL_ADDRESS") or DEFAULT_KERNEL),
        help="kernel address (env MAKA_KERNEL_ADDRESS, default "
        f"{os.environ.get('MAKA_KERNEL_ADDRESS') or DEFAULT_KERNEL})",
    )
    parser.add_argument(
        "--resource",
        metavar="HOST:PORT",
        default=default(os.environ.get("MAKA_RESOURCE_ADDRESS") or DEFAULT_RESOURCE),
        help="resource address (env MAKA_RESOURCE_ADDRESS, default "
        f"{os.environ.get('MAKA_RESOURCE_ADDRESS') or DEFAULT_RESOURCE})",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=default(False),
        help="machine output: one JSON object per line",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        default=default(None),
        help="bearer token (default: env MAKA_TOKEN, then the local credential "
        "DATA_DIR/credentials/local.token, DATA_DIR from env MAKA_DATA_DIR or the default)",
    )
    for name, what in (
        ("ca", "CA of the services' TLS certificates (env MAKA_TLS_CA)"),
        ("cert", "client certificate for mutual TLS (env MAKA_TLS_CERT)"),
        ("key", "private key of --tls-cert (env MAKA_TLS_KEY)"),
    ):
        parser.add_argument(
            f"--tls-{name}",
            metavar="PEM",
            default=default(os.environ.get(f"MAKA_TLS_{name.upper()}")),
            help=what,
        )
    parser.add_argument("--version", action="version", version=f"maka {version()}")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="maka", description="Sessions, turns and runs of Maka Runtime.")
    add_global_options(parser, defaults=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (services, sessions, turn, runs, attach):
        module.register(commands)
    for command in commands.choices.values():
        add_global_options(command, defaults=False)
    return parser


def error_line(message: str, reason: str) -> str:
    """The one line every failure prints on stderr (a message naming what the user or a
    service gave keeps it on this line, its control characters escaped)."""
    return f"maka: error: {printable(message)} ({printable(reason)})"


#: The address in gRPC's "failed to connect" text: ``ipv4:127.0.0.1:59998: …``.
_PEER = re.compile(r"(?:ipv4|ipv6|unix|dns):(\S+?):? (?:[A-Z]|Failed|Connection|Socket)")


def unreachable(error: MakaError, ctx: Context) -> str | None:
    """One line for a service that could not be reached at all (None for any other error)."""
    text = error.message or ""
    if not isinstance(error, UnavailableError) or "failed to connect" not in text:
        return None
    services = (
        ("kernel", "--kernel", ctx.kernel_address),
        ("resource service", "--resource", ctx.resource_address),
    )
    found = _PEER.search(text)
    peer = found[1] if found else ""
    # The address as given, or the same port (``localhost:N`` is reported as ``127.0.0.1:N``).
    named = [s for s in services if s[2] in text or peer.endswith(":" + s[2].rsplit(":")[-1])]
    name, flag, address = named[0] if named else ("service", "--kernel/--resource", peer or "?")
    cause = text.rsplit(": ", 1)[-1].strip().lower() or "unreachable"
    return (
        f"no {name} at {address} ({cause}) — is it running? start it with ./dev up, "
        f"or point {flag} at it"
    )


def auth_hint(error: MakaError, token: str | None) -> str:
    """The one line for a call refused for its credential: what was wrong, how to fix it."""
    if isinstance(error, UnauthenticatedError):
        if token is None:
            return (
                "no credential: pass --token or set MAKA_TOKEN (or MAKA_DATA_DIR to the "
                "services' data directory, whose credentials/local.token is used)"
            )
        return (
            "the service does not know this token: check --token / MAKA_TOKEN, or "
            "MAKA_DATA_DIR (the services' data directory)"
        )
    detail = error.message.splitlines()[0] if error.message else "a role is missing"
    if error.field == "session_id":  # a run started in a session the kernel registered
        return (
            f"{detail.split(':')[0]}: commands in a kernel session run through the kernel, "
            "as turns: maka turn SESSION 'COMMAND'"
        )
    return f"{detail}: use a credential with that role (--token or MAKA_TOKEN)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``maka`` command; returns its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    files = (args.tls_ca, args.tls_cert, args.tls_key)
    tls = TlsFiles(*(Path(f) if f else None for f in files)) if any(files) else None
    options = replace(OPTIONS, token=args.token or None, tls=tls)
    ctx = Context(args.kernel, args.resource, Output(json_mode=args.json), options)
    try:
        return asyncio.run(handler(ctx, args))
    except (UnauthenticatedError, PermissionDeniedError) as error:
        reason = error.reason or error.code.name
        print(error_line(auth_hint(error, discover_token(args.token)), reason), file=sys.stderr)
        return 1
    except MakaError as error:
        reason = error.reason or error.code.name
        message = error.message.splitlines()[0] if error.message else reason
        message = unreachable(error, ctx) or message
        print(error_line(message, reason), file=sys.stderr)
        return 1
    except CommandError as error:
        print(error_line(error.message, error.reason), file=sys.stderr)
        return 2 if error.reason == "USAGE" else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``maka ls | head``): nothing more to say.
        sys.stderr.close()
        return 1
