"""Listing, watching and attaching."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from maka_runtime.resource.core import (
    InvalidRequestError,
    OutputChunk,
    PtyOutput,
    ShellRunRecord,
)
from tests.resource.conftest import (
    SESSION_ID,
    TEST_CONFIG,
    Host,
    bash_input,
    close_host,
    open_host,
    read_until,
)


async def test_list_pages_oldest_first_with_an_opaque_token(host: Host) -> None:
    refs = [
        (await host.coordinator.run_foreground_bash(bash_input("true", f"call.{n}"))).ref
        for n in range(5)
    ]
    first = await host.coordinator.list_runs(SESSION_ID, page_size=2)
    second = await host.coordinator.list_runs(
        SESSION_ID, page_size=2, page_token=first.next_page_token
    )
    third = await host.coordinator.list_runs(
        SESSION_ID, page_size=2, page_token=second.next_page_token
    )
    assert [run.ref for page in (first, second, third) for run in page.runs] == refs
    assert third.next_page_token == ""
    assert (await host.coordinator.list_runs("another-session")).runs == ()


async def test_watch_replays_then_follows_every_committed_change(host: Host) -> None:
    done = await host.coordinator.run_foreground_bash(bash_input("true", "call.before"))
    seen: list[ShellRunRecord] = []
    stopped = asyncio.Event()

    async def watch() -> None:
        async for record in host.coordinator.watch(SESSION_ID):
            seen.append(record)
            if record.status == "cancelled":
                stopped.set()
                return

    watcher = asyncio.create_task(watch())
    live = await host.coordinator.run_background_bash(bash_input("sleep 60", "call.live"))
    await host.coordinator.stop(SESSION_ID, live.ref)
    await stopped.wait()
    await watcher
    # The finished run is replayed once in its latest revision; the live one changes in order.
    assert seen[0] == done
    live_statuses = [record.status for record in seen if record.ref == live.ref]
    assert live_statuses[-1] == "cancelled"
    assert live_statuses == sorted(live_statuses, key=["starting", "running", "cancelled"].index)
    change_seqs = [record.change_seq for record in seen]
    assert change_seqs == sorted(change_seqs) and len(set(change_seqs)) == len(change_seqs)

    # Resuming after the last seen change replays nothing twice.
    resumed: list[ShellRunRecord] = []
    after = seen[-1].change_seq
    extra = await host.coordinator.run_foreground_bash(bash_input("true", "call.after"))

    async def resume() -> None:
        async for record in host.coordinator.watch(SESSION_ID, after_change_seq=after):
            resumed.append(record)
            if record.ref == extra.ref:
                return

    await resume()
    assert [record.ref for record in resumed] == [extra.ref]


async def test_a_watcher_that_keeps_up_gets_every_revision_of_a_fast_run(host: Host) -> None:
    # The consumer is held while a whole `true` run commits its three revisions; a watcher
    # within its backlog still gets each of them, once, in commit order.
    before = await host.coordinator.run_foreground_bash(bash_input("true", "call.before"))
    watch = host.coordinator.watch(SESSION_ID)
    assert await anext(watch) == before  # the replay; the watch is following from here
    fast = await host.coordinator.run_foreground_bash(bash_input("true", "call.fast"))
    changes = [await anext(watch)]
    while changes[-1].revision != fast.revision:
        changes.append(await anext(watch))
    await watch.aclose()
    assert [(c.ref, c.revision, c.status) for c in changes] == [
        (fast.ref, 1, "starting"),
        (fast.ref, 2, "running"),
        (fast.ref, 3, "completed"),
    ]
    assert changes[-1] == fast
    seqs = [before.change_seq, *(c.change_seq for c in changes)]
    assert seqs == sorted(set(seqs))


async def test_a_watcher_past_its_backlog_gets_each_runs_latest_revision(tmp_path: Path) -> None:
    opened = await open_host(tmp_path, config=replace(TEST_CONFIG, watch_backlog=3))
    try:
        before = await opened.coordinator.run_foreground_bash(bash_input("true", "call.before"))
        watch = opened.coordinator.watch(SESSION_ID)
        assert await anext(watch) == before
        first = await opened.coordinator.run_foreground_bash(bash_input("true", "call.one"))
        second = await opened.coordinator.run_foreground_bash(bash_input("true", "call.two"))
        # Six revisions against a backlog of three: the watch reads the store again from the
        # last change it delivered and gets the latest revision of each changed run.
        collapsed = [await anext(watch) for _ in range(2)]
        assert collapsed == [first, second]
        # Once it has caught up it follows every revision again.
        third = await opened.coordinator.run_foreground_bash(bash_input("true", "call.three"))
        followed = [await anext(watch)]
        while followed[-1].revision != third.revision:
            followed.append(await anext(watch))
        assert [record.revision for record in followed] == [1, 2, 3]
        assert followed[-1] == third
        await watch.aclose()
    finally:
        await close_host(opened)


async def test_a_watch_resumed_after_a_change_seq_replays_the_latest_revisions(
    host: Host,
) -> None:
    before = await host.coordinator.run_foreground_bash(bash_input("true", "call.before"))
    fast = await host.coordinator.run_foreground_bash(bash_input("true", "call.fast"))
    # Reconnecting after `before`: the store keeps each run's latest revision only, so the
    # replay gives `fast` once, completed, then follows live.
    watch = host.coordinator.watch(SESSION_ID, after_change_seq=before.change_seq)
    assert await anext(watch) == fast
    live = await host.coordinator.run_foreground_bash(bash_input("true", "call.live"))
    followed = [await anext(watch)]
    while followed[-1].revision != live.revision:
        followed.append(await anext(watch))
    await watch.aclose()
    assert [(c.ref, c.revision) for c in followed] == [(live.ref, r) for r in (1, 2, 3)]


async def test_attach_replays_from_a_sequence_with_the_current_screen(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("echo one; echo two; read -r _; echo three", "call.attach", pty=True)
    )
    await read_until(host.manager, started.ref, b"two")
    attachment = await host.coordinator.attach(SESSION_ID, started.ref, after_sequence=0)
    assert attachment.screen is not None
    assert attachment.screen.screen[:2] == ("one", "two")
    assert attachment.output_sequence >= 1
    await host.manager.write_stdin(SESSION_ID, started.ref, "\r")
    replayed = b""
    async for event in attachment.events:
        assert isinstance(event, OutputChunk)
        replayed += event.data
    assert b"one" in replayed and b"three" in replayed
    # Once the run has ended, attach returns the final screen and replays the same bytes.
    ended = await host.manager.wait_terminal(SESSION_ID, started.ref)
    after = await host.coordinator.attach(SESSION_ID, started.ref, after_sequence=0)
    assert isinstance(after.screen, PtyOutput)
    assert "three" in after.screen.screen
    events = [event async for event in after.events]
    assert all(isinstance(event, OutputChunk) for event in events)
    assert b"".join(event.data for event in events if isinstance(event, OutputChunk)) == replayed
    assert ended.journal is not None and after.output_sequence == ended.journal.last_sequence


async def test_attaching_after_a_sequence_not_yet_written_is_invalid(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("echo one; sleep 60", "call.future")
    )
    await read_until(host.manager, started.ref, b"one")
    newest = host.manager.last_output_sequence(SESSION_ID, started.ref)
    current = await host.coordinator.attach(SESSION_ID, started.ref, after_sequence=newest)
    assert current.output_sequence == newest
    with pytest.raises(InvalidRequestError) as refused:
        await host.coordinator.attach(SESSION_ID, started.ref, after_sequence=newest + 1)
    assert refused.value.field == "after_sequence"
    await host.coordinator.stop(SESSION_ID, started.ref)
    assert [event async for event in current.events] == []  # nothing after "one"


async def test_a_slow_follower_gets_every_byte_from_the_journal(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("head -c 3000000 /dev/zero; echo; echo DONE; sleep 60", "call.slow")
    )
    await read_until(host.manager, started.ref, b"DONE")
    # 3 MB does not fit the 1 MiB replay memory: the follower reads the start from the journal.
    live = host.manager.live_output(SESSION_ID, started.ref)
    assert live is not None and live.log.oldest_sequence > 1
    attachment = await host.coordinator.attach(SESSION_ID, started.ref, after_sequence=0)
    received = bytearray()
    sequence = 0
    while not received.endswith(b"DONE\n"):
        event = await anext(attachment.events)
        assert isinstance(event, OutputChunk) and event.sequence > sequence
        received += event.data
        sequence = event.sequence
    assert bytes(received) == bytes(3000000) + b"\nDONE\n"
    await host.coordinator.stop(SESSION_ID, started.ref)
    with pytest.raises(StopAsyncIteration):
        await anext(attachment.events)
