"""The ghz smoke (``./dev ghz-smoke``, ``bench/ghz_bench.py --smoke``) against the live pair:
a profile of bench/ghz/ passes with every call OK, and a profile whose calls fail makes the
smoke fail, naming the status. Correctness under load; nothing here is timed.

ghz is a pinned Go tool (``./dev setup-go``); without it these tests skip, except where
``MAKA_REQUIRE_TOOLCHAINS=1`` (CI).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.foundation.test_reflection import tool

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "ghz_bench.py"


def smoke(*args: str) -> subprocess.CompletedProcess[str]:
    tool("ghz")  # skips (or fails in CI) without it
    return subprocess.run(
        [sys.executable, str(BENCH), "--smoke", *args],
        capture_output=True,
        text=True,
        timeout=170,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_smoke_of_a_profile_passes_with_every_call_ok() -> None:
    result = smoke("--profile", "kernel_get_session")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok   kernel_get_session: 300 calls, all OK" in result.stdout


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_smoke_fails_on_calls_that_end_with_an_error_status(tmp_path: Path) -> None:
    profile = json.loads((ROOT / "bench" / "ghz" / "kernel_get_session.json").read_text())
    profile["data"] = {"session_id": "nobody-made-this-session"}
    (tmp_path / "kernel_get_unknown_session.json").write_text(json.dumps(profile))
    result = smoke("--profiles", str(tmp_path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL kernel_get_unknown_session" in result.stdout
    assert "NotFound" in result.stdout, result.stdout
