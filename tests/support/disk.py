"""A small tmpfs data disk that a test can fill up and free again.

Mounting needs root (CI runs as root); where ``mount`` is not allowed the test is skipped with
the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_disk(path: Path, size: str = "8m") -> Iterator[Disk]:
    """A tmpfs of *size* mounted at *path* for the duration of the block."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(
            f"needs a small tmpfs data disk, and mount is not allowed here "
            f"(uid {os.getuid()}): {mounted.stderr.strip() or mounted.returncode}"
        )
    try:
        yield Disk(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


class Disk:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._filler = path / "filler"

    def fill(self) -> None:
        """Write a filler file until the disk has no space left."""
        with open(self._filler, "ab", buffering=0) as filler:
            for size in (65536, 4096, 512, 1):
                try:
                    while True:
                        filler.write(b"\0" * size)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)
