"""What callers ask for, the limits that apply, and the checks that turn bad input into
:class:`InvalidRequestError` before anything changes.

Every string a request carries has a length limit, all of them in :data:`STRING_LIMITS` (UTF-8
bytes; the README's Limits section is this table). A value over its limit is
``INVALID_ARGUMENT`` with ``field`` and ``limit`` in the ``ErrorInfo`` metadata.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from maka_runtime.resource.core.errors import InvalidRequestError
from maka_runtime.resource.core.output import OutputChunk

if TYPE_CHECKING:
    from maka_runtime.resource.core.sandbox.boundary import ExecutionBoundary

__all__ = [
    "BACKGROUND_MAX_TIMEOUT_MS",
    "DEFAULT_COLS",
    "DEFAULT_ROWS",
    "FOREGROUND_DEFAULT_TIMEOUT_MS",
    "FOREGROUND_MAX_TIMEOUT_MS",
    "MAX_COLS",
    "MAX_COMMAND_BYTES",
    "MAX_INPUT_BYTES",
    "MAX_ROWS",
    "MIN_COLS",
    "MIN_ROWS",
    "STRING_LIMITS",
    "BashInput",
    "check_controller_id",
    "check_cwd",
    "check_length",
    "check_session_cwd",
    "check_session_id",
    "check_size",
]

MAX_INPUT_BYTES: Final = 32 * 1024
MIN_COLS: Final = 2
MAX_COLS: Final = 240
MIN_ROWS: Final = 1
MAX_ROWS: Final = 100
DEFAULT_COLS: Final = 80
DEFAULT_ROWS: Final = 24
FOREGROUND_DEFAULT_TIMEOUT_MS: Final = 2 * 60 * 1000
FOREGROUND_MAX_TIMEOUT_MS: Final = 10 * 60 * 1000
BACKGROUND_MAX_TIMEOUT_MS: Final = 24 * 60 * 60 * 1000
# Linux refuses a single argument of 128 KiB or more (MAX_ARG_STRLEN, counting the NUL).
MAX_COMMAND_BYTES: Final = 128 * 1024 - 1
_MAX_ENV_ENTRIES: Final = 256
_MAX_ENV_BYTES: Final = 128 * 1024
_MAX_SOURCE_ID: Final = 256
# Linux's PATH_MAX, counting the NUL.
_MAX_PATH_BYTES: Final = 4095

#: The longest value (UTF-8 bytes) of every string field of every request, by field name.
STRING_LIMITS: Final[Mapping[str, int]] = {
    "session_id": 128,
    "ref": len("maka://runtime/background-tasks/") + 128,
    "controller_id": 128,
    "connection_id": 128,
    "client_name": 256,
    "command": MAX_COMMAND_BYTES,
    "cwd": _MAX_PATH_BYTES,
    "env.name": 256,
    "env.value": _MAX_ENV_BYTES,  # and all names and values together at most this
    "source_turn_id": _MAX_SOURCE_ID,
    "source_tool_call_id": _MAX_SOURCE_ID,
    "input": MAX_INPUT_BYTES,  # ControlController, Attach controls
    "page_token": 1024,
    "owner": 256,  # RegisterSession: the principal that owns the session
}

_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")
_CONTROLLER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,255}")


@dataclass(frozen=True)
class BashInput:
    """One shell command to run with ``bash -c``.

    Foreground runs use ``timeout_ms`` or the 2-minute default (at most 10 minutes) and must not
    ask for a PTY; background runs may (``pty=True``, ``cols`` x ``rows``) and have no timeout
    unless one is given (1 ms to 24 h). An empty ``cwd`` means the session's working directory.
    """

    session_id: str
    command: str
    cwd: str = ""
    source_turn_id: str = ""
    source_tool_call_id: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    pty: bool = False
    cols: int = DEFAULT_COLS
    rows: int = DEFAULT_ROWS
    timeout_ms: int | None = None
    #: The sandbox to run in (the kernel sends its session's); ``None``: the default,
    #: ``workspace-write`` over the session's working directory (``sandbox/boundary.py``).
    boundary: ExecutionBoundary | None = None
    #: Called on the event loop with every output chunk as it is read (foreground runs).
    emit_output: Callable[[OutputChunk], None] | None = field(default=None, compare=False)

    def check(self, *, foreground: bool) -> None:
        """Raise :class:`InvalidRequestError` for the first malformed field."""
        check_session_id(self.session_id)
        if not self.command.strip():
            raise InvalidRequestError("command must not be empty", field="command")
        check_length("command", self.command)
        if "\0" in self.command:
            raise InvalidRequestError("command must be text without NUL", field="command")
        for name, value in (
            ("source_turn_id", self.source_turn_id),
            ("source_tool_call_id", self.source_tool_call_id),
        ):
            check_length(name, value)
            if not value.isprintable():
                raise InvalidRequestError(
                    f"{name} must be printable text of at most {_MAX_SOURCE_ID} characters",
                    field=name,
                )
        self._check_env()
        if self.boundary is not None:
            self.boundary.check()
        if foreground:
            if self.pty:
                raise InvalidRequestError(
                    "foreground runs use pipes; start a background run to get a PTY",
                    field="pty",
                )
            if self.timeout_ms is not None and not 1 <= self.timeout_ms <= (
                FOREGROUND_MAX_TIMEOUT_MS
            ):
                raise InvalidRequestError(
                    f"timeout_ms must be between 1 and {FOREGROUND_MAX_TIMEOUT_MS} "
                    "for a foreground run",
                    field="timeout_ms",
                )
        else:
            if self.timeout_ms is not None and not 1 <= self.timeout_ms <= (
                BACKGROUND_MAX_TIMEOUT_MS
            ):
                raise InvalidRequestError(
                    f"timeout_ms must be between 1 and {BACKGROUND_MAX_TIMEOUT_MS} "
                    "(24 h) for a background run",
                    field="timeout_ms",
                )
            if self.pty:
                check_size(self.cols, self.rows)
        if self.cwd:
            check_cwd(self.cwd)

    def effective_timeout_ms(self, *, foreground: bool) -> int | None:
        if foreground and self.timeout_ms is None:
            return FOREGROUND_DEFAULT_TIMEOUT_MS
        return self.timeout_ms

    def _check_env(self) -> None:
        if len(self.env) > _MAX_ENV_ENTRIES:
            raise InvalidRequestError(
                f"env has more than {_MAX_ENV_ENTRIES} entries", field="env", limit=_MAX_ENV_ENTRIES
            )
        size = 0
        for name, value in self.env.items():
            check_length("env", name, "env.name")
            check_length("env", value, "env.value")
            if not _ENV_NAME.fullmatch(name):
                raise InvalidRequestError(
                    f"env name {name[:40]!r} is not a valid variable name", field="env"
                )
            if "\0" in value:
                raise InvalidRequestError(f"env value of {name} contains NUL", field="env")
            size += len(name) + len(value.encode())
        if size > _MAX_ENV_BYTES:
            raise InvalidRequestError(
                f"env is larger than {_MAX_ENV_BYTES} bytes", field="env", limit=_MAX_ENV_BYTES
            )


def check_length(field: str, value: str, limit_key: str | None = None) -> None:
    """Refuse *value* when it is longer than its limit in :data:`STRING_LIMITS`."""
    limit = STRING_LIMITS[limit_key or field]
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise InvalidRequestError(
            f"{field} is {size} bytes; the limit is {limit} bytes", field=field, limit=limit
        )


def check_session_id(session_id: str, *, field: str = "session_id") -> None:
    if not session_id:
        raise InvalidRequestError("session_id is required", field=field)
    check_length(field, session_id, "session_id")
    if not _SESSION_ID.fullmatch(session_id):
        raise InvalidRequestError(
            "session_id must be 1-128 characters of letters, digits and ._:@-", field=field
        )


def check_controller_id(controller_id: str, *, field: str = "controller_id") -> None:
    if not controller_id:
        raise InvalidRequestError("controller_id is required", field=field)
    check_length(field, controller_id, "controller_id")
    if not _CONTROLLER_ID.fullmatch(controller_id):
        raise InvalidRequestError(
            "controller_id must be 1-128 characters of letters, digits and ._:@/-", field=field
        )


def check_size(cols: int, rows: int, *, prefix: str = "") -> None:
    """Terminal size limits: cols 2-240, rows 1-100."""
    if not MIN_COLS <= cols <= MAX_COLS:
        raise InvalidRequestError(
            f"cols must be between {MIN_COLS} and {MAX_COLS}, got {cols}", field=prefix + "cols"
        )
    if not MIN_ROWS <= rows <= MAX_ROWS:
        raise InvalidRequestError(
            f"rows must be between {MIN_ROWS} and {MAX_ROWS}, got {rows}", field=prefix + "rows"
        )


def check_session_cwd(cwd: str) -> None:
    """A session's registered working directory: empty (the host's default) or absolute.

    It need not exist yet: a run that uses it is refused (``cwd does not exist``) until it does.
    """
    if not cwd:
        return
    check_length("cwd", cwd)
    if "\0" in cwd or not os.path.isabs(cwd):
        raise InvalidRequestError(
            f"cwd must be empty or an absolute path of at most {_MAX_PATH_BYTES} bytes, "
            f"got {cwd[:200]!r}",
            field="cwd",
        )


def check_cwd(cwd: str) -> None:
    check_length("cwd", cwd)
    if "\0" in cwd or not os.path.isabs(cwd):
        raise InvalidRequestError(f"cwd must be an absolute path, got {cwd[:200]!r}", field="cwd")
    if not os.path.exists(cwd):
        raise InvalidRequestError(f"cwd does not exist: {cwd}", field="cwd")
    if not os.path.isdir(cwd):
        raise InvalidRequestError(f"cwd is not a directory: {cwd}", field="cwd")
