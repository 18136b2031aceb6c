"""The drain ladder of the resource service climbs its rungs in order, on a real host."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
from pathlib import Path

import pytest

from maka_runtime.resource.core import DrainReport, DrainRung, HostDrainingError
from maka_runtime.resource.core.drain import drain
from tests.resource.conftest import (
    SESSION_ID,
    TEST_CONFIG,
    Host,
    bash_input,
    close_host,
    helper,
    open_host,
    read_until,
)


async def test_a_run_that_outlives_the_grace_is_hurried_and_its_final_record_awaited(
    tmp_path: Path,
) -> None:
    # A termination grace far longer than the test: only the HURRY rung can end the run.
    host = await open_host(tmp_path, config=dataclasses.replace(TEST_CONFIG, termination_grace=60))
    try:
        resources = host.coordinator
        stubborn = await resources.run_background_bash(
            bash_input(f'trap "" TERM; {helper("ignore_term.py")}', "call.stubborn")
        )
        await read_until(host.manager, stubborn.ref, b"READY")
        rungs: list[DrainRung] = []
        reports: list[DrainReport] = []

        final = await asyncio.wait_for(
            drain(resources, 0.0, reported=reports.append, climbed=rungs.append), timeout=20
        )

        assert rungs == list(DrainRung)
        assert reports == [DrainReport(ended={}, lost=0, unfinished=(stubborn.ref,))]
        assert dict(final.ended) == {} and final.unfinished == (stubborn.ref,)
        record = await resources.get(SESSION_ID, stubborn.ref)  # committed by the last rung
        assert (record.status, record.signal) == ("cancelled", signal.SIGKILL)
        assert resources.controller_of(stubborn.ref) is None
        with pytest.raises(HostDrainingError):
            await resources.run_background_bash(bash_input("true", "call.late"))
    finally:
        await close_host(host)


async def test_runs_that_end_within_the_grace_skip_the_hurry(host: Host) -> None:
    run = await host.coordinator.run_background_bash(bash_input("sleep 60", "call.quick"))
    rungs: list[DrainRung] = []

    report = await drain(host.coordinator, 30.0, climbed=rungs.append)

    assert DrainRung.HURRY not in rungs
    assert rungs[-1] is DrainRung.WAIT_FINAL_RECORDS
    assert dict(report.ended) == {"cancelled": 1} and report.unfinished == ()
    assert (await host.coordinator.get(SESSION_ID, run.ref)).status == "cancelled"
