"""The README's first turn with the ``maka`` command line, against the pair in kernel mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.conftest import Pair

MAKA = [sys.executable, "-m", "maka_client.cli"]


def maka(pair: Pair, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env["HOME"] = str(home)
    return subprocess.run(
        [*MAKA, "--kernel", pair.kernel.address, "--resource", pair.proxy.address, *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_first_turn_from_the_command_line(pair: Pair, workspace: Path, tmp_path: Path) -> None:
    created = maka(pair, "new", str(workspace), home=tmp_path)
    assert created.returncode == 0, created.stderr
    session = created.stdout.strip()
    turn = maka(pair, "turn", session, "echo hello; ls", "--approve", "once", home=tmp_path)
    assert turn.returncode == 0, turn.stderr
    assert "hello" in turn.stdout and "exit 0" in turn.stdout
    assert "approval needed to run 'echo hello; ls'" in turn.stdout


def test_runs_without_a_session_use_a_default_session_the_kernel_knows(
    pair: Pair, tmp_path: Path
) -> None:
    run = maka(pair, "run", "--", "sh", "-c", "echo hi; exit 3", home=tmp_path)
    assert (run.returncode, run.stdout) == (3, "hi\n"), run.stderr
    shown = maka(pair, "--json", "show", "default", home=tmp_path)
    assert shown.returncode == 0 and str(tmp_path) in shown.stdout
    listed = maka(pair, "ps", home=tmp_path)
    assert "echo hi" in listed.stdout
