"""Metrics and log settings, the log formats, and the resource service's run figures over a
real server and HTTP."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from maka_runtime_client.aio import ResourceClient
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb
from prometheus_client.parser import text_string_to_metric_families

from maka_runtime.common.config import CommonConfig
from maka_runtime.common.logs import configure_logging, log_context
from maka_runtime.common.metrics import Metrics, open_metrics
from maka_runtime.common.prometheus import ServiceMetrics
from maka_runtime.kernel.server import parse_config as kernel_config
from maka_runtime.resource.core import ShellRunConfig
from maka_runtime.resource.server import ResourceConfig, ResourceService
from maka_runtime.resource.server import parse_config as resource_config
from tests.support import auth
from tests.support.inprocess import InProcess, serve_in_process
from tests.support.processes import spawn_service


@pytest.mark.parametrize(
    ("given", "served"),
    [
        ("9464", "127.0.0.1:9464"),
        (":0", "127.0.0.1:0"),
        ("[::1]:9464", "[::1]:9464"),
        ("localhost:9464", "localhost:9464"),
    ],
)
def test_metrics_listen_without_a_host_is_loopback(given: str, served: str) -> None:
    assert kernel_config(["--metrics-listen", given]).common.metrics_listen == served
    assert resource_config(["--metrics-listen", given]).common.metrics_listen == served


def test_observability_is_off_by_default_and_set_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    common = kernel_config([]).common
    assert (common.metrics_listen, common.log_format, common.otel) == (None, "text", False)
    monkeypatch.setenv("MAKA_METRICS_LISTEN", "9000")
    monkeypatch.setenv("MAKA_RESOURCE_LOG_FORMAT", "json")
    monkeypatch.setenv("MAKA_OTEL", "1")
    common = resource_config([]).common
    assert common.metrics_listen == "127.0.0.1:9000"
    assert (common.log_format, common.otel) == ("json", True)


@pytest.mark.parametrize("bad", ["99999", "host:", "::1:80", "nine"])
def test_a_bad_metrics_address_exits_2_naming_it(
    bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        kernel_config(["--metrics-listen", bad])
    assert exited.value.code == 2
    assert "--metrics-listen" in capsys.readouterr().err


@pytest.mark.slow
def test_metrics_beyond_loopback_are_refused_unless_allowed(tmp_path: Path) -> None:
    process = spawn_service("resource", tmp_path, "--metrics-listen", "0.0.0.0:0")
    assert process.wait() == 2
    assert "refusing to serve metrics on 0.0.0.0:0" in process.stderr
    assert "--allow-insecure-listen" in process.stderr


@pytest.fixture
async def resource(tmp_path: Path) -> AsyncIterator[InProcess]:
    common = CommonConfig(
        service="resource",
        listen="127.0.0.1:0",
        data_dir=tmp_path / "data",
        log_level="info",
        shutdown_grace=1,
        token_file=auth.TOKEN_FILE,
        metrics_listen="127.0.0.1:0",
    )
    config = ResourceConfig(common=common, shell=ShellRunConfig(), standalone=True)
    running = await serve_in_process(common, ResourceService(config))
    try:
        yield running
    finally:
        if not running.serving.done():
            assert await running.stop() == 0


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(running: InProcess) -> Samples:
    text = httpx.get(f"http://{running.host.metrics_address}/metrics", timeout=5).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_live_ptys_runs_by_state_stops_and_the_drain_are_measured(
    resource: InProcess, tmp_path: Path
) -> None:
    async with ResourceClient(resource.address) as client:
        run = await client.start_background("observed", "sleep 600", pty=True, cwd=str(tmp_path))
        watch = client.watch_runs("observed")
        async for seen in watch:
            if seen.ref == run.ref and seen.status == rpb.RUN_STATUS_RUNNING:
                break
        await watch.aclose()
        live = scrape(resource)
        stopped = await client.stop_run(None, run.ref)
    assert stopped.status == rpb.RUN_STATUS_CANCELLED
    after = scrape(resource)

    assert value(live, "maka_ptys_live") == 1
    assert value(live, "maka_live", kind="run", state="running") == 1
    assert value(after, "maka_ptys_live") == 0
    assert value(after, "maka_live", kind="run", state="running") == 0
    assert value(after, "maka_finished_total", kind="run", state="cancelled") == 1
    assert value(after, "maka_stop_seconds_count", kind="run") == 1
    assert value(after, "maka_drain_seconds_count") == 0

    assert await resource.stop() == 0
    metrics = resource.host.metrics
    assert isinstance(metrics, ServiceMetrics)
    registry = metrics.registry
    assert registry.get_sample_value("maka_drain_seconds_count") == 1
    with pytest.raises(httpx.ConnectError):
        scrape(resource)


@pytest.mark.usefixtures("root_logging")
def test_json_lines_hold_the_ids_that_apply(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("info", "json")
    with log_context(session_id="s-1", turn_id="t-1"):
        logging.getLogger("maka.test").info("in a turn %d", 1)
    logging.getLogger("maka.test").warning("outside")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [list(line) for line in lines] == [
        ["timestamp", "level", "logger", "message", "session_id", "turn_id"],
        ["timestamp", "level", "logger", "message"],
    ]
    assert lines[0]["message"] == "in a turn 1" and lines[0]["turn_id"] == "t-1"
    assert datetime.fromisoformat(lines[1]["timestamp"]).utcoffset() == timedelta(0)


@pytest.mark.usefixtures("root_logging")
def test_text_stays_the_default_line(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("info")
    with log_context(session_id="s-1"):
        logging.getLogger("maka.test").info("hello")
    assert re.fullmatch(r"\S+ \S+ INFO maka\.test: hello\n", capsys.readouterr().err)


@pytest.mark.slow
def test_an_unknown_trace_exporter_is_one_line_and_exit_1(tmp_path: Path) -> None:
    process = spawn_service("kernel", tmp_path, "--otel", env={"OTEL_TRACES_EXPORTER": "carrier"})
    assert process.wait() == 1
    assert "OTEL_TRACES_EXPORTER='carrier': expected otlp, console or none" in process.stderr


def test_without_metrics_listen_no_figures_are_kept() -> None:
    # Nothing could read them, so a service keeps none (and records nothing per call).
    assert type(open_metrics("kernel", None, served=False)) is Metrics
    assert isinstance(open_metrics("kernel", None, served=True), ServiceMetrics)
    # (That neither library is even imported: tests/foundation/test_start_imports.py.)
