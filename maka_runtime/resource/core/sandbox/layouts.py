"""The sandbox layouts of recent boundaries, kept while the host still looks the same.

A session's runs mostly share one boundary, and computing its layout costs a few hundred file
system look-ups (every root, mask and expansion resolved, protected metadata looked for, the
directories below each writable root scanned). :class:`LayoutCache` keeps the layout of each
of the last ``layout_cache_entries`` boundaries (the setting; 0 keeps none) with the
:class:`~.fileview.Fingerprint` of what it looked at, and hands it out again only while that
fingerprint holds: a directory whose entries changed (a ``.git`` created, a symlink
retargeted, a directory renamed), a ``.git`` file rewritten or a mount made over a root means
the layout is computed again, so every run gets the layout the host has when it starts.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from maka_runtime.resource.core.sandbox.boundary import ExecutionBoundary
from maka_runtime.resource.core.sandbox.bwrap import SandboxLayout, layout, roots_inside_masked
from maka_runtime.resource.core.sandbox.fileview import FileView, Fingerprint
from maka_runtime.resource.core.sandbox.settings import SandboxSettings

__all__ = ["LayoutCache", "Shape"]


@dataclass(frozen=True)
class Shape:
    """A boundary's layout, the roots of it that lie inside the service's own data, and the
    fingerprint of the host they were computed from."""

    layout: SandboxLayout
    hidden: tuple[str, ...]
    fingerprint: Fingerprint


class LayoutCache:
    """The layouts of the most recently used boundaries (see the module docstring)."""

    def __init__(self, settings: SandboxSettings, clock: Callable[[], int] = time.time_ns) -> None:
        self._settings = settings
        self._clock = clock
        self._entries: OrderedDict[ExecutionBoundary, Shape] = OrderedDict()
        #: Layouts handed out again / computed (for tests and figures).
        self.hits = 0
        self.computed = 0

    def shape(self, boundary: ExecutionBoundary) -> Shape:
        """*boundary*'s layout as the host is now: kept, if nothing it looked at changed."""
        kept = self._entries.get(boundary)
        if kept is not None and kept.fingerprint.holds():
            self._entries.move_to_end(boundary)
            self.hits += 1
            return kept
        self._entries.pop(boundary, None)
        settings = self._settings
        view = FileView(self._clock)
        plan = layout(
            boundary,
            readable=settings.readable_roots,
            masked=settings.masked_paths,
            depth=settings.protect_depth,
            scan_max=settings.protect_scan_max,
            fs=view,
        )
        hidden = tuple(roots_inside_masked(plan, settings.masked_paths, view))
        shape = Shape(plan, hidden, view.fingerprint())
        self.computed += 1
        if settings.layout_cache_entries > 0 and shape.fingerprint.reusable:
            self._entries[boundary] = shape
            while len(self._entries) > settings.layout_cache_entries:
                self._entries.popitem(last=False)
        return shape
