"""How big an entry is on the wire, and how many entries fit a response.

The core never sees protobuf, so it bounds pages with :func:`wire_size`, an upper bound of the
encoded size of the message the API layer makes from a core object: every field costs its
payload plus :data:`FIELD_OVERHEAD` (a tag and a length prefix), every object
:data:`OBJECT_OVERHEAD` more (the message that wraps it). The bound holds because each core
field becomes at most one protobuf field (tested against the real encoding).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

_T = TypeVar("_T")

#: A tag (at most 2 bytes for our field numbers) plus a length varint (at most 5 bytes),
#: rounded up; also the most a scalar (varint, fixed64, a Timestamp) can take.
FIELD_OVERHEAD: Final = 12
OBJECT_OVERHEAD: Final = 24


def wire_size(value: Any) -> int:
    """An upper bound of the encoded size of *value* (a core dataclass, or a field value)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) + FIELD_OVERHEAD
    if isinstance(value, bytes):
        return len(value) + FIELD_OVERHEAD
    if value is None or isinstance(value, bool | int | float):
        return FIELD_OVERHEAD
    if isinstance(value, Mapping):
        return sum(wire_size(key) + wire_size(item) + FIELD_OVERHEAD for key, item in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return OBJECT_OVERHEAD + sum(
            wire_size(getattr(value, field.name)) for field in dataclasses.fields(value)
        )
    if isinstance(value, Sequence):
        return FIELD_OVERHEAD + sum(wire_size(item) for item in value)
    raise TypeError(f"no wire size for {type(value).__name__}")


def fitting(
    items: Sequence[_T], max_bytes: int, size: Callable[[Any], int] = wire_size
) -> list[_T]:
    """The longest prefix of *items* whose sizes add up to at most *max_bytes*, but never less
    than the first item (a page always makes progress; single items are bounded elsewhere)."""
    page: list[_T] = []
    total = 0
    for item in items:
        total += size(item)
        if page and total > max_bytes:
            break
        page.append(item)
    return page


def clip_text(text: str, max_bytes: int) -> str:
    """*text* cut to at most *max_bytes* UTF-8 bytes (at a character boundary), saying so."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    marker = f"\n[… {len(data)} bytes; cut to the first {max_bytes} …]"
    keep = max(0, max_bytes - len(marker.encode()))
    return data[:keep].decode("utf-8", "ignore") + marker


def clip_entry(entry: _T, max_bytes: int) -> _T:
    """*entry* (an event dataclass) with its longest texts cut until it fits *max_bytes*.

    Entries come from backends (model output, tool output); requests are bounded by
    :mod:`.validation`, so this only ever cuts what a backend produced.
    """
    if wire_size(entry) <= max_bytes:
        return entry
    texts = {
        field.name: value
        for field in dataclasses.fields(entry)  # type: ignore[arg-type]
        for value in (getattr(entry, field.name),)
        if isinstance(value, str)
    }
    lists = {
        field.name: value
        for field in dataclasses.fields(entry)  # type: ignore[arg-type]
        for value in (getattr(entry, field.name),)
        if isinstance(value, tuple)
    }
    # Every text gets an equal share of what the small fields leave.
    share = max(1024, (max_bytes - OBJECT_OVERHEAD * 4) // max(1, len(texts) + len(lists)))
    changes: dict[str, Any] = {name: clip_text(value, share) for name, value in texts.items()}
    for name, items in lists.items():
        each = max(256, share // max(1, len(items)))
        changes[name] = tuple(
            clip_text(item, each) if isinstance(item, str) else item for item in items
        )
    return dataclasses.replace(entry, **changes)  # type: ignore[type-var]
