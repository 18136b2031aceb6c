"""Fixtures of the foundation tests that more than one module uses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import RootOwner, acquire_root_owner, resolve_storage_root


@pytest.fixture
def owner(tmp_path: Path) -> Iterator[RootOwner]:
    """The owner of a fresh storage root (``test``), closed after the test."""
    owner = acquire_root_owner(resolve_storage_root(tmp_path / "root", "test"))
    yield owner
    owner.close()
