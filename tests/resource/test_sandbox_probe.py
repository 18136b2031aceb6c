"""The start-up probe of bubblewrap runs its two commands (``--version`` and ``true`` inside the
sandbox's namespaces) side by side, so a start waits for the slower of them, not their sum."""

from __future__ import annotations

import os
from pathlib import Path

from maka_runtime.resource.core.sandbox.probe import probe_bwrap


def test_the_two_probe_commands_run_at_once(tmp_path: Path) -> None:
    # A FIFO opens only once both ends are open: each command of this stand-in waits, opening
    # its end, for the other to be running. One after the other, the first would never return
    # (the probe would give up after its timeout and report bubblewrap unusable).
    fifo = tmp_path / "rendezvous"
    os.mkfifo(fifo)
    bwrap = tmp_path / "bwrap"
    bwrap.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then\n'
        f"  read -r _ < '{fifo}'\n"
        "  echo 'bubblewrap 9.9.9'\n"
        "  exit 0\n"
        "fi\n"
        f"echo running > '{fifo}'\n"
    )
    bwrap.chmod(0o755)
    probe = probe_bwrap(str(bwrap))
    assert (probe.available, probe.version, probe.reason) == (True, "9.9.9", "")
