"""Listing decodes each stored header text once (maka_runtime.kernel.store.decoded)."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from maka_runtime.common.sizes import wire_size
from maka_runtime.kernel.core import SessionQuery
from maka_runtime.kernel.store import _shared, decoded
from maka_runtime.kernel.store.decoded import DecodedHeaders
from maka_runtime.kernel.store.sqlite import SqliteSessionStore
from tests.support.counting import count_calls

from .fakes import spec_header


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every header text decoded, in order."""
    return count_calls(monkeypatch, decoded, "header_from_json")


def test_a_text_is_decoded_once_and_sized_with_its_header(decodes: list[str]) -> None:
    cache = DecodedHeaders(4)
    text = _shared.header_to_json(spec_header("a"))
    header, size = cache.get(text)
    assert cache.get(text)[0] is header and size == wire_size(header)
    assert header == spec_header("a")
    assert decodes == [text]


def test_the_least_recently_read_is_forgotten_and_zero_keeps_none(decodes: list[str]) -> None:
    a, b, c = (_shared.header_to_json(spec_header(name)) for name in "abc")
    cache = DecodedHeaders(2)
    for text in (a, b, a, c):  # a read again, so b is the oldest when c comes
        cache.get(text)
    cache.get(a)
    cache.get(b)
    assert decodes == [a, b, c, b] and len(cache) == 2
    none = DecodedHeaders(0)
    none.get(a)
    none.get(a)
    assert len(none) == 0 and decodes[-2:] == [a, a]


async def test_a_listed_header_is_decoded_again_only_when_it_changed(
    sqlite_store: SqliteSessionStore, decodes: list[str]
) -> None:
    for name in ("one", "two"):
        await sqlite_store.create(spec_header(name))
    first = (await sqlite_store.list_sessions(SessionQuery())).sessions
    again = (await sqlite_store.list_sessions(SessionQuery())).sessions
    assert [h.id for h in again] == ["two", "one"]
    assert all(x is y for x, y in zip(first, again, strict=True)) and len(decodes) == 2
    renamed = await sqlite_store.update_header("one", {"name": "renamed"})
    after = {h.id: h for h in (await sqlite_store.list_sessions(SessionQuery())).sessions}
    # The update read "one" from what was decoded and left the header it wrote: no decode.
    assert after["one"] is renamed and renamed.name == "renamed" and len(decodes) == 2
    assert after["two"] is {h.id: h for h in first}["two"]


def test_a_header_an_update_left_is_sized_only_when_a_page_asks(
    decodes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sized = count_calls(monkeypatch, decoded, "wire_size")
    cache = DecodedHeaders(4)
    header = spec_header("a")
    text = _shared.header_to_json(header)
    cache.remember(text, header)
    assert cache.header(text) is header and sized == []
    listed, size = cache.get(text)
    assert listed is header and size == wire_size(header) and len(sized) == 1
    assert cache.get(text) == (header, size) and len(sized) == 1
    other = _shared.header_to_json(spec_header("b"))
    assert cache.header(other) == spec_header("b") and sized == [header]
    assert decodes == [other]


async def test_consecutive_updates_of_a_session_decode_nothing(
    sqlite_store: SqliteSessionStore, decodes: list[str]
) -> None:
    await sqlite_store.create(spec_header("one"))
    await sqlite_store.update_header("one", {"status": "running"})
    assert len(decodes) == 1  # the created text, read once
    for status in ("active", "running", "active"):
        header = await sqlite_store.update_header("one", {"status": status})
        assert header.status == status
    assert len(decodes) == 1
    # What was remembered is what the file holds.
    with contextlib.closing(sqlite3.connect(sqlite_store.path)) as conn:
        (text,) = conn.execute("SELECT header FROM sessions WHERE id = 'one'").fetchone()
    assert _shared.header_from_json(text) == header
