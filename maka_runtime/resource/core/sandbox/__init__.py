"""Sandboxed execution: the boundary a run is confined to and how the host enforces it.

``boundary.py`` is the model (profiles, roots, expansions); ``bwrap.py`` turns a boundary into
a bubblewrap command line; ``environment.py`` is the clean environment; ``cgroups.py`` the
per-run cgroups; ``probe.py`` the start-up check of bubblewrap; ``launch.py`` puts them
together for each run (and refuses a run the host cannot confine: fail closed).
"""

from maka_runtime.resource.core.sandbox.boundary import (
    BoundaryExpansion,
    ExecutionBoundary,
    FilesystemEntry,
    default_boundary,
)
from maka_runtime.resource.core.sandbox.launch import Capabilities, LaunchPlan, Sandbox
from maka_runtime.resource.core.sandbox.settings import SandboxSettings

__all__ = [
    "BoundaryExpansion",
    "Capabilities",
    "ExecutionBoundary",
    "FilesystemEntry",
    "LaunchPlan",
    "Sandbox",
    "SandboxSettings",
    "default_boundary",
]
