"""The live-run limits a new run is admitted under: all runs, one session's runs, PTY runs."""

from __future__ import annotations

from collections.abc import Sequence

from resource_service.core.config import ShellRunConfig
from resource_service.core.errors import ResourceExhaustedError
from resource_service.core.live import LiveRun
from resource_service.core.requests import BashInput

__all__ = ["check_live_limits"]


def check_live_limits(config: ShellRunConfig, runs: Sequence[LiveRun], request: BashInput) -> None:
    """Raise :class:`ResourceExhaustedError` if admitting *request* next to the live *runs*
    would exceed a limit."""
    live = len(runs)
    ptys = sum(1 for run in runs if run.record.mode == "pty")
    if live >= config.max_live_runs:
        raise ResourceExhaustedError(
            f"{live} shell runs are live (limit {config.max_live_runs}); "
            "stop one or wait for one to finish",
            limit_name="max_live_runs",
            limit=config.max_live_runs,
        )
    own = sum(1 for run in runs if run.record.session_id == request.session_id)
    cap = config.live_runs_per_session
    if own >= cap:
        raise ResourceExhaustedError(
            f"session {request.session_id!r} has {own} live shell runs (limit {cap} per "
            "session); stop one or wait for one to finish",
            limit_name="max_live_runs_per_session",
            limit=cap,
        )
    if request.pty and ptys >= config.max_live_ptys:
        raise ResourceExhaustedError(
            f"{ptys} PTY runs are live (limit {config.max_live_ptys}); stop one or use a pipes run",
            limit_name="max_live_ptys",
            limit=config.max_live_ptys,
        )
