"""A ref is enough through the Python SDK: ``None`` for the session takes the run's own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from maka_runtime_client import NotFoundError, ResourceClient, sync
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from tests.support.processes import ServiceProcess

SESSION = "sdk-refs"


@pytest.fixture
async def resource(resource_server: ServiceProcess) -> AsyncIterator[ResourceClient]:
    async with ResourceClient(resource_server.address) as client:
        yield client


async def test_run_methods_take_a_ref_without_its_session(resource: ResourceClient) -> None:
    run = await resource.start_background(SESSION, "cat", pty=True, size=(80, 24))
    assert (await resource.get_run(None, run.ref)).session_id == SESSION
    async with await resource.acquire_controller(None, run.ref, "sdk") as lease:
        await lease.send_input("by-ref\r")
        seen = b""
        async for event in resource.attach(None, run.ref):
            if event.WhichOneof("event") == "output":
                seen += event.output.data
                if b"by-ref" in seen:
                    break
    listed: list[pb.Run] = []
    token = ""
    while True:
        page = await resource.list_runs(page_token=token)  # every session
        listed.extend(page.runs)
        token = page.next_page_token
        if not token:
            break
    assert run.ref in {r.ref for r in listed}
    stopped = await resource.stop_run(None, run.ref)
    assert (stopped.session_id, stopped.status) == (SESSION, pb.RUN_STATUS_CANCELLED)
    with pytest.raises(NotFoundError) as other:
        await resource.get_run("sdk-refs-other", run.ref)
    assert other.value.field == "ref"


def test_the_sync_client_takes_a_ref_without_its_session(resource_server: ServiceProcess) -> None:
    with sync.ResourceClient(resource_server.address) as resource:
        run = resource.start_background(SESSION, "sleep 600")
        assert resource.get_run(None, run.ref).status == pb.RUN_STATUS_RUNNING
        assert run.ref in {r.ref for r in resource.list_runs(page_size=500).runs}
        assert resource.stop_run(None, run.ref).status == pb.RUN_STATUS_CANCELLED
