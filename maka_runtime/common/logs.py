"""Log formats (``--log-format text|json``) and the ids a log line carries.

``text`` (the default) is one readable line: ``time LEVEL logger: message``. ``json`` is one
JSON object per line (``python-json-logger``) with ``timestamp``, ``level``, ``logger``,
``message``, and ``session_id``, ``turn_id`` and ``run_id`` where they apply, plus ``exc_info``
for a traceback.

The ids come from context variables. Every call's pipeline
(:mod:`maka_runtime.common.pipeline`) sets them from its request (its ``session_id``,
``turn_id`` and ``run_id`` fields, when it has them), so every line logged while handling a
call — and by the tasks the call starts, which copy the context — carries them; code that
handles a turn or run elsewhere sets them with :func:`log_context`. Nothing else of a request
is logged: tokens and other secrets never reach a log line (authentication logs principal ids
only).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from maka_runtime.common.config import LOG_FORMATS

__all__ = [
    "LOG_FORMATS",
    "calls",
    "configure_logging",
    "id_fields_of",
    "log_context",
    "set_log_context",
]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
ID_FIELDS = ("session_id", "turn_id", "run_id")

#: Each call's end (method, code, time), at debug level.
calls = logging.getLogger("maka.calls")

_ids: dict[str, contextvars.ContextVar[str]] = {
    name: contextvars.ContextVar(f"maka_log_{name}", default="") for name in ID_FIELDS
}


@contextlib.contextmanager
def log_context(**ids: str) -> Iterator[None]:
    """Within the block, log lines carry these ids (``session_id``, ``turn_id``, ``run_id``)."""
    tokens = [(_ids[name], _ids[name].set(value)) for name, value in ids.items() if value]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


#: Request fields that name the ids (a run's request names the turn it runs for).
_REQUEST_FIELDS = (*((name, name) for name in ID_FIELDS), ("source_turn_id", "turn_id"))


def set_log_context(request: Any, fields: Sequence[tuple[str, str]] = _REQUEST_FIELDS) -> None:
    """Carry the ids found in *request* (a protobuf message) for the rest of this context;
    *fields* (:func:`id_fields_of` its type) are the only ones looked for."""
    for field, name in fields:
        value = getattr(request, field, None)
        if isinstance(value, str) and value:
            _ids[name].set(value)


def id_fields_of(message_type: Any) -> tuple[tuple[str, str], ...]:
    """The id fields (of :func:`set_log_context`) that messages of *message_type* (a message
    descriptor; ``None`` when unknown: every one) can carry, found once per method."""
    if message_type is None:
        return _REQUEST_FIELDS
    known = message_type.fields_by_name
    return tuple((field, name) for field, name in _REQUEST_FIELDS if field in known)


class _ContextFilter(logging.Filter):
    """Adds the current ids to every record (empty ones are left out of JSON lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _ids.items():
            if not hasattr(record, name):
                setattr(record, name, var.get())
        return True


def _json_lines(log_data: dict[str, Any]) -> dict[str, Any]:
    """The timestamp first; ids that do not apply left out."""
    first = {"timestamp": log_data.pop("timestamp", None)}
    return first | {k: v for k, v in log_data.items() if not (k in ID_FIELDS and not v)}


def json_formatter() -> logging.Formatter:
    """One JSON object per record; ``timestamp`` is ISO 8601 in UTC, to the microsecond.
    (``python-json-logger`` is loaded here, with ``--log-format json`` only.)"""
    from pythonjsonlogger.json import JsonFormatter

    class JsonLines(JsonFormatter):
        def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
            return _json_lines(log_data)

    return JsonLines(
        "%(levelname)s %(name)s %(message)s %(session_id)s %(turn_id)s %(run_id)s",
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp=True,
        json_ensure_ascii=False,
    )


def configure_logging(level: str, log_format: str = "text") -> None:
    """Root logging to stderr in *log_format*, at *level*."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_ContextFilter())
    handler.setFormatter(
        json_formatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
