"""The backends' names and registry factories, light enough for start-up.

Each factory imports its backend's module (and, for the shell backend, the agent machinery of
:mod:`maka_runtime.kernel.backends.agent` it runs on) when the first session that uses it is
built, not before the kernel serves: the kernel reaches ``SERVING`` without them, and the
first such session pays the import (a few milliseconds) once. The llm backend's factory
(:func:`maka_runtime.kernel.backends.llm.llm_factory`) does the same for the agent loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from maka_runtime.kernel.backends.approvals import SessionApprovals
    from maka_runtime.kernel.backends.scripted import ScriptedBackend
    from maka_runtime.kernel.backends.shell import ShellBackend
    from maka_runtime.kernel.core.session import SessionHeader
    from maka_runtime.kernel.core.tools import ToolHost

SHELL: Final = "shell"
SCRIPTED: Final = "scripted"
#: How long an immediate stop waits, by default, for the tool host to confirm that the turn's
#: runs ended (``--stop-confirm-timeout``); past it the stop fails with
#: :class:`~maka_runtime.kernel.core.errors.RunEndUnconfirmedError`.
STOP_CONFIRM_TIMEOUT: Final = 10.0


def scripted_factory(header: SessionHeader) -> ScriptedBackend:
    """The scripted backend's registry factory."""
    from maka_runtime.kernel.backends import scripted

    return scripted.scripted_factory(header)


def shell_factory(
    host: ToolHost | None,
    approvals: SessionApprovals,
    confirm_timeout: float,
    budget_bytes: int,
) -> Callable[[SessionHeader], ShellBackend]:
    """The shell backend's registry factory (see
    :func:`maka_runtime.kernel.backends.shell.shell_factory`), built on its first use."""
    built: list[Callable[[SessionHeader], ShellBackend]] = []

    def build(header: SessionHeader) -> ShellBackend:
        if not built:
            from maka_runtime.kernel.backends import shell

            built.append(shell.shell_factory(host, approvals, confirm_timeout, budget_bytes))
        return built[0](header)

    return build
