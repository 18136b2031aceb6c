"""Bounds on the core: entry sizes against the real encoding, cut entries, pages by bytes,
session paths on the filesystem, queued messages freed with their turn."""

from __future__ import annotations

import asyncio
import gc
import os
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from maka_runtime.kernel.api import convert
from maka_runtime.kernel.core import (
    AlreadyExistsError,
    HostDrainingError,
    InvalidRequestError,
    MessageQueueFullError,
    NotFoundError,
    OutOfRangeError,
    SessionQuery,
    SessionStore,
    SessionUpdate,
)
from maka_runtime.kernel.core.log.events import AssistantMessage, ToolResult, UserQuestionRequest
from maka_runtime.kernel.core.session import SessionHeader, TurnRecord
from maka_runtime.kernel.core.sizes import clip_entry, fitting, wire_size
from maka_runtime.kernel.core.validation import STRING_LIMITS
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

from .harness import Harness, make_harness
from .test_kernel_turns import events_until
from .test_store_contract import every_message_type


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


def test_wire_size_bounds_the_real_encoding() -> None:
    long = "é" * 3000
    entries = [
        *every_message_type("t" * 128),
        AssistantMessage(turn_id="t", message_id="m", text=long, id="a" * 64, ts=2**42, seq=2**62),
        UserQuestionRequest(turn_id="t", request_id="q", question=long, options=(long,) * 16),
    ]
    for entry in entries:
        assert convert.event_to_proto(entry).ByteSize() <= wire_size(entry), entry.type
    header = SessionHeader(
        id="s" * 128,
        workspace_root="/" + "w" * 4094,
        cwd="/" + "c" * 4094,
        created_at=2**42,
        last_used_at=2**42,
        name="n" * 1024,
        labels=tuple(f"label-{i}" for i in range(32)),
        model="m" * 256,
        backend_options={f"k{i}": "v" * 4000 for i in range(64)},
        status_updated_at=2**42,
    )
    assert convert.session_to_proto(header).ByteSize() <= wire_size(header)
    turn = TurnRecord(
        turn_id="t" * 128, status="aborted", text=long, started_at=2**42, first_seq=2**62,
        ended_at=2**42, abort_source="stop_button", aborted_at=2**42,
    )  # fmt: skip
    assert convert.turn_to_proto(turn).ByteSize() <= wire_size(turn)


def test_a_page_holds_at_least_one_item_and_stays_within_its_budget() -> None:
    items = ["x" * 100] * 10
    assert len(fitting(items, 10)) == 1
    assert sum(wire_size(item) for item in fitting(items, 500)) <= 500
    assert len(fitting(items, 10**6)) == 10


def test_an_entry_larger_than_the_bound_is_cut_and_says_so() -> None:
    huge = AssistantMessage(turn_id="t", message_id="m", text="a" * (5 * 1024 * 1024), id="i")
    cut = clip_entry(huge, 1024 * 1024)
    assert wire_size(cut) <= 1024 * 1024
    assert cut.text.startswith("aaa")
    assert f"{5 * 1024 * 1024} bytes; cut" in cut.text
    small = AssistantMessage(turn_id="t", message_id="m", text="fine", id="i")
    assert clip_entry(small, 1024 * 1024) is small


def test_a_cut_result_keeps_its_required_expansion_whole() -> None:
    paths = tuple(f"write:subtree:/{'p' * 4000}/{n}" for n in range(32))
    huge = ToolResult(
        turn_id="t",
        tool_call_id="c",
        output="o" * (3 * 1024 * 1024),
        sandbox_failure="sandbox_boundary_required",
        required_expansion=paths,
    )
    cut = clip_entry(huge, 1024 * 1024)
    assert wire_size(cut) <= 1024 * 1024
    assert "bytes; cut" in cut.output
    assert cut.required_expansion == paths


async def test_the_log_records_a_huge_backend_text_cut_to_the_entry_bound(
    harness: Harness,
) -> None:
    session = await harness.session()
    text = "/script repeat 300 say " + "w" * 4000  # one 1.2 MB assistant message
    _ = [event async for event in harness.kernel.start_turn(session.id, text=text)]
    [assistant] = [
        entry
        for entry in await harness.store.read_messages(session.id)
        if entry.type == "assistant"
    ]
    assert wire_size(assistant) <= harness.kernel.limits.max_event_bytes
    assert "bytes; cut to the first" in assistant.text


async def test_read_messages_is_bounded_by_bytes_and_out_of_range_past_the_end(
    harness: Harness,
) -> None:
    session = await harness.session()
    text = "/script repeat 30 tool bash " + "x" * 60_000
    _ = [event async for event in harness.kernel.start_turn(session.id, text=text)]
    last = await harness.store.last_seq(session.id)
    page = await harness.kernel.read_messages(session.id)
    assert 1 <= len(page) < last
    assert sum(wire_size(entry) for entry in page) <= harness.kernel.limits.max_response_bytes
    assert await harness.kernel.read_messages(session.id, after_seq=last) == []
    with pytest.raises(OutOfRangeError) as raised:
        await harness.kernel.read_messages(session.id, after_seq=last + 1)
    assert raised.value.metadata() == {"field": "after_seq", "last_seq": str(last)}
    with pytest.raises(OutOfRangeError):
        await harness.kernel.watch_session(session.id, after_seq=last + 1)


async def test_list_sessions_is_bounded_by_bytes(harness: Harness) -> None:
    options = {f"k{i}": "o" * 60_000 for i in range(4)}
    for _ in range(12):
        await harness.session(backend_options=options)
    query = SessionQuery(page_size=50)
    page = await harness.kernel.list_sessions(query)
    assert 1 <= len(page.sessions) < 12 and page.next_page_token
    assert sum(map(wire_size, page.sessions)) <= harness.kernel.limits.max_response_bytes


async def test_duplicate_ids_drain_and_unknown_backends(harness: Harness) -> None:
    await harness.session(session_id="taken")
    with pytest.raises(AlreadyExistsError):
        await harness.session(session_id="taken")
    with pytest.raises(InvalidRequestError) as raised:
        await harness.session(backend="quantum")
    assert raised.value.field == "backend"
    harness.kernel.begin_drain()
    with pytest.raises(HostDrainingError):
        await harness.session()
    with pytest.raises(NotFoundError):
        await harness.kernel.get_session("never-created")


async def test_session_paths_resolve_inside_the_workspace(harness: Harness, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "inner").mkdir(parents=True)
    os.symlink(tmp_path, root / "up")
    with pytest.raises(InvalidRequestError) as raised:
        await harness.session(workspace_root=str(tmp_path / "nope"))
    assert raised.value.field == "workspace_root"
    for cwd in ("/etc", f"{root}/inner/../..", f"{root}/up", f"{root}/up/root/inner/../.."):
        with pytest.raises(InvalidRequestError) as raised:
            await harness.session(workspace_root=str(root), cwd=cwd)
        assert raised.value.field == "cwd", cwd
    # A symlink that resolves back inside is fine.
    session = await harness.session(workspace_root=str(root), cwd=f"{root}/up/root/inner")
    with pytest.raises(InvalidRequestError):
        await harness.kernel.update_session(session.id, SessionUpdate(cwd="/etc"))
    assert (await harness.kernel.get_session(session.id)).cwd == f"{root}/up/root/inner"


@pytest.mark.parametrize("field", sorted(STRING_LIMITS))
def test_every_limit_is_documented_in_the_readme(field: str) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("## Limits", 1)[1].split("\n## ", 1)[0]
    assert f"`{field}`" in section


async def test_queued_messages_are_bounded_and_freed_when_the_turn_ends(
    harness: Harness,
) -> None:
    harness.messages.max_messages = 1000
    harness.messages.max_bytes = 8 * 1024 * 1024
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, text="/script ask ready?")
    await events_until(stream, "user_question_request")
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        text = "q" * (64 * 1024 - 8)
        for _ in range(100):  # 6.4 MB queued
            await harness.kernel.send_message(session.id, text + os.urandom(4).hex())
        assert harness.kernel.pending_messages() == (100, 100 * 64 * 1024)
        with pytest.raises(MessageQueueFullError) as raised:
            for _ in range(100):
                await harness.kernel.send_message(session.id, text)
        assert raised.value.metadata()["limit_name"] == "max_queued_bytes"
        queued = tracemalloc.get_traced_memory()[0] - before
        assert queued > 6 * 1024 * 1024
        await harness.kernel.stop_session(session.id)
        _ = [event async for event in stream]
        await asyncio.sleep(0)
        assert harness.kernel.pending_messages() == (0, 0)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # The rejection notes are on the record (the store: in memory for the memory store); the
    # kernel keeps at most the log's small ring of recent entries.
    if isinstance(harness.store, SqliteSessionStore):
        assert kept < 2 * 1024 * 1024, kept
    rejected = [
        entry
        for entry in await harness.store.read_messages(session.id)
        if entry.type == "system_note" and entry.kind == "message_rejected"
    ]
    assert len(rejected) == 128  # 8 MiB / 64 KiB
