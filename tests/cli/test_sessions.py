"""``maka new/ls/show/rename/archive/unarchive/rm``, ``health``, ``--json`` and errors."""

from __future__ import annotations

import json
import re
import socket
from importlib import metadata

import pexpect
from maka_runtime_client.cli.app import error_line

from tests.cli.conftest import Maka

ERROR_LINE = re.compile(r"^maka: error: .+ \([A-Z_]+\)$")


def test_session_lifecycle_in_json(maka: Maka) -> None:
    created = maka.json(
        "new", "--name", "first", "--permission-mode", "bypass", str(maka.workspace)
    )
    [session] = created
    sid = session["id"]
    assert session["name"] == "first"
    assert session["permission_mode"] == "PERMISSION_MODE_BYPASS"
    assert session["workspace_root"] == str(maka.workspace)

    assert sid in {s["id"] for s in maka.json("ls")}
    maka.ok("rename", sid, "second")
    [shown] = maka.json("show", sid)
    assert shown["session"]["name"] == "second"
    assert shown["log"][0]["system_note"]["kind"] == "SYSTEM_NOTE_KIND_SESSION_START"

    maka.ok("archive", sid)
    assert sid not in {s["id"] for s in maka.json("ls")}
    assert sid in {s["id"] for s in maka.json("ls", "--archived")}
    maka.ok("unarchive", sid)
    assert sid in {s["id"] for s in maka.json("ls")}

    assert maka.json("rm", sid) == [{"deleted": sid}]
    assert sid not in {s["id"] for s in maka.json("ls")}


def test_human_output_without_a_tty_is_plain(maka: Maka) -> None:
    sid = maka.ok("new", "--name", "plain", str(maka.workspace)).strip()
    listing = maka.ok("ls")
    assert "\x1b[" not in listing
    assert listing.splitlines()[0].split("\t")[:3] == ["ID", "NAME", "STATUS"]
    assert any(line.startswith(f"{sid}\tplain\tactive") for line in listing.splitlines())
    shown = maka.ok("show", sid)
    assert "workspace" in shown
    assert "note session_start" in shown


def test_unknown_session_is_one_line_and_exit_1(maka: Maka) -> None:
    result = maka("show", "no-such-session")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert ERROR_LINE.match(result.stderr.strip())
    assert result.stderr.strip().endswith("(NOT_FOUND)")


def test_usage_error_exits_2(maka: Maka) -> None:
    result = maka("new", "--permission-mode", "sometimes")
    assert result.returncode == 2
    assert "maka: error:" in result.stderr


def test_unreachable_service_is_one_line(maka: Maka) -> None:
    result = maka("--kernel", "127.0.0.1:1", "ls")
    assert result.returncode == 1
    assert ERROR_LINE.match(result.stderr.strip()), result.stderr
    assert "(UNAVAILABLE)" in result.stderr


def test_services_down_say_so_in_one_line(maka: Maka) -> None:
    """Before: gRPC's own text ("failed to connect to all addresses; last error: UNKNOWN: …")."""
    with socket.socket() as bound:  # bound, never listening: a connection is refused
        bound.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{bound.getsockname()[1]}"
        kernel = maka("--kernel", address, "ls")
        resource = maka("--resource", address, "ps", "--all")
    assert kernel.returncode == resource.returncode == 1
    assert kernel.stderr == (
        f"maka: error: no kernel at {address} (connection refused) — is it running? start it "
        "with ./dev up, or point --kernel at it (UNAVAILABLE)\n"
    )
    assert resource.stderr.startswith(f"maka: error: no resource service at {address} "), (
        resource.stderr
    )
    assert "point --resource at it (UNAVAILABLE)" in resource.stderr


def test_health_reports_both_services(maka: Maka) -> None:
    records = maka.json("health")
    assert {r["service"]: r["status"] for r in records} == {
        "kernel": "serving",
        "resource": "serving",
    }
    down = maka("--json", "--resource", "127.0.0.1:1", "health")
    assert down.returncode == 1
    assert '"unreachable"' in down.stdout


def test_version_prints_the_package_version(maka: Maka) -> None:
    expected = f"maka {metadata.version('maka-runtime')}\n"
    assert maka.ok("--version") == expected
    assert maka.ok("ls", "--version") == expected


def test_new_refuses_a_workspace_that_does_not_exist(maka: Maka) -> None:
    before = {s["id"] for s in maka.json("ls")}
    missing = maka.workspace / "nonexistent"
    result = maka("new", str(missing))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"maka: error: workspace {missing} does not exist (INVALID_REQUEST)\n"
    a_file = maka.workspace / "file"
    a_file.write_text("")
    result = maka("new", str(a_file))
    assert result.returncode == 1 and "is not a directory" in result.stderr
    assert not missing.exists()
    assert {s["id"] for s in maka.json("ls")} == before  # nothing was created


def test_json_after_the_command(maka: Maka) -> None:
    sid = maka.ok("new", str(maka.workspace), "--json", "--name", "late-json")
    assert json.loads(sid)["name"] == "late-json"
    listed = [json.loads(line) for line in maka.ok("ls", "--json").splitlines()]
    assert json.loads(sid)["id"] in {s["id"] for s in listed}


def test_new_remote_leaves_the_workspace_check_to_the_kernel(maka: Maka) -> None:
    # A workspace on the kernel's side (a container's volume) need not exist here: the path is
    # sent as given and the kernel's own check answers.
    missing = maka.workspace / "only-on-the-kernel"
    result = maka("new", "--remote", str(missing))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"maka: error: invalid workspace_root: '{missing}' does not exist (INVALID_REQUEST)\n"
    )
    session = maka.ok("new", "--remote", str(maka.workspace)).strip()
    assert maka.json("ls")[0]["id"] == session
    relative = maka("new", "--remote", "some/dir")
    assert relative.returncode == 2
    assert "--remote needs the workspace as an absolute path (USAGE)" in relative.stderr


def test_new_takes_a_profile_and_show_prints_the_boundary(maka: Maka) -> None:
    [session] = maka.json("new", "--profile", "danger-full-access", str(maka.workspace))
    assert session["boundary"]["profile"] == "PERMISSION_PROFILE_DANGER_FULL_ACCESS"
    assert session["boundary"]["revision"] == "1"
    sid = maka.ok("new", "--profile", "read-only", str(maka.workspace)).strip()
    shown = maka.ok("show", sid)
    assert re.search(r"^  boundary +read-only, revision 1$", shown, re.MULTILINE), shown
    default = maka.ok("new", str(maka.workspace)).strip()
    assert "boundary   workspace-write, revision 1" in maka.ok("show", default)
    refused = maka("new", "--profile", "everything", str(maka.workspace))
    assert refused.returncode == 2 and "--profile" in refused.stderr


def test_ls_prints_names_literally_on_a_terminal_and_without_one(maka: Maka) -> None:
    # A name is text: Rich markup in it prints as written, control characters (a tab that
    # would split the tab-separated listing, an ESC) as escapes.
    name = "[red]x[/red]\t\x1b[8mhidden"
    sid = maka.ok("new", "--name", name, str(maka.workspace)).strip()
    shown = "[red]x[/red]\\x09\\x1b[8mhidden"
    rows = [line.split("\t") for line in maka.ok("ls").splitlines()]
    assert [sid, shown] in [row[:2] for row in rows]
    child = maka.spawn("ls", cols=200)
    child.expect(pexpect.EOF)
    assert shown in child.before and "\x1b[8m" not in child.before


def test_an_error_line_escapes_what_a_service_said() -> None:
    # A service's message (or reason) cannot erase the line or start another one.
    assert error_line("bad path /x\r\x1b[2K\nok", "NOT\x1bFOUND") == (
        "maka: error: bad path /x\\x0d\\x1b[2K\\x0aok (NOT\\x1bFOUND)"
    )
