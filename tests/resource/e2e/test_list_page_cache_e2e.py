"""ListRuns over the wire while its pages are kept (core/catalog_pages.py, the API's
PageProtos): the caller is admitted to the session on every call, kept page or not, and a new
run is listed at once."""

from __future__ import annotations

from pathlib import Path

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.api.run_protos import PageProtos, RunProtos
from maka_runtime.resource.core import ShellRunPage
from tests.resource.e2e.conftest import raises_status, start_server, stop_server
from tests.support.run_records import finished_record

SESSION = "kernel-session-1"


async def test_a_kept_page_reaches_only_an_admitted_caller(tmp_path: Path) -> None:
    server = await start_server(tmp_path / "data", standalone=False)
    try:
        stub = server.stub()
        await stub.RegisterSession(pb.RegisterSessionRequest(session_id=SESSION, cwd="/"))
        run = pb.RunForegroundRequest(session_id=SESSION, command="true")
        [_ async for _ in stub.RunForeground(run)]
        request = pb.ListRunsRequest(session_id=SESSION, page_size=10)
        first = await stub.ListRuns(request)
        assert len(first.runs) == 1 and await stub.ListRuns(request) == first
        await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION))
        async with raises_status(grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED"):
            await stub.ListRuns(request)  # the page is kept; the session is not open to it
        await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION, deleted=True))
        async with raises_status(grpc.StatusCode.NOT_FOUND, "NOT_FOUND"):
            await stub.ListRuns(request)
        await stub.RegisterSession(pb.RegisterSessionRequest(session_id=SESSION, cwd="/"))
        assert await stub.ListRuns(request) == first
        [_ async for _ in stub.RunForeground(run)]
        assert len((await stub.ListRuns(request)).runs) == 2
    finally:
        await stop_server(server)


def test_a_page_s_answer_is_built_once_and_the_answers_are_bounded() -> None:
    records = [finished_record(f"{n:032x}", session_id=SESSION) for n in range(3)]
    pages = [ShellRunPage(runs=(record,), next_page_token="") for record in records]
    protos = PageProtos(2, RunProtos(1 << 20))
    answer = protos.of(pages[0])
    listed = pb.ListRunsResponse.FromString(answer)  # kept serialized, sent as it is
    assert protos.of(pages[0]) is answer and [run.ref for run in listed.runs] == [records[0].ref]
    for page in pages:
        protos.of(page)
    assert len(protos) == 2
    live = ShellRunPage(
        runs=(finished_record("f" * 32, session_id=SESSION, status="running"),), next_page_token=""
    )
    assert protos.of(live) is not protos.of(live)  # a live run's page: built every time
    none = PageProtos(0, RunProtos(0))
    assert none.of(pages[0]) is not none.of(pages[0]) and len(none) == 0
