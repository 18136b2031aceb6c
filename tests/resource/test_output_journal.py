"""Each run's output journal: every chunk kept on disk up to the per-run bound, exact counts of
the rest, replay after the run ends and after a restart, the total bound, removal on archive,
and pages of it by ref."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest

from maka_runtime.resource.core import (
    InvalidRequestError,
    OutputChunk,
    OutputEvent,
    OutputGap,
    ShellRunRecord,
)
from maka_runtime.resource.core.errors import OutOfRangeError
from maka_runtime.resource.core.journal import JournalReader, JournalWriter, scan_journal
from maka_runtime.resource.core.journals import OutputJournals
from maka_runtime.resource.core.output_counts import JournalSummary, StreamBytes
from tests.resource.conftest import (
    SESSION_ID,
    TEST_CONFIG,
    Host,
    bash_input,
    close_host,
    open_host,
    read_until,
)

STDOUT, STDERR = 600_000, 300_000
#: Prints STDOUT bytes of "o" and STDERR bytes of "e", then DONE on each.
PRINT = (
    f"head -c {STDOUT} /dev/zero | tr '\\0' o; head -c {STDERR} /dev/zero | tr '\\0' e >&2; "
    "echo DONE; echo DONE >&2"
)


async def events_of(host: Host, ref: str, after: int = 0) -> list[OutputEvent]:
    attachment = await host.coordinator.attach(SESSION_ID, ref, after_sequence=after)
    return [event async for event in attachment.events]


def data_of(events: list[OutputEvent]) -> bytes:
    return b"".join(event.data for event in events if isinstance(event, OutputChunk))


def per_stream(events: list[OutputEvent]) -> StreamBytes:
    """Bytes per stream received as chunks, plus what the gaps say they held."""
    total = StreamBytes()
    for event in events:
        if isinstance(event, OutputChunk):
            total = total.plus(event.stream, len(event.data))
        else:
            total = total.add(StreamBytes(event.stdout_bytes, event.stderr_bytes, event.pty_bytes))
    return total


def test_the_journal_keeps_the_first_part_and_counts_the_rest_exactly(tmp_path: Path) -> None:
    path = tmp_path / "run.out"
    writer = JournalWriter(path, limit=10)
    assert writer.append(1, "stdout", b"aaaa")
    assert writer.append(2, "stderr", b"bbbb")
    assert not writer.append(3, "stdout", b"ccc")  # 11 > 10: not kept, nor anything after
    assert not writer.append(4, "stderr", b"d")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    summary = writer.close()
    assert summary == JournalSummary(4, 2, StreamBytes(4, 4, 0), StreamBytes(3, 1, 0))
    # A later host reads the same back from the file alone (the omitted record is exact).
    assert scan_journal(path) == summary
    reader = JournalReader(path)
    chunks = reader.read(1 << 20)
    reader.close()
    assert [(c.sequence, c.stream, c.data) for c in chunks] == [
        (1, "stdout", b"aaaa"),
        (2, "stderr", b"bbbb"),
    ]


def test_a_torn_last_record_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "run.out"
    writer = JournalWriter(path, limit=1 << 20)
    writer.append(1, "pty", b"hello")
    writer.append(2, "pty", b"world")
    writer.close()
    with path.open("r+b") as file:  # a crash in the middle of the second write
        file.truncate(path.stat().st_size - 2)
    assert scan_journal(path) == JournalSummary(1, 1, StreamBytes(pty=5))


async def test_a_print_beyond_the_bound_gives_one_gap_with_exact_counts(tmp_path: Path) -> None:
    config = dataclasses.replace(TEST_CONFIG, replay_bytes=64 * 1024, max_run_output_bytes=400_000)
    host = await open_host(tmp_path, config=config)
    try:
        started = await host.coordinator.run_background_bash(
            bash_input(PRINT + "; sleep 60", "call.bound")
        )
        await read_until(host.manager, started.ref, b"DONE")
        attachment = await host.coordinator.attach(SESSION_ID, started.ref, after_sequence=0)
        live: list[OutputEvent] = []
        # Everything is printed: the journal's part, one gap, then what memory holds.
        while per_stream(live) != StreamBytes(STDOUT + 5, STDERR + 5):
            live.append(await anext(attachment.events))
        gaps = [event for event in live if isinstance(event, OutputGap)]
        assert len(gaps) == 1
        assert per_stream(live) == StreamBytes(STDOUT + 5, STDERR + 5)
        kept = data_of(live[: live.index(gaps[0])])
        assert 0 < len(kept) <= 400_000 and kept.count(b"o") + kept.count(b"e") == len(kept)
        # Once ended (its memory gone), the same: the kept part, then one gap for the rest.
        await host.coordinator.stop(SESSION_ID, started.ref)
        final = await host.manager.wait_terminal(SESSION_ID, started.ref)
        assert final.journal is not None and final.journal.kept.total == len(kept)
        ended = await events_of(host, started.ref)
        assert data_of(ended) == kept and isinstance(ended[-1], OutputGap)
        assert per_stream(ended) == StreamBytes(STDOUT + 5, STDERR + 5)
        assert ended[-1] == OutputGap.of(
            final.journal.kept_sequence + 1, final.journal.last_sequence, final.journal.omitted
        )
    finally:
        await close_host(host)


async def test_an_ended_run_replays_its_output_after_a_restart(tmp_path: Path) -> None:
    host = await open_host(tmp_path)
    try:
        started = await host.coordinator.run_background_bash(
            bash_input("echo one; seq 1 150000; echo last", "call.pty", pty=True)
        )
        final = await host.manager.wait_terminal(SESSION_ID, started.ref)
        before = await events_of(host, started.ref)
    finally:
        await close_host(host)
    assert b"one" in data_of(before) and data_of(before).endswith(b"last\r\n")
    again = await open_host(tmp_path)
    try:
        after = await events_of(again, started.ref)
        assert data_of(after) == data_of(before)
        assert all(isinstance(event, OutputChunk) for event in after)
        assert (await again.coordinator.get(SESSION_ID, started.ref)).journal == final.journal
        # From a sequence on: exactly the rest.
        assert len(after) >= 3  # at most 256 KiB a chunk
        middle = [e.sequence for e in after if isinstance(e, OutputChunk)][len(after) // 2]
        rest = await events_of(again, started.ref, after=middle)
        assert data_of(after).endswith(data_of(rest)) and rest[0].sequence == middle + 1  # type: ignore[union-attr]
    finally:
        await close_host(again)


async def test_ended_runs_journals_are_bounded_oldest_first(tmp_path: Path) -> None:
    config = dataclasses.replace(TEST_CONFIG, max_kept_output_bytes=25_000)
    host = await open_host(tmp_path, config=config)
    try:
        runs: list[ShellRunRecord] = []
        for index in range(3):
            record = await host.coordinator.run_foreground_bash(
                bash_input("head -c 10000 /dev/zero", f"call.{index}")
            )
            runs.append(record)
        journals = host.manager.journals
        assert journals.evicted == 1 and journals.ended_bytes <= 25_000
        first = runs[0]
        assert not (Path(str(journals.directory)) / f"{first.id}.out").exists()
        # Reported, not silent: a gap for all of it, and an evicted page.
        assert await events_of(host, first.ref) == [
            OutputGap(1, first.journal.last_sequence, stdout_bytes=10_000)  # type: ignore[union-attr]
        ]
        page = await host.coordinator.read_output(SESSION_ID, first.ref)
        assert page.evicted and page.end_reached and page.chunks == ()
        assert page.omitted is not None and page.omitted.stdout_bytes == 10_000
        assert data_of(await events_of(host, runs[2].ref)) == bytes(10_000)
    finally:
        await close_host(host)


async def test_archiving_a_session_removes_its_runs_journals(tmp_path: Path) -> None:
    host = await open_host(tmp_path)
    try:
        done = await host.coordinator.run_foreground_bash(bash_input("echo done", "call.done"))
        live = await host.coordinator.run_background_bash(
            bash_input("echo live; sleep 60", "call.live")
        )
        await read_until(host.manager, live.ref, b"live")  # its journal exists from its output
        directory = Path(str(host.manager.journals.directory))
        paths = [directory / f"{record.id}.out" for record in (done, live)]
        assert all(path.exists() for path in paths)
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        await host.coordinator.archive_session(SESSION_ID)
        assert not any(path.exists() for path in paths)
        assert host.manager.journals.ended_bytes == 0
    finally:
        await close_host(host)


async def test_read_output_pages_hold_exactly_the_bytes_printed(tmp_path: Path) -> None:
    config = dataclasses.replace(TEST_CONFIG, max_page_bytes=64 * 1024)
    host = await open_host(tmp_path, config=config)
    try:
        record = await host.coordinator.run_foreground_bash(
            bash_input("seq 1 200000; seq 1 1000 >&2", "call.pages")
        )
        expected = "".join(f"{n}\n" for n in range(1, 200_001)).encode()
        stdout, stderr, after, pages = b"", b"", 0, 0
        while True:
            page = await host.coordinator.read_output(
                SESSION_ID, record.ref, after_sequence=after, max_bytes=1 << 30
            )
            pages += 1
            sizes = [len(chunk.data) for chunk in page.chunks]
            assert sum(sizes[1:]) <= 64 * 1024  # capped by max_page_bytes
            assert [chunk.sequence for chunk in page.chunks] == list(
                range(after + 1, after + 1 + len(page.chunks))
            )
            for chunk in page.chunks:
                if chunk.stream == "stdout":
                    stdout += chunk.data
                else:
                    stderr += chunk.data
            after = page.next_after_sequence
            if page.end_reached:
                break
        assert stdout == expected and stderr == "".join(f"{n}\n" for n in range(1, 1001)).encode()
        assert pages > 1 and page.omitted is None and after == page.last_sequence
        # Bad positions are refused, naming the field.
        for bad, error in ((after + 1, OutOfRangeError), (-1, InvalidRequestError)):
            with pytest.raises(error) as refused:
                await host.coordinator.read_output(SESSION_ID, record.ref, after_sequence=bad)
            assert refused.value.field == "after_sequence"
        with pytest.raises(InvalidRequestError):
            await host.coordinator.read_output(SESSION_ID, record.ref, max_bytes=-1)
    finally:
        await close_host(host)


async def test_the_journal_directory_and_files_are_private(tmp_path: Path) -> None:
    directory = tmp_path / "output"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    journals = await OutputJournals.open(directory, run_limit=100, total_limit=1000)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    writer = journals.writer("run1")
    writer.append(1, "stdout", b"x")
    writer.close()
    assert stat.S_IMODE((directory / "run1.out").stat().st_mode) == 0o600


def test_the_journal_file_is_created_with_the_first_chunk(tmp_path: Path) -> None:
    path = tmp_path / "run.out"
    writer = JournalWriter(path, 100)
    assert not path.exists() and writer.size == 0
    writer.append(1, "stdout", b"first")
    assert path.exists() and writer.kept_sequence == 1
    writer.close()
    assert [chunk.data for chunk in _read_all(path)] == [b"first"]
    # A first chunk beyond the bound still makes the file, for its exact omitted record.
    over = tmp_path / "over.out"
    writer = JournalWriter(over, 4)
    writer.append(1, "stderr", b"too long")
    writer.close()
    assert scan_journal(over) == JournalSummary(1, 0, StreamBytes(), StreamBytes(stderr=8))


def _read_all(path: Path) -> list[OutputChunk]:
    reader = JournalReader(path)
    try:
        return [OutputChunk(c.sequence, c.stream, c.data) for c in reader.read(10)]
    finally:
        reader.close()


async def test_a_run_that_prints_nothing_leaves_no_journal(tmp_path: Path) -> None:
    host = await open_host(tmp_path)
    try:
        silent = await host.coordinator.run_foreground_bash(bash_input("true", "call.silent"))
        loud = await host.coordinator.run_foreground_bash(bash_input("echo hi", "call.loud"))
        directory = Path(str(host.manager.journals.directory))
        assert not (directory / f"{silent.id}.out").exists()
        assert (directory / f"{loud.id}.out").exists()
        assert silent.journal == JournalSummary() and host.manager.journals.ended_bytes > 0
        assert await events_of(host, silent.ref) == []
        page = await host.coordinator.read_output(SESSION_ID, silent.ref)
        assert page.chunks == () and page.end_reached and not page.evicted
    finally:
        await close_host(host)
