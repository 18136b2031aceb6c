"""The session store's statements on interaction records (run on the worker thread)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

from maka_runtime.kernel.core.store import (
    InteractionRecord,
    interaction_from_record,
    interaction_to_record,
)


def load_interaction(text: str) -> InteractionRecord:
    return interaction_from_record(json.loads(text))


def interaction(
    conn: sqlite3.Connection, session_id: str, request_id: str
) -> InteractionRecord | None:
    row = conn.execute(
        "SELECT record FROM interactions WHERE session_id = ? AND request_id = ?",
        (session_id, request_id),
    ).fetchone()
    return load_interaction(row[0]) if row is not None else None


def save_interaction(conn: sqlite3.Connection, record: InteractionRecord) -> None:
    conn.execute(
        "UPDATE interactions SET status = ?, record = ? WHERE session_id = ? AND request_id = ?",
        (
            record.status,
            json.dumps(interaction_to_record(record)),
            record.session_id,
            record.request_id,
        ),
    )


def close_interaction(
    conn: sqlite3.Connection, record: InteractionRecord, reason: str, now: int
) -> InteractionRecord:
    closed = dataclasses.replace(
        record, status="closed", decision="deny", reason=reason, resolved_at=now
    )
    save_interaction(conn, closed)
    return closed
