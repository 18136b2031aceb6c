"""A boundary's sandbox layout is computed once per run and kept for later runs only while
nothing it looked at on the host changed (core/sandbox/layouts.py, core/sandbox/fileview.py)."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from maka_runtime.resource.core.sandbox import ExecutionBoundary, SandboxSettings
from maka_runtime.resource.core.sandbox.bwrap import layout
from maka_runtime.resource.core.sandbox.fileview import FileView
from maka_runtime.resource.core.sandbox.layouts import LayoutCache, Shape
from tests.resource.conftest import Host, bash_input


def _later() -> int:
    """A clock well past every timestamp a test makes, so no fingerprint counts as racy."""
    return time.time_ns() + 60_000_000_000


def after_tick(shape: Shape, clock_file: Path) -> None:
    """Return once the file system's clock has moved past every timestamp *shape* recorded,
    so a change made now changes them (touching *clock_file*, outside what was recorded)."""
    newest = max(max(seen[2], seen[3]) for _, seen in shape.fingerprint.entries if seen)
    deadline = time.monotonic() + 5
    while True:
        os.utime(clock_file)
        if clock_file.stat().st_ctime_ns > newest:
            return
        assert time.monotonic() < deadline, "the file system's clock did not move"


@pytest.fixture
def clock_file(tmp_path: Path) -> Path:
    path = tmp_path / "clock"
    path.write_text("")
    return path


def _cache(**changes: object) -> LayoutCache:
    return LayoutCache(dataclasses.replace(SandboxSettings(), **changes), clock=_later)  # type: ignore[arg-type]


def test_a_layout_is_handed_out_again_while_nothing_it_looked_at_changed(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    cache = _cache()
    boundary = ExecutionBoundary(writable_roots=(str(workspace),))
    first = cache.shape(boundary)
    assert cache.shape(boundary) is first
    assert (cache.hits, cache.computed) == (1, 1)
    assert first.layout == layout(boundary, depth=3, scan_max=1024)


def _nested_git(workspace: Path) -> Callable[[], object]:
    return (workspace / "sub" / "deeper" / ".git").mkdir


def _retarget(workspace: Path) -> Callable[[], object]:
    def change() -> None:
        (workspace / "link").unlink()
        (workspace / "link").symlink_to(workspace / "b")

    return change


def _rewrite_gitdir(workspace: Path) -> Callable[[], object]:
    # Same length, another gitdir: only the file's own timestamps tell.
    return lambda: (workspace / "wt" / ".git").write_text(f"gitdir: {workspace / 'g2'}\n")


def _masked_created(workspace: Path) -> Callable[[], object]:
    return (workspace / "sub" / "data").mkdir


@pytest.mark.parametrize("change", [_nested_git, _retarget, _rewrite_gitdir, _masked_created])
def test_a_change_on_the_host_is_seen_by_the_next_layout(
    tmp_path: Path, clock_file: Path, change: Callable[[Path], Callable[[], object]]
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "sub" / "deeper").mkdir(parents=True)
    for name in ("a", "b"):
        (workspace / name).mkdir()
    (workspace / "b" / ".git").mkdir()
    (workspace / "link").symlink_to(workspace / "a")
    for name in ("g1", "g2"):
        (workspace / name).mkdir()
    (workspace / "wt").mkdir()
    (workspace / "wt" / ".git").write_text(f"gitdir: {workspace / 'g1'}\n")
    masked = (str(workspace / "sub" / "data"),)
    cache = _cache(masked_paths=masked)
    boundary = ExecutionBoundary(writable_roots=(str(workspace), str(workspace / "link")))
    before = cache.shape(boundary)
    after_tick(before, clock_file)
    change(workspace)()
    now = cache.shape(boundary)
    assert now.layout == layout(boundary, masked=masked, depth=3, scan_max=1024)
    assert now.layout != before.layout
    assert cache.computed == 2


def test_a_layout_of_what_changed_just_now_is_not_kept(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"  # just made: its timestamps may share a tick with a change
    workspace.mkdir()
    cache = LayoutCache(SandboxSettings())
    boundary = ExecutionBoundary(writable_roots=(str(workspace),))
    cache.shape(boundary)
    cache.shape(boundary)
    assert (cache.hits, cache.computed) == (0, 2)


def test_no_layout_is_kept_when_the_setting_is_zero(tmp_path: Path) -> None:
    cache = _cache(layout_cache_entries=0)
    boundary = ExecutionBoundary(writable_roots=(str(tmp_path),))
    cache.shape(boundary)
    cache.shape(boundary)
    assert (cache.hits, cache.computed) == (0, 2)


def test_the_cache_keeps_the_most_recent_boundaries_only(tmp_path: Path) -> None:
    cache = _cache(layout_cache_entries=2)
    boundaries = [ExecutionBoundary(writable_roots=(str(tmp_path),), revision=n) for n in range(3)]
    for boundary in boundaries:
        cache.shape(boundary)
    cache.shape(boundaries[2])
    cache.shape(boundaries[1])
    cache.shape(boundaries[0])  # the oldest was dropped
    assert (cache.hits, cache.computed) == (2, 4)


def test_the_view_resolves_paths_as_realpath_does(tmp_path: Path) -> None:
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "rel").symlink_to("d/e")
    (tmp_path / "abs").symlink_to(tmp_path / "d")
    (tmp_path / "up").symlink_to("d/e/../..")
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    names = ["rel/x", "abs/e", "up/d", "loop1/z", "none/a/.."]
    paths = ["/", "/bin", "/etc/../usr/./lib", *(str(tmp_path / name) for name in names)]
    view = FileView()
    assert [view.real(path) for path in paths] == [os.path.realpath(path) for path in paths]


async def test_a_run_computes_its_layout_once(host: Host, tmp_path: Path) -> None:
    layouts = host.manager.sandbox.layouts
    layouts._settings = dataclasses.replace(layouts._settings, layout_cache_entries=0)
    boundary = ExecutionBoundary(writable_roots=(str(tmp_path),))
    record = await host.coordinator.run_foreground_bash(
        bash_input("true", "call.1", cwd=str(tmp_path), boundary=boundary)
    )
    assert record.status == "completed"
    assert layouts.computed == 1


async def test_a_repository_made_between_two_runs_is_protected_in_the_second(
    host: Host, tmp_path: Path, clock_file: Path
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    layouts = host.manager.sandbox.layouts
    layouts._clock = _later
    boundary = ExecutionBoundary(writable_roots=(str(workspace),))

    async def run(command: str, call: str) -> str:
        request = bash_input(command, call, cwd=str(workspace), boundary=boundary)
        return (await host.coordinator.run_foreground_bash(request)).status

    assert await run("true", "call.1") == "completed"
    kept = layouts.shape(boundary)
    assert layouts.hits == 1
    after_tick(kept, clock_file)
    (workspace / "sub" / ".git").mkdir()
    assert await run("touch sub/.git/config", "call.2") == "failed"
    assert not (workspace / "sub" / ".git" / "config").exists()
    assert await run("touch sub/made", "call.3") == "completed"
