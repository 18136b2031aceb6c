"""Output: pipes tails and floods, PTY rendering, UTF-8 decoding, sequences."""

from __future__ import annotations

import asyncio
import time
import tracemalloc

from maka_runtime.resource.core import (
    OutputChunk,
    PipesOutput,
    PtyOutput,
    ShellRunRecord,
)
from tests.resource.conftest import SESSION_ID, Host, bash_input, helper, read_until

MiB = 1024 * 1024


class LoopLag:
    """Measures how late the event loop runs a 10 ms ticker: a stalled loop shows up here."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            self.worst = max(self.worst, time.monotonic() - before - 0.01)

    def __enter__(self) -> LoopLag:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *_: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def test_a_100_mb_flood_through_pipes_neither_stalls_nor_grows_memory(host: Host) -> None:
    size = 100 * 1000 * 1000
    received = 0

    def count(chunk: OutputChunk) -> None:
        nonlocal received
        received += len(chunk.data)

    tracemalloc.start()
    try:
        with LoopLag() as lag:
            run = await host.coordinator.run_foreground_bash(
                bash_input(helper("flood.py", str(size)), "call.flood", emit_output=count)
            )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert run.status == "completed"
    assert received == size + len(b"END\n")  # every byte was read, live
    assert isinstance(run.output, PipesOutput)
    assert run.output.stdout_truncated
    assert not run.output.stderr_truncated
    assert len(run.output.stdout) == MiB  # the retained tail: the last 1 MiB
    assert run.output.stdout.endswith("xxxxEND\n")
    assert peak < 24 * MiB, f"peak traced memory {peak / MiB:.1f} MiB"
    assert lag.worst < 1.0, f"the event loop stalled for {lag.worst:.2f} s"


async def test_a_pty_flood_keeps_the_loop_responsive_and_the_screen_current(host: Host) -> None:
    with LoopLag() as lag:
        started = await host.coordinator.run_background_bash(
            bash_input(
                "yes 'flooding the terminal' | head -n 300000; echo END-OF-FLOOD",
                "call.pty-flood",
                pty=True,
            )
        )
        run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert run.status == "completed"
    assert isinstance(run.output, PtyOutput)
    assert "END-OF-FLOOD" in run.output.screen
    assert len(run.output.scrollback) == 500  # bounded
    assert lag.worst < 1.0, f"the event loop stalled for {lag.worst:.2f} s"


async def test_stdout_and_stderr_are_kept_apart_without_truncation_flags(host: Host) -> None:
    run = await host.coordinator.run_foreground_bash(
        bash_input("echo out; echo err >&2; printf more", "call.streams")
    )
    assert run.output == PipesOutput(stdout="out\nmore", stderr="err\n")


async def test_invalid_utf8_in_pipes_is_replaced_not_fatal(host: Host) -> None:
    run = await host.coordinator.run_foreground_bash(
        bash_input(r"printf 'ok:\xff\xfe:\xe2\x82\xac:end'", "call.bad-utf8")
    )
    assert run.status == "completed"
    assert isinstance(run.output, PipesOutput)
    assert run.output.stdout == "ok:\ufffd\ufffd:€:end"


async def test_a_multibyte_character_split_across_pty_reads_renders_once(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input(helper("split_utf8.py"), "call.split", pty=True)
    )
    chunks: list[bytes] = []
    async for event in host.manager.follow_output(SESSION_ID, started.ref):
        assert isinstance(event, OutputChunk)
        chunks.append(event.data)
        if b"".join(chunks).endswith(b"A\xe2\x82"):
            break
    # The host has read the first half of the character on its own; now release the rest.
    await host.manager.write_stdin(SESSION_ID, started.ref, "\r")
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert run.status == "completed"
    assert isinstance(run.output, PtyOutput)
    assert run.output.screen[:3] == ("A€B", "bad:\ufffd\ufffd:end", "END")


async def test_a_pty_has_its_size_and_term_before_the_program_starts(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input('stty size; echo "TERM=$TERM"', "call.size", pty=True, cols=100, rows=30)
    )
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert isinstance(run.output, PtyOutput)
    assert run.output.screen[:2] == ("30 100", "TERM=xterm-256color")
    assert (run.output.cols, run.output.rows) == (100, 30)
    assert len(run.output.screen) == 30


async def test_the_default_pty_is_80_by_24(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("stty size", "call.default-size", pty=True)
    )
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert isinstance(run.output, PtyOutput)
    assert run.output.screen[0] == "24 80"


async def test_alternate_screen_is_flagged_and_restores_the_main_screen(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input(
            r"printf 'main screen\n'; printf '\033[?1049hFULLSCREEN'; read -r _; "
            r"printf '\033[?1049l'; echo back",
            "call.alt",
            pty=True,
        )
    )
    await read_until(host.manager, started.ref, b"FULLSCREEN")
    during = host.manager.screen(SESSION_ID, started.ref)
    assert during.alternate_screen
    assert "FULLSCREEN" in during.screen
    assert "main screen" not in during.screen
    await host.manager.write_stdin(SESSION_ID, started.ref, "\r")
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert isinstance(run.output, PtyOutput)
    assert not run.output.alternate_screen
    assert run.output.screen[0] == "main screen"
    assert "back" in run.output.screen
    assert "FULLSCREEN" not in run.output.text()


async def test_scrollback_is_bounded_to_500_rows(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("seq 1 2000", "call.seq", pty=True)
    )
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert isinstance(run.output, PtyOutput)
    rows = [*run.output.scrollback, *run.output.screen]
    assert len(run.output.scrollback) == 500
    assert rows[-2] == "2000" or rows[-1] == "2000" or "2000" in run.output.screen
    numbers = [int(row) for row in rows if row]
    assert numbers == list(range(2001 - len(numbers), 2001))


async def test_foreground_chunks_are_numbered_from_1_without_gaps(host: Host) -> None:
    chunks: list[OutputChunk] = []
    run = await host.coordinator.run_foreground_bash(
        bash_input(
            "for i in $(seq 1 50); do echo line-$i; echo err-$i >&2; done",
            "call.chunks",
            emit_output=chunks.append,
        )
    )
    assert [chunk.sequence for chunk in chunks] == list(range(1, len(chunks) + 1))
    stdout = b"".join(chunk.data for chunk in chunks if chunk.stream == "stdout").decode()
    stderr = b"".join(chunk.data for chunk in chunks if chunk.stream == "stderr").decode()
    assert isinstance(run.output, PipesOutput)
    assert (stdout, stderr) == (run.output.stdout, run.output.stderr)


async def test_streaming_a_foreground_run_yields_chunks_then_the_final_record(host: Host) -> None:
    events = [
        event
        async for event in host.coordinator.stream_foreground_bash(
            bash_input("echo one; echo two", "call.stream")
        )
    ]
    *chunks, final = events
    assert isinstance(final, ShellRunRecord)
    assert final.status == "completed"
    assert all(isinstance(chunk, OutputChunk) for chunk in chunks)
    assert b"".join(chunk.data for chunk in chunks if isinstance(chunk, OutputChunk)) == (
        b"one\ntwo\n"
    )


async def test_abandoning_a_foreground_stream_cancels_the_run(host: Host) -> None:
    stream = host.coordinator.stream_foreground_bash(
        bash_input("echo first; sleep 60", "call.abandon-stream")
    )
    first = await anext(stream)
    assert isinstance(first, OutputChunk)
    await stream.aclose()
    page = await host.coordinator.list_runs(SESSION_ID)
    (run,) = page.runs
    final = await host.manager.wait_terminal(SESSION_ID, run.ref)
    assert final.status == "cancelled"


async def test_inspecting_a_live_run_shows_its_output_so_far(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("echo partial; sleep 60", "call.live")
    )
    await read_until(host.manager, started.ref, b"partial\n")
    live = await host.coordinator.get(SESSION_ID, started.ref)
    assert live.status == "running"
    assert live.revision == started.revision
    assert isinstance(live.output, PipesOutput)
    assert live.output.stdout == "partial\n"
    await host.coordinator.stop(SESSION_ID, started.ref)


async def test_the_pty_is_the_controlling_terminal_so_ctrl_c_interrupts(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input(
            "echo via-tty > /dev/tty && echo ctty-ok; sleep 60; echo not-interrupted",
            "call.ctty",
            pty=True,
        )
    )
    await read_until(host.manager, started.ref, b"ctty-ok")
    await host.manager.write_stdin(SESSION_ID, started.ref, "\x03")  # Ctrl-C
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert run.status == "failed"
    assert run.signal == 2  # SIGINT, delivered by the terminal to its foreground group
    assert isinstance(run.output, PtyOutput)
    assert run.output.screen[:3] == ("via-tty", "ctty-ok", "^C")
    assert "not-interrupted" not in run.output.text()
