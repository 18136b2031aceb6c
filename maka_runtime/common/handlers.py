"""Rebuilding a gRPC method handler around a new behaviour, for server interceptors.

An interceptor that wraps a method (authentication, the request guard) needs a handler of the
same shape — unary or streaming on each side — with its own behaviour and, maybe, its own
request deserializer. One function builds it, for every interceptor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc

if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]

__all__ = ["behaviour_of", "same_shape"]


def same_shape(
    handler: Handler,
    behaviour: Callable[..., Any],
    deserializer: Callable[[bytes], Any] | None,
) -> Handler:
    """A handler shaped like *handler* (its serializer too) running *behaviour*, reading
    requests with *deserializer* (``None``: the raw bytes)."""
    serializer = handler.response_serializer
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(behaviour, deserializer, serializer)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(behaviour, deserializer, serializer)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(behaviour, deserializer, serializer)
    return grpc.unary_unary_rpc_method_handler(behaviour, deserializer, serializer)


def behaviour_of(handler: Handler) -> Any:
    """The servicer's own behaviour inside *handler*, whatever its shape."""
    if handler.request_streaming:
        return handler.stream_stream if handler.response_streaming else handler.stream_unary
    return handler.unary_stream if handler.response_streaming else handler.unary_unary
