"""The kernel's record of a tool call's output (``maka_runtime.kernel.core.tool_output``): exact
figures, UTF-8 decoded only at character boundaries, stdout and stderr budgeted apart, the same
text kept whatever the chunking."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, AsyncIterator, Sequence

import pytest

from maka_runtime.kernel.core.tool_output import (
    PIECE_BYTES,
    StreamFigures,
    ToolOutputRecord,
    pumped,
    result_text,
)
from maka_runtime.kernel.core.tools import (
    RunEnded,
    RunEvent,
    RunGap,
    RunInfo,
    RunOutput,
    RunStarted,
    ToolHostUnavailableError,
)


def kept_text(pieces: Sequence[tuple[str, str]], stream: str) -> str:
    return "".join(text for name, text in pieces if name == stream)


def record_all(
    record: ToolOutputRecord, chunks: list[tuple[str, bytes]], run_ref: str = "run-1"
) -> tuple[list[tuple[str, str]], StreamFigures, StreamFigures]:
    pieces: list[tuple[str, str]] = []
    for stream, data in chunks:
        if record.feed(stream, data):  # type: ignore[arg-type]
            pieces += record.pieces()
    last, truncation = record.finish(run_ref)
    pieces += last
    return pieces, truncation.stdout, truncation.stderr


def test_output_within_the_budget_is_kept_whole_and_nothing_is_omitted() -> None:
    record = ToolOutputRecord(budget_bytes=100)
    pieces, out, err = record_all(record, [("stdout", b"hello\n"), ("stderr", b"oops\n")])
    assert kept_text(pieces, "stdout") == "hello\n" and kept_text(pieces, "stderr") == "oops\n"
    assert out == StreamFigures(kept=6, omitted=0) and err == StreamFigures(kept=5, omitted=0)
    assert not record.truncation().truncated


def test_a_large_chunk_is_kept_in_pieces_of_at_most_64_kib_cut_between_characters() -> None:
    text = "aé€😀" * 30_000  # 1, 2, 3 and 4 bytes: 300 000 bytes in one chunk
    data = text.encode()
    record = ToolOutputRecord(budget_bytes=4 * PIECE_BYTES)
    pieces, out, _ = record_all(record, [("stdout", data)])
    sizes = [len(piece.encode()) for _, piece in pieces]
    assert len(pieces) > 1 and max(sizes) <= PIECE_BYTES, sizes  # before: one 256 KiB piece
    assert all(size > PIECE_BYTES - 4 for size in sizes[:-1])
    kept = kept_text(pieces, "stdout")
    assert data.startswith(kept.encode())  # cut only between characters: nothing altered
    assert out == StreamFigures(kept=len(kept.encode()), omitted=len(data) - len(kept.encode()))


def test_output_past_the_budget_keeps_exactly_the_budget_and_counts_the_rest() -> None:
    record = ToolOutputRecord(budget_bytes=1000)
    chunks = [("stdout", b"x" * 700)] * 10  # 7000 bytes
    pieces, out, _ = record_all(record, chunks)
    assert kept_text(pieces, "stdout") == "x" * 1000
    assert out == StreamFigures(kept=1000, omitted=6000)
    truncation = record.finish("run-1")[1]
    assert truncation.truncated
    assert "stdout 7000 bytes, 6000 omitted" in truncation.describe()
    assert "run-1" in truncation.describe()


def test_stdout_and_stderr_have_budgets_of_their_own() -> None:
    record = ToolOutputRecord(budget_bytes=10)
    chunks = [("stderr", b"e" * 25), ("stdout", b"o" * 4), ("stderr", b"E" * 5)]
    pieces, out, err = record_all(record, chunks)
    assert kept_text(pieces, "stdout") == "oooo" and kept_text(pieces, "stderr") == "e" * 10
    assert out == StreamFigures(kept=4, omitted=0)
    assert err == StreamFigures(kept=10, omitted=20)
    assert "stderr 30 bytes, 20 omitted" in record.truncation().describe()
    assert "stdout" not in record.truncation().describe()


def test_a_character_split_across_reads_is_decoded_once_whole() -> None:
    text = "é€😀" * 50
    data = text.encode()
    # Every possible split point, including inside each multi-byte character.
    for cut in range(1, len(data)):
        record = ToolOutputRecord(budget_bytes=len(data))
        pieces, out, _ = record_all(record, [("stdout", data[:cut]), ("stdout", data[cut:])])
        assert kept_text(pieces, "stdout") == text, cut
        assert out == StreamFigures(kept=len(data), omitted=0)


def test_the_budget_never_cuts_inside_a_character() -> None:
    data = "😀".encode() * 10  # four bytes each
    for budget in range(0, 41):
        record = ToolOutputRecord(budget_bytes=budget)
        pieces, out, _ = record_all(record, [("stdout", data[i : i + 3]) for i in range(0, 40, 3)])
        whole = budget // 4
        assert kept_text(pieces, "stdout") == "😀" * whole, budget
        assert out == StreamFigures(kept=whole * 4, omitted=40 - whole * 4), budget
        assert "\ufffd" not in kept_text(pieces, "stdout")


def test_the_same_output_keeps_the_same_text_whatever_the_chunking() -> None:
    data = ("línea ünïcödé €€ 😀\n" * 5000).encode()
    results = set()
    rng = random.Random(12)
    for _ in range(5):
        chunks, at = [], 0
        while at < len(data):
            size = rng.randint(1, 70_000)
            chunks.append(("stdout", data[at : at + size]))
            at += size
        record = ToolOutputRecord(budget_bytes=50_001)
        pieces, out, _ = record_all(record, chunks)
        results.add((kept_text(pieces, "stdout"), out))
    assert len(results) == 1
    ((text, figures),) = results
    assert figures.kept + figures.omitted == len(data) and 49_997 <= figures.kept <= 50_001
    assert text.encode() == data[: figures.kept]


def test_pieces_are_coalesced_and_bounded() -> None:
    record = ToolOutputRecord(budget_bytes=10 * PIECE_BYTES)
    emitted = []
    for _ in range(20 * PIECE_BYTES // 100):
        if record.feed("stdout", b"y" * 100):
            emitted += record.pieces()
    emitted += record.finish()[0]
    # 10 pieces' worth of bytes kept, in about as many events (not one per read).
    assert sum(len(text) for _, text in emitted) == 10 * PIECE_BYTES
    assert len(emitted) <= 11
    assert all(len(text) <= PIECE_BYTES + 100 for _, text in emitted)


def test_invalid_utf8_is_replaced_and_still_counted_exactly() -> None:
    record = ToolOutputRecord(budget_bytes=100)
    pieces, out, _ = record_all(record, [("stdout", b"ok\xff\xfe end")])
    assert kept_text(pieces, "stdout") == "ok\ufffd\ufffd end"
    assert out == StreamFigures(kept=8, omitted=0)


def test_a_gap_counts_its_bytes_and_keeps_nothing_after_it() -> None:
    record = ToolOutputRecord(budget_bytes=1000)
    record.feed("stdout", b"before ")
    record.feed("stdout", "€".encode()[:2])  # a character cut by the gap
    record.gap(stdout_bytes=500, stderr_bytes=20)
    record.feed("stdout", b"after")
    record.feed("stderr", b"late")
    pieces, truncation = record.finish("run-9")
    assert kept_text(pieces, "stdout") == "before " and kept_text(pieces, "stderr") == ""
    assert truncation.stdout == StreamFigures(kept=7, omitted=2 + 500 + 5)
    assert truncation.stderr == StreamFigures(kept=0, omitted=24)
    assert truncation.truncated


def test_a_gap_that_lost_only_stdout_leaves_stderr_whole() -> None:
    record = ToolOutputRecord(budget_bytes=1000)
    record.feed("stderr", b"err ")
    record.gap(stdout_bytes=10)
    record.feed("stderr", b"more")
    record.feed("stdout", b"after")
    pieces, truncation = record.finish()
    assert kept_text(pieces, "stderr") == "err more" and kept_text(pieces, "stdout") == ""
    assert truncation.stdout == StreamFigures(kept=0, omitted=15)
    assert truncation.stderr == StreamFigures(kept=8, omitted=0)


def test_a_gap_without_byte_counts_closes_both_streams() -> None:
    record = ToolOutputRecord(budget_bytes=1000)
    record.feed("stdout", b"a")
    record.gap()
    record.feed("stdout", b"b")
    record.feed("stderr", b"c")
    truncation = record.finish()[1]
    assert truncation.stdout == StreamFigures(kept=1, omitted=1)
    assert truncation.stderr == StreamFigures(kept=0, omitted=1)


def test_a_negative_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 0"):
        ToolOutputRecord(budget_bytes=-1)


async def test_pumped_reads_ahead_of_a_slow_consumer_and_flushes_when_output_waits() -> None:
    started = RunStarted(run=RunInfo(ref="run-1", status="running"))
    ended = RunEnded(run=RunInfo(ref="run-1", status="completed", exit_code=0))
    release = asyncio.Event()
    read_all = asyncio.Event()

    async def source() -> AsyncIterator[RunEvent]:
        yield started
        yield RunOutput(data=b"a" * 10, stream="stdout")
        await release.wait()
        for _ in range(3):
            yield RunOutput(data=b"b" * PIECE_BYTES, stream="stdout")
        yield RunGap(stdout_bytes=7)
        yield RunOutput(data=b"lost", stream="stderr")
        read_all.set()
        yield ended

    record = ToolOutputRecord(budget_bytes=2 * PIECE_BYTES)
    stream = pumped(source(), record, interval=0.01)
    assert isinstance(stream, AsyncGenerator)
    assert await anext(stream) is started
    # The 10 bytes wait: after the interval the pump says so.
    assert await anext(stream) is None
    assert record.pieces() == [("stdout", "a" * 10)]
    release.set()
    # The consumer is slow (it reads nothing yet): the pump reads on regardless.
    await read_all.wait()
    rest = [event async for event in stream]
    assert rest[-1] is ended and all(event is None for event in rest[:-1])
    pieces, truncation = record.finish("run-1")
    assert len("a" * 10 + kept_text(pieces, "stdout")) == 2 * PIECE_BYTES
    assert truncation.stdout.omitted == 3 * PIECE_BYTES + 10 - 2 * PIECE_BYTES + 7
    # The gap lost stdout bytes only: stderr is whole.
    assert kept_text(pieces, "stderr") == "lost" and truncation.stderr.omitted == 0


async def test_pumped_flushes_output_that_arrives_while_the_consumer_waits() -> None:
    """A line printed after the consumer began to wait (and then silence) is emitted within
    the interval, not held until the run ends."""
    printed = asyncio.Event()

    async def source() -> AsyncIterator[RunEvent]:
        yield RunStarted(run=RunInfo(ref="run-3", status="running"))
        await printed.wait()
        yield RunOutput(data=b"started 42\n", stream="stdout")
        await asyncio.Event().wait()  # runs for ever, silent

    record = ToolOutputRecord()
    stream = pumped(source(), record, interval=0.01)
    assert isinstance(stream, AsyncGenerator)
    assert isinstance(await anext(stream), RunStarted)
    waiting = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)  # the consumer waits with nothing pending
    printed.set()
    assert await asyncio.wait_for(waiting, 10) is None
    assert record.pieces() == [("stdout", "started 42\n")]
    await stream.aclose()


async def test_pumped_raises_the_streams_error_and_stops_reading_when_closed() -> None:
    closed = asyncio.Event()

    async def failing() -> AsyncIterator[RunEvent]:
        yield RunOutput(data=b"x", stream="stdout")
        raise ToolHostUnavailableError("gone")

    with pytest.raises(ToolHostUnavailableError, match="gone"):
        async for _ in pumped(failing(), ToolOutputRecord()):
            pass

    async def silent() -> AsyncIterator[RunEvent]:
        try:
            yield RunStarted(run=RunInfo(ref="run-2", status="running"))
            await asyncio.Event().wait()
        finally:
            closed.set()

    stream = pumped(silent(), ToolOutputRecord())
    assert isinstance(stream, AsyncGenerator)
    assert isinstance(await anext(stream), RunStarted)
    await stream.aclose()
    assert closed.is_set()


def test_the_result_text_states_the_exact_figures_and_the_ref() -> None:
    record = ToolOutputRecord(budget_bytes=4)
    record.feed("stdout", b"0123456789")
    truncation = record.finish("maka://run/1")[1]
    text = result_text("tail of it", truncation)
    assert text == (
        "tail of it\n[output truncated at 4 bytes per stream: stdout 10 bytes, 6 omitted; "
        "the complete output is kept by run maka://run/1]"
    )
    long = "z" * 20_000
    assert result_text(long, None) == "[… the last 16000 characters …]\n" + "z" * 16_000
    assert result_text("whole", ToolOutputRecord().finish()[1]) == "whole"
