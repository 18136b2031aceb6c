"""The blocking clients: the same behaviour through a private loop thread."""

from __future__ import annotations

import threading

import pytest
from maka_runtime_client import ClientClosedError, ConflictError, InvalidRequestError, NotFoundError
from maka_runtime_client.sync import KernelClient, ResourceClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from tests.sdk.proxy import Proxy
from tests.support.processes import ServiceProcess

SESSION = "sdk-sync"


def test_sync_kernel_basics(kernel_server: ServiceProcess, workspace: str) -> None:
    with KernelClient(kernel_server.address) as kernel:
        assert kernel.get_server_info().service == "maka-kernel"
        session = kernel.create_session(workspace, name="sync")
        assert kernel.get_session(session.id).name == "sync"
        with kernel.start_turn(session.id, "/script say hi; say there") as stream:
            events = list(stream)
        assert [e.text_delta.text for e in events if e.HasField("text_delta")] == ["hi", "there"]
        assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED
        assert stream.turn_id == events[-1].turn_id
        log = kernel.read_messages(session.id)
        assert log[-1].seq == events[-1].seq
        with pytest.raises(InvalidRequestError):
            kernel.create_session("not/absolute")
        kernel.delete_session(session.id)
        with pytest.raises(NotFoundError):
            kernel.get_session(session.id)
    with pytest.raises(ClientClosedError):
        kernel.get_server_info()
    kernel.close()
    assert not any(t.name == "maka-kernel-client" for t in threading.enumerate())


def test_sync_turn_resumes(
    kernel_server: ServiceProcess, proxy_to: type[Proxy], workspace: str
) -> None:
    proxy = proxy_to(kernel_server.address)
    with KernelClient(proxy.address) as kernel:
        session = kernel.create_session(workspace)
        stream = kernel.start_turn(session.id, "/script say one; hang")
        seen = [next(stream)]
        proxy.cut()
        seen += list(stream)
        assert stream.resumes >= 1
        seqs = [event.seq for event in seen]
        assert seqs == sorted(set(seqs))
        assert seen[-1].turn_state.status == kpb.TURN_STATUS_ABORTED


def test_sync_resource_lease(resource_server: ServiceProcess) -> None:
    with (
        ResourceClient(resource_server.address) as resource,
        ResourceClient(resource_server.address) as other,
    ):
        run = resource.start_background(SESSION, "cat", pty=True)
        try:
            with resource.acquire_controller(SESSION, run.ref, "sync") as lease:
                assert lease.send_input("ping\r").sequence == 1
                assert lease.resize(90, 20).size.cols == 90
                assert lease.next_sequence == 3
                with pytest.raises(ConflictError):
                    other.acquire_controller(SESSION, run.ref, "other")
            assert lease.lost
            with other.acquire_controller(SESSION, run.ref, "other") as taken:
                assert taken.send_input("pong\r").sequence == 1
        finally:
            final = resource.stop_run(SESSION, run.ref)
        assert final.status == rpb.RUN_STATUS_CANCELLED
        events = list(resource.run_foreground(SESSION, "echo sync"))
        assert events[-1].result.status == rpb.RUN_STATUS_COMPLETED
        assert b"".join(e.output.data for e in events if e.HasField("output")) == b"sync\n"
