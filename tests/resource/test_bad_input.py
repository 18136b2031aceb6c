"""Every malformed request is refused with the offending field, and changes nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from maka_runtime.resource.core import (
    REF_PREFIX,
    ControllerIdentity,
    ControlRequest,
    InvalidRequestError,
    NotFoundError,
    PtyControl,
    ResourceError,
    ResourceHost,
    SessionArchivedError,
)
from tests.resource.conftest import (
    FIRST_CONNECTION,
    SESSION_ID,
    Host,
    bash_input,
    close_host,
    open_host,
)

UNKNOWN_REF = REF_PREFIX + "0123456789abcdef0123456789abcdef"
Call = Callable[[ResourceHost, Path], Awaitable[object]]


def _foreground(command: str = "true", **changes: object) -> Call:
    return lambda c, _: c.run_foreground_bash(bash_input(command, "call.bad", **changes))


def _background(command: str = "true", **changes: object) -> Call:
    return lambda c, _: c.run_background_bash(bash_input(command, "call.bad", **changes))


def _missing_dir(c: ResourceHost, base: Path) -> Awaitable[object]:
    return c.run_foreground_bash(bash_input("true", "call.bad", cwd=str(base / "missing")))


def _file_as_cwd(c: ResourceHost, base: Path) -> Awaitable[object]:
    path = base / "a-file"
    path.write_text("not a directory")
    return c.run_background_bash(bash_input("true", "call.bad", cwd=str(path)))


CASES: list[tuple[str, Call, type[ResourceError], str]] = [
    ("empty command", _foreground(command=""), InvalidRequestError, "command"),
    ("blank command", _background(command="  \n "), InvalidRequestError, "command"),
    ("NUL in command", _foreground(command="echo \0"), InvalidRequestError, "command"),
    ("huge command", _foreground(command="x" * 131072), InvalidRequestError, "command"),
    ("missing cwd", _missing_dir, InvalidRequestError, "cwd"),
    ("cwd is a file", _file_as_cwd, InvalidRequestError, "cwd"),
    ("relative cwd", _foreground(cwd="relative/dir"), InvalidRequestError, "cwd"),
    ("empty session", _foreground(session_id=""), InvalidRequestError, "session_id"),
    ("bad session id", _background(session_id="has space"), InvalidRequestError, "session_id"),
    ("foreground PTY", _foreground(pty=True), InvalidRequestError, "pty"),
    ("zero timeout", _foreground(timeout_ms=0), InvalidRequestError, "timeout_ms"),
    ("negative timeout", _background(timeout_ms=-5), InvalidRequestError, "timeout_ms"),
    ("foreground > 10 min", _foreground(timeout_ms=600_001), InvalidRequestError, "timeout_ms"),
    ("background > 24 h", _background(timeout_ms=86_400_001), InvalidRequestError, "timeout_ms"),
    ("cols too small", _background(pty=True, cols=1), InvalidRequestError, "cols"),
    ("cols too large", _background(pty=True, cols=241), InvalidRequestError, "cols"),
    ("rows too small", _background(pty=True, rows=0), InvalidRequestError, "rows"),
    ("rows too large", _background(pty=True, rows=101), InvalidRequestError, "rows"),
    ("bad env name", _background(env={"1X": "y"}), InvalidRequestError, "env"),
    ("NUL in env", _background(env={"X": "a\0b"}), InvalidRequestError, "env"),
    ("source id", _background(source_turn_id="a\nb"), InvalidRequestError, "source_turn_id"),
    ("unknown ref: get", lambda c, _: c.get(SESSION_ID, UNKNOWN_REF), NotFoundError, "ref"),
    ("unknown ref: stop", lambda c, _: c.stop(SESSION_ID, UNKNOWN_REF), NotFoundError, "ref"),
    (
        "unknown ref: acquire",
        lambda c, _: c.acquire_controller(
            ControllerIdentity(SESSION_ID, UNKNOWN_REF, "k"), FIRST_CONNECTION
        ),
        NotFoundError,
        "ref",
    ),
    (
        "unknown ref: release",
        lambda c, _: c.release_controller(
            ControllerIdentity(SESSION_ID, UNKNOWN_REF, "k"), FIRST_CONNECTION
        ),
        NotFoundError,
        "ref",
    ),
    (
        "unknown ref: control",
        lambda c, _: c.control_controller(
            ControlRequest(SESSION_ID, UNKNOWN_REF, "k", 1, PtyControl(kind="input", input="x")),
            FIRST_CONNECTION,
        ),
        NotFoundError,
        "ref",
    ),
    ("bad ref: scheme", lambda c, _: c.get(SESSION_ID, "run-1"), InvalidRequestError, "ref"),
    ("bad ref: empty", lambda c, _: c.stop(SESSION_ID, ""), InvalidRequestError, "ref"),
    (
        "bad ref: no id",
        lambda c, _: c.get(SESSION_ID, REF_PREFIX),
        InvalidRequestError,
        "ref",
    ),
    (
        "bad ref: path",
        lambda c, _: c.get(SESSION_ID, REF_PREFIX + "../etc"),
        InvalidRequestError,
        "ref",
    ),
    (
        "bad controller id",
        lambda c, _: c.acquire_controller(
            ControllerIdentity(SESSION_ID, UNKNOWN_REF, ""), FIRST_CONNECTION
        ),
        InvalidRequestError,
        "controller_id",
    ),
    (
        "negative page size",
        lambda c, _: c.list_runs(SESSION_ID, page_size=-1),
        InvalidRequestError,
        "page_size",
    ),
    (
        "bad page token",
        lambda c, _: c.list_runs(SESSION_ID, page_token="garbage"),
        InvalidRequestError,
        "page_token",
    ),
]


def _count_rows(host: Host) -> int:
    with sqlite3.connect(host.store.path) as db:
        return int(db.execute("SELECT count(*) FROM shell_runs").fetchone()[0])


@pytest.mark.parametrize(
    ("call", "error", "field"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
async def test_bad_input_is_refused_with_its_field_and_changes_nothing(
    host: Host, call: Call, error: type[ResourceError], field: str
) -> None:
    await host.coordinator.run_foreground_bash(bash_input("true", "call.before"))
    rows = _count_rows(host)
    with pytest.raises(error) as refused:
        await call(host.coordinator, host.base)
    assert refused.value.field == field
    assert refused.value.code in ("invalid_request", "not_found")
    assert _count_rows(host) == rows
    assert host.manager.live_counts() == (0, 0)
    assert host.active_residencies == 0
    assert host.drain_requests == []


@pytest.fixture
async def registered_host(tmp_path: Path) -> AsyncIterator[Host]:
    """A host that knows only the sessions it was told about (as with a kernel)."""
    opened = await open_host(tmp_path, admit_unknown=False)
    opened.sessions.register(SESSION_ID, cwd=str(tmp_path))
    try:
        yield opened
    finally:
        await close_host(opened)


async def test_unknown_and_archived_sessions_are_refused(registered_host: Host) -> None:
    host = registered_host
    run = await host.coordinator.run_background_bash(bash_input("sleep 60", "call.ok"))
    with pytest.raises(NotFoundError) as unknown:
        await host.coordinator.run_background_bash(
            bash_input("true", "call.unknown", session_id="no-such-session")
        )
    assert (unknown.value.code, unknown.value.field) == ("not_found", "session_id")
    with pytest.raises(NotFoundError):
        await host.coordinator.list_runs("no-such-session")
    await host.coordinator.stop(SESSION_ID, run.ref)

    host.sessions.archive(SESSION_ID)
    for attempt in (
        host.coordinator.run_foreground_bash(bash_input("true", "call.archived")),
        host.coordinator.get(SESSION_ID, run.ref),
        host.coordinator.acquire_controller(
            ControllerIdentity(SESSION_ID, run.ref, "k"), FIRST_CONNECTION
        ),
    ):
        with pytest.raises(SessionArchivedError) as archived:
            await attempt
        assert archived.value.code == "session_archived"
    assert _count_rows(host) == 1
    assert host.drain_requests == []


async def test_an_empty_cwd_means_the_sessions_directory(registered_host: Host) -> None:
    run = await registered_host.coordinator.run_foreground_bash(
        bash_input("pwd", "call.pwd", cwd="")
    )
    assert run.cwd == str(registered_host.base)
    assert run.output.stdout == f"{registered_host.base}\n"  # type: ignore[union-attr]
