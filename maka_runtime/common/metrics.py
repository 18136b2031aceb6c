"""What a service reports about itself, and the no-figures default.

With ``--metrics-listen`` a service keeps Prometheus figures and serves them on ``/metrics``
(:class:`maka_runtime.common.prometheus.ServiceMetrics`). Without it nothing could read them,
so a service keeps none: :class:`Metrics` is the same interface doing nothing, and neither
``prometheus_client`` nor its HTTP server is imported (a start loads less, a call records
nothing). :func:`open_metrics` chooses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

__all__ = ["CallRecorder", "Metrics", "StateCounts", "open_metrics", "status_name"]

#: A source of a gauge by kind and state, read at every scrape: ``{(kind, state): count}``.
StateCounts = Callable[[], dict[tuple[str, str], int]]
#: Records one call's end: (its context, ``time.perf_counter()`` at its start, what it raised).
CallRecorder = Callable[[Any, float, "BaseException | None"], None]


def _discard(context: Any, started: float, error: BaseException | None) -> None:
    """Records nothing."""


class Metrics:
    """A service's figures when nothing serves them: every report is dropped."""

    #: Whether figures are kept (and served).
    enabled = False

    def recorder(self, path: str) -> CallRecorder:
        """What records the calls of method *path* (``/package.Service/Method``)."""
        return _discard

    def observe_stores(self) -> None:
        """Time the commits of this service's SQLite stores."""

    def stop_observing(self) -> None:
        """Stop timing them."""

    def add_live(self, source: StateCounts) -> None:
        """Report live items by kind and state from *source* at every scrape."""

    def set_live_ptys(self, source: Callable[[], int]) -> None:
        """Report the open terminals from *source* at every scrape."""

    def count_finished(self, kind: str, state: str, stop_seconds: float | None = None) -> None:
        """A turn or run reached final *state*; *stop_seconds* since its stop, if stopped."""

    def turn_final(self, state: str) -> None:
        """A turn reached final *state*."""

    def observe_drain(self, seconds: float) -> None:
        """The service's graceful drain took *seconds*."""


def open_metrics(service: str, data_dir: Path | None, *, served: bool) -> Metrics:
    """Prometheus figures for *service* when they are *served*, else :class:`Metrics`."""
    if not served:
        return Metrics()
    from maka_runtime.common.prometheus import ServiceMetrics  # only with --metrics-listen

    return ServiceMetrics(service, data_dir)


def _deadline_passed(context: Any) -> bool:
    """Whether the call's deadline has passed (grpc reports no time left, not a negative)."""
    try:
        remaining = context.time_remaining()
    except Exception:
        return False
    return isinstance(remaining, float | int) and remaining <= 0


def status_name(context: Any, error: BaseException | None) -> str:
    """The status code a call ends with: the one its context holds (set or aborted with), else
    OK, CANCELLED for a cancelled call, UNKNOWN for an exception that escaped."""
    code = None
    try:
        code = context.code()
    except Exception:
        code = None
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):
        for status in grpc.StatusCode:
            if status.value[0] == code:
                return status.name
    if error is None:
        return "OK"
    if isinstance(error, (asyncio.CancelledError, GeneratorExit)):
        # grpc cancels the handler both when the client cancels and when the call's
        # deadline passes; the client of the latter sees DEADLINE_EXCEEDED.
        return "DEADLINE_EXCEEDED" if _deadline_passed(context) else "CANCELLED"
    return "UNKNOWN"
