"""``maka up``, ``maka health``, ``maka shutdown``: the service pair itself."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from maka_runtime_client import launcher
from maka_runtime_client.cli.context import CommandError, Context
from maka_runtime_client.cli.output import to_dict
from maka_runtime_client.errors import MakaError


def register(commands: Any) -> None:
    up = commands.add_parser("up", help="start both services here; Ctrl-C stops both")
    up.add_argument("--data-dir", default=None, help="default: the per-user data directory")
    up.add_argument("--log-level", default="info")
    up.set_defaults(handler=cmd_up)

    health = commands.add_parser("health", help="is each service up and serving")
    health.set_defaults(handler=cmd_health)

    shutdown = commands.add_parser("shutdown", help="drain and stop the services")
    which = shutdown.add_mutually_exclusive_group()
    which.add_argument("--kernel-only", action="store_true")
    which.add_argument("--resource-only", action="store_true")
    shutdown.set_defaults(handler=cmd_shutdown)


async def cmd_up(ctx: Context, args: argparse.Namespace) -> int:
    # The launcher prints its own progress and handles SIGINT/SIGTERM itself.
    if not launcher.servers_installed():
        raise CommandError(launcher.SERVERS_MISSING, "FAILED_PRECONDITION")
    options = argparse.Namespace(
        kernel_listen=ctx.kernel_address,
        resource_listen=ctx.resource_address,
        data_dir=args.data_dir,
        log_level=args.log_level,
    )
    return await launcher.run(options)


async def _probe(ctx: Context, service: str) -> dict[str, Any]:
    client = ctx.kernel() if service == "kernel" else ctx.resource()
    address = client.address
    try:
        async with client:
            info = await client.get_server_info(timeout=5)
    except MakaError as error:
        return {
            "service": service,
            "address": address,
            "status": "unreachable",
            "error": error.message,
            "reason": error.reason or error.code.name,
        }
    return {
        "service": service,
        "address": address,
        "status": "draining" if info.draining else "serving",
        "version": info.version,
        "pid": info.pid,
        "data_dir": info.data_dir,
    }


async def cmd_health(ctx: Context, args: argparse.Namespace) -> int:
    results = await asyncio.gather(_probe(ctx, "kernel"), _probe(ctx, "resource"))
    for result in results:
        if ctx.out.json:
            ctx.out.record(result)
            continue
        style = "green" if result["status"] == "serving" else "red"
        detail = (
            f"pid {result['pid']}, version {result['version']}"
            if "pid" in result
            else f"{result['error']} ({result['reason']})"
        )
        ctx.out.line(
            f"{result['service']:<9} {result['address']:<22} {result['status']:<12} {detail}",
            style,
        )
    return 0 if all(r["status"] == "serving" for r in results) else 1


async def cmd_shutdown(ctx: Context, args: argparse.Namespace) -> int:
    # The kernel first: it may still be using the resource service for its turns.
    if not args.resource_only:
        async with ctx.kernel() as kernel:
            response = await kernel.shutdown(timeout=120)
        _report(ctx, "kernel", to_dict(response))
    if not args.kernel_only:
        async with ctx.resource() as resource:
            drained = await resource.shutdown(timeout=120)
        _report(ctx, "resource", to_dict(drained))
    return 0


def _report(ctx: Context, service: str, details: dict[str, Any]) -> None:
    if ctx.out.json:
        ctx.out.record({"service": service, **details})
        return
    summary = ", ".join(f"{key}: {value}" for key, value in details.items())
    ctx.out.line(f"{service}: shut down" + (f" ({summary})" if summary else ""))
