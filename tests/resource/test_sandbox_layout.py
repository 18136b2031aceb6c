"""The sandbox's rules without running anything: the bubblewrap command line a boundary makes
(its mount order is the policy), the default boundary, the environment, the probes' verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from maka_runtime.resource.core import InvalidRequestError
from maka_runtime.resource.core.sandbox import (
    BoundaryExpansion,
    ExecutionBoundary,
    FilesystemEntry,
    default_boundary,
)
from maka_runtime.resource.core.sandbox.bwrap import bwrap_argv, layout, system_writes
from maka_runtime.resource.core.sandbox.cgroups import CgroupTree
from maka_runtime.resource.core.sandbox.environment import check_request_env, run_environment
from maka_runtime.resource.core.sandbox.probe import probe_bwrap


def _pairs(argv: list[str]) -> list[tuple[str, str]]:
    """(flag, destination) of every mount in *argv*, in order."""
    mounts = []
    for i, arg in enumerate(argv):
        if arg in ("--ro-bind", "--ro-bind-try", "--bind-try"):
            mounts.append((arg, argv[i + 2]))
        elif arg == "--tmpfs":
            mounts.append((arg, argv[i + 1]))
    return mounts


def test_mounts_go_from_the_shallowest_path_to_the_deepest(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    boundary = ExecutionBoundary(writable_roots=(str(workspace),), readable_roots=("/opt",))
    argv = bwrap_argv("bwrap", layout(boundary), cwd=str(workspace))
    mounts = _pairs(argv)
    assert mounts.index(("--tmpfs", "/tmp")) < mounts.index(("--bind-try", str(workspace)))
    assert mounts.index(("--ro-bind-try", "/etc")) < mounts.index(("--ro-bind", "/etc/shadow"))
    # The protected metadata comes after the writable root it is inside.
    assert mounts.index(("--bind-try", str(workspace))) < mounts.index(
        ("--ro-bind", str(workspace / ".git"))
    )
    assert "--unshare-net" in argv and "--die-with-parent" in argv and "--unshare-pid" in argv
    assert argv[-5:] == ["--remount-ro", "/", "--chdir", str(workspace), "--"]


def test_a_write_expansion_inside_protected_metadata_reopens_only_that_path(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    config = str(workspace / ".git" / "config")
    boundary = ExecutionBoundary(
        writable_roots=(str(workspace),),
        expansions=(BoundaryExpansion(filesystem=(FilesystemEntry(config, "write"),)),),
    )
    plan = layout(boundary)
    assert plan.protected == (str(workspace / ".git"),)
    assert plan.reopened == (config,)
    mounts = _pairs(bwrap_argv("bwrap", plan, cwd=str(workspace)))
    last_write = len(mounts) - 1 - mounts[::-1].index(("--bind-try", config))
    assert mounts.index(("--ro-bind", str(workspace / ".git"))) < last_write


def test_a_git_file_protects_the_gitdir_it_names(tmp_path: Path) -> None:
    gitdir = tmp_path / "main" / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: ../main/.git/worktrees/wt\n")
    roots = (str(worktree), str(tmp_path / "main"))
    plan = layout(ExecutionBoundary(writable_roots=roots))
    assert str(worktree / ".git") in plan.protected and str(gitdir) in plan.protected
    assert plan.protected_from == plan.protected


def test_a_gitdir_outside_the_writable_roots_is_never_bound(tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    for target in ("/proc", "/root", str(outside)):
        (worktree / ".git").write_text(f"gitdir: {target}\n")
        plan = layout(ExecutionBoundary(writable_roots=(str(worktree),)))
        assert plan.protected == (str(worktree / ".git"),)
        argv = bwrap_argv("bwrap", plan, cwd=str(worktree))
        assert ["--ro-bind", target, target] not in [argv[i : i + 3] for i in range(len(argv))]
        assert target not in plan.protected_from


def test_a_protected_symlink_binds_its_target_only_inside_the_writable_roots(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "real-git").mkdir(parents=True)
    (workspace / ".git").symlink_to("/etc")
    (workspace / ".maka").symlink_to(workspace / "real-git")
    plan = layout(ExecutionBoundary(writable_roots=(str(workspace),)))
    assert plan.protected == (str(workspace / "real-git"),)
    assert "/etc" not in plan.protected_from


def test_the_service_s_own_paths_are_masked_inside_a_mounted_root(tmp_path: Path) -> None:
    data = tmp_path / "home" / ".local" / "share" / "maka-runtime"
    (data / "credentials").mkdir(parents=True)
    token = tmp_path / "home" / "tokens.json"
    token.write_text("{}")
    boundary = ExecutionBoundary(writable_roots=(str(tmp_path / "home"),))
    masked = (str(data), str(token), str(tmp_path / "absent"), "/elsewhere")
    plan = layout(boundary, masked=masked)
    assert plan.masked == ((str(token), False), (str(data), True))
    argv = bwrap_argv("bwrap", plan, cwd=str(tmp_path / "home"))
    assert argv.index(str(data)) > argv.index("--dev")
    assert ["--ro-bind", "/dev/null", str(token)] == argv[argv.index(str(token)) - 2 :][:3]


def test_read_only_binds_the_writable_roots_read_only(tmp_path: Path) -> None:
    plan = layout(ExecutionBoundary(profile="read-only", writable_roots=(str(tmp_path),)))
    assert (str(tmp_path), "ro") in plan.mounts and (str(tmp_path), "rw") not in plan.mounts


def test_a_network_expansion_keeps_the_host_network() -> None:
    granted = ExecutionBoundary(
        writable_roots=("/w",), expansions=(BoundaryExpansion(network=True),)
    )
    assert "--unshare-net" not in bwrap_argv("bwrap", layout(granted), cwd="/w")


def test_the_default_boundary_writes_the_workspace_and_only_reads_system_directories() -> None:
    assert default_boundary("/ws", "/ws/sub").writable_roots == ("/ws",)
    assert default_boundary("/ws", "/elsewhere").writable_roots == ("/ws", "/elsewhere")
    unregistered = default_boundary("", "/")
    assert unregistered.writable_roots == () and unregistered.readable_roots == ("/",)
    assert default_boundary("", "/etc/x").readable_roots == ("/etc/x",)
    # Nothing to write: read-only, so the cwd filled in as the root is bound read-only.
    assert (
        unregistered.profile == "read-only" and default_boundary("/ws", "/").profile != "read-only"
    )
    filled = unregistered.with_default_roots(("/",))
    assert layout(filled).refused == () and ("/", "ro") in layout(filled).mounts
    assert default_boundary("/", "/").readable_roots == ("/",)


def test_malformed_boundaries_name_their_field() -> None:
    cases = [
        (ExecutionBoundary(writable_roots=("rel",)), "boundary.writable_roots"),
        (ExecutionBoundary(readable_roots=("/a\0",)), "boundary.readable_roots"),
        (ExecutionBoundary(writable_roots=("/" + "a" * 5000,)), "boundary.writable_roots"),
        (ExecutionBoundary(expansions=(BoundaryExpansion(),)), "boundary.expansions"),
        (ExecutionBoundary(writable_roots=tuple(f"/r{i}" for i in range(65))), None),
    ]
    for boundary, field in cases:
        with pytest.raises(InvalidRequestError) as raised:
            boundary.check()
        assert field is None or raised.value.field == field


def test_the_environment_is_an_allow_list_plus_the_request() -> None:
    service = {"PATH": "/bin", "HOME": "/h", "OPENAI_API_KEY": "sk", "LC_ALL": "C"}
    env = run_environment(service, {"MINE": "1"}, also_allowed=("EXTRA",))
    assert env == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "MINE": "1"}
    assert run_environment({}, {})["PATH"].endswith("/bin")
    for name in ("LD_PRELOAD", "LD_AUDIT", "BASH_ENV", "ENV", "SHELLOPTS", "BASH_FUNC_x"):
        with pytest.raises(InvalidRequestError):
            check_request_env({name: "x"}, sandboxed=True)
        check_request_env({name: "x"}, sandboxed=False)


def test_a_missing_bwrap_is_reported_with_how_to_install_it(tmp_path: Path) -> None:
    probe = probe_bwrap(str(tmp_path / "nope"))
    assert not probe.available and "apt-get install -y bubblewrap" in probe.reason
    not_bwrap = tmp_path / "fake-bwrap"
    not_bwrap.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                         "exit 1\n")  # fmt: skip
    not_bwrap.chmod(0o755)
    broken = probe_bwrap(str(not_bwrap))
    assert not broken.available and "cannot create the sandbox's namespaces" in broken.reason
    assert "No permissions" in broken.reason


def test_a_directory_that_is_no_cgroup_is_no_cgroup_tree(tmp_path: Path) -> None:
    probe = CgroupTree.probe(tmp_path / "not-a-cgroup")
    assert probe.tree is None and "cgroup.kill" in probe.reason


def test_the_nested_scan_is_bounded_by_depth_and_by_count(tmp_path: Path) -> None:
    for nested in ("one", "two", "x/y", "x/y/z/deep"):
        (tmp_path / nested / ".git").mkdir(parents=True)
    boundary = ExecutionBoundary(writable_roots=(str(tmp_path),))
    plan = layout(boundary, depth=3, scan_max=4096)
    assert set(plan.protected) == {str(tmp_path / n / ".git") for n in ("one", "two", "x/y")}
    assert layout(boundary, depth=0, scan_max=4096).protected == ()
    assert layout(boundary, depth=3, scan_max=1).protected == (str(tmp_path / "one" / ".git"),)


def test_slash_never_brings_the_host_s_sys_proc_dev_or_run(tmp_path: Path) -> None:
    boundary = ExecutionBoundary(writable_roots=(str(tmp_path),), readable_roots=("/",))
    argv = bwrap_argv("bwrap", layout(boundary), cwd=str(tmp_path))
    mounts = _pairs(argv)
    assert mounts.index(("--ro-bind-try", "/")) < mounts.index(("--tmpfs", "/run"))
    assert argv.index("--proc") > argv.index("/") and argv.index("--dev") > argv.index("/")
    assert argv[-9:-5] == ["--tmpfs", "/sys", "--remount-ro", "/sys"]  # after everything


def test_writing_slash_or_a_system_directory_is_refused_by_real_path(tmp_path: Path) -> None:
    link = tmp_path / "etc"
    link.symlink_to("/etc")
    for path in ("/", "/etc", "/usr/local", "/sys/fs/cgroup", "/run/user", str(link)):
        write = BoundaryExpansion(filesystem=(FilesystemEntry(path, "write"),))
        for boundary in (
            ExecutionBoundary(writable_roots=(path,)),
            ExecutionBoundary(writable_roots=(str(tmp_path / "ws"),), expansions=(write,)),
            ExecutionBoundary(profile="read-only", expansions=(write,)),
        ):
            plan = layout(boundary)
            assert plan.refused == (path,)
            assert path in system_writes(plan) and "system directory" in system_writes(plan)
            with pytest.raises(PermissionError):
                bwrap_argv("bwrap", plan, cwd="/")
    assert "(really /etc)" in system_writes(layout(ExecutionBoundary(writable_roots=(str(link),))))
    for fine in (
        ExecutionBoundary(profile="read-only", writable_roots=("/",)),
        ExecutionBoundary(writable_roots=("/var/tmp", "/home"), readable_roots=("/",)),
    ):
        assert system_writes(layout(fine)) == ""  # fmt: skip


def test_roots_are_bound_from_their_real_path_and_shadow_masked_wherever_etc_shows(
    tmp_path: Path,
) -> None:
    link = tmp_path / "etc"
    link.symlink_to("/etc")
    read = BoundaryExpansion(filesystem=(FilesystemEntry(str(link), "read"),))
    plan = layout(ExecutionBoundary(writable_roots=(str(tmp_path / "ws"),), expansions=(read,)))
    assert (
        dict(zip([p for p, _ in plan.mounts], plan.mounts_from, strict=True))[str(link)] == "/etc"
    )
    assert {"/etc/shadow", str(link / "shadow")} <= set(plan.secrets)
    argv = bwrap_argv("bwrap", plan, cwd=str(tmp_path / "ws"))
    assert ["--ro-bind", "/dev/null", str(link / "shadow")] in [argv[i : i + 3] for i in
                                                                 range(len(argv))]  # fmt: skip


def test_an_expansion_inside_the_service_s_data_is_left_out(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "kernel").mkdir(parents=True)
    alias = tmp_path / "alias"
    alias.symlink_to(data / "kernel")
    entries = tuple(
        FilesystemEntry(str(p), "write") for p in (data / "kernel", alias, tmp_path / "o")
    )
    boundary = ExecutionBoundary(writable_roots=(str(tmp_path / "ws"),),
                                 expansions=(BoundaryExpansion(filesystem=entries),))  # fmt: skip
    plan = layout(boundary, masked=(str(data),))
    assert plan.skipped == (str(data / "kernel"), str(alias))
    assert (str(tmp_path / "o"), "rw") in plan.mounts
    assert not {str(data / "kernel"), str(alias)} & {p for p, _ in plan.mounts}
