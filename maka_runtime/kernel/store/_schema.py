"""The SQLite session store's schema (:mod:`.sqlite`)."""

from __future__ import annotations

__all__ = ["SCHEMA", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    is_archived INTEGER NOT NULL,
    labels TEXT NOT NULL,
    status TEXT NOT NULL,
    last_seq INTEGER NOT NULL DEFAULT 0,
    header TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_newest ON sessions (created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    ts INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session_id, turn_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS turns_running ON turns (status) WHERE status = 'running';
CREATE TABLE IF NOT EXISTS interactions (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    request_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session_id, request_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS interactions_pending
    ON interactions (session_id, run_id) WHERE status = 'pending';
"""
# The version as older kernels recorded it (beside PRAGMA user_version, which the worker keeps).
_VERSION_ROW = (
    f"INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');\n"
)

SCHEMA = _TABLES + _VERSION_ROW
