"""The detach key parser and matcher (pure functions, no terminal needed)."""

from __future__ import annotations

import pytest
from maka_runtime_client.cli.terminal import DetachMatcher, parse_detach_keys


def test_parse_detach_keys() -> None:
    assert parse_detach_keys("ctrl-p,ctrl-q") == b"\x10\x11"
    assert parse_detach_keys("ctrl-x,d") == b"\x18d"
    assert parse_detach_keys("ctrl-@,ctrl-[") == b"\x00\x1b"
    with pytest.raises(ValueError, match="bad detach key"):
        parse_detach_keys("ctrl-pq")


def test_matcher_detaches_on_the_whole_sequence_only() -> None:
    matcher = DetachMatcher(b"\x10\x11")
    assert matcher.feed(b"ls\r") == (b"ls\r", False)
    assert matcher.feed(b"a\x10") == (b"a", False)  # held back
    assert matcher.feed(b"\x11rest") == (b"", True)


def test_matcher_releases_a_broken_prefix_in_order() -> None:
    matcher = DetachMatcher(b"\x10\x11")
    assert matcher.feed(b"\x10") == (b"", False)
    assert matcher.feed(b"x") == (b"\x10x", False)
    assert matcher.feed(b"\x10\x10\x11") == (b"\x10", True)


def test_empty_sequence_never_detaches() -> None:
    assert DetachMatcher(b"").feed(b"\x10\x11") == (b"\x10\x11", False)
