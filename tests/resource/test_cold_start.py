"""Start-up imports of the resource service: what only some runs need is loaded with them."""

from __future__ import annotations

import subprocess
import sys


def test_the_terminal_emulator_is_loaded_with_the_first_pty_run_not_at_start() -> None:
    probe = (
        "import sys, maka_runtime.resource.server, maka_runtime.resource.core.live;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyte', 'wcwidth')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert loaded.stdout.strip() == "[]"
