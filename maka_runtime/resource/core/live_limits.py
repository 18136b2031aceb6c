"""The live-run limits a new run is admitted under: in all, per session, and PTYs."""

from __future__ import annotations

from collections.abc import Sequence

from maka_runtime.resource.core.config import ShellRunConfig
from maka_runtime.resource.core.errors import ResourceExhaustedError
from maka_runtime.resource.core.live import LiveRun
from maka_runtime.resource.core.requests import BashInput

__all__ = ["check_live_limits"]


def check_live_limits(config: ShellRunConfig, live: Sequence[LiveRun], request: BashInput) -> None:
    """Refuse *request* (``ResourceExhaustedError`` naming the limit) if one more run would
    exceed a limit, given the runs *live* now (including runs still starting)."""
    ptys = sum(1 for run in live if run.record.mode == "pty")
    if len(live) >= config.max_live_runs:
        raise ResourceExhaustedError(
            f"{len(live)} shell runs are live (limit {config.max_live_runs}); "
            "stop one or wait for one to finish",
            limit_name="max_live_runs",
            limit=config.max_live_runs,
        )
    own = sum(1 for run in live if run.record.session_id == request.session_id)
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
