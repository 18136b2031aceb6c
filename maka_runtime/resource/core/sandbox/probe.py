"""The start-up probe of bubblewrap: is it there, and can it make the namespaces a sandbox
needs? A sandbox is used only after this probe says yes; otherwise sandboxed runs are refused
(fail closed), never run without it."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

__all__ = ["INSTALL_HINT", "BwrapProbe", "probe_bwrap"]

INSTALL_HINT: Final = (
    "install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap; Fedora: dnf install "
    "bubblewrap) or point --sandbox-bwrap at it"
)
_TIMEOUT: Final = 10.0


@dataclass(frozen=True)
class BwrapProbe:
    """What the probe found: the resolved executable and its version, or why not."""

    path: str = ""
    version: str = ""
    reason: str = ""

    @property
    def available(self) -> bool:
        return bool(self.path) and not self.reason


def probe_bwrap(bwrap: str) -> BwrapProbe:
    """Find *bwrap* and start ``true`` inside the namespaces every sandbox uses."""
    path = shutil.which(bwrap)
    if path is None:
        return BwrapProbe(reason=f"bubblewrap ({bwrap}) is not installed; {INSTALL_HINT}")
    argv = [
        path,
        "--die-with-parent",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--",
        "/bin/true",
    ]
    try:
        # Both at once: the start of the service waits for the slower, not for their sum.
        with _started([path, "--version"]) as version, _started(argv) as ran:
            out, _ = version.communicate(timeout=_TIMEOUT)
            _, err = ran.communicate(timeout=_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as error:
        return BwrapProbe(path=path, reason=f"bubblewrap ({path}) cannot run: {error}")
    if ran.returncode != 0:
        reason = err.decode(errors="replace").strip()[:500]
        return BwrapProbe(
            path=path,
            reason=f"bubblewrap ({path}) cannot create the sandbox's namespaces: {reason}",
        )
    text = out.decode(errors="replace")
    return BwrapProbe(path=path, version=text.strip().removeprefix("bubblewrap "))


@contextlib.contextmanager
def _started(argv: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """*argv* running with its output captured; killed and reaped however the block ends."""
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
