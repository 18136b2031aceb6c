"""Input checks shared by the kernel's entry points; each failure names the offending field."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kernel_service.core.errors import InvalidRequestError

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_SOURCE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_LABEL = re.compile(r"[^\s,][^,]{0,63}")


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelLimits:
    max_text_bytes: int = 64 * 1024
    max_page_size: int = 500
    max_read_batch: int = 1000
    max_labels: int = 32
    max_answers: int = 16


def check_id(field: str, value: str) -> None:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidRequestError(
            field, "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'"
        )


def check_source(source: str) -> None:
    if not _SOURCE.fullmatch(source):
        raise InvalidRequestError("source", "must be a lowercase identifier like 'stop_button'")


def check_text(field: str, text: str, max_bytes: int) -> None:
    if not isinstance(text, str) or not text.strip():
        raise InvalidRequestError(field, "must not be empty")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise InvalidRequestError(field, f"is {size} bytes; the limit is {max_bytes}")


def check_answers(answers: Sequence[str], max_bytes: int, max_count: int = 16) -> tuple[str, ...]:
    if isinstance(answers, str) or not answers:
        raise InvalidRequestError("answers", "give at least one answer")
    if len(answers) > max_count:
        raise InvalidRequestError("answers", f"at most {max_count} answers")
    for answer in answers:
        check_text("answers", answer, max_bytes)
    return tuple(answers)


def check_labels(labels: Sequence[str], max_count: int = 32) -> tuple[str, ...]:
    if len(labels) > max_count:
        raise InvalidRequestError("labels", f"at most {max_count} labels")
    for label in labels:
        if not _LABEL.fullmatch(label):
            raise InvalidRequestError("labels", f"{label!r} is not a label (1-64 chars, no ',')")
    return tuple(dict.fromkeys(labels))
