"""What a person types for a run or a session, resolved to the id the services know.

A run is named by its ref, its id (the ref without ``maka://runtime/background-tasks/``) or a
unique prefix of either; a session by its id, its name or a unique prefix of its id. An exact
id wins without listing anything; otherwise the candidates are listed, and more than one is an
error that names them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re

from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from maka_runtime_client._kernel import KernelClient
from maka_runtime_client._resource import ResourceClient
from maka_runtime_client.cli.context import CommandError, Context
from maka_runtime_client.errors import ConflictError, InvalidRequestError, NotFoundError

DEFAULT_SESSION = "default"
#: A principal id that can be part of a session id as it is.
_PLAIN_PRINCIPAL = re.compile(r"[A-Za-z0-9._:-]{1,100}")
REF_PREFIX = "maka://runtime/background-tasks/"
#: Candidates named in an "ambiguous" error before "… and N more".
_SHOWN = 8
_PAGE = 500


def ambiguous(what: str, text: str, candidates: list[str]) -> CommandError:
    shown = ", ".join(candidates[:_SHOWN])
    more = f" and {len(candidates) - _SHOWN} more" if len(candidates) > _SHOWN else ""
    return CommandError(
        f"{what} {text!r} is ambiguous: it matches {shown}{more}; give more of it", "AMBIGUOUS"
    )


async def resolve_ref(resource: ResourceClient, text: str, session_id: str | None) -> str:
    """The ref of the run *text* names (in *session_id*, if given; else in any session)."""
    wanted = text.removeprefix(REF_PREFIX)
    if not wanted:
        raise CommandError("a run ref, id or id prefix is required")
    with contextlib.suppress(NotFoundError, InvalidRequestError):
        return (await resource.get_run(session_id, REF_PREFIX + wanted)).ref
    matches = [
        run.ref for run in await all_runs(resource, session_id) if run_id(run).startswith(wanted)
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ambiguous("run id prefix", text, matches)
    where = f" in session {session_id}" if session_id else ""
    raise CommandError(f"no run {text}{where}", "NOT_FOUND")


async def resolve_session(kernel: KernelClient, text: str) -> str:
    """The id of the session *text* names: its id, its name, or a unique prefix of its id."""
    if not text:
        raise CommandError("a session id, id prefix or name is required")
    with contextlib.suppress(NotFoundError, InvalidRequestError):
        return (await kernel.get_session(text)).id
    sessions = await all_sessions(kernel)
    for matches, what in (
        ([s.id for s in sessions if s.name == text], "session name"),
        ([s.id for s in sessions if s.id.startswith(text)], "session id prefix"),
    ):
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise ambiguous(what, text, matches)
    raise CommandError(f"no session {text!r} (by id, id prefix or name)", "NOT_FOUND")


def run_id(run: rpb.Run) -> str:
    return run.ref.removeprefix(REF_PREFIX)


async def all_runs(resource: ResourceClient, session_id: str | None) -> list[rpb.Run]:
    """Every run of *session_id* (``None``: of every session), oldest first."""
    runs: list[rpb.Run] = []
    token = ""
    while True:
        page = await resource.list_runs(session_id, page_size=_PAGE, page_token=token)
        runs.extend(page.runs)
        token = page.next_page_token
        if not token:
            return runs


async def all_sessions(kernel: KernelClient) -> list[kpb.Session]:
    """Every session, archived or not, newest first."""
    sessions: list[kpb.Session] = []
    token = ""
    while True:
        page = await kernel.list_sessions(page_size=_PAGE, page_token=token)
        sessions.extend(page.sessions)
        token = page.next_page_token
        if not token:
            return sessions


def default_session() -> str:
    """The session runs belong to without ``--session``: ``$MAKA_SESSION``, else "default"."""
    return os.environ.get("MAKA_SESSION") or DEFAULT_SESSION


async def named_session(ctx: Context, text: str) -> str:
    """The session *text* names for the resource service: resolved through the kernel (id,
    name or id prefix), except that a standalone resource service takes any id as it is."""
    async with ctx.resource() as resource:
        info = await resource.get_server_info()
    if info.standalone:
        return text
    async with ctx.kernel() as kernel:
        return await resolve_session(kernel, text)


def default_session_of(principal: str) -> str:
    """The default session of *principal*: ``default`` for the local credential
    (and a kernel that does not say who the caller is), else ``default-PRINCIPAL`` (a hash of
    the principal when it does not fit a session id), so two principals never share one."""
    if principal in ("", "local"):
        return DEFAULT_SESSION
    if not _PLAIN_PRINCIPAL.fullmatch(principal):
        principal = hashlib.sha256(principal.encode()).hexdigest()[:16]
    return f"{DEFAULT_SESSION}-{principal}"


async def session_for(ctx: Context, explicit: str | None) -> str:
    """The session of a run command: ``--session``, else ``$MAKA_SESSION``, else the caller's
    default session (:func:`default_session_of`, the principal as the service names it).

    The resource service admits only sessions the kernel knows (unless it runs standalone), so
    the default session is created in the kernel on first use (workspace: the current
    directory; the kernel refuses one that overlaps its data directory, as your home does).
    """
    if explicit or os.environ.get("MAKA_SESSION"):
        return await named_session(ctx, explicit or default_session())
    async with ctx.resource() as resource:
        info = await resource.get_server_info()
    if info.standalone:  # the first principal naming a session owns it: one default each
        return default_session_of(info.principal)
    async with ctx.kernel() as kernel:
        session_id = default_session_of((await kernel.get_server_info()).principal)
        try:
            await kernel.get_session(session_id)
        except NotFoundError:
            with contextlib.suppress(ConflictError):  # another maka made it meanwhile
                here = os.getcwd()
                await kernel.create_session(here, session_id=session_id, name="maka CLI runs")
    return session_id
