"""A tool call's output over the real pair: kept exactly up to the budget, the rest counted in a
structured truncation record, the same transcript every time, and the kernel's SQLite file
bounded by the budget whatever the command prints."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from maka_runtime_client.aio import KernelClient
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb

from tests.integration.conftest import Pair, every, first, kinds, start_pair

BYPASS = kpb.PERMISSION_MODE_BYPASS
MIB = 1024 * 1024
STDOUT = kpb.TOOL_OUTPUT_STREAM_STDOUT
STDERR = kpb.TOOL_OUTPUT_STREAM_STDERR
#: Six million bytes of "abcdefghi\n" as fast as the machine writes them: the resource service's
#: stream gives a reader that falls behind every byte from the run's output journal, so what the
#: kernel keeps does not depend on the pace.
PRODUCER = "yes abcdefghi | head -c 6000000"


@contextlib.contextmanager
def pair_with(tmp: Path, *args: str) -> Iterator[Pair]:
    started = start_pair(tmp, *args)
    try:
        yield started
    finally:
        started.stop()
        started.proxy.close()


def kernel_files_bytes(pair: Pair) -> int:
    """The size of everything the kernel keeps on disk (its SQLite database, WAL included)."""
    return sum(path.stat().st_size for path in pair.kernel_dir.rglob("*") if path.is_file())


async def turn(kernel: KernelClient, session_id: str, command: str) -> list[kpb.SessionEvent]:
    events = [event async for event in kernel.start_turn(session_id, command)]
    assert events[-1].turn_state.status == kpb.TURN_STATUS_COMPLETED, kinds(events)
    return events


def kept(events: list[kpb.SessionEvent], stream: int) -> str:
    return "".join(
        e.tool_output.text for e in every(events, "tool_output") if e.tool_output.stream == stream
    )


async def test_six_megabytes_keep_exactly_the_budget_and_count_the_rest(
    tmp_path: Path, workspace: Path
) -> None:
    total = 6_000_000
    command = f"{PRODUCER}; echo -n warning >&2"
    transcripts = []
    with pair_with(tmp_path) as pair:
        async with KernelClient(pair.kernel.address) as kernel:
            session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
            for _ in range(3):
                events = await turn(kernel, session.id, command)
                result = first(events, "tool_result").tool_result
                stdout = kept(events, STDOUT)
                assert stdout == ("abcdefghi\n" * (MIB // 10 + 1))[:MIB]
                assert kept(events, STDERR) == "warning"
                truncation = result.truncation
                assert result.HasField("truncation")
                assert (truncation.stdout_bytes_kept, truncation.stdout_bytes_omitted) == (
                    MIB,
                    total - MIB,
                )
                assert (truncation.stderr_bytes_kept, truncation.stderr_bytes_omitted) == (7, 0)
                assert truncation.budget_bytes == MIB
                assert truncation.run_ref == result.run_ref != ""
                # The model reads the exact figures and where the rest is.
                assert f"stdout {total} bytes, {total - MIB} omitted" in result.output
                assert result.run_ref in result.output
                assert "dropped" not in stdout and "cut" not in result.output.split("\n")[0]
                # Coalesced: a piece per 64 KiB, or fewer bytes when the pace flushes one (more
                # often on a loaded machine) — not an event per 4 KiB terminal or pipe read (256).
                assert len(every(events, "tool_output")) <= 2 * (MIB // (64 * 1024))
                # Each piece is at most 64 KiB, as documented (before: a whole resource
                # chunk, up to 256 KiB).
                sizes = [len(e.tool_output.text.encode()) for e in every(events, "tool_output")]
                assert max(sizes) <= 64 * 1024, max(sizes)
                # The same transcript every time (each run has its own ref).
                figures = (truncation.stdout_bytes_omitted, truncation.stderr_bytes_kept)
                result_text = result.output.replace(result.run_ref, "REF")
                transcripts.append((stdout, kept(events, STDERR), figures, result_text))
    assert transcripts[0] == transcripts[1] == transcripts[2]


async def test_output_within_the_budget_has_no_truncation_record(
    tmp_path: Path, workspace: Path
) -> None:
    with pair_with(tmp_path) as pair:
        async with KernelClient(pair.kernel.address) as kernel:
            session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
            events = await turn(kernel, session.id, "printf 'h\\xc3\\xa9llo\\n'")
    result = first(events, "tool_result").tool_result
    assert kept(events, STDOUT) == "héllo\n"
    assert not result.HasField("truncation")
    assert "truncated" not in result.output


async def _growth(tmp: Path, workspace: Path, budget: str, megabytes: int) -> tuple[int, float]:
    with pair_with(tmp, "--tool-output-budget-bytes", budget) as pair:
        async with KernelClient(pair.kernel.address) as kernel:
            session = await kernel.create_session(str(workspace), permission_mode=BYPASS)
            await turn(kernel, session.id, "true")
            before = kernel_files_bytes(pair)
            command = f"head -c {megabytes * MIB} /dev/zero | tr '\\0' z"
            events = await turn(kernel, session.id, command)
            after = kernel_files_bytes(pair)
    truncation = first(events, "tool_result").tool_result.truncation
    # Without gaps in the resource service's stream every byte is accounted for; a gap (a
    # command faster than the stream) is counted by its byte counts once the resource service
    # fills them, so here the sum is at most what was printed.
    assert truncation.stdout_bytes_kept + truncation.stdout_bytes_omitted <= megabytes * MIB
    growth = after - before
    print(f"{megabytes} MiB printed: the kernel's files grew by {growth} bytes (budget {budget})")
    return growth, truncation.stdout_bytes_kept


async def test_a_large_print_grows_the_kernels_files_by_the_budget_only(
    tmp_path: Path, workspace: Path
) -> None:
    growth, kept_bytes = await _growth(tmp_path, workspace, "64KiB", 64)
    assert kept_bytes <= 64 * 1024  # less when the resource service dropped chunks (a gap)
    # The budget, the result's 16,000 characters, the records' framing and SQLite's pages.
    assert growth <= 64 * 1024 + 16_000 + MIB


@pytest.mark.slow
async def test_a_gigabyte_print_grows_the_kernels_files_by_the_budget_only(
    tmp_path: Path, workspace: Path
) -> None:
    growth, kept_bytes = await _growth(tmp_path, workspace, "1MiB", 1024)
    assert kept_bytes <= MIB  # less when the resource service dropped chunks (a gap)
    # SQLite's WAL is checkpointed every 1000 pages (4 MiB): it may hold that much more.
    assert growth <= MIB + 16_000 + 4 * MIB


def test_the_budget_setting_is_checked() -> None:
    from maka_runtime.kernel.server import parse_config

    assert parse_config(["--tool-output-budget-bytes", "2MiB"]).tool_output_budget_bytes == 2 * MIB
    assert parse_config([]).tool_output_budget_bytes == MIB
    with pytest.raises(SystemExit):
        parse_config(["--tool-output-budget-bytes", "65MiB"])
