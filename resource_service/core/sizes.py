"""How big a run is on the wire, and how many runs fit a response.

The core never sees protobuf, so it bounds pages with :func:`wire_size`, an upper bound of the
encoded size of the message the API layer makes from a record: every field costs its payload
plus :data:`FIELD_OVERHEAD` (a tag and a length prefix), every object :data:`OBJECT_OVERHEAD`
more. The bound holds because each record field becomes at most one protobuf field (tested
against the real encoding).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

__all__ = ["DEFAULT_PAGE_BYTES", "fitting", "wire_size"]

_T = TypeVar("_T")

FIELD_OVERHEAD: Final = 12
OBJECT_OVERHEAD: Final = 24
#: Below a default client's 4 MiB receive limit with room for framing.
DEFAULT_PAGE_BYTES: Final = 2 * 1024 * 1024


def wire_size(value: Any) -> int:
    """An upper bound of the encoded size of *value* (a record, or a field value)."""
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


def fitting(items: Sequence[_T], max_bytes: int) -> list[_T]:
    """The longest prefix of *items* within *max_bytes*, but never less than the first item."""
    page: list[_T] = []
    total = 0
    for item in items:
        total += wire_size(item)
        if page and total > max_bytes:
            break
        page.append(item)
    return page
