"""Streams survive dropped connections: every event once, in order, compared with the log.

A proxy sits between the client and the service; ``cut()`` resets the connection mid-stream,
and a restarted service is reached by retargeting the proxy.
"""

from __future__ import annotations

from pathlib import Path

from maka_runtime_client import KernelClient, ResourceClient
from maka_runtime_client._kernel import TURN_EVENT_KINDS
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb

from tests.sdk.proxy import Proxy
from tests.support.processes import ServiceProcess, running_service

SESSION = "sdk-resume"


def turn_events(log: list[kpb.SessionEvent], turn_id: str) -> list[kpb.SessionEvent]:
    """The entries of *log* a turn's stream carries (what StartTurn sends)."""
    return [
        event
        for event in log
        if event.turn_id == turn_id
        and event.WhichOneof("event") in TURN_EVENT_KINDS
        and not (
            event.WhichOneof("event") == "turn_state"
            and event.turn_state.status == kpb.TURN_STATUS_RUNNING
        )
    ]


async def test_turn_resumes_after_the_connection_is_cut(
    kernel_server: ServiceProcess, proxy_to: type[Proxy], workspace: str
) -> None:
    proxy = proxy_to(kernel_server.address)
    async with KernelClient(proxy.address) as kernel:
        session = await kernel.create_session(workspace)
        stream = kernel.start_turn(session.id, "/script say one; say two; hang")
        seen = [await anext(stream)]
        assert proxy.cut() == 1
        seen += [event async for event in stream]

        assert stream.resumes >= 1
        seqs = [event.seq for event in seen]
        assert seqs == sorted(set(seqs))
        log = await kernel.read_messages(session.id)
        assert seen == turn_events(log, stream.turn_id)
        # The kernel stops a turn whose StartTurn stream went away; the resumed stream says so.
        assert seen[-1].turn_state.status == kpb.TURN_STATUS_ABORTED
        assert seen[-1].turn_state.abort_source == "stream_abandoned"


async def test_turn_resumes_across_a_kernel_restart(
    proxy_to: type[Proxy], data_dir: Path, workspace: str
) -> None:
    with running_service("kernel", data_dir) as first:
        proxy = proxy_to(first.address)
        async with KernelClient(proxy.address) as kernel:
            session = await kernel.create_session(workspace)
            stream = kernel.start_turn(session.id, "/script say one; hang")
            seen = [await anext(stream)]
            first.kill()
            with running_service("kernel", data_dir) as second:
                proxy.retarget(second.address)
                seen += [event async for event in stream]

                assert stream.resumes >= 1
                log = await kernel.read_messages(session.id)
                assert seen == turn_events(log, stream.turn_id)
                assert seen[-1].turn_state.status == kpb.TURN_STATUS_ABORTED
                notes = [e.system_note.kind for e in log if e.WhichOneof("event") == "system_note"]
                assert kpb.SYSTEM_NOTE_KIND_INTERRUPTED in notes


async def test_watch_session_resumes_from_the_last_seq(
    kernel_server: ServiceProcess, proxy_to: type[Proxy], workspace: str
) -> None:
    proxy = proxy_to(kernel_server.address)
    async with (
        KernelClient(proxy.address) as watcher,
        KernelClient(kernel_server.address) as kernel,
    ):
        session = await kernel.create_session(workspace)
        async with watcher.watch_session(session.id) as watch:
            seen = [await anext(watch)]  # the session_start note
            proxy.cut()
            [event async for event in kernel.start_turn(session.id, "/script say a; say b")]
            log = await kernel.read_messages(session.id)
            while len(seen) < len(log):
                seen.append(await anext(watch))
            assert watch.resumes >= 1
        assert seen == log


async def test_watch_runs_resumes_from_the_last_change_seq(
    resource_server: ServiceProcess, proxy_to: type[Proxy]
) -> None:
    proxy = proxy_to(resource_server.address)
    session = "sdk-watch-runs"
    async with (
        ResourceClient(proxy.address) as watcher,
        ResourceClient(resource_server.address) as resource,
    ):
        first = await resource.start_background(session, "true")
        async with watcher.watch_runs(session) as watch:
            changes = [await anext(watch)]
            proxy.cut()
            second = await resource.start_background(session, "true")
            final = {changes[0].ref: changes[0].status}
            while final.get(first.ref) != rpb.RUN_STATUS_COMPLETED or (
                final.get(second.ref) != rpb.RUN_STATUS_COMPLETED
            ):
                run = await anext(watch)
                changes.append(run)
                final[run.ref] = run.status
            assert watch.resumes >= 1
        change_seqs = [run.change_seq for run in changes]
        assert change_seqs == sorted(set(change_seqs))


async def test_attach_resumes_from_the_last_output_sequence(
    resource_server: ServiceProcess, proxy_to: type[Proxy], tmp_path: Path
) -> None:
    proxy = proxy_to(resource_server.address)
    go = tmp_path / "go"
    command = f"echo first; while [ ! -e {go} ]; do sleep 0.01; done; echo second; echo third"
    async with ResourceClient(proxy.address) as resource:
        # Its workspace holds the go file (its sandbox sees no other part of /tmp).
        run = await resource.start_background(SESSION, command, cwd=str(tmp_path))
        async with resource.attach(SESSION, run.ref) as attach:
            events = [await anext(attach)]
            assert events[0].WhichOneof("event") == "attached"
            while b"first" not in b"".join(e.output.data for e in events):
                events.append(await anext(attach))
            proxy.cut()
            go.touch()
            events += [event async for event in attach]
            assert attach.resumes >= 1
        kinds = [event.WhichOneof("event") for event in events]
        assert kinds.count("attached") == 1
        assert kinds[-1] == "ended"
        assert events[-1].ended.status == rpb.RUN_STATUS_COMPLETED
        outputs = [event.output for event in events if event.WhichOneof("event") == "output"]
        sequences = [output.sequence for output in outputs]
        assert sequences == sorted(set(sequences))
        assert b"".join(output.data for output in outputs) == b"first\nsecond\nthird\n"
