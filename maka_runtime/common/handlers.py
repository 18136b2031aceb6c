"""Rebuilding a gRPC method handler around a new behaviour, for server interceptors.

An interceptor that wraps a method (authentication, the request guard) needs a handler of the
same shape — unary or streaming on each side — with its own behaviour and, maybe, its own
request deserializer. One function builds it, for every interceptor.

A unary call's response may be handed over already serialized: the handler's serializer passes
``bytes`` through unchanged and serializes a message (:func:`passing_bytes`). An answer kept
between calls (a list page, a finished run, a session header, ``GetServerInfo``) is encoded
once, when it is kept, instead of by gRPC on every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc

if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]

Serializer = Callable[[Any], bytes]

__all__ = ["behaviour_of", "passing_bytes", "same_shape"]


def same_shape(
    handler: Handler,
    behaviour: Callable[..., Any],
    deserializer: Callable[[bytes], Any] | None,
) -> Handler:
    """A handler shaped like *handler* running *behaviour*, reading requests with
    *deserializer* (``None``: the raw bytes); its serializer, for a unary call, passes
    ``bytes`` through (:func:`passing_bytes`)."""
    serializer = handler.response_serializer
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(behaviour, deserializer, serializer)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(behaviour, deserializer, serializer)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(behaviour, deserializer, serializer)
    return grpc.unary_unary_rpc_method_handler(behaviour, deserializer, passing_bytes(serializer))


def passing_bytes(serializer: Serializer | None) -> Serializer | None:
    """*serializer* that returns a response already serialized (``bytes``) as it is."""
    if serializer is None:
        return None
    serialize = serializer

    def serialize_or_pass(response: Any) -> bytes:
        return response if response.__class__ is bytes else serialize(response)

    return serialize_or_pass


def behaviour_of(handler: Handler) -> Any:
    """The servicer's own behaviour inside *handler*, whatever its shape."""
    if handler.request_streaming:
        return handler.stream_stream if handler.response_streaming else handler.stream_unary
    return handler.unary_stream if handler.response_streaming else handler.unary_unary
