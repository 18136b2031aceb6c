"""The settings of ``maka-kernel`` (flags and environment; the README's configuration table).

:func:`add_settings` declares every kernel-specific flag on a
:class:`~maka_runtime.common.config.SettingsParser`; ``maka_runtime.kernel.server`` reads them
back into its ``KernelConfig``.
"""

from __future__ import annotations

import argparse

from maka_runtime.common import event_loop
from maka_runtime.common.config import (
    DEFAULT_PAGE_BYTES,
    PAGE_BYTES_RANGE,
    SettingsParser,
    boolean,
    bounded_int,
    byte_size,
    positive_seconds,
    target_address,
)
from maka_runtime.common.sqlite import add_synchronous_setting
from maka_runtime.kernel.backends import llm
from maka_runtime.kernel.backends.factories import SCRIPTED, SHELL
from maka_runtime.kernel.core.interactions.messaging import DEFAULT_MAX_BYTES, DEFAULT_MAX_MESSAGES
from maka_runtime.kernel.core.tool_output import DEFAULT_BUDGET_BYTES, MAX_BUDGET_BYTES

BACKEND_KINDS = (SHELL, "llm", SCRIPTED)
#: The kernel's event loop unless told otherwise: uvloop, which spends less CPU per message and
#: per store call (the README's configuration table has the figures).
DEFAULT_LOOP = "uvloop"


def add_settings(settings: SettingsParser) -> None:
    """Every setting of the kernel besides the common ones."""
    _add_link_settings(settings)
    _add_turn_settings(settings)
    _add_limit_settings(settings)
    _add_cache_settings(settings)
    event_loop.add_setting(settings, "every stream, turn and store call", default=DEFAULT_LOOP)


def _add_link_settings(settings: SettingsParser) -> None:
    """Where the resource service is and how the kernel talks to it."""
    settings.add(
        "resource-address",
        type=target_address,
        default="127.0.0.1:50052",
        metavar="HOST:PORT",
        help="where the resource service listens",
    )
    settings.add(
        "resource-timeout",
        type=positive_seconds,
        default="10",
        metavar="SECONDS",
        help="deadline of each call to the resource service (stopping a run gets 15 s more)",
    )
    settings.add(
        "shutdown-resource",
        type=boolean,
        default="yes",
        metavar="yes|no",
        help="whether the kernel's shutdown also shuts the resource service down (the cascade)",
    )
    settings.add(
        "resource-token-file",
        default="",
        metavar="FILE",
        help="file holding the bearer token of the link to the resource service (empty: "
        "MAKA_TOKEN, then DATA_DIR/credentials/local.token)",
    )
    for name, what in (
        ("ca", "CA that signed the resource service's certificate (TLS link)"),
        ("cert", "client certificate the link presents (mutual TLS)"),
        ("key", "private key of --resource-tls-cert"),
    ):
        settings.add(f"resource-tls-{name}", default="", metavar="PEM", help=what)


def _add_turn_settings(settings: SettingsParser) -> None:
    """How turns run: durability, backends, interaction timeouts."""
    settings.add(
        "answer-timeout",
        type=positive_seconds,
        default="0",
        metavar="SECONDS",
        help="deny sandbox-boundary requests and cancel questions nobody answers in time "
        "(0: wait as long as the turn runs)",
    )
    add_synchronous_setting(settings, "the session store")
    settings.add(
        "llm-connections",
        type=_connections_file,
        default="",
        metavar="FILE",
        help="TOML file of OpenAI-compatible connections for the llm backend",
    )
    settings.add(
        "stop-confirm-timeout",
        type=positive_seconds,
        default="10",
        metavar="SECONDS",
        help="how long an immediate stop waits for the resource service to confirm that the "
        "turn's runs ended; past it the stop fails (OWNER_CLEANUP_FAILED) and the session is "
        "quarantined until the kernel confirms their end",
    )
    settings.add(
        "stop-settle-timeout",
        type=positive_seconds,
        default="5",
        metavar="SECONDS",
        help="how long a stop waits for the backend to end the turn's stream before it "
        "records the turn aborted anyway (later events of the turn are discarded)",
    )
    settings.add(
        "default-backend",
        type=_backend_kind,
        default=SHELL,
        metavar="shell|llm|scripted",
        help="the backend of sessions created without one",
    )


def _output_budget(value: str) -> int:
    size = byte_size(value)
    if size > MAX_BUDGET_BYTES:
        raise argparse.ArgumentTypeError(f"expected 1KiB to 64MiB, got {value!r}")
    return size


def _add_limit_settings(settings: SettingsParser) -> None:
    """The kernel's limits (see the README's limits section)."""
    settings.add(
        "tool-output-budget-bytes",
        type=_output_budget,
        default=str(DEFAULT_BUDGET_BYTES),
        metavar="BYTES",
        help="most bytes of each stream (stdout, stderr) of one tool call kept in the session's "
        "log; the rest is counted in the tool_result's truncation record (1KiB to 64MiB)",
    )
    settings.add(
        "max-page-bytes",
        type=bounded_int(*PAGE_BYTES_RANGE, "bytes"),
        default=str(DEFAULT_PAGE_BYTES),
        metavar="BYTES",
        help="most bytes one page of ReadMessages, ListSessions or ListTurns holds (a page "
        "always holds at least one item)",
    )
    settings.add(
        "max-queued-messages",
        type=bounded_int(1, 100_000),
        default=str(DEFAULT_MAX_MESSAGES),
        metavar="N",
        help="most messages queued into one running turn (SendMessage); more are "
        "RESOURCE_EXHAUSTED until the turn takes them",
    )
    settings.add(
        "max-queued-bytes",
        type=bounded_int(64 * 1024, 1024 * 1024 * 1024, "bytes"),
        default=str(DEFAULT_MAX_BYTES),
        metavar="BYTES",
        help="most bytes of text queued into one running turn (SendMessage)",
    )
    settings.add(
        "max-early-stops",
        type=bounded_int(1, 10_000),
        default="16",
        metavar="N",
        help="most stops remembered per session for turns not admitted yet (StopSession "
        "with a turn_id); the oldest is forgotten first",
    )


def _add_cache_settings(settings: SettingsParser) -> None:
    """What the kernel keeps in memory, as committed (headers, their answers, list pages)."""
    settings.add(
        "session-header-cache",
        type=bounded_int(0, 1_000_000),
        default="1024",
        metavar="N",
        help="most session headers kept in memory for GetSession and turn starts (0: none)",
    )
    settings.add(
        "list-page-cache",
        type=bounded_int(0, 100_000),
        default="64",
        metavar="N",
        help="most ListSessions pages kept in memory for queries asked again, each while no "
        "session it shows has changed (0: none)",
    )


def _connections_file(value: str) -> tuple[str, dict[str, llm.LlmConnection]]:
    if not value:
        return "", {}
    try:
        return value, llm.load_connections(value)
    except (OSError, ValueError) as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _backend_kind(value: str) -> str:
    if value not in BACKEND_KINDS:
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(BACKEND_KINDS)}, got {value!r}"
        )
    return value
