"""LLM connections (the TOML file of OpenAI-compatible endpoints) and the settings of a turn.

:func:`load_connections` reads and checks the file (a bad one is a :class:`ValueError` whose
one-line message names the file, the connection and the key); :func:`resolve_settings` picks
a turn's connection, model, API key and step limit from the session header.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from maka_runtime.kernel.backends.llm.chat import LlmUnavailableError
from maka_runtime.kernel.core.session import SessionHeader

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_STEPS = 25
MAX_STEPS_LIMIT = 1000

_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONNECTION_KEYS: Final = ("base_url", "api_key_env", "model", "timeout_s")


# -- connections -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class LlmConnection:
    """One named chat-completions endpoint."""

    slug: str
    base_url: str
    #: The environment variable holding the API key; empty: no key is sent.
    api_key_env: str = ""
    #: The default model of sessions that set none.
    model: str = ""
    #: The read timeout of the stream (seconds between two pieces of the response).
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def load_connections(path: str | os.PathLike[str]) -> dict[str, LlmConnection]:
    """The connections of the TOML file at *path* by slug; :class:`ValueError` if it is bad."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(
            f"{path}: cannot read the LLM connections file: {error.strerror or error}"
        ) from error
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: not a valid TOML file: {error}") from error
    return parse_connections(data, source=str(path))


def parse_connections(data: Mapping[str, Any], *, source: str) -> dict[str, LlmConnection]:
    """The connections of a parsed connections file; *source* names it in errors."""
    for key in data:
        if key != "connections":
            raise ValueError(f"{source}: unknown key {key!r} (expected [connections.SLUG] tables)")
    tables = data.get("connections")
    if not isinstance(tables, dict) or not tables:
        raise ValueError(f"{source}: no connections (expected [connections.SLUG] tables)")
    connections: dict[str, LlmConnection] = {}
    for slug, table in tables.items():
        where = f"{source}: connection {slug!r}"
        if not _SLUG.fullmatch(slug):
            raise ValueError(
                f"{where}: the name must be 1-64 letters, digits, '.', '_' or '-' "
                "starting with a letter or digit"
            )
        if not isinstance(table, dict):
            raise ValueError(f"{where}: must be a table ([connections.{slug}])")
        connections[slug] = _connection(slug, table, where)
    return connections


def _connection(slug: str, table: Mapping[str, Any], where: str) -> LlmConnection:
    for key in table:
        if key not in _CONNECTION_KEYS:
            raise ValueError(f"{where}: unknown key {key!r} (known: {', '.join(_CONNECTION_KEYS)})")
    base_url = table.get("base_url")
    if base_url is None:
        raise ValueError(f"{where}: missing key 'base_url'")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ValueError(f"{where}: key 'base_url' must be an http:// or https:// URL")
    import httpx  # only when a connections file is read: not at every kernel start

    try:
        httpx.URL(base_url)
    except httpx.InvalidURL as error:
        raise ValueError(f"{where}: key 'base_url' is not a valid URL: {error}") from error
    api_key_env = table.get("api_key_env", "")
    if not isinstance(api_key_env, str) or (api_key_env and not _ENV_NAME.fullmatch(api_key_env)):
        raise ValueError(f"{where}: key 'api_key_env' must be an environment variable name")
    model = table.get("model", "")
    if not isinstance(model, str):
        raise ValueError(f"{where}: key 'model' must be a string")
    timeout_s = table.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or timeout_s <= 0:
        raise ValueError(f"{where}: key 'timeout_s' must be a positive number of seconds")
    return LlmConnection(
        slug=slug,
        base_url=base_url,
        api_key_env=api_key_env,
        model=model,
        timeout_s=float(timeout_s),
    )


# -- per-turn settings -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnSettings:
    """What one turn talks to: the connection, the model, the key and the step limit."""

    connection: LlmConnection
    model: str
    api_key: str = ""
    max_steps: int = DEFAULT_MAX_STEPS

    @property
    def who(self) -> str:
        """How error messages name the endpoint."""
        return (
            f"LLM connection {self.connection.slug!r} ({self.connection.url}, model {self.model!r})"
        )


def resolve_settings(
    connections: Mapping[str, LlmConnection],
    header: SessionHeader,
    environ: Mapping[str, str] | None = None,
) -> TurnSettings:
    """The settings of a turn of *header*'s session; :class:`LlmUnavailableError` if incomplete."""
    environ = os.environ if environ is None else environ
    slug = header.llm_connection_slug
    if slug:
        connection = connections.get(slug)
        if connection is None:
            known = ", ".join(sorted(connections)) or "none are configured"
            raise LlmUnavailableError(f"no LLM connection {slug!r} (known: {known})")
    elif len(connections) == 1:
        [connection] = connections.values()
    elif not connections:
        raise LlmUnavailableError(
            "no LLM connection is configured (the kernel needs an LLM connections file)"
        )
    else:
        raise LlmUnavailableError(
            "the session names no LLM connection and several are configured "
            f"({', '.join(sorted(connections))}): set its llm_connection_slug"
        )
    model = header.model or connection.model
    if not model:
        raise LlmUnavailableError(
            f"no model: the session sets none and LLM connection {connection.slug!r} has no "
            "default model"
        )
    api_key = ""
    if connection.api_key_env:
        api_key = environ.get(connection.api_key_env, "")
        if not api_key:
            raise LlmUnavailableError(
                f"the API key variable {connection.api_key_env} of LLM connection "
                f"{connection.slug!r} is not set"
            )
    return TurnSettings(
        connection=connection,
        model=model,
        api_key=api_key,
        max_steps=parse_max_steps(header),
    )


def parse_max_steps(header: SessionHeader) -> int:
    raw = header.backend_options.get("max_steps", "")
    if not raw:
        return DEFAULT_MAX_STEPS
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_STEPS_LIMIT:
        raise ValueError(f"backend option max_steps must be 1..{MAX_STEPS_LIMIT}, not {raw!r}")
    return int(raw)
