"""The Go and Node.js clients, run by their own test runners against real services.

Each runner starts the Python services itself (with this interpreter, via ``MAKA_PYTHON``).
Without a Go or Node toolchain these tests skip, except where ``MAKA_REQUIRE_TOOLCHAINS=1``
(CI), where a missing toolchain fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

# The end-to-end scenarios each client must keep running (a renamed or lost test fails here).
GO_SCENARIO_TESTS = (
    "TestScriptedTurnStreamsInSeqOrderToCompletion",
    "TestPtyControllerLeaseFromGo",
    "TestDemoScenarioRunsAgainstRealServices",
    "TestRunHelpersTakeARefWithoutItsSession",
)
NODE_SCENARIO_TESTS = (
    "a scripted turn streams in seq order to turn_state completed",
    "a PTY run typed into under a controller lease from Node",
    "a turn longer than the unary deadline completes: streams get no deadline by default",
    "the idle timeout fails a turn that goes quiet and spares one that keeps talking",
)


def toolchain(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("MAKA_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail(f"{name} is required (MAKA_REQUIRE_TOOLCHAINS=1) but not installed")
        pytest.skip(f"{name} is not installed")
    return path


def run(argv: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAKA_PYTHON": sys.executable}
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.mark.timeout(600)
def test_go_client_suite_passes() -> None:
    go = toolchain("go")
    result = run([go, "test", "-count=1", "-v", "./..."], ROOT / "clients" / "go", 540)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"^--- PASS", output, re.MULTILINE), output
    assert "--- SKIP" not in output, output
    assert "--- FAIL" not in output, output
    for name in GO_SCENARIO_TESTS:
        assert re.search(rf"^--- PASS: {name} ", output, re.MULTILINE), f"{name} did not pass"


@pytest.mark.timeout(600)
def test_node_client_suite_passes() -> None:
    node, npm = toolchain("node"), toolchain("npm")
    cwd = ROOT / "clients" / "node"
    if not (cwd / "node_modules").exists():
        installed = run([npm, "ci", "--no-audit", "--no-fund"], cwd, 300)
        assert installed.returncode == 0, installed.stdout + installed.stderr
    result = run([node, "--test", "test/"], cwd, 300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"^# fail 0$", output, re.MULTILINE), output
    passed = re.search(r"^# pass (\d+)$", output, re.MULTILINE)
    assert passed and int(passed.group(1)) > 0, output
    assert re.search(r"^# skipped 0$", output, re.MULTILINE), output
    for name in NODE_SCENARIO_TESTS:
        passed_line = rf"^ok \d+ - {re.escape(name)}$"
        assert re.search(passed_line, output, re.MULTILINE), f"{name!r} did not pass"
