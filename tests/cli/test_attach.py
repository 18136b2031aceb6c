"""``maka attach`` under a real pseudo-terminal: type, resize, detach, re-attach, run end."""

from __future__ import annotations

import sys

import pexpect
import pytest

from tests.cli.conftest import Maka, finish

SHELL = "PS1='$ ' exec bash --norc --noprofile"


def start_shell(maka: Maka) -> str:
    return maka.ok("bg", "--pty", "--", SHELL).strip()


def see_size(child: pexpect.spawn, rows: int, cols: int) -> None:
    """Ask ``stty size`` until the run reports *rows* *cols* (the resize is asynchronous)."""
    for _ in range(20):
        child.send("stty size\r")
        if child.expect([rf"(?<!\d){rows} {cols}\r\n", r"(?<!\d)\d+ \d+\r\n"]) == 0:
            return
    raise AssertionError(f"the run never saw {rows}x{cols}")


@pytest.mark.slow
def test_attach_type_resize_detach_reattach(maka: Maka) -> None:
    ref = start_shell(maka)
    child = maka.spawn("attach", ref, rows=24, cols=80)
    child.send("echo marker-$((6*7))\r")
    child.expect("marker-42")
    see_size(child, 24, 80)

    child.setwinsize(30, 100)
    see_size(child, 30, 100)

    child.sendcontrol("p")
    child.sendcontrol("q")
    child.expect("detached from")
    assert finish(child) == 0
    [run] = [r for r in maka.json("ps") if r["ref"] == ref]
    assert run["status"] == "RUN_STATUS_RUNNING"

    again = maka.spawn("attach", ref, rows=20, cols=70)
    again.expect("marker-42")  # the screen is replayed
    see_size(again, 20, 70)  # attaching sends our size
    again.send("echo again-$((2+3))\r")
    again.expect("again-5")
    again.send("exit 5\r")
    again.expect("failed, exit 5")
    assert finish(again) == 5


def test_custom_detach_keys_and_the_terminal_is_restored(maka: Maka) -> None:
    ref = start_shell(maka)
    # A shell around maka reports the terminal settings once maka has exited.
    script = (
        f'"$0" -m maka_runtime_client.cli attach --detach-keys ctrl-x,d {ref}; echo rc=$?; stty -a'
    )
    child = pexpect.spawn(
        "sh", ["-c", script, sys.executable], env=maka.env, encoding="utf-8", timeout=20
    )
    child.send("echo one-$((0+1))\r")
    child.expect("one-1")
    child.sendcontrol("x")
    child.send("x")  # not the sequence: both keys are typed
    child.sendcontrol("x")
    child.send("d")
    child.expect("detached from")
    child.expect("rc=0")
    assert child.expect([r"\s-icanon", r"\sicanon"]) == 1  # cooked mode again
    assert child.expect([r"\s-echo\s", r"\secho\s"]) == 1
    assert finish(child) == 0
    maka.ok("stop", ref)


def test_attach_to_an_ended_run_prints_its_end(maka: Maka) -> None:
    ref = maka.ok("bg", "--pty", "--", "exit 4").strip()
    follow = maka.spawn("logs", "-f", ref)
    assert finish(follow) == 0
    child = maka.spawn("attach", ref)
    child.expect("exit 4")
    assert finish(child) == 4


def test_attach_needs_a_terminal(maka: Maka) -> None:
    ref = start_shell(maka)
    result = maka("attach", ref)
    assert result.returncode == 2
    assert "attach needs a terminal" in result.stderr
    maka.ok("stop", ref)


def test_attach_to_a_pipes_run_is_refused(maka: Maka) -> None:
    ref = maka.ok("bg", "--", "sleep 30").strip()
    child = maka.spawn("attach", ref)
    child.expect(r"is not a PTY run.*\(NOT_A_PTY\)")
    assert finish(child) == 1
    maka.ok("stop", ref)
