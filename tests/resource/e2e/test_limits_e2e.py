"""Bounded responses and inputs over the wire: every response fits a default client's 4 MiB,
every request string has a limit, one session cannot hold every live run, cursors past the
end are OUT_OF_RANGE.

The channels are plain ``grpc.aio`` channels with the default 4 MiB receive limit.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.api.convert import run_to_proto
from maka_runtime.resource.core.records import PipesOutput, ShellRunRecord
from maka_runtime.resource.core.sizes import wire_size

from .conftest import (
    E2E_CONFIG,
    SESSION_ID,
    Server,
    open_connection,
    raises_status,
    start_server,
    stop_server,
)

PAGE_BYTES = 2 * 1024 * 1024
MIB = 1024 * 1024
# 1 MiB of 0xFF on each stream: every byte decodes to U+FFFD, 3 bytes of UTF-8.
INVALID_UTF8 = (
    "head -c 1048576 /dev/zero | tr '\\0' '\\377'; head -c 1048576 /dev/zero | tr '\\0' '\\377' >&2"
)


async def foreground(stub: Any, command: str, session_id: str = SESSION_ID) -> pb.Run:
    async for response in stub.RunForeground(
        pb.RunForegroundRequest(session_id=session_id, command=command, cwd="/")
    ):
        if response.WhichOneof("event") == "result":
            result: pb.Run = response.result
            return result
    raise AssertionError("no result")


async def test_a_run_with_undecodable_output_stays_below_the_client_limit(server: Server) -> None:
    stub = server.stub()
    run = await foreground(stub, INVALID_UTF8)
    assert run.ByteSize() < 2 * MIB + 64 * 1024
    assert len(run.pipes.stdout.encode()) <= MIB and run.pipes.stdout_truncated
    assert set(run.pipes.stdout) == {"\ufffd"}
    fetched = (await stub.GetRun(pb.GetRunRequest(session_id=SESSION_ID, ref=run.ref))).run
    assert fetched.pipes.stdout == run.pipes.stdout


async def test_list_runs_pages_fit_a_default_client(server: Server) -> None:
    stub = server.stub()
    refs = [(await foreground(stub, INVALID_UTF8)).ref for _ in range(6)]
    token, pages = "", 0
    listed: list[str] = []
    while True:
        page = await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID, page_token=token))
        assert page.ByteSize() <= PAGE_BYTES + 64 * 1024
        listed.extend(run.ref for run in page.runs)
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert pages > 1
    assert listed == refs


def test_wire_size_bounds_the_real_encoding_of_a_run() -> None:
    record = ShellRunRecord(
        ref="maka://runtime/background-tasks/" + "a" * 32,
        session_id="s" * 128,
        source_turn_id="t" * 256,
        source_tool_call_id="c" * 256,
        kind="background",
        mode="pipes",
        command="é" * 40_000,
        cwd="/" + "d" * 4094,
        timeout_ms=2**40,
        status="failed",
        revision=2**40,
        change_seq=2**40,
        created_at=2**42,
        updated_at=2**42,
        started_at=2**42,
        ended_at=2**42,
        exit_code=-(2**31),
        signal=9,
        message="m" * 500,
        output=PipesOutput(stdout="o" * 10_000, stderr="\ufffd" * 10_000),
    )
    assert run_to_proto(record).ByteSize() <= wire_size(record)


async def test_one_session_cannot_hold_every_live_run(tmp_path: Path) -> None:
    config = dataclasses.replace(E2E_CONFIG, max_live_runs=8)  # per session: a quarter, 2
    server = await start_server(tmp_path / "data", config)
    try:
        stub = server.stub()
        start = pb.StartBackgroundRequest(session_id="greedy", command="sleep 30", cwd="/")
        refs = [(await stub.StartBackground(start)).run.ref for _ in range(2)]
        async with raises_status(grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED") as got:
            await stub.StartBackground(start)
        assert got["metadata"] == {"limit_name": "max_live_runs_per_session", "limit": "2"}
        other = pb.StartBackgroundRequest(session_id="other", command="sleep 30", cwd="/")
        assert (await stub.StartBackground(other)).run.status == pb.RUN_STATUS_RUNNING
        # A finished run frees its place.
        await stub.StopRun(pb.StopRunRequest(session_id="greedy", ref=refs[0]))
        assert (await stub.StartBackground(start)).run.status == pb.RUN_STATUS_RUNNING
    finally:
        await stop_server(server)


async def test_the_per_session_cap_is_a_setting() -> None:
    from maka_runtime.resource.server import parse_config

    assert parse_config([]).shell.live_runs_per_session == 16
    assert parse_config(["--max-live-runs", "40"]).shell.live_runs_per_session == 10
    config = parse_config(["--max-live-runs-per-session", "3", "--max-page-bytes", "1048576"])
    assert config.shell.live_runs_per_session == 3
    assert config.shell.max_page_bytes == MIB


async def test_watch_runs_past_the_newest_change_is_out_of_range(server: Server) -> None:
    stub = server.stub()
    run = await foreground(stub, "true")
    newest = run.change_seq
    async with raises_status(grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE") as got:
        async for _ in stub.WatchRuns(
            pb.WatchRunsRequest(session_id=SESSION_ID, after_change_seq=newest + 1)
        ):
            pass
    assert got["metadata"] == {"field": "after_change_seq", "last": str(newest)}
    # From the newest change on, a watch follows what comes next.
    watch = stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID, after_change_seq=newest))
    started = await foreground(stub, "true")
    first = await anext(aiter(watch))
    assert first.run.ref == started.ref
    watch.cancel()


async def test_archive_session_lists_runs_past_the_budget_without_output(tmp_path: Path) -> None:
    config = dataclasses.replace(E2E_CONFIG, max_page_bytes=3 * MIB // 2)
    server = await start_server(tmp_path / "data", config)
    try:
        stub = server.stub()
        command = "head -c 1048576 /dev/zero | tr '\\0' x; echo; echo READY; sleep 30"
        refs = []
        for _ in range(3):
            start = pb.StartBackgroundRequest(session_id=SESSION_ID, command=command, cwd="/")
            refs.append((await stub.StartBackground(start)).run.ref)
        for ref in refs:
            while (
                "READY"
                not in (
                    await stub.GetRun(pb.GetRunRequest(session_id=SESSION_ID, ref=ref))
                ).run.pipes.stdout
            ):
                # The output sentinel: a pipe drains in a few reads.
                async for _ in stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID)):
                    break
        reply = await stub.ArchiveSession(pb.ArchiveSessionRequest(session_id=SESSION_ID))
        assert sorted(run.ref for run in reply.stopped) == sorted(refs)
        assert reply.ByteSize() <= 3 * MIB // 2 + MIB + 64 * 1024
        with_output = [run for run in reply.stopped if run.pipes.stdout]
        without = [run for run in reply.stopped if not run.pipes.stdout]
        assert len(with_output) == 1 and len(without) == 2
        assert all(run.pipes.stdout_truncated for run in without)
        assert all(run.status == pb.RUN_STATUS_CANCELLED for run in reply.stopped)
    finally:
        await stop_server(server)


BIG = "x" * (200 * 1024)


@pytest.mark.parametrize(
    ("request_of", "field", "limit"),
    [
        (
            lambda: pb.StartBackgroundRequest(session_id=SESSION_ID, command="y" * (128 * 1024)),
            "command",
            128 * 1024 - 1,
        ),
        (
            lambda: pb.StartBackgroundRequest(session_id=SESSION_ID, command="true", cwd="/" + BIG),
            "cwd",
            4095,
        ),
        (
            lambda: pb.StartBackgroundRequest(
                session_id=SESSION_ID, command="true", cwd="/", env={"V": BIG}
            ),
            "env",
            128 * 1024,
        ),
        (
            lambda: pb.StartBackgroundRequest(
                session_id=SESSION_ID, command="true", cwd="/", source_turn_id="t" * 300
            ),
            "source_turn_id",
            256,
        ),
        (
            lambda: pb.StartBackgroundRequest(session_id="s" * 200, command="true"),
            "session_id",
            128,
        ),
        (lambda: pb.ListRunsRequest(session_id=SESSION_ID, page_token=BIG), "page_token", 1024),
        (
            lambda: pb.GetRunRequest(session_id=SESSION_ID, ref="maka://" + BIG),
            "ref",
            len("maka://runtime/background-tasks/") + 128,
        ),
        (lambda: pb.RegisterSessionRequest(session_id=SESSION_ID, cwd="/" + BIG), "cwd", 4095),
    ],
)
async def test_every_request_string_has_a_limit(
    server: Server, request_of: Any, field: str, limit: int
) -> None:
    stub = server.stub()
    request = request_of()
    method = {
        pb.StartBackgroundRequest: stub.StartBackground,
        pb.ListRunsRequest: stub.ListRuns,
        pb.GetRunRequest: stub.GetRun,
        pb.RegisterSessionRequest: stub.RegisterSession,
    }[type(request)]
    async with raises_status(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST") as got:
        await method(request)
    assert got["metadata"] == {"field": field, "limit": str(limit)}


async def test_connection_and_controller_ids_have_limits(server: Server) -> None:
    stub = server.stub()
    async with raises_status(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST") as got:
        async for _ in stub.OpenConnection(pb.OpenConnectionRequest(client_name=BIG)):
            pass
    assert got["metadata"] == {"field": "client_name", "limit": "256"}
    connection, keepalive = await open_connection(stub, "limits")
    try:
        run = (
            await stub.StartBackground(
                pb.StartBackgroundRequest(session_id=SESSION_ID, command="cat", cwd="/", pty=True)
            )
        ).run
        for request, field in (
            (
                pb.AcquireControllerRequest(
                    session_id=SESSION_ID, ref=run.ref, controller_id="c" * 200
                ),
                "controller_id",
            ),
            (
                pb.AcquireControllerRequest(
                    session_id=SESSION_ID, ref=run.ref, controller_id="c", connection_id=BIG
                ),
                "connection_id",
            ),
        ):
            async with raises_status(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST") as got:
                await stub.AcquireController(request)
            assert got["metadata"]["field"] == field
            assert "limit" in got["metadata"]
        await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))
    finally:
        keepalive.cancel()
        del connection
