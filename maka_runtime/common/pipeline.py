"""One call pipeline per method, built once at registration: what every call goes through.

Each call of a server passes, in this order:

1. **metrics** — timed from the start, counted by method and final code (a refused call too:
   :mod:`maka_runtime.common.metrics`);
2. **authentication** — on metadata only (:class:`~maka_runtime.common.auth.Gate`): a call
   without a valid credential, or without the role its method needs, ends here, before its
   request is decoded;
3. **the request guard** — the request (each message of a request stream) decoded by the
   service itself, refused when too large or undecodable
   (:mod:`maka_runtime.common.request_guard`);
4. **the call's context** — its principal for
   :func:`~maka_runtime.common.principal.current_principal`, the log ids of its request, a
   debug line when it ends (``maka.calls``: method, code, time);
5. the servicer.

These were five ``grpc.aio`` server interceptors. An interceptor runs per call: each one is a
coroutine that awaits the next and builds a new method handler around the servicer (closures,
an ``RpcMethodHandler``), and each wraps every streamed response in one more async generator.
Together they were a fifth of a unary call's CPU. Here the pipeline is composed once per method
when the server registers it (:class:`Registrar` stands in for the server in the generated
``add_*_to_server`` functions, health and reflection included), so a call costs one wrapper:
one coroutine (one async generator for a response stream) around the servicer's. The server has
no interceptors but tracing's (with ``--otel``), which stays outermost.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import grpc

from maka_runtime.common.auth import Gate
from maka_runtime.common.handlers import behaviour_of, same_shape
from maka_runtime.common.logs import calls, id_fields_of, set_log_context
from maka_runtime.common.metrics import Metrics, status_name
from maka_runtime.common.principal import Principal, set_current_principal
from maka_runtime.common.request_guard import (
    Refused,
    RequestLimits,
    guard_request_stream,
    guarded_deserializer,
    request_type,
)
from maka_runtime.common.status import MappedUnary

if TYPE_CHECKING:
    Handler = grpc.RpcMethodHandler[Any, Any]

__all__ = ["CallPipeline", "Registrar"]

log = logging.getLogger("maka.auth")


class CallPipeline:
    """Builds each method's wrapped handler (see the module docstring)."""

    def __init__(self, metrics: Metrics, gate: Gate, limits: RequestLimits, domain: str) -> None:
        self.metrics = metrics
        self.gate = gate
        self.limits = limits
        self.domain = domain

    def wrap(self, method: str, handler: Handler) -> Handler:
        """*handler* of *method* (``/package.Service/Method``) behind the pipeline; its
        requests reach the wrapper undecoded."""
        call = _Call(self, method, handler)
        inner = behaviour_of(handler)
        if handler.request_streaming:
            behaviour = call.stream_in(inner, handler.response_streaming)
        elif handler.response_streaming and inspect.isasyncgenfunction(inner):
            behaviour = call.unary_in_stream_out(inner)
        else:
            behaviour = call.unary_in(inner)
        return same_shape(handler, behaviour, None)


class _Call:
    """What one method's calls share: its recorder, decoder and authorization."""

    def __init__(self, pipeline: CallPipeline, method: str, handler: Handler) -> None:
        self.method = method
        self.record = pipeline.metrics.recorder(method)
        self.decode = guarded_deserializer(
            handler.request_deserializer, pipeline.limits, pipeline.domain
        )
        self.principal_of = pipeline.gate.for_method(method)
        self.ids = id_fields_of(request_type(handler.request_deserializer))

    def enter(self, context: Any) -> Refused | None:
        """Authenticate the call (its principal becomes the current one); the refusal, if
        it is refused."""
        found = self.principal_of(context)
        if isinstance(found, grpc.Status):
            return Refused(found)
        if found is not None:
            log.debug("%s called by %s", self.method, found.id)
        set_current_principal(found)
        return None

    def admit(self, raw: bytes, context: Any) -> Any:
        """The decoded request of an admitted call, or its :class:`Refused`."""
        refused = self.enter(context)
        if refused is not None:
            return refused
        request = self.decode(raw)
        if self.ids and not isinstance(request, Refused):
            set_log_context(request, self.ids)
        return request

    def done(self, context: Any, started: float, error: BaseException | None) -> None:
        self.record(context, started, error)
        if calls.isEnabledFor(logging.DEBUG):
            elapsed = (time.perf_counter() - started) * 1000
            calls.debug("%s %s in %.1f ms", self.method, status_name(context, error), elapsed)

    def unary_in(self, inner: Callable[..., Any]) -> Callable[..., Any]:
        """A unary request; a unary response, or a stream written with ``context.write``.

        The steps of :meth:`admit` inline, with what they use bound here: this is the call
        load tests make most, and in a loaded server every call and lookup of Python costs
        several times what it costs in a tight loop (caches are cold between calls)."""
        method, principal_of, decode, ids, done = (
            self.method,
            self.principal_of,
            self.decode,
            self.ids,
            self.done,
        )
        perf_counter = time.perf_counter
        servicer, plain, failure_of, fields = _mapped(inner)

        async def unary(raw: bytes, context: Any) -> Any:
            started = perf_counter()
            error: BaseException | None = None
            try:
                found = principal_of(context)
                if isinstance(found, Principal):  # else a refusal, or an open method's None
                    log.debug("%s called by %s", method, found.id)
                elif found is not None:
                    await context.abort_with_status(found)
                    raise AssertionError("abort returned")  # pragma: no cover
                set_current_principal(found)
                request = decode(raw)
                if isinstance(request, Refused):
                    await context.abort_with_status(request.status)
                if ids:
                    set_log_context(request, ids)
                try:
                    return await plain(servicer, request, context)
                except grpc.aio.AbortError:
                    raise
                except Exception as failed:
                    if failure_of is None:
                        raise
                    await context.abort_with_status(failure_of(failed, fields).status())
                    raise AssertionError("abort returned") from failed  # pragma: no cover
            except BaseException as raised:
                error = raised
                raise
            finally:
                done(context, started, error)

        return unary

    async def _admitted(self, raw: bytes, context: Any) -> Any:
        """:meth:`admit`, ending a refused call with its status."""
        request = self.admit(raw, context)
        if isinstance(request, Refused):
            await context.abort_with_status(request.status)
        return request

    async def _entered(self, context: Any) -> None:
        """:meth:`enter`, ending a refused call with its status."""
        refused = self.enter(context)
        if refused is not None:
            await context.abort_with_status(refused.status)

    def _stream_out(self, responses: Callable[[Any, Any], Any]) -> Callable[..., Any]:
        """A response stream: what ``await responses(request or raws, context)`` yields,
        timed and counted as one call."""

        async def streaming(first: Any, context: Any) -> AsyncIterator[Any]:
            started = time.perf_counter()
            error: BaseException | None = None
            try:
                async for item in await responses(first, context):
                    yield item
            except BaseException as raised:
                error = raised
                raise
            finally:
                self.done(context, started, error)

        return streaming

    def unary_in_stream_out(self, inner: Callable[..., Any]) -> Callable[..., Any]:
        async def responses(raw: bytes, context: Any) -> Any:
            return inner(await self._admitted(raw, context), context)

        return self._stream_out(responses)

    def stream_in(self, inner: Callable[..., Any], streaming_out: bool) -> Callable[..., Any]:
        """A request stream: the first refused message ends the whole call (the servicer's
        work for it is cancelled)."""
        guarded = guard_request_stream(inner, self.decode, streaming_out)
        if streaming_out and inspect.isasyncgenfunction(guarded):

            async def responses(raws: AsyncIterator[bytes], context: Any) -> Any:
                await self._entered(context)
                return guarded(raws, context)

            return self._stream_out(responses)

        async def stream_in(raws: AsyncIterator[bytes], context: Any) -> Any:
            started = time.perf_counter()
            error: BaseException | None = None
            try:
                await self._entered(context)
                return await guarded(raws, context)
            except BaseException as raised:
                error = raised
                raise
            finally:
                self.done(context, started, error)

        return stream_in


def _mapped(inner: Callable[..., Any]) -> tuple[Any, Callable[..., Any], Any, Any]:
    """*inner* as (servicer, plain method, ``failure_of``, fields): the method inside an
    :meth:`~.status.ErrorMapping.unary` wrapper, whose mapping the pipeline applies itself;
    for any other behaviour, a plain call of it and no mapping."""
    mapped = getattr(inner, "mapped", None)
    if isinstance(mapped, MappedUnary) and getattr(inner, "__func__", None) is mapped.wrapper:
        return (
            getattr(inner, "__self__", None),
            mapped.method,
            mapped.mapping.failure_of,
            mapped.fields,
        )
    return None, lambda _servicer, request, context: inner(request, context), None, None


class Registrar:
    """Stands in for the server where services, health and reflection register their
    handlers: each method's handler is wrapped by *pipeline* once, here."""

    def __init__(self, server: grpc.aio.Server, pipeline: CallPipeline) -> None:
        self.server = server
        self.pipeline = pipeline

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self.server.add_generic_rpc_handlers(
            tuple(_WrappedGeneric(handler, self.pipeline) for handler in handlers)
        )

    def add_registered_method_handlers(self, service: str, handlers: Mapping[str, Handler]) -> None:
        wrapped = {
            name: self.pipeline.wrap(f"/{service}/{name}", handler)
            for name, handler in handlers.items()
        }
        self.server.add_registered_method_handlers(service, wrapped)


class _WrappedGeneric(grpc.GenericRpcHandler):
    """A generic handler whose method handlers go through the pipeline, each wrapped once (a
    generic handler answers only the methods it serves, so the cache is bounded by them)."""

    def __init__(self, inner: grpc.GenericRpcHandler, pipeline: CallPipeline) -> None:
        self.inner = inner
        self.pipeline = pipeline
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        handler = self.inner.service(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is None or cached[0] is not handler:
            cached = self._wrapped[method] = (handler, self.pipeline.wrap(method, handler))
        return cached[1]
