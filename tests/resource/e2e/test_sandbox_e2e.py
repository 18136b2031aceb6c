"""The escape suite: what a run must not be able to do, over real gRPC on a real
``maka-resource``, with real bubblewrap and real cgroups. Then the ways through: expansions,
``danger-full-access``, and what happens without bubblewrap (fail closed).

Escapes (each must fail):
- write to ``/etc``; write to ``$HOME``; write ``.git/config`` (and a ``.git`` file's gitdir,
  and ``.maka``) inside the workspace;
- read a file outside the readable roots; read ``/etc/shadow``;
- connect to a loopback listener the test opened;
- leave processes behind (``setsid``, a double fork, ``exec -a``, ``env -u MAKA_SHELL_RUN_ID``)
  after stop, timeout, drain and normal exit, sandboxed and not (kill -9 + restart: in
  ``test_sandbox_restart_e2e.py``);
- see a secret variable of the service's environment; start with ``LD_PRELOAD``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

from maka_runtime.resource.sandbox_config import masked_service_paths
from maka_runtime.resource.server import parse_config
from tests.resource.e2e.conftest import (
    E2E_CONFIG,
    SESSION_ID,
    Server,
    raises_status,
    read_output_until,
    start_server,
    stop_server,
    wait_until_ended,
)
from tests.support.pids import alive, host_pid
from tests.support.sandbox import READABLE_ROOTS

DANGER = sb.ExecutionBoundary(profile=sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS)
INVALID = (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
#: Four ways a process tries to outlive its run, each printing "<how> <pid>".
ESCAPEES = (
    "setsid sleep 600 & echo setsid $!; "
    "(setsid sleep 601 & echo double-fork $!) ; "
    "setsid bash -c 'exec -a innocent sleep 602' & echo exec-a $!; "
    "setsid env -u MAKA_SHELL_RUN_ID sleep 603 & echo env-u $!; "
)


async def run(server: Server, command: str, cwd: Path | str, **fields: Any) -> pb.Run:
    """RunForeground to its end; the final Run."""
    request = pb.RunForegroundRequest(session_id=SESSION_ID, command=command, cwd=str(cwd))
    for name, value in fields.items():
        if isinstance(value, dict):
            getattr(request, name).update(value)
        elif hasattr(value, "DESCRIPTOR"):
            getattr(request, name).CopyFrom(value)
        else:
            setattr(request, name, value)
    events = [event async for event in server.stub().RunForeground(request)]
    result: pb.Run = events[-1].result
    return result


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A git repository with .maka metadata: the run's workspace."""
    path = tmp_path / "workspace"
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text("[core]\n")
    (path / ".maka").mkdir()
    return path


# -- file system -----------------------------------------------------------------------------


async def test_a_run_cannot_write_to_etc(server: Server, workspace: Path) -> None:
    result = await run(server, "echo x > /etc/maka-escape", workspace)
    assert result.status == pb.RUN_STATUS_FAILED
    assert "Read-only file system" in result.pipes.stderr
    assert not await asyncio.to_thread(os.path.exists, "/etc/maka-escape")


async def test_a_run_cannot_write_to_home(server: Server, workspace: Path) -> None:
    home = Path.home()
    result = await run(server, 'echo "$HOME"; echo x > "$HOME/maka-escape"', workspace)
    assert result.status == pb.RUN_STATUS_FAILED
    assert result.pipes.stdout.strip() == str(home)  # HOME is set; it is just not there
    assert not (home / "maka-escape").exists()


async def test_a_run_writes_its_workspace_but_not_its_git_metadata(
    server: Server, workspace: Path
) -> None:
    result = await run(
        server,
        "echo made > made.txt; echo '[alias]' >> .git/config; touch .git/hooks-x; touch .maka/x",
        workspace,
    )
    assert result.status == pb.RUN_STATUS_FAILED
    assert (workspace / "made.txt").read_text() == "made\n"
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert not (workspace / ".git" / "hooks-x").exists()
    assert not (workspace / ".maka" / "x").exists()
    assert result.pipes.stderr.count("Read-only file system") == 3


async def test_a_git_file_s_gitdir_is_read_only_too(server: Server, tmp_path: Path) -> None:
    gitdir = tmp_path / "main" / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "HEAD").write_text("ref: refs/heads/wt\n")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {gitdir}\n")
    boundary = sb.ExecutionBoundary(writable_roots=[str(worktree), str(tmp_path / "main")])
    result = await run(
        server, f"echo x > {gitdir}/HEAD; echo y > .git; echo ok > f", worktree, boundary=boundary
    )
    assert (gitdir / "HEAD").read_text() == "ref: refs/heads/wt\n"
    assert (worktree / ".git").read_text() == f"gitdir: {gitdir}\n"
    assert (worktree / "f").read_text() == "ok\n"
    assert result.pipes.stderr.count("Read-only file system") == 2


async def test_a_run_cannot_read_a_file_outside_its_readable_roots(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("the secret")
    result = await run(server, f"cat {secret}; cat /etc/shadow; ls /root", workspace)
    assert "the secret" not in result.pipes.stdout
    assert "No such file or directory" in result.pipes.stderr
    assert ":" not in result.pipes.stdout  # nothing of /etc/shadow


async def test_a_read_only_run_cannot_write_its_workspace(server: Server, workspace: Path) -> None:
    boundary = sb.ExecutionBoundary(profile=sb.PERMISSION_PROFILE_READ_ONLY)
    result = await run(server, "cat .git/config; echo x > f", workspace, boundary=boundary)
    assert result.status == pb.RUN_STATUS_FAILED
    assert result.pipes.stdout == "[core]\n"
    assert not (workspace / "f").exists()
    assert result.sandbox.profile == sb.PERMISSION_PROFILE_READ_ONLY


async def test_expansions_grant_exactly_what_they_name(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "sub").mkdir(parents=True)
    (other / "readme").write_text("readable\n")
    write = sb.FilesystemEntry(path=str(other / "sub"), access=sb.FILESYSTEM_ACCESS_WRITE)
    read = sb.FilesystemEntry(
        path=str(other / "readme"),
        access=sb.FILESYSTEM_ACCESS_READ,
        match=sb.PATH_MATCH_EXACT,
    )
    git = sb.FilesystemEntry(
        path=str(workspace / ".git" / "config"), access=sb.FILESYSTEM_ACCESS_WRITE
    )
    boundary = sb.ExecutionBoundary(
        revision=7,
        expansions=[
            sb.BoundaryExpansion(filesystem=[write, read]),
            sb.BoundaryExpansion(filesystem=[git]),
        ],
    )
    result = await run(
        server,
        f"cat {other}/readme; echo w > {other}/sub/w; echo '[user]' >> .git/config; "
        f"echo no > {other}/no; touch .git/other",
        workspace,
        boundary=boundary,
    )
    assert result.pipes.stdout == "readable\n"
    assert (other / "sub" / "w").read_text() == "w\n"
    assert (workspace / ".git" / "config").read_text() == "[core]\n[user]\n"
    assert not (other / "no").exists()
    assert not (workspace / ".git" / "other").exists()
    assert result.sandbox.boundary_revision == 7


async def test_a_cwd_outside_an_explicit_boundary_is_refused(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    boundary = sb.ExecutionBoundary(writable_roots=[str(workspace)])
    async with raises_status(*INVALID) as details:
        await run(server, "true", outside, boundary=boundary)
    assert details["metadata"]["field"] == "cwd"
    assert "outside the run's boundary" in details["message"]


async def test_a_malformed_boundary_is_refused_and_nothing_is_recorded(
    server: Server, workspace: Path
) -> None:
    bad = [
        (sb.ExecutionBoundary(writable_roots=["relative"]), "boundary.writable_roots"),
        (sb.ExecutionBoundary(expansions=[sb.BoundaryExpansion()]), "boundary.expansions"),
        (
            sb.ExecutionBoundary(
                expansions=[sb.BoundaryExpansion(filesystem=[sb.FilesystemEntry(path="/x")])]
            ),
            "boundary.expansions.filesystem.access",
        ),
        (sb.ExecutionBoundary(revision=-1), "boundary.revision"),
    ]
    for boundary, field in bad:
        async with raises_status(*INVALID) as details:
            await run(server, "true", workspace, boundary=boundary)
        assert details["metadata"]["field"] == field
    runs = await server.stub().ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
    assert list(runs.runs) == []


# -- network ---------------------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        sock.settimeout(0)
        yield sock


def _accepted(sock: socket.socket) -> bool:
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


async def test_a_run_cannot_connect_to_a_loopback_listener(
    server: Server, workspace: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    result = await run(server, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected", workspace)
    assert result.status == pb.RUN_STATUS_FAILED
    assert "connected" not in result.pipes.stdout
    assert not _accepted(listener)
    assert not result.sandbox.network


async def test_a_network_expansion_lets_it_connect(
    server: Server, workspace: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    boundary = sb.ExecutionBoundary(expansions=[sb.BoundaryExpansion(network=True)])
    result = await run(
        server,
        f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected",
        workspace,
        boundary=boundary,
    )
    assert result.pipes.stdout == "connected\n"
    assert _accepted(listener)
    assert result.sandbox.network


# -- environment -----------------------------------------------------------------------------


@pytest.mark.parametrize("boundary", [None, DANGER], ids=["sandboxed", "danger-full-access"])
async def test_a_secret_in_the_service_environment_is_invisible_to_runs(
    server: Server,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    boundary: sb.ExecutionBoundary | None,
) -> None:
    monkeypatch.setenv("MAKA_TEST_API_KEY", "sk-do-not-leak")
    fields: dict[str, Any] = {"env": {"MINE": "mine"}}
    if boundary is not None:
        fields["boundary"] = boundary
    result = await run(server, "env; echo; echo MINE=$MINE", workspace, **fields)
    assert result.status == pb.RUN_STATUS_COMPLETED
    assert "sk-do-not-leak" not in result.pipes.stdout
    assert "MAKA_TEST_API_KEY" not in result.pipes.stdout
    assert "MINE=mine" in result.pipes.stdout
    assert "PATH=" in result.pipes.stdout
    if boundary is None:  # nor anywhere in its /proc (its own PID namespace)
        leaked = await run(server, "cat /proc/*/environ | tr '\\0' '\\n'", workspace)
        assert "sk-do-not-leak" not in leaked.pipes.stdout


@pytest.mark.parametrize("name", ["LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV"])
async def test_variables_that_change_how_the_shell_starts_are_refused(
    server: Server, workspace: Path, name: str
) -> None:
    async with raises_status(*INVALID) as details:
        await run(server, "true", workspace, env={name: "/tmp/evil.so"})
    assert details["metadata"]["field"] == "env"
    assert name in details["message"] and "danger-full-access" in details["message"]
    runs = await server.stub().ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
    assert list(runs.runs) == []


@pytest.mark.parametrize("path", ["/nowhere", ""])
async def test_a_run_s_own_path_does_not_break_its_jailer(
    server: Server, workspace: Path, path: str
) -> None:
    # What restores the jailer's signals starts by its absolute path, not from the PATH the
    # request gives: a PATH without /usr/bin still runs, and the command sees that PATH.
    result = await run(server, 'echo "[$PATH]"', workspace, env={"PATH": path})
    assert result.status == pb.RUN_STATUS_COMPLETED and result.exit_code == 0, result
    assert result.pipes.stdout == f"[{path}]\n"


async def test_danger_full_access_may_set_them(server: Server, workspace: Path) -> None:
    result = await run(
        server, 'echo "$LD_LIBRARY_PATH"', workspace, env={"LD_LIBRARY_PATH": "/opt/x"},
        boundary=DANGER,
    )  # fmt: skip
    assert result.pipes.stdout == "/opt/x\n"


# -- danger-full-access ----------------------------------------------------------------------


async def test_danger_full_access_runs_unsandboxed_and_says_so(
    server: Server, workspace: Path, tmp_path: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    outside = tmp_path / "outside.txt"
    result = await run(
        server,
        f"echo out > {outside}; exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected",
        workspace,
        boundary=DANGER,
    )
    assert result.status == pb.RUN_STATUS_COMPLETED
    assert outside.read_text() == "out\n"
    assert _accepted(listener)
    assert result.sandbox.profile == sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS
    assert result.sandbox.network
    got = await server.stub().GetRun(pb.GetRunRequest(session_id=SESSION_ID, ref=result.ref))
    assert got.run.sandbox == result.sandbox


async def test_every_run_says_how_it_was_confined(server: Server, workspace: Path) -> None:
    result = await run(server, "true", workspace)
    assert result.sandbox == sb.RunSandbox(
        profile=sb.PERMISSION_PROFILE_WORKSPACE_WRITE,
        boundary_revision=0,
        network=False,
        containment=sb.CONTAINMENT_CGROUP,
    )


# -- containment -----------------------------------------------------------------------------


async def _escapee_pids(server: Server, ref: str, leader: int, sandboxed: bool) -> list[int]:
    seen = await read_output_until(server.stub(), ref, b"started")
    lines = [line.split() for line in seen.decode().splitlines()]
    pids = [int(words[1]) for words in lines if len(words) == 2 and words[1].isdigit()]
    return [host_pid(leader, pid) if sandboxed else pid for pid in pids]


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "danger-full-access"])
@pytest.mark.parametrize("ending", ["stop", "timeout", "exit"])
async def test_no_process_of_a_run_outlives_it(
    server: Server, workspace: Path, sandboxed: bool, ending: str
) -> None:
    stub = server.stub()
    # The exit waits for a line of input, so that the test sees the pids first.
    tail = "echo started; read -r _; exit 0" if ending == "exit" else "echo started; sleep 600"
    request = pb.StartBackgroundRequest(
        session_id=SESSION_ID,
        command=ESCAPEES + tail,
        cwd=str(workspace),
        pty=ending == "exit",
    )
    if not sandboxed:
        request.boundary.CopyFrom(DANGER)
    if ending == "timeout":
        request.timeout_ms = 3000
    started = (await stub.StartBackground(request)).run
    pids = await _escapee_pids(server, started.ref, started.pid, sandboxed)
    assert len(pids) == 4 and all(alive(pid) for pid in pids)
    if ending == "stop":
        await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=started.ref))
    elif ending == "exit":
        await _type_line(server, started.ref)
    ended = await wait_until_ended(stub, started.ref)
    expected = {
        "stop": pb.RUN_STATUS_CANCELLED,
        "timeout": pb.RUN_STATUS_TIMED_OUT,
        "exit": pb.RUN_STATUS_COMPLETED,
    }[ending]
    assert ended.status == expected
    assert [pid for pid in pids if alive(pid)] == []


async def _type_line(server: Server, ref: str) -> None:
    stub = server.stub()
    connection_call = stub.OpenConnection(pb.OpenConnectionRequest(client_name="escape-suite"))
    connection = (await connection_call.read()).connection_id
    lease = await stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=ref, controller_id="typist", connection_id=connection
        )
    )
    await stub.ControlController(
        pb.ControlControllerRequest(
            session_id=SESSION_ID,
            ref=ref,
            controller_id="typist",
            connection_id=connection,
            sequence=lease.next_sequence,
            input="go\r",
        )
    )
    connection_call.cancel()


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "danger-full-access"])
async def test_a_drain_ends_every_process_of_every_run(
    tmp_path: Path, workspace: Path, sandboxed: bool
) -> None:
    running = await start_server(tmp_path / "data", shutdown_grace=2.0)
    try:
        stub = running.stub()
        request = pb.StartBackgroundRequest(
            session_id=SESSION_ID, command=ESCAPEES + "echo started; sleep 600", cwd=str(workspace)
        )
        if not sandboxed:
            request.boundary.CopyFrom(DANGER)
        started = (await stub.StartBackground(request)).run
        pids = await _escapee_pids(running, started.ref, started.pid, sandboxed)
        assert all(alive(pid) for pid in pids)
        report = await stub.Shutdown(pb.ShutdownRequest())
        assert report is not None
        await asyncio.wait_for(running.serving, 30)
        assert [pid for pid in pids if alive(pid)] == []
    finally:
        await stop_server(running)


async def test_the_service_reports_its_sandbox_and_containment(server: Server) -> None:
    info = await server.stub().GetServerInfo(pb.GetServerInfoRequest())
    caps = info.sandbox
    assert caps.sandbox_available and caps.sandbox_unavailable_reason == ""
    assert caps.bwrap_path.endswith("/bwrap") and caps.bwrap_version
    assert caps.containment == sb.CONTAINMENT_CGROUP and caps.containment_reason == ""
    assert await asyncio.to_thread(os.path.exists, os.path.join(caps.cgroup_root, "cgroup.procs"))


async def test_per_run_limits_are_enforced_or_reported(tmp_path: Path, workspace: Path) -> None:
    settings = dataclasses.replace(E2E_CONFIG.sandbox, pids_max=16)
    running = await start_server(
        tmp_path / "data", dataclasses.replace(E2E_CONFIG, sandbox=settings)
    )
    try:
        caps = (await running.stub().GetServerInfo(pb.GetServerInfoRequest())).sandbox
        if "pids" in caps.cgroup_controllers:
            result = await run(running, "for i in $(seq 40); do sleep 5 & done; wait", workspace)
            assert "Resource temporarily unavailable" in result.pipes.stderr
        else:  # this host's cgroup v2 tree has no pids controller: said, not pretended
            assert list(caps.unenforced_limits) == [
                "--run-pids-max: the pids controller is not in the cgroup v2 tree"
            ]
    finally:
        await stop_server(running)


@pytest.mark.parametrize("entry", ["auto", "join"])
async def test_a_run_is_in_its_own_cgroup_however_its_leader_entered_it(
    tmp_path: Path, workspace: Path, entry: str
) -> None:
    """``auto``: the leader is created inside its cgroup (clone3); ``join``: it writes itself
    into it. Either way the command, and what it leaves behind, are in the run's cgroup."""
    settings = dataclasses.replace(
        E2E_CONFIG.sandbox, cgroup_entry="join" if entry == "join" else "auto"
    )
    running = await start_server(
        tmp_path / "data", dataclasses.replace(E2E_CONFIG, sandbox=settings)
    )
    try:
        caps = (await running.stub().GetServerInfo(pb.GetServerInfoRequest())).sandbox
        assert caps.containment == sb.CONTAINMENT_CGROUP
        command = "grep '^0::' /proc/self/cgroup; setsid sleep 600 & echo $!"
        result = await run(running, command, workspace, boundary=DANGER)
        cgroup_line, escapee = result.pipes.stdout.split()
        run_id = result.ref.rsplit("/", 1)[-1]
        assert cgroup_line.startswith("0::/") and cgroup_line.endswith(f"/run-{run_id}")
        assert os.path.join(caps.cgroup_root, f"run-{run_id}").endswith(cgroup_line[3:])
        assert not alive(int(escapee))  # killed with its cgroup when the run ended
    finally:
        await stop_server(running)


# -- fallbacks -------------------------------------------------------------------------------


async def test_without_bubblewrap_sandboxed_runs_are_refused_with_the_reason(
    tmp_path: Path, workspace: Path
) -> None:
    settings = dataclasses.replace(E2E_CONFIG.sandbox, bwrap=str(tmp_path / "missing" / "bwrap"))
    running = await start_server(
        tmp_path / "data", dataclasses.replace(E2E_CONFIG, sandbox=settings)
    )
    try:
        stub = running.stub()
        caps = (await stub.GetServerInfo(pb.GetServerInfoRequest())).sandbox
        assert not caps.sandbox_available
        assert "apt-get install -y bubblewrap" in caps.sandbox_unavailable_reason
        for pty in (False, True):
            async with raises_status(
                grpc.StatusCode.FAILED_PRECONDITION, "SANDBOX_UNAVAILABLE"
            ) as details:
                await stub.StartBackground(
                    pb.StartBackgroundRequest(
                        session_id=SESSION_ID, command="true", cwd=str(workspace), pty=pty
                    )
                )
            assert "bubblewrap" in details["message"] and "apt-get" in details["message"]
        assert list((await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))).runs) == []
        # Nothing ever silently runs unsandboxed; an explicit opt-out still works.
        result = await run(running, "echo unsandboxed", workspace, boundary=DANGER)
        assert result.pipes.stdout == "unsandboxed\n"
    finally:
        await stop_server(running)


async def test_containment_falls_back_to_the_process_group_when_told(
    tmp_path: Path, workspace: Path
) -> None:
    settings = dataclasses.replace(E2E_CONFIG.sandbox, containment="process-group")
    running = await start_server(
        tmp_path / "data", dataclasses.replace(E2E_CONFIG, sandbox=settings)
    )
    try:
        stub = running.stub()
        caps = (await stub.GetServerInfo(pb.GetServerInfoRequest())).sandbox
        assert caps.containment == sb.CONTAINMENT_PROCESS_GROUP
        assert "process-group" in caps.containment_reason and caps.cgroup_root == ""
        result = await run(running, "echo grouped", workspace)
        assert result.pipes.stdout == "grouped\n"
        assert result.sandbox.containment == sb.CONTAINMENT_PROCESS_GROUP
        # Sandboxed, the PID namespace still ends every process with the run.
        request = pb.StartBackgroundRequest(
            session_id=SESSION_ID, command=ESCAPEES + "echo started; sleep 600", cwd=str(workspace)
        )
        started = (await stub.StartBackground(request)).run
        pids = await _escapee_pids(running, started.ref, started.pid, True)
        await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=started.ref))
        assert (await wait_until_ended(stub, started.ref)).status == pb.RUN_STATUS_CANCELLED
        assert [pid for pid in pids if alive(pid)] == []
    finally:
        await stop_server(running)


# -- PTY -------------------------------------------------------------------------------------


async def test_a_pty_run_keeps_job_control_inside_the_sandbox(
    server: Server, workspace: Path
) -> None:
    stub = server.stub()
    started = (
        await stub.StartBackground(
            pb.StartBackgroundRequest(
                session_id=SESSION_ID,
                command="set -m; sleep 30 & jobs; kill -STOP %1; "
                "until jobs | grep -q Stopped; do :; done; jobs; kill %1; fg; tty; touch /etc/x",
                cwd=str(workspace),
                pty=True,
                size=pb.TerminalSize(cols=100, rows=30),
            )
        )
    ).run
    ended = await wait_until_ended(stub, started.ref)
    text = "\n".join([*ended.screen.scrollback, *ended.screen.lines])
    assert "Running" in text and "Stopped" in text
    assert "/dev/console" in text  # its terminal, inside the sandbox
    assert "Read-only file system" in text
    assert ended.sandbox.profile == sb.PERMISSION_PROFILE_WORKSPACE_WRITE


# -- protected metadata that points elsewhere; the service's own data --------------------------


@pytest.mark.parametrize("target", ["/proc", "/root", "secret"])
async def test_a_gitdir_naming_a_path_outside_the_roots_binds_nothing(
    server: Server, tmp_path: Path, target: str
) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key").write_text("the key")
    named = str(secret) if target == "secret" else target
    ws = tmp_path / "ws"
    ws.mkdir()
    planted = await run(server, f"printf 'gitdir: {named}\\n' > .git", ws)
    assert planted.status == pb.RUN_STATUS_COMPLETED
    host = os.getpid()  # the service runs in this process
    result = await run(
        server,
        f"cat {secret}/key; test -e /proc/{host}/environ && echo LEAK; "
        f"test {named} = /proc || ls -A {named}; "
        f"echo x > {named}/maka-escape; echo started",
        ws,
    )
    assert result.pipes.stdout.endswith("started\n"), result.pipes.stderr
    assert "the key" not in result.pipes.stdout and "LEAK" not in result.pipes.stdout
    if target != "/proc":  # nothing of it, but the mount points of the suite's readable roots
        mount_points = {Path(p).relative_to(named).parts[0] for p in READABLE_ROOTS
                        if _within(p, named)}  # fmt: skip
        hidden = set(os.listdir(named)) - mount_points
        assert hidden and not hidden & set(result.pipes.stdout.split())
        assert "No such file or directory" in result.pipes.stderr
        assert not (Path(named) / "maka-escape").exists()


@pytest.mark.parametrize("target", ["/etc", "/nowhere", "inside"])
@pytest.mark.parametrize("name", [".git", ".maka"])
async def test_a_protected_symlink_never_bricks_the_session(
    server: Server, tmp_path: Path, name: str, target: str
) -> None:
    ws = tmp_path / "ws"
    (ws / "real").mkdir(parents=True)
    pointed = str(ws / "real") if target == "inside" else target
    planted = await run(server, f"ln -s {pointed} {name}", ws)
    assert planted.status == pb.RUN_STATUS_COMPLETED
    after = await run(server, f"echo x > {name}/hook; echo started", ws)
    assert after.pipes.stdout == "started\n", after.pipes.stderr
    if target == "inside":  # the target is the metadata: read-only at its real path
        assert "Read-only file system" in after.pipes.stderr
        assert not (ws / "real" / "hook").exists()
    else:
        assert not (Path(target) / "hook").exists()
    removed = await run(server, f"rm {name} && echo removed", ws)
    assert removed.pipes.stdout == "removed\n", removed.pipes.stderr
    assert not (ws / name).is_symlink() and not (ws / name).exists()


async def test_the_service_s_data_is_hidden_from_a_workspace_that_holds_it(
    server: Server, tmp_path: Path
) -> None:
    data = server.data_dir
    assert data.parent == tmp_path  # the workspace below holds it, as a home holds its data
    (data / "kernel").mkdir(exist_ok=True)
    (data / "kernel" / "secret").write_text("kernel secret")
    result = await run(
        server,
        f"cat {data}/credentials/local.token {data}/kernel/secret; ls -A {data}; "
        f"echo x > {data}/resource/evil; echo started",
        tmp_path,
    )
    assert result.pipes.stdout == "started\n", result.pipes.stderr  # an empty directory
    assert result.pipes.stderr.count("No such file or directory") == 3
    assert not (data / "resource" / "evil").exists()
    assert (data / "kernel" / "secret").read_text() == "kernel secret"


@pytest.mark.parametrize("inside", ["", "credentials", "resource"])
async def test_a_root_inside_the_service_s_data_is_refused(server: Server, inside: str) -> None:
    root = server.data_dir / inside if inside else server.data_dir
    async with raises_status(*INVALID) as details:
        await run(server, "cat credentials/local.token", root)
    assert "service's own data" in details["message"]
    boundary = sb.ExecutionBoundary(readable_roots=[str(root)])
    async with raises_status(*INVALID):
        await run(server, "true", server.data_dir.parent / "x", boundary=boundary)


async def test_danger_full_access_is_unsandboxed_and_sees_the_data(server: Server) -> None:
    (server.data_dir / "kernel").mkdir(exist_ok=True)
    (server.data_dir / "kernel" / "secret").write_text("kernel secret")
    result = await run(server, "cat kernel/secret", server.data_dir, boundary=DANGER)
    assert result.pipes.stdout == "kernel secret"


def _within(path: str, root: str) -> bool:
    return path.startswith(root.rstrip("/") + "/")


async def test_nested_repositories_are_protected_down_to_the_configured_depth(
    server: Server, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    for nested in ("sub", "a/b/c", "a/b/c/d"):  # levels 1, 3 and 4 below the root
        (ws / nested / ".git" / "hooks").mkdir(parents=True)
        (ws / nested / ".maka").mkdir()
    assert server.service.supervisor.sandbox.settings.protect_depth == 3  # the default
    result = await run(
        server,
        "for d in sub a/b/c a/b/c/d; do echo x > $d/.git/hooks/pre-commit; "
        "touch $d/.maka/x; done; echo started",
        ws,
    )
    assert result.pipes.stdout == "started\n", result.pipes.stderr
    assert result.pipes.stderr.count("Read-only file system") == 4
    for nested in ("sub", "a/b/c"):
        assert not (ws / nested / ".git" / "hooks" / "pre-commit").exists()
        assert not (ws / nested / ".maka" / "x").exists()
    # Deeper than --sandbox-protect-depth: writable (a known limit).
    assert (ws / "a/b/c/d/.git/hooks/pre-commit").exists()


async def test_the_masked_paths_setting_hides_files_and_directories(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "private").mkdir(parents=True)
    (ws / "private" / "key").write_text("private key")
    (ws / "token.json").write_text("token")
    masked = (str(ws / "private"), str(ws / "token.json"))
    sandbox = dataclasses.replace(E2E_CONFIG.sandbox, masked_paths=masked)
    server = await start_server(tmp_path / "data", dataclasses.replace(E2E_CONFIG, sandbox=sandbox))
    try:
        result = await run(server, "cat private/key; cat token.json; echo started", ws)
    finally:
        await stop_server(server)
    assert result.pipes.stdout == "started\n", result.pipes.stderr
    assert "private/key: No such file or directory" in result.pipes.stderr  # an empty directory
    assert "token.json: Permission denied" in result.pipes.stderr  # /dev/null, no devices


def test_the_masked_paths_setting_is_parsed_and_kept_with_the_service_s_own() -> None:
    config = parse_config(["--sandbox-masked-paths", "/srv/a:/srv/b", "--data-dir", "/srv/d"])
    assert config.shell.sandbox.masked_paths == ("/srv/a", "/srv/b")
    common = dataclasses.replace(
        config.common, token_file=Path("/srv/t.json"), tls_key=Path("/srv/key.pem")
    )
    masked = masked_service_paths(common, config.shell.sandbox).masked_paths
    assert masked == ("/srv/d", "/srv/t.json", "/srv/key.pem", "/srv/a", "/srv/b")
    assert parse_config([]).shell.sandbox.protect_depth == 3
    with pytest.raises(SystemExit):
        parse_config(["--sandbox-masked-paths", "relative"])


# -- / and the system directories; symlinks; expansions inside the service's data ------------


async def test_a_root_of_slash_shows_nothing_of_the_host_s_sys_proc_dev_or_run(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    marker = Path("/dev/shm") / f"maka-{tmp_path.name}"  # in the host's /dev, not in a fresh one
    marker.write_text("host")
    boundary = sb.ExecutionBoundary(writable_roots=[str(workspace)], readable_roots=["/"])
    try:
        result = await run(
            server,
            "ls -A /sys /run; test -e /sys/fs/cgroup/cgroup.procs && echo CGROUP; "
            f"test -e /proc/{os.getpid()} && echo HOST_PROC; test -e {marker} && echo SHM; "
            "echo x > /sys/maka-escape; ls -d /usr/bin; echo started",
            workspace,
            boundary=boundary,
        )
    finally:
        marker.unlink()
    assert result.pipes.stdout.endswith("/usr/bin\nstarted\n"), result.pipes.stderr
    assert "CGROUP" not in result.pipes.stdout and "HOST_PROC" not in result.pipes.stdout
    assert "SHM" not in result.pipes.stdout  # a fresh /dev, not the host's
    assert result.pipes.stdout.startswith("/run:\n\n/sys:\n/usr/bin")  # both empty
    assert "Read-only file system" in result.pipes.stderr


def _write(path: str) -> sb.BoundaryExpansion:
    entry = sb.FilesystemEntry(path=path, access=sb.FILESYSTEM_ACCESS_WRITE)
    return sb.BoundaryExpansion(filesystem=[entry])


@pytest.mark.parametrize(
    "how", ["root /", "root /etc", "root /usr/local", "write /", "write /sys/fs/cgroup",
            "write /run", "write link to /etc", "root link to /proc"],
)  # fmt: skip
async def test_writing_slash_or_a_system_directory_is_refused(
    server: Server, workspace: Path, tmp_path: Path, how: str
) -> None:
    kind, path = how.split(" ", 1)
    if path.startswith("link to "):
        link = tmp_path / "links" / Path(path).name
        link.parent.mkdir()
        link.symlink_to(path.removeprefix("link to "))
        path = str(link)
    roots = [path] if kind == "root" else [str(workspace)]
    expansions = [_write(path)] if kind == "write" else []
    boundary = sb.ExecutionBoundary(writable_roots=roots, expansions=expansions)
    async with raises_status(*INVALID) as details:
        await run(server, "touch /etc/maka-escape", workspace, boundary=boundary)
    assert details["metadata"]["field"] == "boundary"
    assert f"makes {path}" in details["message"] and "system directory" in details["message"]
    runs = await server.stub().ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))
    assert list(runs.runs) == []
    assert not await asyncio.to_thread(os.path.exists, "/etc/maka-escape")


async def test_a_read_only_run_may_still_be_rooted_in_slash(server: Server) -> None:
    boundary = sb.ExecutionBoundary(profile=sb.PERMISSION_PROFILE_READ_ONLY, writable_roots=["/"])
    result = await run(server, "ls -d /usr; echo x > /maka-escape", "/", boundary=boundary)
    assert result.pipes.stdout == "/usr\n" and "Read-only file system" in result.pipes.stderr


async def test_shadow_stays_masked_through_a_symlink_to_etc(
    server: Server, workspace: Path, tmp_path: Path
) -> None:
    link = tmp_path / "links" / "etc"
    link.parent.mkdir()
    link.symlink_to("/etc")
    read = sb.FilesystemEntry(path=str(link), access=sb.FILESYSTEM_ACCESS_READ)
    boundary = sb.ExecutionBoundary(expansions=[sb.BoundaryExpansion(filesystem=[read])])
    result = await run(
        server,
        f"for f in {link}/shadow /etc/shadow; do test -c $f && echo MASKED; done; "
        f"test -s {link}/passwd && echo PASSWD; cat {link}/shadow",
        workspace,
        boundary=boundary,
    )
    assert result.pipes.stdout == "MASKED\nMASKED\nPASSWD\n", result.pipes.stderr
    assert "Permission denied" in result.pipes.stderr  # the empty file: a device it cannot open


@pytest.mark.parametrize("access", [sb.FILESYSTEM_ACCESS_WRITE, sb.FILESYSTEM_ACCESS_READ])
async def test_an_expansion_inside_the_service_s_data_is_left_out_not_fatal(
    server: Server,
    workspace: Path,
    access: sb.FilesystemAccess.ValueType,
    caplog: pytest.LogCaptureFixture,
) -> None:
    kernel = server.data_dir / "kernel"
    kernel.mkdir(exist_ok=True)
    (kernel / "secret").write_text("kernel secret")
    entry = sb.FilesystemEntry(path=str(kernel), access=access)
    boundary = sb.ExecutionBoundary(
        revision=2, expansions=[sb.BoundaryExpansion(filesystem=[entry])]
    )
    caplog.set_level("INFO", logger="maka_runtime.resource.core.sandbox.launch")
    for _ in range(2):  # every later run of the session starts too
        result = await run(
            server, f"cat {kernel}/secret; echo x > {kernel}/evil; echo started", workspace,
            boundary=boundary,
        )  # fmt: skip
        assert result.pipes.stdout == "started\n", result.pipes.stderr
        assert result.status == pb.RUN_STATUS_COMPLETED
    assert not (kernel / "evil").exists()
    notes = [r for r in caplog.records if str(kernel) in r.getMessage()]
    assert len(notes) == 1 and "not bound" in notes[0].getMessage()
