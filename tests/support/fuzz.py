"""Arbitrary request messages built from protobuf descriptors, and a server on its own loop.

:func:`messages` draws any message of a descriptor: every scalar type over its whole range
(the extremes included), strings of any Unicode (long ones too), unknown enum numbers, nested
messages, repeated and map fields, and, for fields named like an id, the ids of objects that
exist on the server as often as made-up ones. Fields that would make the server run something
(``command``) draw from harmless commands only.

:class:`LoopThread` runs an event loop in a thread, so that hypothesis (which drives plain
functions) can call a real in-process server over a real channel.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Awaitable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from google.protobuf import message as message_module
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hypothesis import strategies as st

T = TypeVar("T")

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_UINT32 = (0, 2**32 - 1)
_UINT64 = (0, 2**64 - 1)
_RANGES = {
    FieldDescriptor.TYPE_INT32: _INT32,
    FieldDescriptor.TYPE_SINT32: _INT32,
    FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_SFIXED64: _INT64,
    FieldDescriptor.TYPE_UINT32: _UINT32,
    FieldDescriptor.TYPE_FIXED32: _UINT32,
    FieldDescriptor.TYPE_UINT64: _UINT64,
    FieldDescriptor.TYPE_FIXED64: _UINT64,
}

#: Text protobuf accepts (no lone surrogates), with the awkward values weighted in.
_AWKWARD = st.sampled_from(
    [
        "",
        " ",
        "\0",
        "..",
        "/",
        "/tmp",
        "/nonexistent/dir",
        "-1",
        "99999999999999999999",
        "99999999999999999999.x",
        "maka://runtime/background-tasks/",
        "maka://runtime/background-tasks/0123456789abcdef",
        "é\u202e\ufeff",
        "a" * 300,
        "W1siX19ub3QgYSBsaXN0Il1d",
        "WzEsInJ1bnMiLDk5OTk5OTk5OTk5OTk5OTk5OTk5LCJ4Il0",
        "WzEsInNlc3Npb25zIiwxZSszMDAsIngiXQ",
        "WzEsInJ1bnMiLC0xLCIwMTIzNDU2Nzg5YWJjZGVmIl0",
        "WzEsInNlc3Npb25zIiw5OTk5OTk5OTk5OTk5OTk5OTk5OSwieCJd",
        "OTk5OTk5OTk5OTk5OTk5OTk5OTk6eA",
    ]
)
_TEXT = st.one_of(
    _AWKWARD,
    _AWKWARD,
    st.text(st.characters(exclude_categories=["Cs"]), max_size=40),
    st.text(st.characters(exclude_categories=["Cs"]), min_size=1000, max_size=5000),
)

#: What a generated ``command`` may be: harmless whatever else is drawn.
_COMMANDS = st.one_of(
    st.sampled_from(["true", "exit 3", "echo hi", "", " ", "\0", "x" * 200_000, "kill -9 $$"]),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n\r"), max_size=60).map(
        lambda text: "#" + text
    ),
)


def _integers(field: FieldDescriptor) -> st.SearchStrategy[int]:
    low, high = _RANGES[field.type]
    return st.one_of(
        st.sampled_from(sorted({low, high, 0, -1 if low < 0 else 1, 1, 2**31 - 1})),
        st.integers(0, 100),
        st.integers(low, high),
    ).filter(lambda number: low <= number <= high)


#: Numbers far beyond 64 bits, inside what looks like a cursor.
_HUGE = st.one_of(
    st.sampled_from([2**63, 10**20 - 1, -(2**63) - 1, 2**64]),
    st.integers(2**63, 2**80),
    st.integers(-(2**80), -(2**63) - 1),
    st.integers(),
)


def _tokens(ids: Sequence[str]) -> st.SearchStrategy[str]:
    """Page-token look-alikes: ``N.id`` and ``N:id`` cursors, and base64 of JSON arrays, with
    numbers of any size and the ids of things that exist."""
    names = st.sampled_from([value.rsplit("/", 1)[-1] for value in ids] or ["x"])
    cursor = st.builds(lambda n, sep, name: f"{n}{sep}{name}", _HUGE, st.sampled_from(".:"), names)
    encoded = st.builds(
        lambda version, kind, n, name: (
            base64.urlsafe_b64encode(json.dumps([version, kind, n, name]).encode())
            .decode()
            .rstrip("=")
        ),
        st.sampled_from([1, 0, 2, True]),
        st.sampled_from(["runs", "sessions", ""]),
        st.one_of(_HUGE, st.floats(), st.none()),
        names,
    )
    plain = st.builds(lambda text: base64.urlsafe_b64encode(text.encode()).decode(), cursor)
    return st.one_of(cursor, cursor, encoded, plain, _AWKWARD)


def _scalar(field: FieldDescriptor, ids: Mapping[str, Sequence[str]]) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in _RANGES:
        return _integers(field)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=True, allow_infinity=True, width=32)
    if kind == FieldDescriptor.TYPE_ENUM:
        # Any number at all: proto3 enums are open, so unknown numbers arrive as they are.
        assert field.enum_type is not None  # an enum field always has its enum type
        numbers = [value.number for value in field.enum_type.values]
        return st.one_of(st.sampled_from(numbers), st.integers(*_INT32))
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.one_of(st.binary(max_size=64), st.just(b"\xff" * 40_000))
    if kind == FieldDescriptor.TYPE_STRING:
        if field.name == "command":
            return _COMMANDS
        if field.name.endswith("token"):
            refs = [value for values in ids.values() for value in values]
            tokens = _tokens(refs)
            return st.one_of(tokens, tokens, tokens, _TEXT)
        known = [
            value
            for name, values in ids.items()
            if field.name == name or field.name.endswith(name)
            for value in values
        ]
        if known:
            # Mostly ids of things that exist, so that the rest of the request gets looked at.
            existing = st.sampled_from(known)
            return st.one_of(existing, existing, existing, _TEXT)
        return _TEXT
    raise AssertionError(f"no strategy for {field.full_name} (type {kind})")


def messages(
    descriptor: Descriptor,
    *,
    ids: Mapping[str, Sequence[str]] | None = None,
    depth: int = 3,
    templates: Sequence[message_module.Message] = (),
) -> st.SearchStrategy[message_module.Message]:
    """Any message of *descriptor*. *ids* maps a field name (or a name suffix such as
    ``session_id``) to ids that exist on the server. With *templates* (valid requests), half
    of the messages are a template with one or two fields replaced by arbitrary values: bad
    input that gets past the first checks."""
    arbitrary = _arbitrary(descriptor, ids or {}, depth)
    if not templates:
        return arbitrary

    @st.composite
    def mutated(draw: st.DrawFn) -> message_module.Message:
        message = draw(st.sampled_from(templates))
        result = type(message)()
        result.CopyFrom(message)
        noise = draw(arbitrary)
        fields = st.sampled_from(list(descriptor.fields))
        for field in draw(st.lists(fields, min_size=1, max_size=2, unique=True)):
            result.ClearField(field.name)
            if field.is_repeated:
                getattr(result, field.name).MergeFrom(getattr(noise, field.name))
            elif field.message_type is not None:
                if noise.HasField(field.name):
                    getattr(result, field.name).CopyFrom(getattr(noise, field.name))
            else:
                setattr(result, field.name, draw(_scalar(field, ids or {})))
        return result

    variant = mutated()
    return st.one_of(arbitrary, variant, variant)


def _arbitrary(
    descriptor: Descriptor, known: Mapping[str, Sequence[str]], depth: int
) -> st.SearchStrategy[message_module.Message]:

    @st.composite
    def build(draw: st.DrawFn) -> message_module.Message:
        message = message_factory.GetMessageClass(descriptor)()
        for field in descriptor.fields:
            if draw(st.integers(0, 3)) == 0:
                continue  # a quarter of the fields are left unset
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                key_field = field.message_type.fields_by_name["key"]
                value_field = field.message_type.fields_by_name["value"]
                if value_field.message_type is not None:
                    continue  # no map of messages in these protocols
                entries = draw(
                    st.dictionaries(
                        _scalar(key_field, known), _scalar(value_field, known), max_size=4
                    )
                )
                getattr(message, field.name).update(entries)
                continue
            if field.message_type is not None:
                if depth <= 0:
                    continue
                nested = _arbitrary(field.message_type, known, depth - 1)
                if field.is_repeated:
                    for item in draw(st.lists(nested, max_size=3)):
                        getattr(message, field.name).add().CopyFrom(item)
                else:
                    getattr(message, field.name).CopyFrom(draw(nested))
                continue
            if field.is_repeated:
                getattr(message, field.name).extend(
                    draw(st.lists(_scalar(field, known), max_size=4))
                )
            else:
                setattr(message, field.name, draw(_scalar(field, known)))
        return message

    return build()


class LoopThread:
    """An event loop running in a daemon thread; :meth:`run` awaits a coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Awaitable[T], timeout: float = 60.0) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)  # type: ignore[arg-type]
        return future.result(timeout)

    def close(self) -> None:
        async def cancel_rest() -> None:
            rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in rest:
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        self.run(cancel_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()
