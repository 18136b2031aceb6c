"""Input checks shared by the kernel's entry points; each failure names the offending field.

Every string a request carries has a length limit, all of them in :data:`STRING_LIMITS` (UTF-8
bytes; the README's Limits section is this table). A value over its limit is
``INVALID_ARGUMENT`` with ``field`` and ``limit`` in the ``ErrorInfo`` metadata. The limits are
generous for real use and keep every stored entry, and so every response, bounded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from maka_runtime.kernel.core.boundary import system_dir
from maka_runtime.kernel.core.errors import InvalidRequestError

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_SOURCE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_LABEL = re.compile(r"[^\s,][^,]{0,63}")

#: Turn text, messages sent into a turn, each answer to a question.
MAX_TEXT_BYTES: Final = 64 * 1024

#: The longest value (UTF-8 bytes) of every string field of every request, by field name.
STRING_LIMITS: Final[Mapping[str, int]] = {
    "session_id": 128,
    "turn_id": 128,
    "request_id": 128,
    "workspace_root": 4095,  # Linux PATH_MAX, counting the NUL
    "cwd": 4095,
    "name": 1024,
    "backend": 64,
    "model": 256,
    "llm_connection_slug": 128,
    "labels": 64,  # each label; at most MAX_LABELS of them
    "label": 64,  # the ListSessions filter
    "backend_options.key": 128,
    "backend_options.value": MAX_TEXT_BYTES,
    "text": MAX_TEXT_BYTES,  # StartTurn and SendMessage
    "answers": MAX_TEXT_BYTES,  # each answer; at most MAX_ANSWERS of them
    "reason": 4096,  # RespondToSandboxBoundary
    "source": 64,  # StopSession
    "page_token": 1024,
}
MAX_LABELS: Final = 32
MAX_ANSWERS: Final = 16
MAX_BACKEND_OPTIONS: Final = 64
#: Every key and value of ``backend_options`` together.
MAX_BACKEND_OPTIONS_BYTES: Final = 256 * 1024


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelLimits:
    """Bounds on what callers may ask for and on what one response may carry.

    ``max_response_bytes`` bounds each page (ReadMessages, ListSessions, ListTurns,
    ListInteractions) by its encoded size as well as by count; a page holds at least one item,
    and no single item is larger than ``max_event_bytes`` (events) or what
    :data:`STRING_LIMITS` allow (headers).
    ``max_queued_messages``/``max_queued_bytes`` bound what one turn may hold queued.
    ``stop_settle_timeout``/``stop_confirm_timeout`` bound a stop (see :mod:`.turns.stop`).
    """

    max_text_bytes: int = MAX_TEXT_BYTES
    max_page_size: int = 500
    max_read_batch: int = 1000
    max_labels: int = MAX_LABELS
    max_answers: int = MAX_ANSWERS
    max_response_bytes: int = 2 * 1024 * 1024
    max_event_bytes: int = 1024 * 1024
    max_queued_messages: int = 100
    max_queued_bytes: int = 4 * 1024 * 1024
    max_early_stops: int = 16
    #: Most ``ListSessions`` pages kept for queries asked again (``--list-page-cache``; see
    #: :mod:`.session_pages`); 0: none.
    list_page_cache: int = 64
    #: How long a stop that succeeded waits for the backend to end its stream before it
    #: records the turn aborted anyway (later events of the turn are then discarded).
    stop_settle_timeout: float = 5.0
    #: How long an immediate stop waits for the tool host to confirm that the turn's runs
    #: ended; also the longest pause between two confirmation attempts afterwards.
    stop_confirm_timeout: float = 10.0
    #: Directories no session's workspace may be, contain or lie inside: the kernel's data
    #: directory (``--data-dir``, the one holding ``credentials/``).
    protected_dirs: tuple[str, ...] = ()


def check_outside(field: str, path: str, protected: Sequence[str]) -> None:
    """Refuse *path* when it is, contains or lies inside one of the *protected* directories
    (after resolving ``..`` and symlinks on both sides)."""
    resolved = os.path.realpath(path)
    for directory in protected:
        guarded = os.path.realpath(directory)
        common = os.path.commonpath([resolved, guarded])
        if common in (resolved, guarded):
            where = (
                "is" if resolved == guarded else "contains" if common == resolved else "is inside"
            )
            raise InvalidRequestError(
                field,
                f"{path!r} {where} the kernel's data directory, which holds its credentials; "
                "choose a directory outside it",
            )


def check_not_system(field: str, path: str) -> None:
    """Refuse *path* when, symlinks resolved, it is ``/`` or is, or lies inside, a system
    directory (:data:`~maka_runtime.kernel.core.boundary.SYSTEM_DIRS`): a workspace is
    writable, and no session may write there."""
    resolved = os.path.realpath(path)
    if system_dir(resolved):
        shown = "" if resolved == path else f" (resolves to {resolved!r})"
        raise InvalidRequestError(
            field,
            f"{path!r}{shown} is / or lies inside a system directory, which no session may "
            "write; choose a directory of your own",
        )


def utf8_size(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def check_length(field: str, value: str, limit_key: str | None = None) -> None:
    """Refuse *value* when it is longer than its limit in :data:`STRING_LIMITS`."""
    limit = STRING_LIMITS[limit_key or field]
    size = utf8_size(value)
    if size > limit:
        raise InvalidRequestError(
            field, f"is {size} bytes; the limit is {limit} bytes", limit=limit
        )


def check_id(field: str, value: str) -> None:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidRequestError(
            field,
            "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'",
            limit=STRING_LIMITS["session_id"] if len(value) > 128 else None,
        )


def check_limit(limit: int | None, maximum: int, field: str = "limit") -> None:
    """An optional page size: ``None`` (the default) or 1 to *maximum*."""
    if limit is not None and not 1 <= limit <= maximum:
        raise InvalidRequestError(field, f"must be between 1 and {maximum}")


def check_cursor(field: str, value: int) -> None:
    if value < 0:
        raise InvalidRequestError(field, "must not be negative")


def check_source(source: str) -> None:
    check_length("source", source)
    if not _SOURCE.fullmatch(source):
        raise InvalidRequestError("source", "must be a lowercase identifier like 'stop_button'")


def check_text(field: str, text: str, max_bytes: int) -> None:
    if not isinstance(text, str) or not text.strip():
        raise InvalidRequestError(field, "must not be empty")
    size = utf8_size(text)
    if size > max_bytes:
        raise InvalidRequestError(
            field, f"is {size} bytes; the limit is {max_bytes} bytes", limit=max_bytes
        )


def check_answers(answers: Sequence[str], max_bytes: int, max_count: int = 16) -> tuple[str, ...]:
    if isinstance(answers, str) or not answers:
        raise InvalidRequestError("answers", "give at least one answer")
    if len(answers) > max_count:
        raise InvalidRequestError("answers", f"at most {max_count} answers", limit=max_count)
    for answer in answers:
        check_text("answers", answer, max_bytes)
    return tuple(answers)


def check_labels(labels: Sequence[str], max_count: int = MAX_LABELS) -> tuple[str, ...]:
    if len(labels) > max_count:
        raise InvalidRequestError("labels", f"at most {max_count} labels", limit=max_count)
    for label in labels:
        check_length("labels", label)
        if not _LABEL.fullmatch(label):
            raise InvalidRequestError("labels", f"{label!r} is not a label (1-64 chars, no ',')")
    return tuple(dict.fromkeys(labels))


def check_backend_options(options: Mapping[str, str]) -> dict[str, str]:
    if len(options) > MAX_BACKEND_OPTIONS:
        raise InvalidRequestError(
            "backend_options",
            f"at most {MAX_BACKEND_OPTIONS} entries",
            limit=MAX_BACKEND_OPTIONS,
        )
    total = 0
    for key, value in options.items():
        check_length("backend_options", key, "backend_options.key")
        check_length("backend_options", value, "backend_options.value")
        total += utf8_size(key) + utf8_size(value)
    if total > MAX_BACKEND_OPTIONS_BYTES:
        raise InvalidRequestError(
            "backend_options",
            f"is {total} bytes in all; the limit is {MAX_BACKEND_OPTIONS_BYTES} bytes",
            limit=MAX_BACKEND_OPTIONS_BYTES,
        )
    return dict(options)
