"""Tunables of the shell-run host, with the spec's defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from maka_runtime.resource.core.sandbox.settings import SandboxSettings
from maka_runtime.resource.core.screen_limits import DEFAULT_MAX_PENDING, DEFAULT_SCROLLBACK
from maka_runtime.resource.core.sizes import DEFAULT_PAGE_BYTES

__all__ = ["ShellRunConfig"]


@dataclass(frozen=True)
class ShellRunConfig:
    """How the host runs commands. Times are in seconds, sizes in bytes."""

    #: Between SIGTERM to a run's process group and SIGKILL.
    termination_grace: float = 2.0
    #: How long to wait for the leader to exit after SIGKILL before reporting an internal failure.
    kill_timeout: float = 5.0
    #: After the leader exits and its group is killed, how long to wait for end of file on the
    #: output; only a process that left the group can hold it open that long.
    output_drain_timeout: float = 2.0
    #: Retained tail of each pipe stream.
    stream_tail_bytes: int = 1024 * 1024
    #: Output kept in memory per live run for consumers that keep up (the journal holds more).
    replay_bytes: int = 1024 * 1024
    #: Where runs' output journals live (``None``: no journals; see journals.py).
    output_dir: str | None = None
    #: Most bytes of chunk data one run's journal keeps (its first part); 0: none.
    max_run_output_bytes: int = 32 * 1024 * 1024
    #: Most bytes the journals of ended runs keep together; the oldest ended are removed first.
    max_kept_output_bytes: int = 1024 * 1024 * 1024
    #: Rows of PTY scrollback.
    scrollback_rows: int = DEFAULT_SCROLLBACK
    #: PTY output queued for the emulator before it skips ahead (see screen.py).
    screen_max_pending: int = DEFAULT_MAX_PENDING
    #: PTY output is rendered at most this much per ``render_interval`` while more is
    #: queued, so a flood never takes more than a fraction of the event loop.
    render_slice_bytes: int = 2 * 1024
    render_interval: float = 0.03
    max_live_runs: int = 64
    max_live_ptys: int = 8
    #: Most live runs of one session; ``None``: a quarter of ``max_live_runs`` (at least 1),
    #: so one session never starves the others.
    max_live_runs_per_session: int | None = None
    #: Most bytes one page of ListRuns holds (a page always holds at least one run).
    max_page_bytes: int = DEFAULT_PAGE_BYTES
    #: Most committed revisions queued for one WatchRuns watcher that it has not taken yet;
    #: past that its queue collapses to the latest revision of each run (see catalog.py).
    watch_backlog: int = 1024
    #: Most bytes of finished runs' records kept in memory to answer GetRun without the store
    #: (see finished.py); 0: none.
    finished_run_cache_bytes: int = 16 * 1024 * 1024
    #: Most ListRuns pages of one session kept for queries asked again (see catalog_pages.py);
    #: 0: none.
    list_page_cache: int = 64
    #: Environment the allow-listed variables of runs come from; ``None`` means the host's
    #: own environment (see ``sandbox/environment.py``: runs never see the rest of it).
    base_env: Mapping[str, str] | None = None
    #: Sandbox and containment (see ``sandbox/``).
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)

    @property
    def live_runs_per_session(self) -> int:
        if self.max_live_runs_per_session is not None:
            return self.max_live_runs_per_session
        return max(1, self.max_live_runs // 4)
