"""The kernel's api layer on its own: each servicer method's conversion and error mapping,
driven without a socket (a real kernel on the memory store, the scripted backend).

The real-server suites (tests/kernel/e2e) cover the same RPCs over gRPC; these pin the
servicer's own job — protobuf in, domain call, protobuf or status + ErrorInfo out — fast.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.common.config import CommonConfig
from maka_runtime.common.server import ServerHost
from maka_runtime.kernel.api.servicer import KernelServicer
from maka_runtime.kernel.store.memory import MemorySessionStore

from ...support.counting import count_calls
from ...support.servicer_context import Aborted, RecordingContext
from ..harness import make_harness


class _NoService:
    service_names = ("maka.kernel.v1.KernelService",)


@pytest.fixture
async def servicer(tmp_path: Path) -> AsyncIterator[KernelServicer]:
    harness = make_harness(MemorySessionStore(), real_timers=True)
    config = CommonConfig(
        service="kernel",
        listen="127.0.0.1:0",
        data_dir=tmp_path,
        log_level="info",
        shutdown_grace=1.0,
    )
    host = ServerHost(config, _NoService())  # type: ignore[arg-type]
    yield KernelServicer(harness.kernel, host, default_backend="scripted")
    await harness.close()


async def _create(servicer: KernelServicer, **fields: object) -> pb.Session:
    request = pb.CreateSessionRequest(workspace_root="/tmp", **fields)  # type: ignore[arg-type]
    response = await servicer.CreateSession(request, RecordingContext())
    return response.session


async def test_create_and_get_convert_the_header_both_ways(servicer: KernelServicer) -> None:
    created = await _create(servicer, name="unit", labels=["a", "b"])
    assert (created.name, list(created.labels), created.backend) == ("unit", ["a", "b"], "scripted")
    got = await servicer.GetSession(
        pb.GetSessionRequest(session_id=created.id),
        RecordingContext(),
    )
    # The answer is handed to gRPC serialized (its serializer passes bytes through).
    assert pb.GetSessionResponse.FromString(got).session == created


async def test_get_session_of_a_held_header_awaits_no_store_read(
    servicer: KernelServicer, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await _create(servicer)
    reads = count_calls(monkeypatch, servicer._kernel.store, "read_header")
    got = await servicer.GetSession(pb.GetSessionRequest(session_id=created.id), RecordingContext())
    assert pb.GetSessionResponse.FromString(got).session == created
    assert reads == []
    with pytest.raises(Aborted) as aborted:  # an unknown id takes the awaited path
        await servicer.GetSession(pb.GetSessionRequest(session_id="nobody"), RecordingContext())
    assert aborted.value.code == grpc.StatusCode.NOT_FOUND
    assert reads == ["nobody"]


async def test_a_domain_error_becomes_its_status_with_the_field_in_error_info(
    servicer: KernelServicer,
) -> None:
    with pytest.raises(Aborted) as aborted:
        await servicer.GetSession(
            pb.GetSessionRequest(session_id="bad id!"),
            RecordingContext(),
        )
    assert aborted.value.code == grpc.StatusCode.INVALID_ARGUMENT
    info = aborted.value.error_info()
    assert (info.reason, info.domain, info.metadata["field"]) == (
        "INVALID_REQUEST",
        "kernel.maka",
        "session_id",
    )


async def test_an_unknown_session_is_not_found(servicer: KernelServicer) -> None:
    with pytest.raises(Aborted) as aborted:
        await servicer.GetSession(
            pb.GetSessionRequest(session_id="nobody"),
            RecordingContext(),
        )
    assert aborted.value.code == grpc.StatusCode.NOT_FOUND
    assert aborted.value.error_info().reason == "NOT_FOUND"


async def test_a_duplicate_session_id_is_already_exists(servicer: KernelServicer) -> None:
    await _create(servicer, session_id="twice")
    with pytest.raises(Aborted) as aborted:
        await _create(servicer, session_id="twice")
    assert aborted.value.code == grpc.StatusCode.ALREADY_EXISTS


async def test_start_turn_streams_converted_events_in_seq_order(servicer: KernelServicer) -> None:
    session = await _create(servicer)
    request = pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="/script say hi")
    responses = [response async for response in servicer.StartTurn(request, RecordingContext())]
    kinds = [response.event.WhichOneof("event") for response in responses]
    assert kinds == ["text_delta", "complete", "turn_state"]
    seqs = [response.event.seq for response in responses]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert responses[0].event.text_delta.text == "hi"
    assert responses[1].event.complete.stop_reason == "end_turn"
    assert responses[-1].event.turn_state.status == pb.TURN_STATUS_COMPLETED


async def test_a_bad_page_size_is_refused_before_the_store(servicer: KernelServicer) -> None:
    with pytest.raises(Aborted) as aborted:
        await servicer.ListSessions(
            pb.ListSessionsRequest(page_size=100_000),
            RecordingContext(),
        )
    assert aborted.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert aborted.value.error_info().metadata["field"] == "page_size"


async def test_read_messages_beyond_the_end_is_out_of_range(servicer: KernelServicer) -> None:
    session = await _create(servicer)
    with pytest.raises(Aborted) as aborted:
        await servicer.ReadMessages(
            pb.ReadMessagesRequest(session_id=session.id, after_seq=99),
            RecordingContext(),
        )
    assert aborted.value.code == grpc.StatusCode.OUT_OF_RANGE
    assert aborted.value.error_info().reason == "OUT_OF_RANGE"
