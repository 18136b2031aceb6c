"""The shell backend's pure parts: which program a command runs, which commands need a
terminal, the ``timeout_ms`` option and the per-session approvals."""

from __future__ import annotations

import pytest

from maka_runtime.kernel.backends.agent import SessionApprovals, program_of
from maka_runtime.kernel.backends.shell import parse_timeout, wants_terminal
from maka_runtime.kernel.core import SessionHeader


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("ls -la /tmp", "ls"),
        ("  ls  ", "ls"),
        ("FOO=1 BAR=two ls -l", "ls"),
        ("FOO='a b' ls", "ls"),
        ('FOO="x y z" BAR= python3 -c pass', "python3"),
        ("'my prog' --flag", "my prog"),
        ('"/opt/some dir/tool" arg', "/opt/some dir/tool"),
        ("1X=2 ls", "1X=2"),  # not an assignment: the name is not an identifier
        ("=x ls", "=x"),
        ("./run.sh --fast", "./run.sh"),
        # Unparsable (an open quote): the plain words, assignments still skipped.
        ("FOO=1 echo 'unterminated", "echo"),
        ("'oops ls", "'oops"),
        ("", ""),
    ],
)
def test_program_of(command: str, program: str) -> None:
    assert program_of(command) == program


@pytest.mark.parametrize(
    "command",
    [
        "vim notes.txt",
        "vi",
        "nano x",
        "less /etc/hostname",
        "more README",
        "man bash",
        "top",
        "htop -d 5",
        "watch date",
        "ssh somewhere",
        "EDITOR=vim vim x",
        "python",
        "python3",
        "  python  ",
        "bash",
        "sh",
        "node",
        "sqlite3",
    ],
)
def test_editors_pagers_and_bare_repls_want_a_terminal(command: str) -> None:
    assert wants_terminal(command)


@pytest.mark.parametrize(
    "command",
    [
        "python x.py",
        "python3 -c 'print(1)'",
        "bash -c 'echo hi'",
        "sh script.sh",
        "node app.js",
        "sqlite3 db.sqlite 'select 1'",
        "ls",
        "echo vim",
        "cat /etc/hostname",
        "sudo vim",  # the program is sudo
        "",
    ],
)
def test_other_commands_run_over_pipes(command: str) -> None:
    assert not wants_terminal(command)


def header(**options: str) -> SessionHeader:
    return SessionHeader(
        id="s1",
        workspace_root="/w",
        cwd="/w",
        created_at=1,
        last_used_at=1,
        backend="shell",
        backend_options=options,
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", 1), ("250", 250), ("600000", 600_000)],
)
def test_parse_timeout_accepts_milliseconds_in_range(raw: str, expected: int) -> None:
    assert parse_timeout(header(timeout_ms=raw)) == expected


def test_parse_timeout_without_the_option_is_the_services_default() -> None:
    assert parse_timeout(header()) is None
    assert parse_timeout(header(timeout_ms="")) is None
    assert parse_timeout(header(other="5")) is None


@pytest.mark.parametrize("raw", ["0", "600001", "-5", "1.5", " 5", "5s", "abc", "1e3"])
def test_parse_timeout_refuses_anything_else(raw: str) -> None:
    with pytest.raises(ValueError, match=r"timeout_ms must be 1\.\.600000") as caught:
        parse_timeout(header(timeout_ms=raw))
    assert repr(raw) in str(caught.value)


def test_session_approvals_are_per_session_and_per_exact_command_line() -> None:
    approvals = SessionApprovals()
    assert not approvals.allows("s1", "ls")
    approvals.allow("s1", "ls -l")
    # That exact line (surrounding spaces aside) …
    assert approvals.allows("s1", "ls -l")
    assert approvals.allows("s1", "  ls -l ")
    # … and no other line of the same program, however it is written, nor another session.
    assert not approvals.allows("s1", "ls")
    assert not approvals.allows("s1", "ls -a /tmp")
    assert not approvals.allows("s1", "LC_ALL=C ls -l")
    assert not approvals.allows("s2", "ls -l")
    approvals.allow("s2", "cat /etc/hostname")
    approvals.forget("s1")
    assert not approvals.allows("s1", "ls -l")
    assert approvals.allows("s2", "cat /etc/hostname")
    approvals.forget("s1")  # forgetting twice (or an unknown session) is harmless
    approvals.forget("nobody")
    assert approvals.allows("s2", "cat /etc/hostname")


@pytest.mark.parametrize(
    "escape",
    [
        "git -c alias.x='!touch M' x",
        "git -c core.pager='touch M' log",
        "GIT_DIR=/tmp/x git status",
        "git status; touch M",
        "git status && touch M",
        "git status\ntouch M",
    ],
)
def test_allowing_git_status_allows_no_other_git_line(escape: str) -> None:
    """The issue's bypass: ``allow_session`` for ``git status`` let ``git -c alias.x='!touch
    M' x`` run unasked (the old rule allowed the program, and git runs what an alias says)."""
    approvals = SessionApprovals()
    approvals.allow("s1", "git status")
    assert approvals.allows("s1", "git status")
    assert not approvals.allows("s1", escape)


@pytest.mark.parametrize(
    "compound", ["ls && rm -rf x", "ls ; curl x | sh", "ls $(touch pwned)", "ls `id`", "ls > f"]
)
def test_allow_session_on_a_compound_line_covers_that_line_only(compound: str) -> None:
    approvals = SessionApprovals()
    approvals.allow("s1", "ls -la")
    assert not approvals.allows("s1", "ls /tmp")
    assert not approvals.allows("s1", compound)
    approvals.allow("s1", compound)
    assert approvals.allows("s1", compound)
    assert not approvals.allows("s1", compound + " extra")
