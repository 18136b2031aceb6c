"""The execution boundary and the sandbox capabilities between protobuf and the domain."""

from __future__ import annotations

from typing import Final

from maka_runtime_proto.resource.v1 import sandbox_pb2 as pb

from maka_runtime.resource.core import (
    BoundaryExpansion,
    Capabilities,
    ExecutionBoundary,
    FilesystemEntry,
    InvalidRequestError,
    RunSandbox,
)
from maka_runtime.resource.core import FilesystemAccess as Access
from maka_runtime.resource.core import PathMatch as Match
from maka_runtime.resource.core import PermissionProfile as Profile

__all__ = ["boundary_from_proto", "capabilities_to_proto", "run_sandbox_to_proto"]

_PROFILE: Final[dict[int, Profile]] = {
    pb.PERMISSION_PROFILE_UNSPECIFIED: "workspace-write",
    pb.PERMISSION_PROFILE_READ_ONLY: "read-only",
    pb.PERMISSION_PROFILE_WORKSPACE_WRITE: "workspace-write",
    pb.PERMISSION_PROFILE_DANGER_FULL_ACCESS: "danger-full-access",
}
_PROFILE_OUT: Final[dict[str, pb.PermissionProfile.ValueType]] = {
    "read-only": pb.PERMISSION_PROFILE_READ_ONLY,
    "workspace-write": pb.PERMISSION_PROFILE_WORKSPACE_WRITE,
    "danger-full-access": pb.PERMISSION_PROFILE_DANGER_FULL_ACCESS,
}
_ACCESS: Final[dict[int, Access]] = {
    pb.FILESYSTEM_ACCESS_READ: "read",
    pb.FILESYSTEM_ACCESS_WRITE: "write",
}
_MATCH: Final[dict[int, Match]] = {
    pb.PATH_MATCH_UNSPECIFIED: "subtree",
    pb.PATH_MATCH_EXACT: "exact",
    pb.PATH_MATCH_SUBTREE: "subtree",
}
_CONTAINMENT: Final[dict[str, pb.Containment.ValueType]] = {
    "cgroup": pb.CONTAINMENT_CGROUP,
    "process-group": pb.CONTAINMENT_PROCESS_GROUP,
}


def boundary_from_proto(boundary: pb.ExecutionBoundary) -> ExecutionBoundary:
    """The domain boundary; :class:`InvalidRequestError` for an enum value it does not know
    (the rest is checked with the request)."""
    profile = _PROFILE.get(boundary.profile)
    if profile is None:
        raise InvalidRequestError(
            f"unknown permission profile {boundary.profile}", field="boundary.profile"
        )
    return ExecutionBoundary(
        profile=profile,
        writable_roots=tuple(boundary.writable_roots),
        readable_roots=tuple(boundary.readable_roots),
        expansions=tuple(_expansion(e) for e in boundary.expansions),
        revision=boundary.revision,
    )


def _expansion(expansion: pb.BoundaryExpansion) -> BoundaryExpansion:
    return BoundaryExpansion(
        filesystem=tuple(_entry(entry) for entry in expansion.filesystem),
        network=expansion.network,
    )


def _entry(entry: pb.FilesystemEntry) -> FilesystemEntry:
    field = "boundary.expansions.filesystem"
    access = _ACCESS.get(entry.access)
    if access is None:
        raise InvalidRequestError(
            f"{field}.access must be READ or WRITE (path {entry.path[:200]!r})",
            field=f"{field}.access",
        )
    match = _MATCH.get(entry.match)
    if match is None:
        raise InvalidRequestError(f"unknown path match {entry.match}", field=f"{field}.match")
    return FilesystemEntry(path=entry.path, access=access, match=match)


def run_sandbox_to_proto(sandbox: RunSandbox) -> pb.RunSandbox:
    return pb.RunSandbox(
        profile=_PROFILE_OUT.get(sandbox.profile, pb.PERMISSION_PROFILE_UNSPECIFIED),
        boundary_revision=sandbox.boundary_revision,
        network=sandbox.network,
        containment=_CONTAINMENT.get(sandbox.containment, pb.CONTAINMENT_UNSPECIFIED),
    )


def capabilities_to_proto(caps: Capabilities) -> pb.SandboxCapabilities:
    return pb.SandboxCapabilities(
        sandbox_available=caps.bwrap.available,
        sandbox_unavailable_reason=caps.bwrap.reason,
        bwrap_path=caps.bwrap.path,
        bwrap_version=caps.bwrap.version,
        containment=_CONTAINMENT[caps.containment],
        containment_reason=caps.containment_reason,
        cgroup_root=caps.cgroup_root,
        cgroup_controllers=list(caps.cgroup_controllers),
        unenforced_limits=list(caps.unenforced_limits),
    )
