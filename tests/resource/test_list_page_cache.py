"""ListRuns pages of a session kept in memory (core/catalog_pages.py): a query asked again is
answered without the store while none of the session's runs changed, never after a run's
acknowledged change, never with a live run's output frozen, and within its bound."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from maka_runtime.resource.core import SessionArchivedError, ShellRunPage
from maka_runtime.resource.server import parse_config
from tests.resource.conftest import (
    SESSION_ID,
    TEST_CONFIG,
    Host,
    bash_input,
    close_host,
    open_host,
    read_until,
)
from tests.support.counting import count_calls


async def finished(host: Host, count: int) -> list[Any]:
    return [
        await host.coordinator.run_foreground_bash(bash_input("true", f"call.{n}"))
        for n in range(count)
    ]


async def test_a_query_asked_again_is_answered_without_the_store(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended = await finished(host, 3)
    reads = count_calls(monkeypatch, host.store, "list_session")
    first = await host.coordinator.list_runs(SESSION_ID, page_size=10)
    again = await host.coordinator.list_runs(SESSION_ID, page_size=10)
    assert again is first and list(first.runs) == ended and len(reads) == 1
    two = await host.coordinator.list_runs(SESSION_ID, page_size=2)  # a query of its own
    assert list(two.runs) == ended[:2] and two.next_page_token and len(reads) == 2
    rest = await host.coordinator.list_runs(SESSION_ID, page_size=2, page_token=two.next_page_token)
    assert await host.coordinator.list_runs(SESSION_ID, page_size=2) is two
    assert (
        await host.coordinator.list_runs(SESSION_ID, page_size=2, page_token=two.next_page_token)
        is rest
    )
    assert list(rest.runs) == ended[2:] and len(reads) == 3


async def test_a_new_run_is_listed_at_once(host: Host) -> None:
    ended = await finished(host, 2)
    full = await host.coordinator.list_runs(SESSION_ID, page_size=2)
    assert list(full.runs) == ended and full.next_page_token == ""
    started = await host.coordinator.run_background_bash(bash_input("sleep 60", "call.bg"))
    # The same runs on the page, but now another follows: the kept page would say none does.
    after = await host.coordinator.list_runs(SESSION_ID, page_size=2)
    assert list(after.runs) == ended and after.next_page_token
    more = await host.coordinator.list_runs(
        SESSION_ID, page_size=2, page_token=after.next_page_token
    )
    assert [run.ref for run in more.runs] == [started.ref]
    await host.coordinator.stop(SESSION_ID, started.ref)


async def test_a_run_s_state_changes_are_listed_and_a_live_page_is_never_kept(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended = await finished(host, 2)
    started = await host.coordinator.run_background_bash(
        bash_input("echo started; sleep 60", "call.bg")
    )
    await read_until(host.manager, started.ref, b"started\n")
    reads = count_calls(monkeypatch, host.store, "list_session")
    first = await host.coordinator.list_runs(SESSION_ID, page_size=2)  # finished runs only
    assert await host.coordinator.list_runs(SESSION_ID, page_size=2) is first
    live = await host.coordinator.list_runs(SESSION_ID)  # shows the live run: read each time
    assert [run.status for run in live.runs] == ["completed", "completed", "running"]
    assert (await host.coordinator.list_runs(SESSION_ID)) is not live and len(reads) == 3
    stopped = await host.coordinator.stop(SESSION_ID, started.ref)  # a state change committed
    after = await host.coordinator.list_runs(SESSION_ID)
    assert list(after.runs) == [*ended, stopped] and stopped.status == "cancelled"
    again = await host.coordinator.list_runs(SESSION_ID, page_size=2)
    assert again is not first and list(again.runs) == ended  # the session's version moved
    assert await host.coordinator.list_runs(SESSION_ID) is after and len(reads) == 5


async def test_a_read_that_raced_a_run_s_commit_is_not_served_after_it(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended = await finished(host, 1)
    real = host.store.list_session
    read, release = asyncio.Event(), asyncio.Event()

    async def held(*args: Any, **kwargs: Any) -> Any:
        records = await real(*args, **kwargs)  # read before the run below commits
        read.set()
        await release.wait()
        return records

    monkeypatch.setattr(host.store, "list_session", held)
    racing = asyncio.create_task(host.coordinator.list_runs(SESSION_ID))
    await read.wait()
    monkeypatch.setattr(host.store, "list_session", real)
    newer = await host.coordinator.run_foreground_bash(bash_input("true", "call.new"))
    release.set()
    assert list((await racing).runs) == ended  # what it read, before the run: right then
    assert list((await host.coordinator.list_runs(SESSION_ID)).runs) == [*ended, newer]


async def test_a_listing_of_every_session_is_never_kept(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    await finished(host, 1)
    reads = count_calls(monkeypatch, host.store, "list_session")
    first = await host.coordinator.list_runs("")
    assert await host.coordinator.list_runs("") is not first and len(reads) == 2


async def test_at_most_the_configured_pages_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = await open_host(tmp_path, config=dataclasses.replace(TEST_CONFIG, list_page_cache=2))
    try:
        await finished(opened, 3)
        reads = count_calls(monkeypatch, opened.store, "list_session")

        async def page(size: int) -> ShellRunPage:
            return await opened.coordinator.list_runs(SESSION_ID, page_size=size)

        for size in (1, 2, 1, 3):  # 1 asked again: 2 is then the least recently used
            await page(size)
        assert len(reads) == 3
        await page(1)
        await page(3)
        assert len(reads) == 3
        await page(2)  # forgotten: read again
        assert len(reads) == 4
    finally:
        await close_host(opened)
    off = await open_host(
        tmp_path / "off", config=dataclasses.replace(TEST_CONFIG, list_page_cache=0)
    )
    try:
        await finished(off, 1)
        reads = count_calls(monkeypatch, off.store, "list_session")
        await off.coordinator.list_runs(SESSION_ID)
        await off.coordinator.list_runs(SESSION_ID)
        assert len(reads) == 2
    finally:
        await close_host(off)


def test_the_bound_is_a_setting(tmp_path: Path) -> None:
    config = parse_config(["--data-dir", str(tmp_path), "--list-page-cache", "5"])
    assert config.shell.list_page_cache == 5
    default = parse_config(["--data-dir", str(tmp_path)])
    assert default.shell.list_page_cache == TEST_CONFIG.list_page_cache == 64


async def test_a_kept_page_of_an_admitted_session_is_answered_without_the_full_lookup(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    await host.coordinator.register_session(SESSION_ID)  # a session memory admits callers to
    ended = await finished(host, 2)
    first = await host.coordinator.list_runs(SESSION_ID, page_size=10)
    checks = count_calls(monkeypatch, host.coordinator._admission, "check")
    again = await host.coordinator.list_runs(SESSION_ID, page_size=10)
    assert again is first and list(again.runs) == ended and checks == []
    # A query whose page is not kept takes the full path: the session is checked.
    other = await host.coordinator.list_runs(SESSION_ID, page_size=1)
    assert list(other.runs) == ended[:1] and len(checks) == 1
    await host.coordinator.archive_session(SESSION_ID)
    with pytest.raises(SessionArchivedError):  # kept, but no longer admitted: refused
        await host.coordinator.list_runs(SESSION_ID, page_size=10)
