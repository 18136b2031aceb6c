"""Server reflection under both protocol names, so grpcurl and ghz need nothing but the address.

Every service, method, message, enum (and enum value, field, oneof) of the served protos
resolves, and the files come with their source info, so ``grpcurl describe`` shows the .proto
comments. The files are served from ``maka_runtime_proto/descriptors.binpb`` (a
``FileDescriptorSet`` that ``./dev gen`` writes with ``--include_source_info --include_imports``;
``./dev check`` keeps it fresh), plus the descriptors of the other services a server answers
(health, reflection) and of ``google.rpc`` (the status details of every error), taken from their
installed modules.

grpcio-reflection's own servicer cannot do this: it answers from a ``DescriptorPool``, whose
``CopyToProto`` drops the source info, and whose symbol lookup does not find methods
(``describe maka.kernel.v1.KernelService.GetSession`` and ghz's ``--call`` failed with "Symbol
not found"). The servicer here uses its messages and answers from the descriptor set itself.

grpcio-reflection ships only ``grpc.reflection.v1alpha``. The ``v1`` protocol is byte-for-byte
the same messages under another package, so the same servicer answers both (newer clients try
v1 first, older ones v1alpha), and a ``grpc/reflection/v1/reflection.proto`` is derived from
the v1alpha file so that the v1 service resolves too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1ALPHA_SERVICE_NAME = reflection.SERVICE_NAME
#: Where ``./dev gen`` writes the descriptor set: inside the generated ``maka_runtime_proto``
#: package.
DESCRIPTORS = ("maka_runtime_proto", "descriptors.binpb")

FileProto = descriptor_pb2.FileDescriptorProto


def _installed(name: str, seen: dict[str, FileProto]) -> None:
    """Add the file *name* of the default pool (and its imports, first) to *seen*."""
    if name in seen:
        return
    found = descriptor_pool.Default().FindFileByName(name)
    proto = FileProto.FromString(found.serialized_pb)
    for dependency in proto.dependency:
        _installed(dependency, seen)
    seen[name] = proto


def _v1_reflection(v1alpha: FileProto) -> FileProto:
    v1 = FileProto()
    v1.CopyFrom(v1alpha)
    v1.name = "grpc/reflection/v1/reflection.proto"
    v1.package = "grpc.reflection.v1"
    for message in v1.message_type:
        for field in message.field:
            if field.HasField("type_name"):  # set on a scalar, even empty, it is invalid
                field.type_name = field.type_name.replace(
                    ".grpc.reflection.v1alpha.", ".grpc.reflection.v1."
                )
    for service in v1.service:
        for method in service.method:
            for attribute in ("input_type", "output_type"):
                value = getattr(method, attribute)
                setattr(method, attribute, value.replace(".v1alpha.", ".v1."))
    return v1


@cache
def served_files() -> tuple[FileProto, ...]:
    """Every file reflection serves, imports before the files that import them."""
    data = resources.files(DESCRIPTORS[0]).joinpath(DESCRIPTORS[1]).read_bytes()
    files: dict[str, FileProto] = {
        proto.name: proto for proto in descriptor_pb2.FileDescriptorSet.FromString(data).file
    }
    for module in (health_pb2, reflection_pb2, status_pb2, error_details_pb2):
        _installed(module.DESCRIPTOR.name, files)
    v1 = _v1_reflection(files[reflection_pb2.DESCRIPTOR.name])
    files[v1.name] = v1
    return tuple(files.values())


class DescriptorIndex:
    """Files by name and by every symbol they define, serialized with their source info."""

    def __init__(self, files: Iterable[FileProto]) -> None:
        self._files: dict[str, FileProto] = {}
        self._serialized: dict[str, bytes] = {}
        self._symbols: dict[str, str] = {}
        self._extensions: dict[tuple[str, int], str] = {}
        self._messages: set[str] = set()
        for proto in files:
            self._files[proto.name] = proto
            self._serialized[proto.name] = proto.SerializeToString()
            self._index(proto)

    def _add(self, symbol: str, filename: str) -> None:
        self._symbols.setdefault(symbol, filename)

    def _index(self, proto: FileProto) -> None:
        prefix = f"{proto.package}." if proto.package else ""
        for message in proto.message_type:
            self._message(message, prefix, proto.name)
        for enum in proto.enum_type:
            self._enum(enum, prefix, proto.name)
        for extension in proto.extension:
            self._extension(extension, prefix, proto.name)
        for service in proto.service:
            name = f"{prefix}{service.name}"
            self._add(name, proto.name)
            for method in service.method:
                self._add(f"{name}.{method.name}", proto.name)

    def _message(self, message: descriptor_pb2.DescriptorProto, scope: str, filename: str) -> None:
        name = f"{scope}{message.name}"
        self._add(name, filename)
        self._messages.add(name)
        for field in message.field:
            self._add(f"{name}.{field.name}", filename)
        for oneof in message.oneof_decl:
            self._add(f"{name}.{oneof.name}", filename)
        for nested in message.nested_type:
            self._message(nested, f"{name}.", filename)
        for enum in message.enum_type:
            self._enum(enum, f"{name}.", filename)
        for extension in message.extension:
            self._extension(extension, f"{name}.", filename)

    def _enum(self, enum: descriptor_pb2.EnumDescriptorProto, scope: str, filename: str) -> None:
        self._add(f"{scope}{enum.name}", filename)
        for value in enum.value:  # enum values are siblings of their enum (C++ scoping)
            self._add(f"{scope}{value.name}", filename)

    def _extension(
        self, extension: descriptor_pb2.FieldDescriptorProto, scope: str, filename: str
    ) -> None:
        self._add(f"{scope}{extension.name}", filename)
        self._extensions[(extension.extendee.lstrip("."), extension.number)] = filename

    def file_of(self, symbol: str) -> str | None:
        return self._symbols.get(symbol.lstrip("."))

    def with_imports(self, filename: str) -> list[bytes]:
        """*filename* first, then everything it imports (transitively), each once."""
        order: list[str] = []

        def visit(name: str) -> None:
            if name in order or name not in self._files:
                return
            order.append(name)
            for dependency in self._files[name].dependency:
                visit(dependency)

        visit(filename)
        return [self._serialized[name] for name in order]

    def has_file(self, filename: str) -> bool:
        return filename in self._files

    def is_message(self, name: str) -> bool:
        return name.lstrip(".") in self._messages

    def extension_file(self, containing_type: str, number: int) -> str | None:
        return self._extensions.get((containing_type.lstrip("."), number))

    def extension_numbers(self, containing_type: str) -> list[int]:
        return sorted(n for (name, n) in self._extensions if name == containing_type.lstrip("."))


def _not_found(message: str) -> reflection_pb2.ServerReflectionResponse:
    return reflection_pb2.ServerReflectionResponse(
        error_response=reflection_pb2.ErrorResponse(
            error_code=grpc.StatusCode.NOT_FOUND.value[0], error_message=message
        )
    )


class ReflectionServicer:
    """``ServerReflectionInfo`` (v1 and v1alpha) answered from a :class:`DescriptorIndex`, or
    from the one a function builds when the first request needs it (a service then starts
    without parsing and indexing every descriptor; its first reflection call does that once)."""

    def __init__(
        self,
        service_names: Sequence[str],
        index: DescriptorIndex | Callable[[], DescriptorIndex],
    ) -> None:
        self._service_names = tuple(sorted(service_names))
        self._build = index if callable(index) else None
        self._built = index if isinstance(index, DescriptorIndex) else None

    @property
    def _index(self) -> DescriptorIndex:
        if self._built is None:
            assert self._build is not None
            self._built = self._build()
        return self._built

    def answer(
        self, request: reflection_pb2.ServerReflectionRequest
    ) -> reflection_pb2.ServerReflectionResponse:
        kind = request.WhichOneof("message_request") or ""
        handler = getattr(self, f"_answer_{kind}", None)
        response = (
            handler(request)
            if kind and handler is not None
            else reflection_pb2.ServerReflectionResponse(
                error_response=reflection_pb2.ErrorResponse(
                    error_code=grpc.StatusCode.INVALID_ARGUMENT.value[0],
                    error_message="no request in ServerReflectionRequest",
                )
            )
        )
        response.valid_host = request.host
        response.original_request.CopyFrom(request)
        return response

    # One method per kind of request (the name of the request's oneof field).

    def _answer_list_services(
        self, _: reflection_pb2.ServerReflectionRequest
    ) -> reflection_pb2.ServerReflectionResponse:
        return reflection_pb2.ServerReflectionResponse(
            list_services_response=reflection_pb2.ListServiceResponse(
                service=[reflection_pb2.ServiceResponse(name=n) for n in self._service_names]
            )
        )

    def _answer_file_by_filename(
        self, request: reflection_pb2.ServerReflectionRequest
    ) -> reflection_pb2.ServerReflectionResponse:
        name = request.file_by_filename
        if not self._index.has_file(name):
            return _not_found(f"file not found: {name}")
        return self._files(self._index.with_imports(name))

    def _answer_file_containing_symbol(
        self, request: reflection_pb2.ServerReflectionRequest
    ) -> reflection_pb2.ServerReflectionResponse:
        symbol = request.file_containing_symbol
        filename = self._index.file_of(symbol)
        if filename is None:
            return _not_found(f"symbol not found: {symbol}")
        return self._files(self._index.with_imports(filename))

    def _answer_file_containing_extension(
        self, request: reflection_pb2.ServerReflectionRequest
    ) -> reflection_pb2.ServerReflectionResponse:
        extension = request.file_containing_extension
        filename = self._index.extension_file(extension.containing_type, extension.extension_number)
        if filename is None:
            return _not_found(
                f"extension not found: {extension.containing_type} {extension.extension_number}"
            )
        return self._files(self._index.with_imports(filename))

    def _answer_all_extension_numbers_of_type(
        self, request: reflection_pb2.ServerReflectionRequest
    ) -> reflection_pb2.ServerReflectionResponse:
        name = request.all_extension_numbers_of_type
        if not self._index.is_message(name):
            return _not_found(f"message type not found: {name}")
        return reflection_pb2.ServerReflectionResponse(
            all_extension_numbers_response=reflection_pb2.ExtensionNumberResponse(
                base_type_name=name.lstrip("."),
                extension_number=self._index.extension_numbers(name),
            )
        )

    @staticmethod
    def _files(serialized: list[bytes]) -> reflection_pb2.ServerReflectionResponse:
        return reflection_pb2.ServerReflectionResponse(
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(
                file_descriptor_proto=serialized
            )
        )

    async def ServerReflectionInfo(
        self,
        requests: AsyncIterator[reflection_pb2.ServerReflectionRequest],
        context: Any,
    ) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        async for request in requests:
            yield self.answer(request)


@cache
def descriptor_index() -> DescriptorIndex:
    return DescriptorIndex(served_files())


def enable_reflection(server: grpc.aio.Server, service_names: Sequence[str]) -> None:
    """Serve reflection (v1 and v1alpha) for *service_names* and the reflection services."""
    names = (*service_names, V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME)
    servicer = ReflectionServicer(names, descriptor_index)
    handlers = [
        grpc.method_handlers_generic_handler(
            name,
            {
                "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                    servicer.ServerReflectionInfo,
                    request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                    response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
                )
            },
        )
        for name in (V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME)
    ]
    server.add_generic_rpc_handlers(handlers)
