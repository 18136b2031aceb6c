"""Cutting what a backend produced so that one log entry stays within its bound.

Sizes and page fitting are shared with the resource service (:mod:`maka_runtime.common.sizes`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from maka_runtime.common.sizes import FIELD_OVERHEAD, OBJECT_OVERHEAD, fitting, wire_size

__all__ = ["FIELD_OVERHEAD", "OBJECT_OVERHEAD", "clip_entry", "clip_text", "fitting", "wire_size"]

_T = TypeVar("_T")

#: Fields that are data, not prose: never cut (a cut path would grant or name another path).
#: Each is bounded where it is made (an expansion: at most 32 entries of at most 4095 bytes).
UNCUT_FIELDS = frozenset({"expansion", "required_expansion", "once_expansion"})


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
        if isinstance(value, tuple) and field.name not in UNCUT_FIELDS
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
