"""A kernel that dies mid-turn leaves state the next one's start-up sweep repairs."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.backends.agent import SessionApprovals
from maka_runtime.kernel.backends.shell import KIND as SHELL
from maka_runtime.kernel.backends.shell import shell_factory
from maka_runtime.kernel.core import BackendRegistry, InteractionAlreadyResolvedError
from maka_runtime.kernel.core.log.events import InteractionResolved, SandboxBoundaryRequest
from maka_runtime.kernel.core.recovery import recover_interrupted
from maka_runtime.kernel.store.sqlite import SqliteSessionStore
from tests.support.typed import only

from .harness import build_harness, kinds, make_harness
from .test_kernel_turns import events_until


async def test_sweep_after_a_dead_kernel_interrupts_turns_and_closes_requests(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = resolve_storage_root(tmp_path / "root", "kernel")
    owner = try_acquire_root_owner(root)
    assert owner is not None
    store = await SqliteSessionStore.open(owner.lease)
    harness = make_harness(store)
    asking = await harness.session()
    hanging = await harness.session()
    done = await harness.session()
    _ = [e async for e in harness.kernel.start_turn(done.id, "d1", text="hello")]
    ask_stream = harness.kernel.start_turn(asking.id, "a1", text="/script approve deploy")
    [request] = await events_until(ask_stream, "sandbox_boundary_request")
    hang_stream = harness.kernel.start_turn(hanging.id, "h1", text="/script say a; hang")
    await events_until(hang_stream, "text_delta")

    # The process dies: its lease is gone at once and nothing more reaches the database.
    caplog.set_level(logging.CRITICAL, logger="maka_runtime.kernel.core")
    owner.close()
    await harness.close()
    await store.close()

    owner = try_acquire_root_owner(root)
    assert owner is not None
    store = await SqliteSessionStore.open(owner.lease)
    try:
        report = await recover_interrupted(store, now=5_000)
        assert sorted(report.interrupted_turns) == sorted([(asking.id, "a1"), (hanging.id, "h1")])
        assert sorted(report.sessions_updated) == sorted([asking.id, hanging.id])
        assert report.interactions_closed == (
            (asking.id, only(request, SandboxBoundaryRequest).request_id),
        )
        for session_id, turn_id in ((asking.id, "a1"), (hanging.id, "h1")):
            turn = await store.get_turn(session_id, turn_id)
            assert turn is not None
            assert (turn.status, turn.abort_source) == ("aborted", "host_restarted")
            assert (await store.read_header(session_id)).status == "aborted"
            log = kinds(await store.read_messages(session_id))
            assert log[-2:] == ["turn_state:aborted", "system_note:interrupted"]
        # The closed request is on the record, before the turn's terminal state.
        asked = await store.read_messages(asking.id)
        closure = asked[-3]
        assert isinstance(closure, InteractionResolved)
        assert (closure.request_id, closure.outcome, closure.reason) == (
            only(request, SandboxBoundaryRequest).request_id,
            "closed",
            "host_restarted",
        )
        assert "interaction_resolved" not in [m.type for m in await store.read_messages(hanging.id)]
        assert (await store.read_header(done.id)).status == "active"

        restarted = make_harness(store)
        try:
            with pytest.raises(InteractionAlreadyResolvedError, match="host_restarted"):
                await restarted.kernel.answer_sandbox_boundary(
                    asking.id, only(request, SandboxBoundaryRequest).request_id, "allow_once"
                )
            events = [e async for e in restarted.kernel.start_turn(asking.id, text="again")]
            assert [e.type for e in events] == ["text_delta", "complete", "turn_state"]
            log = kinds(await store.read_messages(asking.id))
            assert log.count("system_note:session_resume") == 1
        finally:
            await restarted.close()
    finally:
        await store.close()
        owner.close()


class DiesAfterResolving:
    """A SQLite store whose process "dies" the moment an answer is on record: the call that
    recorded it never returns, and nothing after it reaches the database."""

    def __init__(self, store: SqliteSessionStore) -> None:
        self._store = store
        self.resolved = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def resolve_interaction(self, *args: Any, **kwargs: Any) -> Any:
        await self._store.resolve_interaction(*args, **kwargs)
        self.resolved.set()
        await asyncio.get_running_loop().create_future()  # the process is gone


async def test_an_allow_session_answer_on_record_has_its_widening_even_if_the_kernel_dies_next(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = resolve_storage_root(tmp_path / "root", "kernel")
    owner = try_acquire_root_owner(root)
    assert owner is not None
    store = await SqliteSessionStore.open(owner.lease)
    dying = DiesAfterResolving(store)
    backends = BackendRegistry()
    backends.register(SHELL, shell_factory(None, SessionApprovals()))
    harness = build_harness(dying, backends)
    session = await harness.session(backend=SHELL, workspace_root=str(tmp_path))
    stream = harness.kernel.start_turn(session.id, "t1", text="/write /srv/out touch /srv/out/a")
    request = only(
        (await events_until(stream, "sandbox_boundary_request"))[-1], SandboxBoundaryRequest
    )
    assert request.expansion and request.base_revision == 1
    answer = asyncio.ensure_future(
        harness.kernel.answer_sandbox_boundary(session.id, request.request_id, "allow_session")
    )
    await dying.resolved.wait()
    caplog.set_level(logging.CRITICAL, logger="maka_runtime.kernel.core")
    owner.close()
    answer.cancel()
    await harness.close()
    await store.close()

    owner = try_acquire_root_owner(root)
    assert owner is not None
    store = await SqliteSessionStore.open(owner.lease)
    try:
        await recover_interrupted(store, now=5_000)
        record = await store.get_interaction(session.id, request.request_id)
        assert record is not None
        assert (record.status, record.decision) == ("answered", "allow_session")
        # The approval on record and the widening it made are one: revision 2 grants the path.
        boundary = (await store.read_header(session.id)).boundary
        assert boundary.revision == 2 and boundary.expansions == (request.expansion,)
        assert (record.settlement, record.widened_revision) == ("widened", 2)
    finally:
        await store.close()
        owner.close()
