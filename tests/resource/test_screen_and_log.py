"""The terminal emulator wrapper and the output log, on their own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pyte
import pyte.screens
import pytest
from wcwidth import wcwidth

from maka_runtime.resource.core import PtyOutput
from maka_runtime.resource.core import screen as screen_module
from maka_runtime.resource.core.config import ShellRunConfig
from maka_runtime.resource.core.journal import JournalWriter
from maka_runtime.resource.core.live_output import RunOutput
from maka_runtime.resource.core.output import (
    OutputChunk,
    OutputEvent,
    OutputGap,
    OutputLog,
    TailBuffer,
)
from maka_runtime.resource.core.output_follow import check_after, follow_live
from maka_runtime.resource.core.screen import TerminalScreen, _Screen
from tests.support.run_records import run_record


def test_the_screen_renders_rows_cursor_and_wide_characters() -> None:
    screen = TerminalScreen(20, 4)
    screen.feed("hello\r\n世界!\r\n".encode())
    snapshot = screen.snapshot()
    assert snapshot.screen == ("hello", "世界!", "", "")
    assert (snapshot.cursor_row, snapshot.cursor_col) == (2, 0)
    assert (snapshot.cols, snapshot.rows) == (20, 4)
    assert snapshot.cursor_visible


def test_a_character_split_across_feeds_renders_once() -> None:
    screen = TerminalScreen(20, 2)
    euro = "€".encode()
    screen.feed(euro[:1])
    screen.render()
    screen.feed(euro[1:] + b"\xff!")
    assert screen.snapshot().screen[0] == "€\ufffd!"


def test_scrollback_keeps_the_newest_rows_up_to_its_bound() -> None:
    screen = TerminalScreen(10, 3, scrollback=5)
    screen.feed(b"".join(b"%d\r\n" % n for n in range(1, 21)))
    snapshot = screen.snapshot()
    assert snapshot.scrollback == ("14", "15", "16", "17", "18")
    assert snapshot.screen == ("19", "20", "")


def test_clearing_scrollback_and_hiding_the_cursor() -> None:
    screen = TerminalScreen(10, 2)
    screen.feed(b"a\r\nb\r\nc\r\n\x1b[3J\x1b[?25l")
    snapshot = screen.snapshot()
    assert snapshot.scrollback == ()
    assert not snapshot.cursor_visible


def test_the_alternate_screen_saves_and_restores_the_main_screen() -> None:
    screen = TerminalScreen(20, 3)
    screen.feed(b"shell$ vi\r\n\x1b[?1049h\x1b[Hediting")
    inside = screen.snapshot()
    assert inside.alternate_screen
    assert inside.screen == ("editing", "", "")
    screen.feed(b"\r\n" * 5)  # scrolling the alternate screen adds no scrollback
    assert screen.snapshot().scrollback == ()
    screen.feed(b"\x1b[?1049l")
    outside = screen.snapshot()
    assert not outside.alternate_screen
    assert outside.screen == ("shell$ vi", "", "")
    assert (outside.cursor_row, outside.cursor_col) == (1, 0)


def test_the_terminal_answers_cursor_position_queries() -> None:
    answers: list[str] = []
    screen = TerminalScreen(20, 3, respond=answers.append)
    screen.feed(b"ab\x1b[6n")
    screen.render()
    assert answers == ["\x1b[1;3R"]


def test_a_flood_skips_ahead_to_the_newest_output_at_a_line_boundary() -> None:
    screen = TerminalScreen(20, 3, max_pending=1024)
    for n in range(2000):
        screen.feed(b"line %d\r\n" % n)
    assert screen.pending <= 1024
    assert screen.skipped_bytes > 0
    snapshot = screen.snapshot()
    assert snapshot.screen == ("line 1998", "line 1999", "")
    assert all(row.startswith("line ") for row in snapshot.scrollback)


def test_a_chunk_larger_than_the_queue_keeps_its_newest_half_from_a_line_start() -> None:
    screen = TerminalScreen(20, 3, max_pending=1024)
    screen.feed(b"partial")
    flood = b"".join(b"row %04d\r\n" % n for n in range(300))
    screen.feed(flood)
    kept = 3000 - screen.skipped_bytes + len(b"partial")
    assert kept == screen.pending <= 512
    assert flood[-kept - 1 : -kept] == b"\n"  # the kept part starts a line
    assert screen.skipped_bytes == len(b"partial") + len(flood) - kept
    assert screen.snapshot().screen == ("row 0298", "row 0299", "")


def test_no_slice_is_drawn_while_a_flood_outruns_the_emulator() -> None:
    screen = TerminalScreen(20, 3, max_pending=1024)
    screen.feed(b"before\r\n")
    assert screen.render_slice(64) == 0  # a quiet terminal is drawn slice by slice
    for n in range(300):
        screen.feed(b"line %d\r\n" % n)  # skips ahead
    queued = screen.pending
    assert screen.skipped_bytes > 0
    assert screen.render_slice(64) == queued  # nothing drawn: the flood outran the emulator
    assert screen.render_slice(64) == queued - 64  # it stopped: slices are drawn again
    snapshot = screen.snapshot()
    assert snapshot.screen == ("line 298", "line 299", "")
    assert all(row.startswith(("line ", "before")) for row in snapshot.scrollback)


async def test_the_periodic_render_of_a_run_waits_out_a_flood() -> None:
    config = ShellRunConfig(screen_max_pending=1024, render_slice_bytes=64, render_interval=0.0)
    record = run_record("pty-flood", mode="pty", output=PtyOutput(cols=20, rows=3))
    output = RunOutput(
        record,
        config,
        journal=JournalWriter(None, 0),
        open_journal=lambda: None,
        emit_output=None,
        respond=lambda _: None,
    )
    screen = output.screen
    assert screen is not None
    output.on_output("pty", b"".join(b"line %d\r\n" % n for n in range(300)))
    queued = screen.pending
    await asyncio.sleep(0)  # the render step scheduled by that chunk runs first
    assert screen.pending == queued  # it drew nothing of the flood
    for _ in range(4 * (queued // 64 + 1)):  # no more output: the next steps draw it
        if not screen.pending:
            break
        await asyncio.sleep(0)  # a step (a slice) per pass of the loop
    assert screen.pending == 0
    assert screen.snapshot().screen == ("line 298", "line 299", "")
    output.close()


def test_rows_with_double_width_characters_after_narrow_ones_render_once() -> None:
    screen = TerminalScreen(12, 3)
    screen.feed("ab世c\r\nplain\r\nx界".encode())
    assert screen.snapshot().screen == ("ab世c", "plain", "x界")


def test_plain_text_draws_cell_for_cell_what_pyte_draws() -> None:
    output = (
        "plain line\r\n" + "x" * 12 + "exactly a row and then some\r\n"  # wraps at 12
        "\x1b[31mred\x1b[1;42m bold on green\x1b[0m reset\r\n"
        "abcdef\x1b[4h\x1b[1GIN\x1b[4l\x1b[12Gz!\r\n"  # insert mode; a write at the last column
        "\x1b[?7l" + "y" * 20 + "\x1b[?7h\r\n"  # no autowrap: the last column is rewritten
        "tab\there\r\nwide 世界 and e\u0301\r\n\x1b[5;3Hmoved\x1b[2K\x1b[Alast"
    )
    ours = _Screen(12, 16, scrollback=0, respond=None)  # tall enough that nothing scrolls
    theirs = pyte.Screen(12, 16)
    for screen in (ours, theirs):
        stream = pyte.Stream(screen)
        for part in (output[:7], output[7:40], output[40:]):  # text split across feeds
            stream.feed(part)
        stream.feed("\r\n")
        screen.draw("ab\x7fcd")  # pyte stops drawing at an unprintable character
        screen.define_charset("0", "(")  # DEC line drawing (a stream in UTF-8 mode never asks)
        stream.feed("\r\nlqqk")
    assert (ours.cursor.x, ours.cursor.y) == (theirs.cursor.x, theirs.cursor.y)
    assert ours.cursor.attrs == theirs.cursor.attrs
    assert ours.display == theirs.display
    for y in range(16):
        assert [ours.buffer[y][x] for x in range(12)] == [theirs.buffer[y][x] for x in range(12)]
    assert ours.dirty == theirs.dirty


def test_plain_text_is_drawn_and_rendered_without_a_width_lookup_per_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked_up: list[str] = []

    def counted(char: str) -> int:
        looked_up.append(char)
        return int(wcwidth(char))

    monkeypatch.setattr(pyte.screens, "wcwidth", counted)  # pyte's draw
    monkeypatch.setattr(screen_module, "wcwidth", counted)  # rendering rows
    screen = TerminalScreen(80, 24)
    screen.feed(b"".join(b"plain line %d\r\n" % n for n in range(100)))
    snapshot = screen.snapshot()
    assert snapshot.screen[-2] == "plain line 99"
    assert snapshot.scrollback[-1] == "plain line 76"
    assert looked_up == []
    screen.feed("wide 世界\r\n".encode())  # a double-width character still needs its width
    assert screen.snapshot().screen[-2] == "wide 世界"
    assert "世" in looked_up


def test_resizing_keeps_the_content() -> None:
    screen = TerminalScreen(10, 2)
    screen.feed(b"abc")
    screen.resize(30, 5)
    snapshot = screen.snapshot()
    assert (snapshot.cols, snapshot.rows) == (30, 5)
    assert snapshot.screen[0] == "abc"


def test_a_tail_buffer_keeps_the_newest_bytes_and_flags_truncation() -> None:
    tail = TailBuffer(8)
    tail.append(b"0123")
    assert (tail.getvalue(), tail.truncated) == (b"0123", False)
    tail.append(b"456789")
    assert (tail.getvalue(), tail.truncated) == (b"23456789", True)
    # A character cut in half by truncation is dropped, not shown as a replacement character.
    cut = TailBuffer(3)
    cut.append("x€y".encode())  # x e2 82 ac y: the tail (82 ac y) starts inside the euro sign
    assert cut.text() == "y"


def follow_memory(log: OutputLog, after: int = 0, coalesce: int = 0) -> AsyncIterator[OutputEvent]:
    """Follow *log* of a run without a journal: what memory no longer holds is a gap."""
    check_after(after, log.last_sequence, 0, log.before(after + 1) is not None)
    return follow_live(log, JournalWriter(None, 0), lambda: None, after, coalesce=coalesce)


async def test_followers_replay_then_follow_and_see_gaps_explicitly() -> None:
    log = OutputLog(max_bytes=6)
    for data in (b"aa", b"bb", b"cc", b"dd"):  # with "dd", "aa" no longer fits
        log.append("stdout", data)
    assert log.last_sequence == 4
    events: list[object] = []
    caught_up = asyncio.Event()

    async def follow() -> None:
        async for event in follow_memory(log):
            events.append(event)
            if event == OutputChunk(4, "stdout", b"dd"):
                caught_up.set()

    follower = asyncio.create_task(follow())
    await caught_up.wait()  # it has replayed what is kept and now waits for more
    log.append("stderr", b"ee")
    log.close()
    await follower
    assert events == [
        OutputGap(1, 1, stdout_bytes=2),
        OutputChunk(2, "stdout", b"bb"),
        OutputChunk(3, "stdout", b"cc"),
        OutputChunk(4, "stdout", b"dd"),
        OutputChunk(5, "stderr", b"ee"),
    ]
    assert [event async for event in follow_memory(log, 4)] == [OutputChunk(5, "stderr", b"ee")]
    # "ee" pushed "bb" out too: a late follower from the start is told it missed 1-2.
    assert await anext(follow_memory(log)) == OutputGap(1, 2, stdout_bytes=4)


async def test_a_lagging_follower_gets_merged_chunks_with_the_last_sequence() -> None:
    log = OutputLog(max_bytes=1024)
    for stream, data in [("stdout", b"a"), ("stdout", b"b"), ("stderr", b"c"), ("stdout", b"d")]:
        log.append(stream, data)  # type: ignore[arg-type]
    log.append("stdout", b"e" * 10)
    log.close()
    merged = [event async for event in follow_memory(log, coalesce=8)]
    assert merged == [
        OutputChunk(2, "stdout", b"ab"),
        OutputChunk(3, "stderr", b"c"),
        OutputChunk(4, "stdout", b"d"),
        OutputChunk(5, "stdout", b"e" * 10),  # over the limit: not merged with "d"
    ]
    assert await anext(follow_memory(log, 2, coalesce=8)) == OutputChunk(3, "stderr", b"c")
