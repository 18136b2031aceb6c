"""The resource service's api layer on its own: conversion and error mapping of the servicer,
driven without a socket over a real resource host (real SQLite store, real processes).

The real-server suites (tests/resource/e2e) cover the same RPCs over gRPC with two channels;
these pin the servicer's own job — protobuf in, domain call, protobuf or status + ErrorInfo
out — fast.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.api.connections import ConnectionRegistry
from maka_runtime.resource.api.servicer import ResourceServicer

from ...support.servicer_context import Aborted, RecordingContext
from ..conftest import SESSION_ID, Host


@pytest.fixture
async def servicer(host: Host) -> AsyncIterator[ResourceServicer]:
    async def no_shutdown() -> pb.ShutdownResponse:
        raise AssertionError("not in these tests")

    yield ResourceServicer(
        resources=host.coordinator,
        connections=ConnectionRegistry(host.coordinator),
        server_info=pb.GetServerInfoResponse,
        shutdown=no_shutdown,
        closing=asyncio.Event(),
    )


async def _foreground(servicer: ResourceServicer, command: str) -> list[pb.RunForegroundResponse]:
    request = pb.RunForegroundRequest(
        session_id=SESSION_ID, command=command, source_tool_call_id="unit-1"
    )
    return [response async for response in servicer.RunForeground(request, RecordingContext())]


async def test_a_foreground_run_streams_its_output_then_its_final_record(
    servicer: ResourceServicer,
) -> None:
    responses = await _foreground(servicer, "printf out; printf err >&2; exit 3")
    kinds = [response.WhichOneof("event") for response in responses]
    assert kinds[-1] == "result"
    output: dict[int, bytes] = {}
    for response in responses:
        if response.WhichOneof("event") == "output":
            stream = int(response.output.stream)
            output[stream] = output.get(stream, b"") + response.output.data
    assert output == {pb.OUTPUT_STREAM_STDOUT: b"out", pb.OUTPUT_STREAM_STDERR: b"err"}
    run = responses[-1].result
    assert (run.status, run.exit_code) == (pb.RUN_STATUS_FAILED, 3)
    answer = await servicer.GetRun(pb.GetRunRequest(ref=run.ref), RecordingContext())
    got = pb.GetRunResponse.FromString(answer)  # the answer is handed to gRPC serialized
    assert got.run.ref == run.ref and got.run.exit_code == 3


async def test_a_bad_field_is_invalid_argument_named_in_the_rpcs_spelling(
    servicer: ResourceServicer,
) -> None:
    with pytest.raises(Aborted) as aborted:
        await _foreground(servicer, "")
    assert aborted.value.code == grpc.StatusCode.INVALID_ARGUMENT
    info = aborted.value.error_info()
    assert (info.reason, info.domain) == ("INVALID_REQUEST", "resource.maka")
    assert info.metadata["field"].endswith("command")


async def test_an_unknown_ref_is_not_found(servicer: ResourceServicer) -> None:
    with pytest.raises(Aborted) as aborted:
        await servicer.GetRun(
            pb.GetRunRequest(ref="maka://runtime/background-tasks/nope"), RecordingContext()
        )
    assert aborted.value.code == grpc.StatusCode.NOT_FOUND
    assert aborted.value.error_info().reason == "NOT_FOUND"


async def test_a_malformed_page_token_is_invalid_argument(servicer: ResourceServicer) -> None:
    with pytest.raises(Aborted) as aborted:
        await servicer.ListRuns(
            pb.ListRunsRequest(session_id=SESSION_ID, page_token="99999999999999999999.x"),
            RecordingContext(),
        )
    assert aborted.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert aborted.value.error_info().metadata["field"] == "page_token"
