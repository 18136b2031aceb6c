"""Session registration and the foreground start announcement through the Python SDK, against
a real ``maka-resource`` (standalone, as the shared SDK server runs; kernel mode below)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from maka_runtime_client import (
    InvalidRequestError,
    NotFoundError,
    ResourceClient,
    ResourceExhaustedError,
    SessionArchivedError,
    sync,
)
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from tests.support.processes import ServiceProcess, running_service


@pytest.fixture
async def resource(resource_server: ServiceProcess) -> AsyncIterator[ResourceClient]:
    async with ResourceClient(resource_server.address) as client:
        yield client


async def test_register_and_archive_a_session(resource: ResourceClient, workspace: str) -> None:
    assert (await resource.get_server_info()).standalone
    session = "sdk-archive"
    assert await resource.register_session(session, cwd=workspace) is True
    assert await resource.register_session(session, cwd=workspace) is False
    run = await resource.start_background(session, "sleep 600")
    assert run.cwd == workspace

    stopped = await resource.archive_session(session)
    assert [(r.ref, r.status) for r in stopped] == [(run.ref, pb.RUN_STATUS_CANCELLED)]
    assert await resource.archive_session(session) == []
    with pytest.raises(SessionArchivedError):
        await resource.start_background(session, "true")
    await resource.archive_session(session, deleted=True)
    with pytest.raises(NotFoundError):
        await resource.get_run(session, run.ref)
    with pytest.raises(InvalidRequestError) as bad:
        await resource.register_session(session, cwd="relative")
    assert bad.value.field == "cwd"


async def test_an_oversized_request_is_a_typed_error_with_the_limit(
    resource: ResourceClient,
) -> None:
    with pytest.raises(ResourceExhaustedError) as refused:
        await resource.register_session("sdk-too-large", cwd="/" + "d" * 5_000_000)
    assert refused.value.reason == "REQUEST_TOO_LARGE"
    assert refused.value.metadata["limit_bytes"] == str(4 * 1024 * 1024)
    assert int(refused.value.metadata["size_bytes"]) > 5_000_000


async def test_run_foreground_announces_its_start(resource: ResourceClient) -> None:
    events = [
        event
        async for event in resource.run_foreground(
            "sdk-announce", "printf hi", cwd="/", announce_start=True
        )
    ]
    assert events[0].WhichOneof("event") == "started"
    assert events[0].started.ref == events[-1].result.ref
    quiet = [event async for event in resource.run_foreground("sdk-announce", "true", cwd="/")]
    assert all(event.WhichOneof("event") != "started" for event in quiet)


async def test_a_runs_kept_output_reads_back_in_pages(resource: ResourceClient) -> None:
    events = [e async for e in resource.run_foreground("sdk-output", "seq 1 200000", cwd="/")]
    ref = events[-1].result.ref
    printed = b"".join(e.output.data for e in events if e.WhichOneof("event") == "output")
    pages = [page async for page in resource.run_output_pages(None, ref, max_bytes=65536)]
    assert len(pages) > 1 and pages[-1].end_reached and not pages[-1].HasField("omitted")
    assert b"".join(c.data for page in pages for c in page.chunks) == printed
    first = await resource.read_run_output("sdk-output", ref, max_bytes=65536)
    assert first.chunks[0].sequence == 1 and first.next_after_sequence == first.chunks[-1].sequence
    with pytest.raises(InvalidRequestError) as bad:
        await resource.read_run_output(None, ref, after_sequence=-1)
    assert bad.value.field == "after_sequence"


def test_the_sync_client_registers_and_archives_in_kernel_mode(data_dir: Path) -> None:
    with (
        running_service("resource", data_dir) as server,
        sync.ResourceClient(server.address) as resource,
    ):
        assert not resource.get_server_info().standalone
        with pytest.raises(NotFoundError):
            resource.start_background("sdk-sync-session", "true", cwd="/")
        assert resource.register_session("sdk-sync-session", cwd="/") is True
        stream = resource.run_foreground("sdk-sync-session", "sleep 600", announce_start=True)
        started = next(stream).started
        assert started.cwd == "/" and started.status == pb.RUN_STATUS_RUNNING
        stopped = resource.archive_session("sdk-sync-session")
        assert [run.ref for run in stopped] == [started.ref]
        assert [event.result.status for event in stream] == [pb.RUN_STATUS_CANCELLED]
        with pytest.raises(SessionArchivedError):
            resource.start_background("sdk-sync-session", "true")
