"""The execution boundary's rules, without gRPC: coverage by profile and grant, the merge of
expansions, the revision, allow_once scoping, declared and detected needs, the store's
widening (memory and SQLite: one contract), and that it survives a reopen of the SQLite file."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.backends.llm.boundary_tool import parse as parse_request
from maka_runtime.kernel.backends.needs import declared, detected
from maka_runtime.kernel.core.boundary import (
    INITIAL_REVISION,
    MAX_EXPANSIONS,
    NETWORK,
    Boundary,
    BoundaryError,
    Grant,
    checked,
    covers,
    expansion,
    missing,
    widened,
)
from maka_runtime.kernel.core.log.events import SandboxBoundaryRequest
from maka_runtime.kernel.core.recovery import RecoverableStore
from maka_runtime.kernel.core.store import InteractionRecord, Resolution
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

from .fakes import spec_header

WS = "/work/ws"


def ws(profile: str = "workspace-write") -> Boundary:
    return Boundary(profile=profile, workspace_root=WS)  # type: ignore[arg-type]


def write(path: str, match: str = "subtree") -> str:
    return Grant(path=path, match=match).token  # type: ignore[arg-type]


def test_profiles_cover_what_they_say() -> None:
    inside, meta, outside = write(f"{WS}/src"), write(f"{WS}/.git/config"), write("/srv")
    read_inside = Grant(path=f"{WS}/a", access="read").token
    assert covers(ws(), (inside, read_inside))
    assert not covers(ws(), (meta,))  # protected metadata stays read-only
    assert not covers(ws(), (outside,))
    assert not covers(ws(), (NETWORK,))
    assert not covers(ws(), (write("/tmp/x"),))  # the run's /tmp is its own
    assert covers(ws("read-only"), (read_inside,))
    assert not covers(ws("read-only"), (inside,))
    assert covers(ws("danger-full-access"), (outside, meta, NETWORK))


def test_grants_cover_exact_paths_and_subtrees_and_write_covers_read() -> None:
    boundary = dataclasses.replace(ws(), expansions=((write("/srv/data"),), (NETWORK,)))
    assert covers(boundary, (write("/srv/data/x/y"), NETWORK))
    assert covers(boundary, (Grant(path="/srv/data/z", access="read").token,))
    assert not covers(boundary, (write("/srv/database"),))  # a prefix is not a parent
    exact = dataclasses.replace(ws(), expansions=((write("/srv/f", "exact"),),))
    assert covers(exact, (write("/srv/f", "exact"),))
    assert not covers(exact, (write("/srv/f"),))
    assert not covers(exact, (write("/srv/f/g", "exact"),))
    reads = dataclasses.replace(ws(), expansions=((Grant(path="/srv", access="read").token,),))
    assert not covers(reads, (write("/srv/x"),))


def test_widening_adds_only_what_is_missing_at_the_next_revision() -> None:
    start = ws()
    assert start.revision == INITIAL_REVISION == 1
    once = widened(start, (write("/srv/a"), NETWORK))
    assert once.revision == 2
    assert once.expansions == ((write("/srv/a"), NETWORK),)
    # Already covered: the same boundary, the same revision.
    assert widened(once, (write("/srv/a/b"),)) is once
    # Partly covered: only the new part is added.
    twice = widened(once, (write("/srv/a/c"), write("/srv/b")))
    assert (twice.revision, twice.expansions[-1]) == (3, (write("/srv/b"),))
    assert covers(twice, (write("/srv/a/c"), write("/srv/b/d"), NETWORK))


def test_allow_once_widens_a_copy_at_the_same_revision() -> None:
    start = ws()
    retry = start.with_once((write("/srv"),))
    assert covers(retry, (write("/srv/x"),)) and retry.revision == start.revision
    assert not covers(start, (write("/srv/x"),))  # the session's boundary is untouched
    assert start.with_once(()) is start


@pytest.mark.parametrize(
    "tokens",
    [
        (),
        ("write:subtree:relative",),
        ("write:subtree:/a\0b",),
        ("exec:subtree:/a",),
        tuple(write(f"/p{i}") for i in range(33)),
    ],
)
def test_expansions_that_are_not_valid_are_refused(tokens: tuple[str, ...]) -> None:
    with pytest.raises(BoundaryError):
        checked(tokens)


def test_expansions_are_normalized() -> None:
    grants = (Grant(path="/srv//a/./b/"), Grant(path="/srv/a/b"))
    assert expansion(grants, network=True) == (write("/srv/a/b"), NETWORK)


def test_declared_needs_come_off_the_front_of_a_command_line() -> None:
    assert declared("ls -l", WS).need == ()
    net = declared("/net curl http://127.0.0.1/", WS)
    assert (net.command, net.need) == ("curl http://127.0.0.1/", (NETWORK,))
    both = declared("/write out /net /write /srv/x make", WS)
    assert both.command == "make"
    assert both.need == (write("/srv/x"), write(f"{WS}/out"), NETWORK)
    with pytest.raises(BoundaryError, match="/write needs a path"):
        declared("/write", WS)
    assert declared("echo /net", WS).need == ()  # only at the front


def test_detected_needs_are_read_off_the_sandbox_refusal() -> None:
    refused = "touch: cannot touch '/srv/out/f': Read-only file system\n"
    assert detected(refused, ws(), WS) == (
        (write("/srv/out"),),
        "the command's output reported \"touch: cannot touch '/srv/out/f': Read-only file system\"",
    )
    relative = "bash: line 1: out.txt: Read-only file system"
    assert detected(relative, ws("read-only"), WS)[0] == (write(WS),)
    assert detected("curl: (7) Couldn't connect: Network is unreachable", ws(), WS)[0] == (NETWORK,)
    # Nothing the boundary would change: no need.
    assert detected("ls: cannot access 'x': No such file or directory", ws(), WS) == ((), "")
    networked = dataclasses.replace(ws(), expansions=((NETWORK,),))
    assert detected("Network is unreachable", networked, WS) == ((), "")


async def test_stores_widen_the_boundary_in_one_step(store: RecoverableStore) -> None:
    await store.create(dataclasses.replace(spec_header("s1"), workspace_root=WS))
    header, changed = await store.widen_boundary("s1", (write("/srv"),))
    assert changed and header.boundary_revision == 2
    assert header.expansions == ((write("/srv"),),)
    header, changed = await store.widen_boundary("s1", (write("/srv/sub"),))
    assert not changed and header.boundary_revision == 2
    read = await store.read_header("s1")
    assert (read.expansions, read.boundary_revision) == (((write("/srv"),),), 2)
    assert read.boundary.revision == 2


async def test_the_boundary_survives_a_reopen_of_the_sqlite_store(tmp_path: Path) -> None:
    root = resolve_storage_root(tmp_path / "root", "kernel")
    for round in range(2):
        owner = try_acquire_root_owner(root)
        assert owner is not None
        store = await SqliteSessionStore.open(owner.lease)
        try:
            if round == 0:
                await store.create(
                    dataclasses.replace(spec_header("s1"), profile="read-only", workspace_root=WS)
                )
                await store.widen_boundary("s1", (NETWORK,))
            header = await store.read_header("s1")
            assert (header.profile, header.expansions, header.boundary_revision) == (
                "read-only",
                ((NETWORK,),),
                2,
            )
        finally:
            await store.close()
            owner.close()


@pytest.mark.parametrize(
    "path", ["/", "/etc", "/etc/cron.d", "/sys/fs/cgroup", "/proc/1", "/dev/shm", "/usr/local",
             "/bin", "/sbin", "/lib", "/lib64", "/libx32/x", "/boot", "/run/user", "/tmp/../etc"],
)  # fmt: skip
def test_writing_slash_or_a_system_directory_can_never_be_granted(path: str) -> None:
    with pytest.raises(BoundaryError, match="can never be granted"):
        expansion((Grant(path=path),))
    with pytest.raises(BoundaryError, match="danger-full-access"):
        declared(f"/write {path} touch x", WS)
    assert expansion((Grant(path=path, access="read"),))  # reading is another matter


def test_a_detected_need_for_slash_or_a_system_directory_is_not_proposed() -> None:
    for line in (
        "touch: cannot touch '/foo': Read-only file system",
        "touch: cannot touch '/etc/revmark': Read-only file system",
    ):
        need, detail = detected(line, ws(), WS)
        assert need == ()
        assert line in detail and "can never be granted" in detail


def test_paths_with_control_characters_are_refused() -> None:
    for bad in ("/srv/a\nb", "/srv/\x01", "/srv/\x1b[2K", "/srv/\x7f", "/srv/\x85", "/srv/\r"):
        with pytest.raises(BoundaryError, match="control characters"):
            expansion((Grant(path=bad),))
        with pytest.raises(BoundaryError, match="control characters"):
            checked((write(bad),))
    assert expansion((Grant(path="/srv/caf\u00e9 d"),)) == (write("/srv/caf\u00e9 d"),)


def test_declared_and_detected_paths_are_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    wanted = declared("/write link/out touch link/out/f", str(tmp_path))
    assert wanted.need == (write(f"{real}/out"),)
    assert wanted.resolved == f"link/out -> {real}/out"
    assert declared(f"/write {real} x", str(tmp_path)).resolved == ""
    (tmp_path / "etc").symlink_to("/etc")
    with pytest.raises(BoundaryError, match="/etc can never be granted"):
        declared(f"/write {tmp_path}/etc touch {tmp_path}/etc/x", WS)
    line = f"touch: cannot touch '{tmp_path}/link/f': Read-only file system"
    assert detected(line, ws(), WS)[0] == (write(str(real)),)
    assert (
        detected("touch: cannot touch 'etc/x': Read-only file system", ws(), str(tmp_path))[0] == ()
    )


def test_a_tilde_path_is_refused_for_it_is_not_expanded() -> None:
    for text in ("/write ~/x touch ~/x/y", "/write ~ true", "/write ~other/x true"):
        with pytest.raises(BoundaryError, match="'~' is not expanded"):
            declared(text, WS)


def test_the_kernel_data_directory_can_never_be_granted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "kernel").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(data)
    for path in (data, data / "kernel", tmp_path / "alias" / "kernel"):
        with pytest.raises(BoundaryError, match="kernel's data directory"):
            declared(f"/write {path} true", WS, (str(data),))
    assert declared(f"/write {tmp_path} true", WS, (str(data),)).need == (write(str(tmp_path)),)
    line = f"{data}/kernel/cache: Read-only file system"
    need, detail = detected(line, ws(), WS, (str(data),))
    assert need == () and "kernel's data directory" in detail
    assert detected(line, ws(), WS)[0] == (write(f"{data}/kernel"),)  # not protected: proposed


def test_a_detected_need_quotes_the_output_and_does_not_say_the_sandbox_refused_it() -> None:
    line = "cp: cannot create regular file '/srv/k/a': Read-only file system"
    need, detail = detected(f"noise\n{line}\n", ws(), WS)
    assert need == (write("/srv/k"),)
    assert detail == f"the command's output reported {line!r}"
    assert "sandbox" not in detail
    covered = dataclasses.replace(ws(), expansions=((write("/srv/k"),),))
    assert detected(line, covered, WS) == ((), "")  # covered: the output proves nothing


def test_a_write_grant_covers_protected_metadata_only_when_it_names_it() -> None:
    repo = "/srv/repo"
    parent = dataclasses.replace(ws(), expansions=((write(repo),),))
    assert covers(parent, (write(f"{repo}/src"),))
    for meta in (f"{repo}/.git", f"{repo}/.git/config", f"{repo}/sub/.maka/x"):
        assert not covers(parent, (write(meta),)), meta
        assert covers(parent, (Grant(path=meta, access="read").token,))
    asked = missing(parent, (write(f"{repo}/.git"),))
    assert asked == (write(f"{repo}/.git"),)
    after = widened(parent, asked)
    assert after.revision == parent.revision + 1
    assert covers(after, (write(f"{repo}/.git/config"),))
    assert not covers(after, (write(f"{repo}/.maka"),))


def test_the_model_request_names_real_paths_and_shows_controls_in_its_justification(
    tmp_path: Path,
) -> None:
    (tmp_path / "link").symlink_to(tmp_path)
    need, why = parse_request(
        {"paths": [{"path": f"{tmp_path}/link/x"}], "justification": "ok\r\x1b[2K\nfake\u202e"}
    )
    assert need == (write(f"{tmp_path}/x"),)
    assert why == "ok\\u000d\\u001b[2K\\u000afake\\u202e"
    assert why.isprintable()
    for path in ("/", "/etc", "~/x", "/srv/a\nb", "relative"):
        with pytest.raises(BoundaryError):
            parse_request({"paths": [{"path": path}], "justification": "why"})


async def test_an_allow_session_answer_widens_the_boundary_in_its_own_transaction(
    store: RecoverableStore,
) -> None:
    full = tuple((write(f"/srv/{n}"),) for n in range(MAX_EXPANSIONS - 1))
    await store.create(dataclasses.replace(spec_header("s1"), workspace_root=WS, expansions=full))
    for request_id in ("grant", "again", "past"):
        request = SandboxBoundaryRequest(
            turn_id="t1", request_id=request_id, command="", expansion=(write("/srv/new"),)
        )
        if request_id == "past":
            request = dataclasses.replace(request, expansion=(NETWORK,))
        await store.put_interaction(
            InteractionRecord(
                session_id="s1",
                request_id=request_id,
                turn_id="t1",
                run_id="run-1",
                kind="sandbox_boundary",
                request=request,
            )
        )
        allow = Resolution(status="answered", decision="allow_session", widen=request.expansion)
        record = await store.resolve_interaction("s1", request_id, allow, 7)
        assert await store.get_interaction("s1", request_id) == record
        header = await store.read_header("s1")
        if request_id == "grant":
            assert (record.settlement, record.widened_revision) == ("widened", 2)
            assert (header.boundary_revision, header.expansions[-1]) == (2, (write("/srv/new"),))
        elif request_id == "again":  # covered already: no new revision
            assert (record.settlement, record.widened_revision, header.boundary_revision) == (
                "covered",
                0,
                2,
            )
        else:  # past the bound: the answer is on record, saying why nothing was widened
            assert record.status == "answered" and "at most" in record.settlement
            assert (record.widened_revision, header.boundary_revision) == (0, 2)
