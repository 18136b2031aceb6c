"""The session store's statements on the log and its turn records (run on the worker thread)."""

from __future__ import annotations

import json
import sqlite3

from maka_runtime.kernel.core.errors import NotFoundError
from maka_runtime.kernel.core.log.events import StoredMessage, to_record, with_seq
from maka_runtime.kernel.core.session import TurnRecord
from maka_runtime.kernel.store._shared import apply_to_turn, turn_from_json, turn_to_json


def turn_record(conn: sqlite3.Connection, session_id: str, turn_id: str) -> TurnRecord | None:
    row = conn.execute(
        "SELECT record FROM turns WHERE session_id = ? AND turn_id = ?", (session_id, turn_id)
    ).fetchone()
    return turn_from_json(row[0]) if row is not None else None


def _turns_after(
    conn: sqlite3.Connection, session_id: str, stamped: list[StoredMessage]
) -> list[TurnRecord]:
    """The turn records *stamped* changes, each as it stands after all of them: a turn's
    record is read once and written once per append (a turn's opening append both opens it
    and marks it ``running``)."""
    turns: dict[str, TurnRecord | None] = {}
    changed: dict[str, TurnRecord] = {}
    for message in stamped:
        if message.type not in ("user", "turn_state"):
            continue
        turn_id = message.turn_id
        before = turns[turn_id] if turn_id in turns else turn_record(conn, session_id, turn_id)
        after = apply_to_turn(before, message)
        if after is None:
            turns[turn_id] = before
        else:
            turns[turn_id] = changed[turn_id] = after
    return list(changed.values())


def append(
    conn: sqlite3.Connection, session_id: str, messages: list[StoredMessage]
) -> list[StoredMessage]:
    row = conn.execute("SELECT last_seq FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise NotFoundError("session", session_id)
    seq = int(row[0])
    stamped = [with_seq(m, seq + i) for i, m in enumerate(messages, 1)]
    conn.executemany(
        "INSERT INTO messages (session_id, seq, type, turn_id, ts, body) VALUES (?, ?, ?, ?, ?, ?)",
        [(session_id, m.seq, m.type, m.turn_id, m.ts, json.dumps(to_record(m))) for m in stamped],
    )
    for turn in _turns_after(conn, session_id, stamped):
        conn.execute(
            "INSERT INTO turns (session_id, turn_id, first_seq, status, record) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, turn_id) DO UPDATE SET "
            "status = excluded.status, record = excluded.record",
            (session_id, turn.turn_id, turn.first_seq, turn.status, turn_to_json(turn)),
        )
    if stamped:
        conn.execute("UPDATE sessions SET last_seq = ? WHERE id = ?", (stamped[-1].seq, session_id))
    return stamped
