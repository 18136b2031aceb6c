"""``wire_size`` measures with per-type field names and ASCII lengths: the same bound as
measuring every field of every object from scratch, for every kind of value the cores hold."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from maka_runtime.common.sizes import FIELD_OVERHEAD, OBJECT_OVERHEAD, wire_size
from maka_runtime.kernel.core.log.events import TextDelta, ToolCall


def reference(value: Any) -> int:
    """The bound by its definition: each field from scratch, every text encoded."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) + FIELD_OVERHEAD
    if isinstance(value, bytes):
        return len(value) + FIELD_OVERHEAD
    if value is None or isinstance(value, bool | int | float):
        return FIELD_OVERHEAD
    if isinstance(value, Mapping):
        return sum(reference(k) + reference(v) + FIELD_OVERHEAD for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return OBJECT_OVERHEAD + sum(reference(getattr(value, f.name)) for f in fields)
    assert isinstance(value, Sequence)
    return FIELD_OVERHEAD + sum(reference(item) for item in value)


class Label(str):
    """A ``str`` subclass: measured as a text, not through the exact-type fast path."""


@dataclasses.dataclass(frozen=True)
class Inner:
    name: str
    data: bytes = b""


@dataclasses.dataclass(frozen=True)
class Outer:
    title: Any
    count: int = 0
    ratio: float = 0.5
    flag: bool = False
    missing: None = None
    inner: Inner = Inner("x")
    items: tuple[Any, ...] = ()
    options: Mapping[str, str] = dataclasses.field(default_factory=dict)


VALUES = [
    "",
    "ascii",
    "naïve — 日本語 🙂",
    "lone \udcff surrogate",
    b"\x00\xff",
    7,
    True,
    None,
    2.5,
    ("a", "é", ("nested", b"b")),
    {"k": "v", "ключ": "значение"},
    TextDelta(turn_id="t", message_id="m", text="héllo", id="i", ts=3, seq=9),
    ToolCall(turn_id="t", tool_call_id="c", name="shell", input="ls ü", id="i"),
    Outer(title="t"),
    Outer(title=Label("sub ü"), count=2**40, flag=True, items=(Inner("é", b"xyz"), "s", 1)),
    Outer(title=("tuple", "title"), options={"a": "b"}),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_the_bound_is_the_one_measured_from_scratch(value: Any) -> None:
    assert wire_size(value) == reference(value)
    assert wire_size(value) == reference(value)  # and again, with the type's names kept


def test_a_value_without_a_size_is_refused() -> None:
    with pytest.raises(TypeError, match="no wire size for object"):
        wire_size(object())
