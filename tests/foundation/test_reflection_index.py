"""A service starts without building its reflection index: the first request that needs the
descriptors builds it, once, and every answer is what an index given up front gives."""

from __future__ import annotations

from grpc_reflection.v1alpha import reflection_pb2

from maka_runtime.common.reflection import DescriptorIndex, ReflectionServicer, served_files

SERVICE = "maka.kernel.v1.KernelService"


def test_the_index_is_built_by_the_first_request_that_needs_it_and_only_once() -> None:
    built: list[DescriptorIndex] = []

    def build() -> DescriptorIndex:
        built.append(DescriptorIndex(served_files()))
        return built[-1]

    lazy = ReflectionServicer([SERVICE], build)
    eager = ReflectionServicer([SERVICE], DescriptorIndex(served_files()))
    listing = reflection_pb2.ServerReflectionRequest(list_services="")
    assert lazy.answer(listing) == eager.answer(listing)
    assert built == []  # listing the services needs no descriptors
    symbol = reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE)
    for _ in range(2):
        answer = lazy.answer(symbol)
        assert answer.file_descriptor_response.file_descriptor_proto
        assert answer == eager.answer(symbol)
    assert len(built) == 1
