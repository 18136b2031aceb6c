"""Suite-wide fixtures."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import auth

# Before any service or channel exists: every test runs with the suite's credential.
auth.install()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data directory for one service pair."""
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def root_logging() -> Iterator[None]:
    """configure_logging replaces the root handlers: put pytest's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
