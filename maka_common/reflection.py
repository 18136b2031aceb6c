"""Server reflection under both protocol names, so grpcurl and ghz work with no .proto files.

grpcio-reflection ships only ``grpc.reflection.v1alpha``. The ``v1`` protocol is byte-for-byte
the same messages under another service name, so the same servicer answers both: newer clients
try v1 first, older ones v1alpha.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"


def enable_reflection(server: grpc.aio.Server, service_names: Sequence[str]) -> None:
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME)
    reflection.enable_server_reflection(names, server)
    servicer = reflection.aio.ReflectionServicer(names)
    handler = grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((handler,))
