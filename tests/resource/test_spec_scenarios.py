"""The three scenarios of runtime-resource-process.test.ts, assertion for assertion, against the
coordinator with a real SQLite store, real processes and real PTYs.

Where the spec polls (``waitForTerminal``, ``waitUntil``) these tests await the manager's
futures instead; where the spec reads ``{ok: false, error: {code}}`` these catch the domain error
and check its ``code``.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from maka_runtime.resource.core import (
    ConnectionContext,
    ControllerIdentity,
    ControllerReleaseResult,
    ControlRequest,
    HostDrainingError,
    OperationConflictError,
    PipesOutput,
    PtyControl,
    PtyOutput,
    ShellRunPtyControlClosedError,
)
from tests.resource.conftest import SESSION_ID, Host, bash_input


def connection(connection_id: str) -> ConnectionContext:
    return ConnectionContext(
        connection_id=connection_id, host_epoch="host-1", surface="tui", principal="local_os_user"
    )


async def test_runs_pipes_and_serializes_one_pty_controller_across_two_connections(
    host: Host,
) -> None:
    coordinator, manager = host.coordinator, host.manager
    foreground = await coordinator.run_foreground_bash(
        bash_input("printf foreground-ok", "call.foreground/1")
    )
    assert foreground.status == "completed"
    assert foreground.output.mode == "pipes"
    assert isinstance(foreground.output, PipesOutput)
    assert foreground.output.stdout == "foreground-ok"

    background = await coordinator.run_background_bash(
        dataclasses.replace(
            bash_input('IFS= read -r line; printf "received:%s\\n" "$line"', "call.pty/1"),
            pty=True,
        )
    )
    assert background.status == "running"
    assert background.mode == "pty"
    assert host.active_residencies == 1

    first_connection = connection("connection-1")
    second_connection = connection("connection-2")
    identity = ControllerIdentity(
        session_id=SESSION_ID, ref=background.ref, controller_id="controller-1"
    )
    acquired = await coordinator.acquire_controller(identity, first_connection)
    assert acquired.controller_id == "controller-1"
    assert acquired.next_sequence == 1
    with pytest.raises(OperationConflictError) as contested:
        await coordinator.acquire_controller(
            dataclasses.replace(identity, controller_id="controller-2"), second_connection
        )
    assert contested.value.code == "operation_conflict"

    control = ControlRequest(
        session_id=SESSION_ID,
        ref=background.ref,
        controller_id="controller-1",
        sequence=1,
        control=PtyControl(kind="input", input="hello\r"),
    )
    controlled = await coordinator.control_controller(control, first_connection)
    exact_retry = await coordinator.control_controller(control, first_connection)
    assert exact_retry == controlled

    terminal = await manager.wait_terminal(SESSION_ID, background.ref)
    assert terminal.status == "completed"
    assert terminal.output.mode == "pty"
    assert isinstance(terminal.output, PtyOutput)
    assert re.search(r"received:hello", terminal.output.text())
    assert host.active_residencies == 0

    release = await coordinator.release_controller(identity, first_connection)
    assert release == ControllerReleaseResult(controller_id="controller-1", released=False)
    stopped = await coordinator.stop(SESSION_ID, background.ref)
    assert stopped.status == "completed"

    queried = await coordinator.get(SESSION_ID, background.ref)
    assert queried.status == "completed"
    assert queried.source_tool_call_id == "call.pty/1"
    assert host.drain_requests == []


async def test_treats_control_during_pty_timeout_as_a_resource_conflict_without_draining_host(
    host: Host,
) -> None:
    coordinator, manager = host.coordinator, host.manager
    background = await coordinator.run_background_bash(
        dataclasses.replace(
            bash_input(
                'trap "" TERM; stty -echo; printf "READY\\n"; while :; do sleep 1; done',
                "call.timeout/1",
            ),
            pty=True,
            timeout_ms=350,
        )
    )
    assert background.status == "running"
    assert host.active_residencies == 1

    client = connection("connection-timeout")
    identity = ControllerIdentity(
        session_id=SESSION_ID, ref=background.ref, controller_id="controller-timeout"
    )
    acquired = await coordinator.acquire_controller(identity, client)
    assert acquired.next_sequence == 1

    # The spec polls writeStdin until it fails; the manager tells us when control closed.
    await manager.wait_closing(SESSION_ID, background.ref)
    with pytest.raises(ShellRunPtyControlClosedError):
        await manager.write_stdin(SESSION_ID, background.ref, "x")

    with pytest.raises(OperationConflictError) as controlled:
        await coordinator.control_controller(
            ControlRequest(
                session_id=SESSION_ID,
                ref=background.ref,
                controller_id="controller-timeout",
                sequence=1,
                control=PtyControl(kind="input", input="late input"),
            ),
            client,
        )
    assert controlled.value.code == "operation_conflict"
    assert isinstance(controlled.value, ShellRunPtyControlClosedError)
    assert host.drain_requests == []

    released = await coordinator.release_controller(identity, client)
    assert released == ControllerReleaseResult(controller_id="controller-timeout", released=False)
    terminal = await manager.wait_terminal(SESSION_ID, background.ref)
    assert terminal.status == "timed_out"
    assert host.active_residencies == 0
    assert host.drain_requests == []


async def test_drain_terminates_a_real_process_and_synchronously_rejects_new_startup(
    host: Host,
) -> None:
    coordinator, manager = host.coordinator, host.manager
    background = await coordinator.run_background_bash(bash_input("sleep 60", "shutdown-tool"))
    assert background.status == "running"
    assert host.active_residencies == 1

    coordinator.begin_drain()
    with pytest.raises(HostDrainingError, match="Runtime resources are draining"):
        await coordinator.run_background_bash(bash_input("printf too-late", "late-tool"))
    await coordinator.close()

    terminal = await manager.inspect(SESSION_ID, background.ref)
    assert terminal.status == "cancelled"
    assert host.active_residencies == 0
    assert host.drain_requests == []
