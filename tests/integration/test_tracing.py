"""OpenTelemetry tracing (``--otel``): the trace of a turn runs from the kernel into the
resource service. Both services are real servers in this process (the in-process harness),
so one in-memory exporter sees the spans of both."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from maka_runtime_client.aio import KernelClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from maka_runtime.common.config import CommonConfig
from maka_runtime.kernel.server import KernelConfig, KernelService
from maka_runtime.resource.core import ShellRunConfig
from maka_runtime.resource.server import ResourceConfig, ResourceService
from tests.support import auth
from tests.support.inprocess import InProcess, serve_in_process

EXPORTER = InMemorySpanExporter()
_exporting: list[TracerProvider] = []


def _provider() -> TracerProvider:
    """The process's SDK provider, exporting to EXPORTER (set once: the API allows one)."""
    if not _exporting:
        current = trace.get_tracer_provider()
        if not isinstance(current, TracerProvider):
            current = TracerProvider()
            trace.set_tracer_provider(current)
        current.add_span_processor(SimpleSpanProcessor(EXPORTER))
        _exporting.append(current)
    return _exporting[0]


@pytest.fixture
async def traced_pair(tmp_path: Path) -> AsyncIterator[tuple[InProcess, InProcess]]:
    provider = _provider()
    EXPORTER.clear()
    common = CommonConfig(
        service="resource",
        listen="127.0.0.1:0",
        data_dir=tmp_path / "resource-data",
        log_level="info",
        shutdown_grace=1,
        token_file=auth.TOKEN_FILE,
        otel=True,
    )
    resource = await serve_in_process(
        common, ResourceService(ResourceConfig(common=common, shell=ShellRunConfig()))
    )
    kernel_common = replace(common, service="kernel", data_dir=tmp_path / "kernel-data")
    config = KernelConfig(
        common=kernel_common,
        resource_address=resource.address,
        default_backend="shell",
        shutdown_resource=False,
    )
    kernel = await serve_in_process(kernel_common, KernelService(config))
    try:
        yield kernel, resource
    finally:
        assert await kernel.stop() == 0
        assert await resource.stop() == 0
        provider.force_flush()


def spans(name: str, kind: SpanKind) -> list[ReadableSpan]:
    return [s for s in EXPORTER.get_finished_spans() if s.name == name and s.kind is kind]


async def test_a_turn_and_its_tool_run_share_one_trace(
    traced_pair: tuple[InProcess, InProcess], tmp_path: Path
) -> None:
    kernel, _ = traced_pair
    workspace = tmp_path / "workspace"
    os.makedirs(workspace)
    async with KernelClient(kernel.address) as client:
        session = await client.create_session(
            str(workspace), permission_mode=kpb.PERMISSION_MODE_BYPASS
        )
        events = [event async for event in client.start_turn(session.id, "echo traced")]
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED

    (turn,) = spans("/maka.kernel.v1.KernelService/StartTurn", SpanKind.SERVER)
    (run,) = spans("/maka.resource.v1.ResourceService/RunForeground", SpanKind.SERVER)
    (call,) = spans("/maka.resource.v1.ResourceService/RunForeground", SpanKind.CLIENT)
    assert turn.context is not None and run.context is not None and call.context is not None
    assert run.context.trace_id == turn.context.trace_id
    assert call.context.trace_id == turn.context.trace_id
    assert run.parent is not None and run.parent.span_id == call.context.span_id
