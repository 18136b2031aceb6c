"""Counting the calls of a function a test replaces for the length of the test."""

from __future__ import annotations

from typing import Any

import pytest


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[Any]:
    """Replace ``owner.name`` with a wrapper that records each call's first argument and
    calls the real function; the list of recorded arguments, in call order."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def counting(first: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(first)
        return real(first, *args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return seen
