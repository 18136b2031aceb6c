"""How big a core object is on the wire, and how many objects fit a response.

The cores never see protobuf, so they bound pages with :func:`wire_size`, an upper bound of the
encoded size of the message the API layer makes from a core object (a dataclass): every field
costs its payload plus :data:`FIELD_OVERHEAD` (a tag and a length prefix), every object
:data:`OBJECT_OVERHEAD` more (the message that wraps it). The bound holds because each core
field becomes at most one protobuf field (each service tests it against the real encoding).
Pure Python: both domain cores use it.
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


#: The field names of each dataclass type :func:`wire_size` has measured, looked up once per
#: type rather than per object (every committed log entry is measured on its way).
_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def wire_size(value: Any) -> int:
    """An upper bound of the encoded size of *value* (a core dataclass, or a field value)."""
    names = _FIELD_NAMES.get(type(value))
    if names is not None:
        return _object_size(value, names)
    if isinstance(value, str):
        return _text_size(value)
    if isinstance(value, bytes):
        return len(value) + FIELD_OVERHEAD
    if value is None or isinstance(value, bool | int | float):
        return FIELD_OVERHEAD
    if isinstance(value, Mapping):
        return sum(wire_size(key) + wire_size(item) + FIELD_OVERHEAD for key, item in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = tuple(field.name for field in dataclasses.fields(value))
        _FIELD_NAMES[type(value)] = names
        return _object_size(value, names)
    if isinstance(value, Sequence):
        return FIELD_OVERHEAD + sum(wire_size(item) for item in value)
    raise TypeError(f"no wire size for {type(value).__name__}")


def _text_size(text: str) -> int:
    # An ASCII text is as long in UTF-8 as in characters: no encoded copy needed.
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return size + FIELD_OVERHEAD


def _object_size(value: Any, names: tuple[str, ...]) -> int:
    total = OBJECT_OVERHEAD
    for name in names:
        field = getattr(value, name)
        kind = type(field)
        if kind is str:
            total += _text_size(field)
        elif kind is int or kind is bool or field is None:
            total += FIELD_OVERHEAD
        else:
            total += wire_size(field)
    return total


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
