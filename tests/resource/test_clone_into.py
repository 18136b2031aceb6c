"""A run's leader created inside its cgroup (core/process/leader.py and ``_clone.c``): it is
there from its first instruction, it starts exactly as ``subprocess.Popen(start_new_session=
True, close_fds=True)`` would start it, a start that fails says why and leaves no process, and
the start-up probe falls back to leaders that join their cgroup when told or when it must."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from maka_runtime.resource.core.process import leader
from maka_runtime.resource.core.process.leader import (
    clone_into,
    clone_into_unavailable,
    start_leader,
)
from maka_runtime.resource.core.sandbox import cgroups
from maka_runtime.resource.core.sandbox.cgroups import CgroupTree, RunCgroup, cgroup2_mount

PATH = {"PATH": "/usr/bin:/bin"}


@pytest.fixture
def null() -> Iterator[int]:
    fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    yield fd
    os.close(fd)


def _run(argv: list[str], cgroup: RunCgroup, *, cwd: str = "/", env: dict[str, str] | None = None,
         stdin: int | None = None) -> tuple[int, str]:  # fmt: skip
    """Start *argv* inside *cgroup* with its stdout on a pipe; its exit code and output."""
    read, write = os.pipe()
    devnull = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    try:
        started = clone_into(
            argv,
            cgroup=cgroup.path,
            stdio=(devnull if stdin is None else stdin, write, write),
            cwd=cwd,
            env=PATH if env is None else env,
        )
    finally:
        os.close(write)
        os.close(devnull)
    with os.fdopen(read, "rb") as output:
        text = output.read().decode()
    return started.wait(), text


def _zombie_children() -> list[int]:
    """This process's children that have exited and were never reaped."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            found.append(int(name))
    return found


def _status(text: str) -> dict[str, str]:
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def test_the_native_spawner_is_built_in_this_installation() -> None:
    # pip builds it where a C compiler is (pyproject.toml, optional); the development and CI
    # installations must have it, or every run here would quietly take the joining path.
    assert clone_into_unavailable() == ""


def test_the_leader_is_in_its_cgroup_from_its_first_instruction(cgroup: RunCgroup) -> None:
    # cat is the leader itself: no shell ran before it that could have joined the cgroup.
    code, output = _run(["/bin/cat", "/proc/self/cgroup"], cgroup)
    mount = cgroup2_mount()
    assert code == 0 and mount is not None
    assert f"0::/{cgroup.path.relative_to(mount)}\n" in output


def test_it_starts_in_a_new_session_with_default_signals_and_the_callers_mask(
    cgroup: RunCgroup,
) -> None:
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # Python ignores it; a child not
    code, output = _run(["/bin/cat", "/proc/self/status"], cgroup)
    status = _status(output)
    pid = status["Pid"].strip()
    assert code == 0
    assert status["NSsid"].strip() == pid and status["NSpgid"].strip() == pid
    assert int(status["SigIgn"], 16) == 0
    assert int(status["SigBlk"], 16) == 0  # the spawn blocks every signal, then restores
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        _, blocked = _run(["/bin/cat", "/proc/self/status"], cgroup)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
    assert int(_status(blocked)["SigBlk"], 16) == 1 << (signal.SIGUSR1 - 1)  # as Popen: kept


def test_it_has_only_its_three_streams_its_env_and_its_cwd(
    cgroup: RunCgroup, tmp_path: Path
) -> None:
    inherited_r, inherited_w = os.pipe()
    os.set_inheritable(inherited_w, True)  # would leak into a child without close_range
    try:
        _, fds = _run(["/bin/ls", "/proc/self/fd"], cgroup)
    finally:
        os.close(inherited_r)
        os.close(inherited_w)
    assert sorted(fds.split()) == ["0", "1", "2", "3"]  # 3: ls's own listing of the directory
    env = {"PATH": "/usr/bin:/bin", "ONE": "a b", "EMPTY": ""}
    _, printed = _run(["/usr/bin/env"], cgroup, env=env)
    assert sorted(printed.splitlines()) == sorted(f"{k}={v}" for k, v in env.items())
    _, cwd = _run(["/bin/pwd"], cgroup, cwd=str(tmp_path))
    assert cwd == f"{tmp_path}\n"


def test_devnull_is_opened_as_popen_opens_it_for_any_stream(cgroup: RunCgroup) -> None:
    # Popen opens /dev/null for reading and writing; a command may write to its stdin.
    read, write = os.pipe()
    try:
        started = start_leader(
            ["/bin/sh", "-c", "echo to-stdin >&0 && echo to-stdout && echo ok >&2"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=write,
            cwd="/",
            env=PATH,
            cgroup=cgroup.path,
        )
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as output:
        assert output.read() == b"ok\n"
    assert isinstance(started, leader.ClonedLeader) and started.wait() == 0


# Descriptors 0-2 of the spawning process are themselves among the streams, swapped: each must
# be read before it is overwritten. In a process of its own, whose 1 and 2 the probe can replace.
_SWAPPED = """
import json, os, sys
from pathlib import Path
from maka_runtime.resource.core.process.leader import clone_into
out_r, out_w = os.pipe()
err_r, err_w = os.pipe()
os.dup2(out_w, 1)
os.dup2(err_w, 2)
os.close(out_w)
os.close(err_w)
started = clone_into(["/bin/sh", "-c", "echo to-out; echo to-err >&2"], cgroup=Path(sys.argv[1]),
                     stdio=(0, 2, 1), cwd="/", env={"PATH": "/usr/bin:/bin"})
code = started.wait()
os.close(1)
os.close(2)
out, err = os.read(out_r, 100).decode(), os.read(err_r, 100).decode()
with open(int(sys.argv[2]), "w") as report:
    report.write(json.dumps({"code": code, "fd1": out, "fd2": err}))
"""


def test_streams_that_are_the_spawners_own_0_1_2_swapped_go_where_they_are_told(
    cgroup: RunCgroup,
) -> None:
    report_r, report_w = os.pipe()
    done = subprocess.run(
        [sys.executable, "-c", _SWAPPED, str(cgroup.path), str(report_w)],
        pass_fds=(report_w,),
        capture_output=True,
        timeout=30,
        check=False,
    )
    os.close(report_w)
    with os.fdopen(report_r) as report:
        result = json.loads(report.read())
    assert done.returncode == 0, done.stderr
    # stdout was the spawner's 2 (its stderr pipe), stderr its 1.
    assert result == {"code": 0, "fd1": "to-err\n", "fd2": "to-out\n"}


@pytest.mark.parametrize(
    ("argv", "cwd", "name"),
    [
        (["/bin/true"], "/no/such/directory", "chdir"),
        (["/no/such/program"], "/", "execve"),
        (["/etc/hostname"], "/", "execve"),  # not executable
    ],
)
def test_a_child_that_cannot_start_says_why_and_leaves_no_process(
    cgroup: RunCgroup, null: int, argv: list[str], cwd: str, name: str
) -> None:
    with pytest.raises(OSError) as raised:
        clone_into(argv, cgroup=cgroup.path, stdio=(null, null, null), cwd=cwd, env=PATH)
    assert raised.value.filename == (cwd if name == "chdir" else argv[0])
    assert f"(the child's {name})" in str(raised.value)
    assert _zombie_children() == []  # the failed child was reaped
    assert not cgroup.populated()


def test_a_cgroup_that_is_gone_or_not_a_cgroup_refuses_the_start(
    cgroup: RunCgroup, null: int, tmp_path: Path
) -> None:
    with pytest.raises(FileNotFoundError):
        clone_into(["/bin/true"], cgroup=tmp_path / "gone", stdio=(null, null, null), cwd="/",
                   env=PATH)  # fmt: skip
    with pytest.raises(OSError) as raised:  # a directory, but not of the cgroup2 hierarchy
        clone_into(["/bin/true"], cgroup=tmp_path, stdio=(null, null, null), cwd="/", env=PATH)
    assert raised.value.errno is not None
    assert _zombie_children() == []


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["true"], PATH, "absolute path"),
        (["/bin/true", "a\0b"], PATH, "without NUL"),
        (["/bin/true"], {"A=B": "c"}, "illegal environment variable name"),
        (["/bin/true"], {"A": "b\0c"}, "without NUL"),
    ],
)
def test_bad_arguments_are_refused_before_anything_starts(
    cgroup: RunCgroup, null: int, argv: list[str], env: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        clone_into(argv, cgroup=cgroup.path, stdio=(null, null, null), cwd="/", env=env)
    assert not cgroup.populated() and _zombie_children() == []


def test_concurrent_starts_from_several_threads_each_get_their_own_child(
    cgroup: RunCgroup, null: int
) -> None:
    # The spawn releases the GIL while its child runs on a stack of its own: eight threads at
    # once, held at a barrier so that their starts overlap.
    barrier = threading.Barrier(8)
    results: list[tuple[int, int]] = []
    lock = threading.Lock()

    def starts() -> None:
        barrier.wait()
        for _ in range(16):
            started = clone_into(["/bin/true"], cgroup=cgroup.path, stdio=(null, null, null),
                                 cwd="/", env=PATH)  # fmt: skip
            code = started.wait()
            with lock:
                results.append((started.pid, code))

    threads = [threading.Thread(target=starts) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == 128 and all(code == 0 for _, code in results)
    assert len({pid for pid, _ in results}) == 128


def test_the_exit_status_reads_as_popens(cgroup: RunCgroup, null: int) -> None:
    started = clone_into(["/bin/sh", "-c", "kill -TERM $$"], cgroup=cgroup.path,
                         stdio=(null, null, null), cwd="/", env=PATH)  # fmt: skip
    assert started.wait() == -signal.SIGTERM and started.poll() == -signal.SIGTERM
    exits = clone_into(["/bin/sh", "-c", "exit 7"], cgroup=cgroup.path, stdio=(null, null, null),
                       cwd="/", env=PATH)  # fmt: skip
    assert exits.wait() == 7


# -- the start-up probe ------------------------------------------------------------------------


def _probe_base(cgroup: RunCgroup) -> Path:
    return cgroup.path.parent / f"probe-test-{os.urandom(4).hex()}"


def _remove(base: Path) -> None:
    for child in base.glob("*/"):
        child.rmdir()
    base.rmdir()


def test_the_probe_has_leaders_created_inside_their_cgroups_where_the_host_allows(
    cgroup: RunCgroup,
) -> None:
    base = _probe_base(cgroup)
    try:
        found = CgroupTree.probe(base)
        assert found.tree is not None and found.tree.clone_into
        assert found.tree.entry_reason == ""
    finally:
        _remove(base)


def test_the_probe_falls_back_to_joining_when_told_or_when_it_must(
    cgroup: RunCgroup, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _probe_base(cgroup)
    try:
        told = CgroupTree.probe(base, clone_into=False)
        assert told.tree is not None and not told.tree.clone_into
        assert told.tree.entry_reason == "--run-cgroup-entry join"

        # A host that refuses clone3 (a seccomp profile, an old kernel): said, then joined.
        def refused(*args: object, **kwargs: object) -> leader.ClonedLeader:
            raise OSError(38, "Function not implemented")

        monkeypatch.setattr(cgroups, "clone_into", refused)
        host = CgroupTree.probe(base)
        assert host.tree is not None and not host.tree.clone_into
        assert host.tree.entry_reason == (
            "the host refuses clone3 into a cgroup (Function not implemented)"
        )
        monkeypatch.setattr(cgroups, "clone_into_unavailable", lambda: "not built (no compiler)")
        unbuilt = CgroupTree.probe(base)
        assert unbuilt.tree is not None and not unbuilt.tree.clone_into
        assert unbuilt.tree.entry_reason == "not built (no compiler)"
    finally:
        _remove(base)
