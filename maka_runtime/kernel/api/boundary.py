"""The execution boundary in the kernel's messages: ``Session.boundary``, the boundary fields of
``ToolResult`` and ``SandboxBoundaryRequest``, ``CreateSessionRequest.profile``. Shapes only."""

from __future__ import annotations

from typing import Protocol

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.common.boundary import (
    PROFILE,
    PROFILE_NAME,
    boundary_to_proto,
    expansion_to_proto,
)
from maka_runtime.kernel.core import InvalidRequestError, SessionHeader


class ToolResult(Protocol):
    """The boundary fields of a ``tool_result`` log entry."""

    @property
    def profile(self) -> str: ...
    @property
    def boundary_revision(self) -> int: ...
    @property
    def sandbox_failure(self) -> str: ...
    @property
    def required_expansion(self) -> tuple[str, ...]: ...
    @property
    def failure_detail(self) -> str: ...
    @property
    def once_expansion(self) -> tuple[str, ...]: ...


class SandboxBoundaryRequest(Protocol):
    """The boundary fields of a ``sandbox_boundary_request`` entry."""

    @property
    def expansion(self) -> tuple[str, ...]: ...
    @property
    def justification(self) -> str: ...
    @property
    def base_revision(self) -> int: ...


def fill_session_boundary(session: pb.Session, header: SessionHeader) -> None:
    boundary = boundary_to_proto(
        header.profile, header.workspace_root, header.expansions, header.boundary_revision
    )
    # The session's own copy names no root: it is the session's workspace_root (and the page
    # bounds of ListSessions count each header's fields once).
    del boundary.writable_roots[:]
    session.boundary.CopyFrom(boundary)


def fill_result_boundary(result: pb.ToolResult, entry: ToolResult) -> None:
    if entry.profile:
        result.profile = PROFILE[entry.profile]  # type: ignore[assignment]
    result.boundary_revision = entry.boundary_revision
    if entry.sandbox_failure:
        failure = result.sandbox_failure
        failure.reason = entry.sandbox_failure
        failure.required_expansion.CopyFrom(expansion_to_proto(entry.required_expansion))
        failure.detail = entry.failure_detail
    if entry.once_expansion:
        result.once_expansion.CopyFrom(expansion_to_proto(entry.once_expansion))


def fill_request_boundary(
    request: pb.SandboxBoundaryRequest, entry: SandboxBoundaryRequest
) -> None:
    if entry.expansion:
        request.expansion.CopyFrom(expansion_to_proto(entry.expansion))
    request.justification = entry.justification
    request.base_revision = entry.base_revision


def profile_of(request: pb.CreateSessionRequest) -> str:
    """The profile a new session asks for (unset: ``workspace-write``)."""
    if request.profile == 0:
        return "workspace-write"
    name = PROFILE_NAME.get(request.profile)
    if name is None:
        raise InvalidRequestError("profile", f"unknown value {request.profile}")
    return name
