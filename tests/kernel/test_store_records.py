"""How the stores stamp, encode and derive what an append commits: ``with_seq`` and
``to_record``/``from_record`` for every entry type, and a turn record read and written once per
append however many of the append's entries move it."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest

from maka_runtime.kernel.core.log import events
from maka_runtime.kernel.core.log.events import TurnState, UserMessage, from_record, to_record
from maka_runtime.kernel.store import _log_sql
from maka_runtime.kernel.store.sqlite import SqliteSessionStore
from tests.support.counting import count_calls

from .fakes import spec_header

ENTRY_TYPES = sorted(events.MESSAGE_TYPES)


def sample(type_name: str) -> Any:
    """An entry of *type_name* with every field set to a value of its own (not its default)."""
    cls = events._TYPES[type_name]
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for index, field in enumerate(dataclasses.fields(cls)):
        if field.name == "type":
            continue
        hint = str(hints[field.name])
        if "tuple" in hint:
            values[field.name] = (f"{field.name}-a", f"{field.name}-b")
        elif hint in ("<class 'int'>", "<class 'bool'>"):
            values[field.name] = index + 1 if "int" in hint else True
        else:
            values[field.name] = f"{field.name}-{index}"
    return cls(**values)


@pytest.mark.parametrize("type_name", ENTRY_TYPES)
def test_with_seq_is_replace_of_the_seq_alone(type_name: str) -> None:
    entry = sample(type_name)
    stamped = events.with_seq(entry, 41)
    assert stamped == dataclasses.replace(entry, seq=41)
    assert type(stamped) is type(entry) and stamped is not entry
    assert entry.seq != 41  # the entry given is left as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        stamped.seq = 1  # type: ignore[misc]


@pytest.mark.parametrize("type_name", ENTRY_TYPES)
def test_a_record_holds_every_field_and_reads_back_equal(type_name: str) -> None:
    entry = events.with_seq(sample(type_name), 3)
    record = to_record(entry)
    assert list(record) == [field.name for field in dataclasses.fields(entry)]
    assert not any(isinstance(value, tuple) for value in record.values())  # JSON-ready
    assert from_record({**record, "unknown_later_field": 1}) == entry


async def test_an_append_reads_and_writes_each_turn_record_once(
    sqlite_store: SqliteSessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    await sqlite_store.create(spec_header("s"))
    reads = count_calls(monkeypatch, _log_sql, "turn_record")
    written = count_calls(monkeypatch, _log_sql, "turn_to_json")
    stamped = await sqlite_store.append_messages(
        "s",
        [
            UserMessage(turn_id="t1", text="hi", id="u1", ts=5),
            TurnState(turn_id="t1", status="running", id="r1", ts=5),
            TurnState(turn_id="t1", status="completed", id="c1", ts=9),
            TurnState(turn_id="t1", status="failed", id="f1", ts=10),  # the first end wins
            UserMessage(turn_id="t2", text="next", id="u2", ts=11),
        ],
    )
    assert len(reads) == 2 and len(written) == 2  # one of each per turn
    t1 = await sqlite_store.get_turn("s", "t1")
    assert t1 is not None and (t1.status, t1.text, t1.first_seq) == ("completed", "hi", 1)
    assert (t1.started_at, t1.ended_at) == (5, 9)
    t2 = await sqlite_store.get_turn("s", "t2")
    assert t2 is not None and (t2.status, t2.first_seq) == ("running", stamped[-1].seq)
    # A later append moves a stored record as before.
    await sqlite_store.append_messages("s", [TurnState(turn_id="t2", status="aborted", ts=12)])
    t2 = await sqlite_store.get_turn("s", "t2")
    assert t2 is not None and (t2.status, t2.ended_at) == ("aborted", 12)
    assert [t.turn_id for t in await sqlite_store.list_turns("s")] == ["t1", "t2"]
