"""The ``--event-loop`` setting both services share: the standard library's loop or uvloop's.

:func:`add_setting` declares the flag (and its environment variables, through
:class:`~maka_runtime.common.config.SettingsParser`), :func:`loop_factory` turns its value into
what :func:`~maka_runtime.common.server.run_main` runs on, and :func:`running_loop` names the
loop a service actually runs on, for its startup log line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from maka_runtime.common.config import SettingsParser

#: The values of ``--event-loop``; the first is the default.
EVENT_LOOPS = ("asyncio", "uvloop")


def add_setting(settings: SettingsParser, carries: str, default: str = "asyncio") -> None:
    """Declare ``--event-loop``; *carries* says what the loop carries in this service."""
    settings.add(
        "event-loop",
        default=default,
        choices=EVENT_LOOPS,
        help=f"the event loop that carries {carries}: asyncio (the standard library's) or "
        "uvloop (libuv's: less CPU per call and per message)",
    )


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the loop called *name* (``None``: asyncio's own)."""
    if name == "uvloop":
        import uvloop  # only when chosen

        return uvloop.new_event_loop
    return None


def running_loop() -> str:
    """``uvloop`` or ``asyncio``: the loop this coroutine runs on."""
    module = type(asyncio.get_running_loop()).__module__.partition(".")[0]
    return "uvloop" if module == "uvloop" else "asyncio"
