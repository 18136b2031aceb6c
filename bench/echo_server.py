"""The grpc.aio baseline: ``maka.bench.echo.v1.Echo`` (bench/echo/echo.proto) with reflection.

    python bench/echo_server.py --descriptors SET [--listen 127.0.0.1:0]

Answers ``Unary`` with one response of ``response_bytes`` and ``Stream`` with ``frames`` of
them, and logs ``echo-aio listening on HOST:PORT`` once it serves. The same service the Go
baseline (bench/echo/main.go) serves, from the same descriptor set, which
:func:`descriptor_set` compiles from echo.proto (grpcio-tools, the project's code generator).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection_pb2

from maka_runtime.common.reflection import (
    V1_SERVICE_NAME,
    V1ALPHA_SERVICE_NAME,
    DescriptorIndex,
    ReflectionServicer,
)

ECHO_DIR = Path(__file__).resolve().parent / "echo"
SERVICE = "maka.bench.echo.v1.Echo"


def descriptor_set(out: Path) -> Path:
    """Compile echo.proto into a descriptor set at *out*."""
    from grpc_tools import protoc

    code = protoc.main(
        ["protoc", f"-I{ECHO_DIR}", f"--descriptor_set_out={out}", str(ECHO_DIR / "echo.proto")]
    )
    if code != 0:
        raise SystemExit(f"protoc failed on echo.proto ({code})")
    return out


def messages(path: Path) -> tuple[list[Any], type[Any], type[Any]]:
    files = list(descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes()).file)
    pool = descriptor_pool.DescriptorPool()
    for proto in files:
        pool.Add(proto)
    request = message_factory.GetMessageClass(
        pool.FindMessageTypeByName("maka.bench.echo.v1.EchoRequest")
    )
    response = message_factory.GetMessageClass(
        pool.FindMessageTypeByName("maka.bench.echo.v1.EchoResponse")
    )
    return files, request, response


async def serve(path: Path, listen: str) -> None:
    files, request, response = messages(path)

    async def unary(message: Any, _context: Any) -> Any:
        return response(payload=bytes(message.response_bytes))

    async def stream(message: Any, _context: Any) -> AsyncIterator[Any]:
        frame = response(payload=bytes(message.response_bytes))
        for _ in range(message.frames):
            yield frame

    handlers = {
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
    }
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    # The product's reflection servicer (grpcio-reflection's does not resolve methods).
    reflection_file = descriptor_pb2.FileDescriptorProto.FromString(
        reflection_pb2.DESCRIPTOR.serialized_pb
    )
    servicer = ReflectionServicer(
        (SERVICE, V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME),
        DescriptorIndex([*files, reflection_file]),
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
