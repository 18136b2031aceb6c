"""Requests that are too large or cannot be decoded keep the error model.

gRPC itself answers an oversized message with RESOURCE_EXHAUSTED "Received message larger than
max" and an undecodable one with UNKNOWN "Unexpected DecodeError", neither with an
``ErrorInfo``. The guard (a step of every method's call pipeline,
:mod:`maka_runtime.common.pipeline`: the service's own, health and reflection) makes the
service decode its requests itself:

- a request message (each message of a request stream) larger than ``max_request_bytes`` is
  refused with RESOURCE_EXHAUSTED, reason ``REQUEST_TOO_LARGE``, metadata ``limit_bytes`` and
  ``size_bytes``;
- bytes that are not a valid message of the method's request type (truncated or corrupt wire
  format, invalid UTF-8 in a string field, a known field sent with the wrong wire type) are
  refused with INVALID_ARGUMENT, reason ``REQUEST_UNDECODABLE``, metadata ``message_type`` (and
  ``field`` when one is known), and a message saying what was wrong.

Nothing of a refused request reaches the servicer, so nothing changes. On a request stream the
refusal ends the whole call (the servicer's work for it is cancelled, as when a client cancels).

The transport must let such messages through to be checked: the server's
``grpc.max_receive_message_length`` is ``max_transport_bytes`` (above ``max_request_bytes``).
Above that ceiling gRPC refuses the message before the service sees it (RESOURCE_EXHAUSTED,
no ``ErrorInfo``): gRPC buffers a whole message in memory before handing it on, so an
unlimited transport would let any client make the process hold gigabytes per call.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message
from google.protobuf.unknown_fields import UnknownFieldSet
from maka_runtime_proto.common.v1 import errors_pb2

from maka_runtime.common.aio import race
from maka_runtime.common.status import make_status, reason_name

#: gRPC's own default limit for a received message, kept as the service limit.
DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024
#: Where the transport itself stops reading (four times the default service limit).
DEFAULT_MAX_TRANSPORT_BYTES = 16 * 1024 * 1024

TOO_LARGE = reason_name(errors_pb2.ERROR_REASON_REQUEST_TOO_LARGE)
UNDECODABLE = reason_name(errors_pb2.ERROR_REASON_REQUEST_UNDECODABLE)

_WIRE_TYPES = {0: "varint", 1: "64-bit", 2: "length-delimited", 3: "group", 4: "group", 5: "32-bit"}


@dataclass(frozen=True)
class RequestLimits:
    """Size limits of received messages, in bytes."""

    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    max_transport_bytes: int = DEFAULT_MAX_TRANSPORT_BYTES

    def __post_init__(self) -> None:
        if not 0 < self.max_request_bytes <= self.max_transport_bytes:
            raise ValueError(f"need 0 < max_request_bytes <= max_transport_bytes: {self}")

    def server_options(self) -> list[tuple[str, Any]]:
        return [("grpc.max_receive_message_length", self.max_transport_bytes)]


@dataclass(frozen=True)
class Refused:
    """A request message the service will not take, and the status it ends the call with."""

    status: grpc.Status


def _wrong_wire_type(message: Message, nested: bool = True) -> tuple[str, str] | None:
    """The first known field (in *message* or a message inside it) that arrived with a wire
    type its declaration does not allow, as (field path, what was wrong).

    Parsers keep such a field as an unknown field; for a field this service knows it is
    corrupt input, not a newer client's addition (unknown numbers still pass). *nested*
    False: *message*'s type holds no messages, so only its own unknown fields are looked at."""
    descriptor = message.DESCRIPTOR
    unknown_set: Any = UnknownFieldSet(message)
    for unknown in unknown_set:
        known = descriptor.fields_by_number.get(unknown.field_number)
        if known is not None:
            sent = _WIRE_TYPES.get(unknown.wire_type, str(unknown.wire_type))
            return known.name, f"field {known.name} (number {known.number}) was sent as {sent}"
    if not nested:
        return None
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            items = list(value.values()) if value_field.message_type is not None else []
        elif field.is_repeated:
            items = list(value)
        else:
            items = [value]
        for item in items:
            found = _wrong_wire_type(item)
            if found is not None:
                return f"{field.name}.{found[0]}", found[1]
    return None


def request_type(deserializer: Callable[[bytes], Any] | None) -> Any:
    """The message descriptor of what *deserializer* (a message class's ``FromString``)
    decodes, or ``None``."""
    return getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)


def _holds_messages(descriptor: Any) -> bool:
    """Whether messages of *descriptor* can hold other messages (fields to walk into)."""
    return any(field.message_type is not None for field in descriptor.fields)


def guarded_deserializer(
    deserializer: Callable[[bytes], Any] | None, limits: RequestLimits, domain: str
) -> Callable[[bytes], Any]:
    """*deserializer* that returns :class:`Refused` instead of raising or over-reading.
    What it needs of the request type is found here, once per method."""
    message_type = request_type(deserializer)
    type_name = message_type.full_name if message_type is not None else "the request type"
    nested = message_type is None or _holds_messages(message_type)

    def refuse(code: grpc.StatusCode, message: str, reason: str, **metadata: str) -> Refused:
        return Refused(make_status(code, message, reason=reason, domain=domain, metadata=metadata))

    def deserialize(raw: bytes) -> Any:
        limit = limits.max_request_bytes
        if len(raw) > limit:
            return refuse(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"request message of {len(raw)} bytes is larger than the limit of {limit} "
                "bytes (--max-request-bytes)",
                TOO_LARGE,
                limit_bytes=str(limit),
                size_bytes=str(len(raw)),
            )
        if deserializer is None:
            return raw
        try:
            request = deserializer(raw)
        except DecodeError as error:
            detail = str(error).rpartition(": ")[2] or "corrupt wire format"
            return refuse(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"request is not a valid {type_name}: {detail}",
                UNDECODABLE,
                message_type=type_name,
            )
        if isinstance(request, Message) and (nested or len(UnknownFieldSet(request))):
            wrong = _wrong_wire_type(request, nested)
            if wrong is not None:
                return refuse(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"request is not a valid {type_name}: {wrong[1]}",
                    UNDECODABLE,
                    message_type=type_name,
                    field=wrong[0],
                )
        return request

    return deserialize


def _checked(
    raws: AsyncIterator[bytes], decode: Callable[[bytes], Any], refusal: asyncio.Future[Refused]
) -> AsyncIterator[Any]:
    """The decoded request stream up to its first refused message, which resolves *refusal*
    (and the stream then waits, until the call is cancelled)."""

    async def iterate() -> AsyncIterator[Any]:
        async for raw in raws:
            request = decode(raw)
            if isinstance(request, Refused):
                if not refusal.done():
                    refusal.set_result(request)
                await asyncio.Event().wait()
            yield request

    return iterate()


async def _first(work: asyncio.Future[Any], refusal: asyncio.Future[Refused]) -> tuple[bool, Any]:
    """Wait for *work* or a refusal; on a refusal *work* is cancelled (and awaited).
    (refused?, result). *refusal* itself stays as it is: a stream waits on it again."""
    if await race(work, asyncio.shield(refusal)) == 0:
        return False, work.result()
    return True, refusal.result()


def guard_request_stream(
    inner: Callable[..., Any], decode: Callable[[bytes], Any], streaming_out: bool
) -> Callable[..., Any]:
    """*inner* (a request-streaming behaviour) reading undecoded messages through *decode*
    (a :func:`guarded_deserializer`): the first refused message ends the call, and the
    servicer's work for it is cancelled."""
    if streaming_out and inspect.isasyncgenfunction(inner):

        async def stream_stream(raws: AsyncIterator[bytes], context: Any) -> AsyncIterator[Any]:
            refusal: asyncio.Future[Refused] = asyncio.get_running_loop().create_future()
            responses = inner(_checked(raws, decode, refusal), context)
            try:
                while True:
                    step = asyncio.ensure_future(anext(responses))
                    refused, value = await _first(step, refusal)
                    if refused:
                        await context.abort_with_status(value.status)
                    yield value
            except StopAsyncIteration:
                return
            finally:
                await responses.aclose()

        return stream_stream

    async def stream_in(raws: AsyncIterator[bytes], context: Any) -> Any:
        refusal: asyncio.Future[Refused] = asyncio.get_running_loop().create_future()
        work = asyncio.ensure_future(inner(_checked(raws, decode, refusal), context))
        refused, value = await _first(work, refusal)
        if refused:
            await context.abort_with_status(value.status)
        return value

    return stream_in
