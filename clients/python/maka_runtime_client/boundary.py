"""A session's execution boundary as the SDK reads it: profile names and a readable summary.

``KernelClient.create_session(..., profile="read-only")`` takes a name from :data:`PROFILES`
(or a ``PermissionProfile`` value); ``session.boundary`` is a ``maka.resource.v1.
ExecutionBoundary`` (profile, writable roots, the expansions approved for the session, their
revision) and :func:`describe` puts it in one line.
"""

from __future__ import annotations

from typing import Final

from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

PROFILES: Final = {
    "read-only": sb.PERMISSION_PROFILE_READ_ONLY,
    "workspace-write": sb.PERMISSION_PROFILE_WORKSPACE_WRITE,
    "danger-full-access": sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS,
}
_NAMES: Final[dict[int, str]] = {int(value): name for name, value in PROFILES.items()}


def profile_value(profile: str | int) -> int:
    """The ``PermissionProfile`` value of *profile* (a name of :data:`PROFILES`, ``""`` for
    the default, or a value); ``ValueError`` names the choices."""
    if isinstance(profile, int):
        return profile
    if not profile:
        return int(sb.PERMISSION_PROFILE_UNSPECIFIED)
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    return int(PROFILES[profile])


def profile_name(value: int) -> str:
    """The name of a ``PermissionProfile`` value (unset: the default, workspace-write)."""
    return _NAMES.get(int(value), "workspace-write")


def expansion_text(expansion: sb.BoundaryExpansion) -> str:
    """One expansion in words: ``write /srv/data (and below), the network``."""
    words = []
    for entry in expansion.filesystem:
        access = "read" if entry.access == sb.FILESYSTEM_ACCESS_READ else "write"
        below = "" if entry.match == sb.PATH_MATCH_EXACT else " (and below)"
        words.append(f"{access} {entry.path}{below}")
    if expansion.network:
        words.append("the network")
    return ", ".join(words)


def describe(boundary: sb.ExecutionBoundary) -> str:
    """A boundary in one line: ``workspace-write, revision 2: write /srv (and below)``."""
    text = f"{profile_name(boundary.profile)}, revision {boundary.revision}"
    granted = "; ".join(expansion_text(expansion) for expansion in boundary.expansions)
    return f"{text}: {granted}" if granted else text
