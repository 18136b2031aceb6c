"""The grpc.aio baseline: ``maka.bench.echo.v1.Echo`` (bench/echo/echo.proto) with reflection.

    python bench/echo_server.py --descriptors SET [--listen 127.0.0.1:0]

Answers ``Unary`` with one response of ``response_bytes`` and ``Stream`` with ``frames`` of
them, and logs ``echo-aio listening on HOST:PORT`` once it serves. The same service the Go
baseline (bench/echo/main.go) serves, from the same descriptor set, which
:func:`descriptor_set` compiles from echo.proto (grpcio-tools, the project's code generator)
and completes with the product's own files (those the product's reflection serves).

The replay baseline: every unary method of the product's services in the set is served too.
Each call parses its request as the product's request message and answers the serialized
response :func:`keep` (``Echo.Keep``) kept for the method, sent as it is; a method with
nothing kept ends UNIMPLEMENTED. ghz then does the same work against the echo as against the
product: the same request, the same response message to decode, resolved by reflection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError
from grpc_reflection.v1alpha import reflection_pb2

from maka_runtime.common.reflection import (
    V1_SERVICE_NAME,
    V1ALPHA_SERVICE_NAME,
    DescriptorIndex,
    ReflectionServicer,
    served_files,
)

ECHO_DIR = Path(__file__).resolve().parent / "echo"
PACKAGE = "maka.bench.echo.v1"
SERVICE = f"{PACKAGE}.Echo"
KEEP = f"/{SERVICE}/Keep"


def descriptor_set(out: Path) -> Path:
    """Compile echo.proto into a descriptor set at *out*, with the product's files (and their
    imports) after it."""
    from grpc_tools import protoc

    code = protoc.main(
        ["protoc", f"-I{ECHO_DIR}", f"--descriptor_set_out={out}", str(ECHO_DIR / "echo.proto")]
    )
    if code != 0:
        raise SystemExit(f"protoc failed on echo.proto ({code})")
    merged = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    for served in served_files():
        proto = merged.file.add()
        proto.CopyFrom(served)
    out.write_bytes(merged.SerializeToString())
    return out


class Descriptors:
    """The set's files in a pool of their own, and the classes of the messages served."""

    def __init__(self, path: Path) -> None:
        self.files = list(descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes()).file)
        self.pool = descriptor_pool.DescriptorPool()
        for proto in self.files:
            self.pool.Add(proto)

    def message(self, name: str) -> Any:
        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(name))

    def replayed(self) -> dict[str, dict[str, Any]]:
        """Every service of the set besides the echo and gRPC's own, with its unary methods
        (name → method descriptor)."""
        services: dict[str, dict[str, Any]] = {}
        for proto in self.files:
            for service in proto.service:
                name = f"{proto.package}.{service.name}"
                if name == SERVICE or name.startswith("grpc."):
                    continue
                found = self.pool.FindServiceByName(name)
                services[name] = {
                    m.name: m
                    for m in found.methods
                    if not (m.client_streaming or m.server_streaming)
                }
        return services


@functools.cache
def _keep_classes() -> tuple[type[Any], type[Any]]:
    with tempfile.TemporaryDirectory(prefix="maka-echo-") as tmp:
        found = Descriptors(descriptor_set(Path(tmp) / "echo.binpb"))
    return found.message(f"{PACKAGE}.KeepRequest"), found.message(f"{PACKAGE}.KeepResponse")


def keep(address: str, method: str, response: bytes) -> None:
    """Make the echo at *address* answer every call of *method* (``/package.Service/Method``)
    with *response* (a serialized response message)."""
    request, reply = _keep_classes()
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary(
            KEEP,
            request_serializer=request.SerializeToString,
            response_deserializer=reply.FromString,
        )
        call(request(method=method, response=response), timeout=30)


Handler = Callable[[Any, Any], Awaitable[Any]]


def _replay(path: str, answers: dict[str, bytes]) -> Handler:
    async def answer(_request: Any, context: Any) -> bytes:
        if path not in answers:
            await context.abort(
                grpc.StatusCode.UNIMPLEMENTED, f"no answer kept for {path} (Echo.Keep keeps one)"
            )
        return answers[path]

    return answer


def _keep(found: Descriptors, answers: dict[str, bytes], methods: dict[str, Any]) -> Handler:
    reply = found.message(f"{PACKAGE}.KeepResponse")

    async def keep_answer(message: Any, context: Any) -> Any:
        method = methods.get(message.method)
        if method is None:
            await context.abort(
                grpc.StatusCode.NOT_FOUND,
                f"no unary method {message.method!r} in the served descriptors (a path such as "
                "/maka.kernel.v1.KernelService/GetSession)",
            )
        try:
            message_factory.GetMessageClass(method.output_type).FromString(message.response)
        except DecodeError as error:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"response is not a {method.output_type.full_name}: {error}",
            )
        answers[message.method] = bytes(message.response)
        return reply()

    return keep_answer


def _echo_handlers(found: Descriptors, keep_answer: Handler) -> dict[str, Any]:
    request = found.message(f"{PACKAGE}.EchoRequest")
    response = found.message(f"{PACKAGE}.EchoResponse")

    async def unary(message: Any, _context: Any) -> Any:
        return response(payload=bytes(message.response_bytes))

    async def stream(message: Any, _context: Any) -> AsyncIterator[Any]:
        frame = response(payload=bytes(message.response_bytes))
        for _ in range(message.frames):
            yield frame

    return {
        "Unary": grpc.unary_unary_rpc_method_handler(
            unary,
            request_deserializer=request.FromString,
            response_serializer=response.SerializeToString,
        ),
        "Stream": grpc.unary_stream_rpc_method_handler(
            stream,
            request_deserializer=request.FromString,
            response_serializer=response.SerializeToString,
        ),
        "Keep": grpc.unary_unary_rpc_method_handler(
            keep_answer,
            request_deserializer=found.message(f"{PACKAGE}.KeepRequest").FromString,
            response_serializer=found.message(f"{PACKAGE}.KeepResponse").SerializeToString,
        ),
    }


def handlers(found: Descriptors) -> list[grpc.GenericRpcHandler]:
    """The echo's handlers and one per replayed service: a request parsed as the product's
    request class, the kept bytes answered with no serializer (sent as they are)."""
    answers: dict[str, bytes] = {}
    methods: dict[str, Any] = {}
    generic = []
    for service, unary in found.replayed().items():
        by_name = {}
        for name, method in unary.items():
            path = f"/{service}/{name}"
            methods[path] = method
            by_name[name] = grpc.unary_unary_rpc_method_handler(
                _replay(path, answers),
                request_deserializer=message_factory.GetMessageClass(method.input_type).FromString,
            )
        generic.append(grpc.method_handlers_generic_handler(service, by_name))
    echo = _echo_handlers(found, _keep(found, answers, methods))
    return [grpc.method_handlers_generic_handler(SERVICE, echo), *generic]


async def serve(path: Path, listen: str) -> None:
    found = Descriptors(path)
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(handlers(found))
    # The product's reflection servicer (grpcio-reflection's does not resolve methods).
    servicer = ReflectionServicer(
        (SERVICE, *found.replayed(), V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME),
        DescriptorIndex(found.files),
    )
    reflect = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        [
            grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": reflect})
            for name in (V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME)
        ]
    )
    port = server.add_insecure_port(listen)
    await server.start()
    host = listen.rsplit(":", 1)[0]
    print(f"echo-aio listening on {host}:{port}", file=sys.stderr, flush=True)
    await server.wait_for_termination()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--descriptors", type=Path, required=True)
    parser.add_argument("--listen", default="127.0.0.1:0")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.descriptors, args.listen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
