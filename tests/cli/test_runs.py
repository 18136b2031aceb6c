"""``maka run/bg/ps/logs/stop``: exit codes passed through, streams kept apart, JSON lines."""

from __future__ import annotations

import base64

import pytest

from tests.cli.conftest import Maka, finish


def test_run_passes_the_exit_code_through(maka: Maka) -> None:
    result = maka("run", "--", "sh", "-c", "exit 3")
    assert result.returncode == 3


def test_run_keeps_stdout_and_stderr_apart(maka: Maka) -> None:
    result = maka("run", "--", "echo out; echo err >&2")
    assert result.returncode == 0
    assert result.stdout == "out\n"
    assert result.stderr == "err\n"


def test_run_json_lines_parse(maka: Maka) -> None:
    records = maka.json("run", "--", "printf", "a b")
    assert records[0]["data"] == "a b"
    assert records[0]["stream"] == "stdout"
    assert records[-1]["result"]["status"] == "RUN_STATUS_COMPLETED"


def test_run_timeout_exits_124(maka: Maka) -> None:
    result = maka("run", "--timeout", "0.2", "--", "sleep", "30")
    assert result.returncode == 124
    assert "timed_out" in result.stderr


def test_run_without_a_command_is_a_usage_error(maka: Maka) -> None:
    result = maka("run")
    assert result.returncode == 2
    assert result.stderr.strip() == "maka: error: no command given: maka run -- CMD … (USAGE)"


@pytest.mark.slow
def test_ctrl_c_cancels_a_foreground_run(maka: Maka) -> None:
    child = maka.spawn("run", "--", "echo started; sleep 30")
    child.expect("started")
    child.sendintr()
    child.expect("run cancelled")
    assert finish(child) == 130


def test_background_run_listed_logged_and_stopped(maka: Maka) -> None:
    ref = maka.ok("bg", "--", "echo first; echo second >&2; exec sleep 30").strip()
    assert ref.startswith("maka://runtime/background-tasks/")
    follow = maka.spawn("logs", "-f", ref)
    follow.expect("first")
    [run] = [r for r in maka.json("ps") if r["ref"] == ref]
    assert run["status"] == "RUN_STATUS_RUNNING"
    stopped = maka.json("stop", ref)[0]
    assert stopped["status"] == "RUN_STATUS_CANCELLED"
    follow.expect("cancelled")
    assert finish(follow) == 0
    logs = maka("logs", ref)
    assert logs.stdout == "first\n"
    assert logs.stderr == "second\n"


def test_pty_run_logs_show_the_screen(maka: Maka) -> None:
    ref = maka.ok("bg", "--pty", "--cols", "40", "--rows", "5", "--", "printf 'a\\nb\\n'").strip()
    follow = maka.spawn("logs", "-f", ref)
    assert finish(follow) == 0  # it ends by itself
    assert maka.ok("logs", ref) == "a\nb\n"
    [run] = maka.json("ps")
    assert run["mode"] == "RUN_MODE_PTY"


def test_a_ref_needs_no_session(maka: Maka) -> None:
    # MAKA_SESSION names this test's session; the run belongs to another.
    ref = maka.ok("bg", "--session", "cli-elsewhere", "--", "echo by-ref; exec sleep 30").strip()
    follow = maka.spawn("logs", "-f", ref)
    follow.expect("by-ref")
    assert ref not in {r["ref"] for r in maka.json("ps")}
    assert ref in {r["ref"] for r in maka.json("ps", "--all")}
    run_id = ref.removeprefix("maka://runtime/background-tasks/")
    assert maka.ok("logs", run_id[:10]) == "by-ref\n"
    [stopped] = maka.json("stop", ref)
    assert (stopped["session_id"], stopped["status"]) == ("cli-elsewhere", "RUN_STATUS_CANCELLED")
    assert finish(follow) == 0
    # With --session, only that session's runs are found.
    result = maka("logs", "--session", "cli-not-its-session", ref)
    assert result.returncode == 1 and result.stderr.strip().endswith("(NOT_FOUND)")


def test_ps_all_and_session_are_exclusive(maka: Maka) -> None:
    result = maka("ps", "--all", "--session", "x")
    assert result.returncode == 2
    assert "not allowed with argument" in result.stderr, result.stderr


def test_output_writes_a_runs_kept_bytes_exactly(maka: Maka) -> None:
    ref = maka.ok("bg", "--", "seq 1 300000; echo err >&2").strip()
    assert maka("logs", "-f", ref).returncode == 0  # returns once the run has ended
    out = maka("output", "--stream", "stdout", ref)
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout == "".join(f"{n}\n" for n in range(1, 300_001))  # several pages
    assert maka.ok("output", "--stream", "stderr", ref) == "err\n"
    # Both streams in the order they were read: the two pipes are read apart, so "err\n" may
    # fall anywhere among the stdout chunks, even inside a line; without it, stdout is exact.
    everything = maka.ok("output", ref)
    assert everything.count("err\n") == 1
    assert everything.replace("err\n", "", 1) == out.stdout
    records = maka.json("output", ref)
    assert "".join(r["data"] for r in records if r["stream"] == "stderr") == "err\n"


def test_json_output_carries_the_exact_bytes(maka: Maka) -> None:
    """``data`` turns bytes that are not UTF-8 into U+FFFD; ``data_base64`` keeps them."""
    ref = maka.ok("bg", "--", r"printf 'caf\351 \377\376 ok\n'").strip()
    assert maka("logs", "-f", ref).returncode == 0
    records = maka.json("output", ref)
    kept = b"".join(base64.b64decode(r["data_base64"]) for r in records)
    assert kept == b"caf\xe9 \xff\xfe ok\n"
    assert "\ufffd" in "".join(r["data"] for r in records)


def test_a_standalone_service_gives_each_principal_its_own_default_session(maka: Maka) -> None:
    # Without --session or MAKA_SESSION a run goes to the caller's default session, named
    # after the principal the resource service says it is ("suite", the suite's credential):
    # the first principal naming a session owns it, so a shared "default" would lock out others.
    env = {k: v for k, v in maka.env.items() if k != "MAKA_SESSION"}
    alone = Maka(env=env, workspace=maka.workspace)
    [*_, last] = alone.json("run", "--", "true")
    assert last["result"]["session_id"] == "default-suite", last
