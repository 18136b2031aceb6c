"""The defaults of a PTY run's screen, apart from the emulator (:mod:`.screen`), so that
reading the configuration does not load pyte: it is imported with the first PTY run."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_MAX_PENDING", "DEFAULT_SCROLLBACK"]

DEFAULT_SCROLLBACK: Final = 500
DEFAULT_MAX_PENDING: Final = 32 * 1024
