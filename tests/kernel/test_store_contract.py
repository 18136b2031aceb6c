"""One contract, every store: the memory store and SQLite must behave identically."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from maka_runtime.kernel.core import (
    AlreadyExistsError,
    InteractionAlreadyResolvedError,
    InteractionRecord,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    Resolution,
    SessionQuery,
)
from maka_runtime.kernel.core.errors import PersistenceFailedError
from maka_runtime.kernel.core.log.events import (
    AssistantMessage,
    Complete,
    ErrorEvent,
    InteractionResolved,
    SandboxBoundaryRequest,
    StoredMessage,
    SystemNote,
    TextDelta,
    ToolCall,
    ToolOutput,
    ToolResult,
    TurnState,
    UserMessage,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.recovery import RecoverableStore, recover_interrupted
from maka_runtime.kernel.core.session import HeaderPatch, SessionHeader
from maka_runtime.kernel.store import MemorySessionStore

from .fakes import spec_header


async def make(store: RecoverableStore, session_id: str = "s1", **fields: object) -> None:
    header = dataclasses.replace(spec_header(session_id), **fields)  # type: ignore[arg-type]
    await store.create(header)


def every_message_type(turn: str) -> list[StoredMessage]:
    return [
        UserMessage(turn_id=turn, text="hello", id="u", ts=5),
        TurnState(turn_id=turn, status="running", id="r", ts=5),
        TextDelta(turn_id=turn, message_id="m1", text="hi ", id="d", ts=6),
        AssistantMessage(turn_id=turn, message_id="m1", text="hi there", id="a", ts=6),
        ToolCall(turn_id=turn, tool_call_id="t1", name="bash", input="ls", id="c", ts=7),
        ToolOutput(turn_id=turn, tool_call_id="t1", text="out", stream="stderr", id="o", ts=7),
        ToolResult(turn_id=turn, tool_call_id="t1", output="done", is_error=True, id="res", ts=8),
        SandboxBoundaryRequest(
            turn_id=turn, request_id="q1", command="rm -rf x", cwd="/w", reason="why", id="sb"
        ),
        UserQuestionRequest(
            turn_id=turn, request_id="q2", question="which?", options=("a", "b"), id="uq"
        ),
        InteractionResolved(
            turn_id=turn,
            request_id="q2",
            kind="user_question",
            outcome="answered",
            answers=("a",),
            id="ir",
        ),
        ErrorEvent(turn_id=turn, message="oops", code="x", id="e"),
        Complete(turn_id=turn, stop_reason="end_turn", id="cp"),
        SystemNote(kind="abort", text="stopped", turn_id=turn, source="stop_button", id="n"),
        UserMessage(turn_id=turn, text="more", queued=True, id="u2"),
    ]


async def test_create_read_and_refuse_duplicates(store: RecoverableStore) -> None:
    await make(store)
    header = await store.read_header("s1")
    assert header == spec_header("s1")
    with pytest.raises(AlreadyExistsError):
        await make(store)
    with pytest.raises(NotFoundError):
        await store.read_header("missing")


async def test_appends_are_numbered_consecutively_and_round_trip(store: RecoverableStore) -> None:
    await make(store)
    messages = every_message_type("t1")
    stamped = await store.append_messages("s1", messages[:3])
    assert [m.seq for m in stamped] == [1, 2, 3]
    single = await store.append_message("s1", messages[3])
    assert single.seq == 4
    rest = await store.append_messages("s1", messages[4:])
    assert [m.seq for m in rest] == list(range(5, len(messages) + 1))
    read = await store.read_messages("s1")
    assert read == [dataclasses.replace(m, seq=i) for i, m in enumerate(messages, 1)]
    assert await store.read_messages("s1", after_seq=3, limit=2) == read[3:5]
    assert await store.read_messages("s1", after_seq=len(messages)) == []
    assert await store.last_seq("s1") == len(messages)


async def test_unknown_sessions_are_not_found_everywhere(store: RecoverableStore) -> None:
    for call in (
        store.append_messages("nope", [SystemNote(kind="error", text="x")]),
        store.read_messages("nope"),
        store.last_seq("nope"),
        store.list_turns("nope"),
        store.update_header("nope", {"name": "x"}),
        store.remove("nope"),
    ):
        with pytest.raises(NotFoundError):
            await call


async def test_turn_records_follow_the_log(store: RecoverableStore) -> None:
    await make(store)
    await store.append_messages(
        "s1",
        [
            UserMessage(turn_id="t1", text="first", ts=10),
            TurnState(turn_id="t1", status="running", ts=10),
        ],
    )
    [turn] = await store.list_turns("s1")
    assert (turn.turn_id, turn.status, turn.text, turn.first_seq, turn.started_at) == (
        "t1",
        "running",
        "first",
        1,
        10,
    )
    await store.append_messages(
        "s1", [TurnState(turn_id="t1", status="aborted", abort_source="stop_button", ts=12)]
    )
    await store.append_messages("s1", [TurnState(turn_id="t1", status="completed", ts=13)])
    ended = await store.get_turn("s1", "t1")
    assert ended is not None
    assert (ended.status, ended.abort_source, ended.ended_at) == ("aborted", "stop_button", 12)
    await store.append_messages(
        "s1",
        [UserMessage(turn_id="t2", text="second"), TurnState(turn_id="t2", status="running")],
    )
    assert [t.turn_id for t in await store.list_turns("s1")] == ["t1", "t2"]
    assert await store.get_turn("s1", "t3") is None


async def test_header_updates(store: RecoverableStore) -> None:
    await make(store)
    updated = await store.update_header("s1", {"status": "running", "labels": ("x", "y")})
    assert (updated.status, updated.labels) == ("running", ("x", "y"))
    await store.archive("s1")
    await store.set_flagged("s1", True)
    await store.rename("s1", "Renamed")
    header = await store.read_header("s1")
    assert (header.is_archived, header.is_flagged, header.name, header.title_is_manual) == (
        True,
        True,
        "Renamed",
        True,
    )
    await store.unarchive("s1")
    assert (await store.read_header("s1")).is_archived is False


async def test_listing_pages_newest_first_with_filters(store: RecoverableStore) -> None:
    for index in range(7):
        await make(
            store,
            f"s{index}",
            created_at=100 + index // 2,
            labels=("even",) if index % 2 == 0 else (),
            is_archived=index == 3,
        )
    seen: list[str] = []
    token = ""
    while True:
        page = await store.list_sessions(SessionQuery(page_size=3, page_token=token))
        seen += [h.id for h in page.sessions]
        token = page.next_page_token
        if not token:
            break
    assert seen == ["s6", "s5", "s4", "s3", "s2", "s1", "s0"]
    archived = await store.list_sessions(SessionQuery(archived=True))
    assert [h.id for h in archived.sessions] == ["s3"]
    even = await store.list_sessions(SessionQuery(label="even", archived=False))
    assert [h.id for h in even.sessions] == ["s6", "s4", "s2", "s0"]
    with pytest.raises(InvalidRequestError):
        await store.list_sessions(SessionQuery(page_token="%%%"))


async def test_remove_deletes_everything(store: RecoverableStore) -> None:
    await make(store)
    await store.append_messages("s1", every_message_type("t1"))
    await store.remove("s1")
    with pytest.raises(NotFoundError):
        await store.read_messages("s1")
    await make(store)
    assert await store.read_messages("s1") == []


def request_record(request_id: str, run_id: str = "run-1") -> InteractionRecord:
    return InteractionRecord(
        session_id="s1",
        request_id=request_id,
        turn_id="t1",
        run_id=run_id,
        kind="sandbox_boundary",
        request=SandboxBoundaryRequest(turn_id="t1", request_id=request_id, command="ls"),
        created_at=1,
    )


async def test_interactions_resolve_exactly_once(store: RecoverableStore) -> None:
    await make(store)
    await store.put_interaction(request_record("r1"))
    with pytest.raises(OperationConflictError):
        await store.put_interaction(request_record("r1"))
    assert await store.get_interaction("s1", "r1") == request_record("r1")
    answers = [
        store.resolve_interaction("s1", "r1", Resolution(status="answered", decision=d), 5)
        for d in ("allow_once", "deny")
    ]
    results = await asyncio.gather(*answers, return_exceptions=True)
    winners = [r for r in results if isinstance(r, InteractionRecord)]
    losers = [r for r in results if isinstance(r, InteractionAlreadyResolvedError)]
    assert len(winners) == 1 and len(losers) == 1
    assert winners[0].status == "answered" and winners[0].resolved_at == 5
    assert await store.get_interaction("s1", "r1") == winners[0]
    with pytest.raises(NotFoundError):
        await store.resolve_interaction("s1", "zz", Resolution(status="answered"), 5)


async def test_closing_a_run_closes_only_its_pending_requests(store: RecoverableStore) -> None:
    await make(store)
    for request_id, run_id in (("a", "run-1"), ("b", "run-1"), ("c", "run-2")):
        await store.put_interaction(request_record(request_id, run_id))
    await store.resolve_interaction("s1", "a", Resolution(status="answered", decision="deny"), 2)
    closed = await store.close_interactions("s1", "run-1", "turn_stopped", 3)
    assert [(r.request_id, r.status, r.reason) for r in closed] == [("b", "closed", "turn_stopped")]
    pending = await store.list_interactions("s1", pending_only=True)
    assert [r.request_id for r in pending] == ["c"]
    assert len(await store.list_interactions("s1")) == 3


async def test_sweep_interrupts_running_turns_and_closes_pending_requests(
    store: RecoverableStore,
) -> None:
    await make(store, "s1")
    await make(store, "s2", status="running")
    await make(store, "s3")
    await store.append_messages(
        "s1", [UserMessage(turn_id="t1", text="x"), TurnState(turn_id="t1", status="running")]
    )
    await store.update_header("s1", {"status": "waiting_for_user"})
    await store.append_messages(
        "s3",
        [
            UserMessage(turn_id="done", text="x"),
            TurnState(turn_id="done", status="running"),
            TurnState(turn_id="done", status="completed"),
        ],
    )
    await store.put_interaction(request_record("r1"))

    report = await recover_interrupted(store, now=99)

    assert report.interrupted_turns == (("s1", "t1"),)
    assert sorted(report.sessions_updated) == ["s1", "s2"]
    assert report.interactions_closed == (("s1", "r1"),)
    turn = await store.get_turn("s1", "t1")
    assert turn is not None and (turn.status, turn.abort_source) == ("aborted", "host_restarted")
    tail = (await store.read_messages("s1"))[-3:]
    assert [(m.type, getattr(m, "status", getattr(m, "kind", ""))) for m in tail] == [
        ("interaction_resolved", "sandbox_boundary"),
        ("turn_state", "aborted"),
        ("system_note", "interrupted"),
    ]
    closure = tail[0]
    assert isinstance(closure, InteractionResolved)
    assert (closure.request_id, closure.turn_id, closure.outcome, closure.reason) == (
        "r1",
        "t1",
        "closed",
        "host_restarted",
    )
    assert (await store.read_header("s1")).status == "aborted"
    assert (await store.read_header("s2")).status == "active"
    assert (await store.read_header("s3")).status == "active"
    record = await store.get_interaction("s1", "r1")
    assert record is not None and (record.status, record.reason) == ("closed", "host_restarted")
    again = await recover_interrupted(store, now=100)
    assert again.interrupted_turns == () and again.interactions_closed == ()
    assert len(await store.read_messages("s1")) == 5


async def test_a_sweep_cut_short_after_closing_a_request_records_the_closure_next_time(
    store: RecoverableStore,
) -> None:
    await make(store, "s1")
    await store.append_messages(
        "s1", [UserMessage(turn_id="t1", text="x"), TurnState(turn_id="t1", status="running")]
    )
    await store.put_interaction(request_record("r1"))
    # The first sweep closed the request and died before its append.
    closing = Resolution(status="closed", decision="deny", reason="host_restarted")
    await store.resolve_interaction("s1", "r1", closing, 50)

    report = await recover_interrupted(store, now=99)

    assert report.interrupted_turns == (("s1", "t1"),) and report.interactions_closed == ()
    log = await store.read_messages("s1")
    assert [m.type for m in log] == [
        "user",
        "turn_state",
        "interaction_resolved",
        "turn_state",
        "system_note",
    ]
    closure = log[2]
    assert isinstance(closure, InteractionResolved)
    assert (closure.request_id, closure.reason) == ("r1", "host_restarted")


async def test_the_sweeps_primitives_list_running_turns_live_headers_and_pending_requests(
    store: RecoverableStore,
) -> None:
    await make(store, "s2", status="waiting_for_user")
    await make(store, "s1", status="running")
    await make(store, "s3")
    for session_id, turn_id in (("s2", "b"), ("s1", "late"), ("s1", "early")):
        await store.append_messages(
            session_id,
            [UserMessage(turn_id=turn_id, text="x"), TurnState(turn_id=turn_id, status="running")],
        )
    await store.append_messages("s1", [TurnState(turn_id="late", status="completed")])
    assert await store.running_turns() == [("s1", "early"), ("s2", "b")]
    assert await store.sessions_in_status(("running", "waiting_for_user")) == ["s1", "s2"]
    assert await store.sessions_in_status(()) == []
    await store.put_interaction(dataclasses.replace(request_record("r2"), session_id="s2"))
    await store.put_interaction(dataclasses.replace(request_record("r1"), created_at=2))
    await store.put_interaction(dataclasses.replace(request_record("r0"), created_at=1))
    await store.resolve_interaction("s1", "r0", Resolution(status="answered", decision="allow"), 3)
    pending = await store.pending_interactions()
    assert [(r.session_id, r.request_id) for r in pending] == [("s1", "r1"), ("s2", "r2")]


async def test_an_append_with_a_header_patch_commits_both_or_neither(
    store: RecoverableStore,
) -> None:
    await make(store)
    opening: list[StoredMessage] = [
        UserMessage(turn_id="t1", text="hi", id="u", ts=5),
        TurnState(turn_id="t1", status="running", id="r", ts=5),
    ]
    stamped = await store.append_messages(
        "s1", opening, header={"status": "running", "status_updated_at": 5, "last_used_at": 5}
    )
    assert [m.seq for m in stamped] == [1, 2]
    header = await store.read_header("s1")
    assert (header.status, header.status_updated_at, header.last_used_at) == ("running", 5, 5)
    [turn] = await store.list_turns("s1")
    assert turn.status == "running"
    # A patch the header refuses takes its entries with it: no turn without its header.
    refused = {"status": "active", "no_such_field": 1}
    ending: list[StoredMessage] = [TurnState(turn_id="t1", status="completed", id="c", ts=9)]
    with pytest.raises(TypeError):
        await store.append_messages("s1", ending, header=refused)  # type: ignore[arg-type]
    assert await store.read_messages("s1") == stamped
    assert await store.last_seq("s1") == 2
    assert (await store.read_header("s1")).status == "running"
    [turn] = await store.list_turns("s1")
    assert turn.status == "running"
    # The log goes on from where the refused append left it.
    [completed] = await store.append_messages("s1", ending, header={"status": "active"})
    assert completed.seq == 3 and (await store.read_header("s1")).status == "active"


async def test_a_memory_append_held_in_its_header_takes_back_nothing_committed_meanwhile() -> None:
    """The memory store's combined write suspends only where a test replaced update_header;
    a plain append committed meanwhile stays when the held header is then refused."""
    store = MemorySessionStore()
    await make(store)
    held, release = asyncio.Event(), asyncio.Event()
    update = store.update_header

    async def refused_after_a_while(session_id: str, patch: HeaderPatch) -> SessionHeader:
        if patch.get("status") == "running":
            held.set()
            await release.wait()
            raise PersistenceFailedError("the disk is full")
        return await update(session_id, patch)

    store.update_header = refused_after_a_while  # type: ignore[method-assign]
    opening: list[StoredMessage] = [UserMessage(turn_id="t1", text="hi", id="u", ts=5)]
    combined = asyncio.ensure_future(
        store.append_messages("s1", opening, header={"status": "running"})
    )
    await held.wait()
    [note] = await store.append_messages("s1", [SystemNote(kind="error", text="kept", id="n")])
    release.set()
    with pytest.raises(PersistenceFailedError):
        await combined
    assert await store.read_messages("s1") == [note]
    assert (await store.read_header("s1")).status != "running"
