"""The local terminal: raw mode that is always restored, its size, the detach key sequence."""

from __future__ import annotations

import contextlib
import fcntl
import struct
import termios
import tty
from collections.abc import Iterator

DEFAULT_DETACH_KEYS = "ctrl-p,ctrl-q"
_CTRL_SPECIALS = {"@": 0, "[": 27, "\\": 28, "]": 29, "^": 30, "_": 31}


def parse_detach_keys(spec: str) -> bytes:
    """``"ctrl-p,ctrl-q"`` → ``b"\\x10\\x11"`` (the docker ``--detach-keys`` format).

    Each comma-separated key is one character or ``ctrl-X`` with X a letter or one of
    ``@ [ \\ ] ^ _``. Raises ValueError for anything else.
    """
    keys = bytearray()
    for raw in spec.split(","):
        key = raw.strip()
        lowered = key.lower()
        if lowered.startswith("ctrl-") and len(key) == 6:
            char = lowered[5]
            if "a" <= char <= "z":
                keys.append(ord(char) - ord("a") + 1)
                continue
            if char in _CTRL_SPECIALS:
                keys.append(_CTRL_SPECIALS[char])
                continue
        elif len(key) == 1 and key.isascii():
            keys.append(ord(key))
            continue
        raise ValueError(f"bad detach key {key!r}: use a character or ctrl-<letter>")
    return bytes(keys)


class DetachMatcher:
    """Finds the detach sequence in typed bytes; everything else is passed on unchanged.

    Bytes that start the sequence are held back until it either completes (detach: they are
    never sent) or breaks off (then they are sent, in order, before the byte that broke it).
    """

    def __init__(self, keys: bytes) -> None:
        self.keys = keys
        self.held = 0

    def feed(self, data: bytes) -> tuple[bytes, bool]:
        """The bytes to send and whether the sequence completed (bytes after it are dropped)."""
        if not self.keys:
            return data, False
        out = bytearray()
        for byte in data:
            if byte == self.keys[self.held]:
                self.held += 1
            else:
                out += self.keys[: self.held]
                self.held = 1 if byte == self.keys[0] else 0
                if not self.held:
                    out.append(byte)
            if self.held == len(self.keys):
                self.held = 0
                return bytes(out), True
        return bytes(out), False


def window_size(fd: int) -> tuple[int, int]:
    """(cols, rows) of the terminal on *fd*."""
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows


@contextlib.contextmanager
def raw_mode(fd: int) -> Iterator[None]:
    """Put the terminal on *fd* in raw mode; its settings come back however the block ends."""
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd, termios.TCSANOW)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
