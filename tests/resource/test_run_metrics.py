"""The run observer behind the metrics: its counts, and its debug lines carrying the run's ids
(set up only when those lines are logged)."""

from __future__ import annotations

import json

import pytest

from maka_runtime.common.logs import configure_logging
from maka_runtime.resource.run_metrics import RunObserver
from tests.resource.conftest import SESSION_ID, Host, bash_input


class Counted:
    def __init__(self) -> None:
        self.finished: list[tuple[str, str]] = []

    def count_finished(self, kind: str, state: str, stop_seconds: float | None = None) -> None:
        self.finished.append((kind, state))


@pytest.mark.usefixtures("root_logging")
@pytest.mark.parametrize("level", ["debug", "info"])
async def test_a_runs_states_are_counted_and_logged_with_its_ids(
    host: Host, level: str, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging(level, "json")
    counted = Counted()
    observer = RunObserver(host.manager, counted)
    try:
        final = await host.coordinator.run_foreground_bash(bash_input("true", "call.1"))
    finally:
        observer.close()
    assert counted.finished == [("run", "completed")] and observer.live_runs() == {}
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    states = [line for line in lines if line["logger"] == "maka.resource.runs"]
    if level == "info":
        assert states == []
        return
    assert [line["message"].split()[2] for line in states] == ["starting", "running", "completed"]
    for line in states:
        assert line["session_id"] == SESSION_ID and line["run_id"] == final.id
        assert line["turn_id"] == "turn-1"
