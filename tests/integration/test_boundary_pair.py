"""The kernel's execution boundary end to end: real kernel and resource processes over gRPC,
every run in real bubblewrap.

Each session has a durable boundary (profile, expansions, revision) that the kernel sends with
every run; widening it is the approval: allow_once for that retry only, allow_session for the
session (a new revision that survives a kernel restart), deny for nothing. The read-only and
danger-full-access profiles do what they say, and allow_session for ``git status`` does not let
``git -c alias.x='!touch M' x`` run unasked.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from maka_runtime_client.aio import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

from tests.support.processes import spawn_service

from .conftest import Pair, every, first, start_pair

ALLOW_ONCE = kpb.SANDBOX_DECISION_ALLOW_ONCE
ALLOW_SESSION = kpb.SANDBOX_DECISION_ALLOW_SESSION
DENY = kpb.SANDBOX_DECISION_DENY
BYPASS = kpb.PERMISSION_MODE_BYPASS


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    """The pair, with a kernel whose shutdown leaves the resource service up (to restart it)."""
    started = start_pair(tmp_path, "--shutdown-resource", "no")
    try:
        yield started
    finally:
        started.stop()
        started.proxy.close()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside the workspace (and outside every sandbox, unless granted)."""
    path = tmp_path / "outside"
    path.mkdir()
    return path


async def turn(
    kernel: KernelClient, session_id: str, text: str, *answers: kpb.SandboxDecision.ValueType
) -> tuple[list[kpb.SessionEvent], list[kpb.SandboxBoundaryRequest]]:
    """A turn's events, answering its sandbox-boundary requests with *answers* in order."""
    events, requests, left = [], [], list(answers)
    async for event in kernel.start_turn(session_id, text):
        events.append(event)
        if event.WhichOneof("event") == "sandbox_boundary_request":
            request = event.sandbox_boundary_request
            requests.append(request)
            assert left, f"an unexpected request: {request}"
            await kernel.respond_to_sandbox_boundary(session_id, request.request_id, left.pop(0))
    assert not left, "fewer requests than answers"
    return events, requests


def results(events: list[kpb.SessionEvent]) -> list[kpb.ToolResult]:
    return [event.tool_result for event in every(events, "tool_result")]


def write_grant(path: Path) -> sb.BoundaryExpansion:
    return sb.BoundaryExpansion(
        filesystem=[
            sb.FilesystemEntry(
                path=str(path), access=sb.FILESYSTEM_ACCESS_WRITE, match=sb.PATH_MATCH_SUBTREE
            )
        ]
    )


@pytest.fixture
async def resource(pair: Pair) -> AsyncIterator[ResourceClient]:
    async with ResourceClient(pair.resource.address) as client:
        yield client


async def test_allow_once_widens_the_boundary_for_that_run_only(
    kernel: KernelClient, resource: ResourceClient, workspace: Path, outside: Path
) -> None:
    session = await kernel.create_session(str(workspace))
    assert session.boundary.profile == sb.PERMISSION_PROFILE_WORKSPACE_WRITE
    assert (session.boundary.revision, list(session.boundary.expansions)) == (1, [])
    events, [request] = await turn(
        kernel, session.id, f"/write {outside} touch {outside}/once", ALLOW_ONCE
    )
    assert request.command == f"touch {outside}/once"
    assert request.expansion == write_grant(outside)
    assert request.base_revision == 1 and request.justification
    [result] = results(events)
    assert (result.is_error, result.exit_code, result.boundary_revision) == (False, 0, 1)
    assert result.profile == sb.PERMISSION_PROFILE_WORKSPACE_WRITE
    assert result.once_expansion == request.expansion  # what the run carried, on its record
    assert (outside / "once").exists()
    run = await resource.get_run(session.id, result.run_ref)
    assert run.sandbox.boundary_revision == 1

    # The next command gets the session's boundary again: it cannot write there.
    events, _ = await turn(kernel, session.id, f"touch {outside}/next", ALLOW_ONCE)
    [result] = results(events)
    assert result.is_error and result.exit_code != 0
    assert not result.HasField("once_expansion")
    assert not (outside / "next").exists()
    after = await kernel.get_session(session.id)
    assert (after.boundary.revision, list(after.boundary.expansions)) == (1, [])


async def test_allow_session_widens_the_session_durably_across_a_kernel_restart(
    pair: Pair, workspace: Path, outside: Path
) -> None:
    async with KernelClient(pair.kernel.address) as kernel:
        session = await kernel.create_session(str(workspace))
        events, [request] = await turn(
            kernel, session.id, f"/write {outside} touch {outside}/a", ALLOW_SESSION
        )
        [result] = results(events)
        assert (result.exit_code, result.boundary_revision) == (0, 2)
        widened = await kernel.get_session(session.id)
        assert widened.boundary.revision == 2
        assert list(widened.boundary.expansions) == [write_grant(outside)]
        log = await kernel.read_messages(session.id)
        notes = [e.system_note for e in log if e.WhichOneof("event") == "system_note"]
        [note] = [n for n in notes if n.kind == kpb.SYSTEM_NOTE_KIND_BOUNDARY_WIDENED]
        assert note.source == request.request_id and "revision 2" in note.text
        # Another command line asks (approvals are per line) but needs no widening.
        events, [asked] = await turn(kernel, session.id, f"touch {outside}/b", ALLOW_ONCE)
        assert not asked.HasField("expansion")
        assert results(events)[0].exit_code == 0 and (outside / "b").exists()

    pair.kernel.signal(signal.SIGTERM)
    pair.kernel.wait(20)
    pair.kernel = spawn_service(
        "kernel",
        pair.kernel_dir,
        *("--default-backend", "shell", "--resource-address", pair.proxy.address),
        *pair.extra_kernel_args,
    )
    pair.kernel.wait_bound()
    async with KernelClient(pair.kernel.address) as kernel:
        restarted = await kernel.get_session(session.id)
        assert restarted.boundary == widened.boundary
        [listed] = [s for s in (await kernel.list_sessions()).sessions if s.id == session.id]
        assert listed.boundary.revision == 2
        events, _ = await turn(kernel, session.id, f"touch {outside}/c", ALLOW_ONCE)
        [result] = results(events)
        assert (result.exit_code, result.boundary_revision) == (0, 2)
        assert (outside / "c").exists()
    async with ResourceClient(pair.resource.address) as resource:
        run = await resource.get_run(session.id, result.run_ref)
        assert run.sandbox.boundary_revision == 2


async def test_deny_widens_nothing(kernel: KernelClient, workspace: Path, outside: Path) -> None:
    session = await kernel.create_session(str(workspace))
    events, [request] = await turn(kernel, session.id, f"/write {outside} touch {outside}/no", DENY)
    assert request.expansion == write_grant(outside)
    [result] = results(events)
    assert result.is_error and not result.run_ref and "denied" in result.output
    assert first(events, "complete").complete.stop_reason == "denied"
    assert not (outside / "no").exists()
    after = await kernel.get_session(session.id)
    assert (after.boundary.revision, list(after.boundary.expansions)) == (1, [])


async def test_a_sandbox_refusal_asks_for_what_it_needs_and_the_retry_runs(
    kernel: KernelClient, workspace: Path
) -> None:
    """A read-only session cannot write its workspace; the refusal is a structured failure
    naming the expansion, the shell backend asks for it, and allowed once the retry writes."""
    session = await kernel.create_session(str(workspace), profile="read-only")
    assert session.boundary.profile == sb.PERMISSION_PROFILE_READ_ONLY
    events, [command, widen] = await turn(kernel, session.id, "touch made", ALLOW_ONCE, ALLOW_ONCE)
    refused, retried = results(events)
    assert refused.is_error and refused.exit_code != 0
    assert refused.sandbox_failure.reason == "sandbox_boundary_required"
    assert refused.sandbox_failure.required_expansion == write_grant(workspace)
    assert "Read-only file system" in refused.sandbox_failure.detail
    assert refused.profile == sb.PERMISSION_PROFILE_READ_ONLY
    assert not command.HasField("expansion")
    assert widen.expansion == write_grant(workspace)
    # The request quotes what the output reported; it does not claim the sandbox refused it.
    assert widen.justification.startswith("the command's output reported ")
    assert "Read-only file system" in widen.justification
    assert "sandbox refused" not in widen.justification
    assert retried.exit_code == 0 and (workspace / "made").exists()
    assert not refused.HasField("once_expansion")
    assert retried.once_expansion == widen.expansion  # the retry's record names its grant
    after = await kernel.get_session(session.id)
    assert (after.boundary.revision, list(after.boundary.expansions)) == (1, [])


async def test_read_only_cannot_write_the_workspace(kernel: KernelClient, workspace: Path) -> None:
    (workspace / "kept").write_text("as it was")
    session = await kernel.create_session(
        str(workspace), profile="read-only", permission_mode=BYPASS
    )
    events, _ = await turn(kernel, session.id, "cat kept && echo changed > kept")
    [result] = results(events)
    assert result.is_error and "as it was" in result.output
    assert result.sandbox_failure.required_expansion == write_grant(workspace)
    assert (workspace / "kept").read_text() == "as it was"


async def test_danger_full_access_is_visible_everywhere_and_works(
    kernel: KernelClient, resource: ResourceClient, workspace: Path, outside: Path
) -> None:
    session = await kernel.create_session(
        str(workspace), profile="danger-full-access", permission_mode=BYPASS
    )
    danger = sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS
    assert session.boundary.profile == danger
    listed = [s for s in (await kernel.list_sessions()).sessions if s.id == session.id]
    assert [s.boundary.profile for s in listed] == [danger]
    for name in ("one", "two"):
        events, _ = await turn(kernel, session.id, f"touch {outside}/{name}")
        [result] = results(events)
        assert (result.exit_code, result.profile) == (0, danger)
        assert (outside / name).exists()
        run = await resource.get_run(session.id, result.run_ref)
        assert run.sandbox.profile == danger
    events, _ = await turn(kernel, session.id, "/bg sleep 0")
    [background] = results(events)
    assert background.profile == danger and background.run_ref


async def test_allow_session_for_git_status_does_not_allow_a_git_alias(
    kernel: KernelClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace))
    await turn(kernel, session.id, "git status", ALLOW_SESSION)
    again, asked = await turn(kernel, session.id, "git status")
    assert asked == [] and results(again)
    escape = "git -c alias.x='!touch M' x"
    events, [request] = await turn(kernel, session.id, escape, DENY)
    assert request.command == escape
    assert not (workspace / "M").exists()
    assert first(events, "complete").complete.stop_reason == "denied"


async def test_bypass_never_widens_a_declared_need(
    kernel: KernelClient, workspace: Path, outside: Path
) -> None:
    session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
    events, asked = await turn(kernel, session.id, f"/write {outside} touch {outside}/x")
    assert asked == []
    [result] = results(events)
    assert result.is_error and not result.run_ref
    assert result.sandbox_failure.required_expansion == write_grant(outside)
    assert not (outside / "x").exists()


async def test_writing_slash_or_a_system_directory_is_never_asked_for(
    kernel: KernelClient, workspace: Path, tmp_path: Path
) -> None:
    """``/write /`` and ``/write /etc`` (or a symlink to it) fail unrun; a run whose output
    reports a read-only ``/foo`` gets ``requires_bypass`` and no request for ``write /``."""
    session = await kernel.create_session(str(workspace))
    (tmp_path / "etc-link").symlink_to("/etc")
    for target in ("/", "/etc", str(tmp_path / "etc-link")):
        events, asked = await turn(kernel, session.id, f"/write {target} touch {target}/revmark")
        assert asked == [] and results(events) == []
        said = "".join(event.text_delta.text for event in every(events, "text_delta"))
        assert "nothing run" in said and "can never be granted" in said, said
    events, [command] = await turn(kernel, session.id, "touch /revmark", ALLOW_ONCE)
    assert not command.HasField("expansion")
    [result] = results(events)
    assert result.is_error and result.sandbox_failure.reason == "requires_bypass"
    assert list(result.sandbox_failure.required_expansion.filesystem) == []
    assert "can never be granted" in result.sandbox_failure.detail
    after = await kernel.get_session(session.id)
    assert (after.boundary.revision, list(after.boundary.expansions)) == (1, [])


async def test_a_declared_symlink_is_asked_for_as_its_real_path(
    kernel: KernelClient, workspace: Path, outside: Path
) -> None:
    """A link in the workspace to a directory outside it: the request names the directory
    (and the link as written), and the grant lets the run write through the link."""
    real = outside / "real"
    real.mkdir()
    (workspace / "link").symlink_to(real)
    session = await kernel.create_session(str(workspace))
    events, [request] = await turn(kernel, session.id, "/write link touch link/f", ALLOW_ONCE)
    assert request.expansion == write_grant(real)
    assert f"link -> {real}" in request.justification
    assert results(events)[0].exit_code == 0 and (real / "f").exists()


async def test_the_kernel_data_directory_is_never_proposed(
    pair: Pair, kernel: KernelClient, workspace: Path
) -> None:
    session = await kernel.create_session(str(workspace))
    line = f"{pair.kernel_dir}/kernel/cache: Read-only file system"
    events, _ = await turn(kernel, session.id, f"echo '{line}'; exit 1", ALLOW_ONCE)
    [result] = results(events)
    assert result.sandbox_failure.reason == "requires_bypass"
    assert "kernel's data directory" in result.sandbox_failure.detail
    after = await kernel.get_session(session.id)
    assert after.boundary.revision == 1


async def test_a_parent_grant_does_not_cover_git_metadata_so_it_is_asked_for(
    kernel: KernelClient, workspace: Path, outside: Path
) -> None:
    """As the resource service keeps ``.git`` read-only under every writable path, the kernel
    asks for ``/write .git`` after a session grant of its parent, and allowed, the run writes."""
    git = outside / "repo" / ".git"
    git.mkdir(parents=True)
    (git / "config").write_text("")
    session = await kernel.create_session(str(workspace))
    await turn(kernel, session.id, f"/write {outside} true", ALLOW_SESSION)
    events, [request] = await turn(
        kernel, session.id, f"/write {git} sh -c 'echo x >> {git}/config'", ALLOW_ONCE
    )
    assert request.expansion == write_grant(git)
    [result] = results(events)
    assert result.exit_code == 0 and (git / "config").read_text() == "x\n"
