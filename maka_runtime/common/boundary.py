"""The execution boundary on the wire: the kernel's primitives ↔ ``maka.resource.v1`` messages.

The kernel keeps a boundary as primitives (a profile name, expansions as tuples of grant tokens
``"network"`` or ``"ACCESS:MATCH:PATH"``, a revision; see ``maka_runtime.kernel.core.boundary``);
the kernel's API (``Session.boundary``, ``ToolResult``, ``SandboxBoundaryRequest``) and its link to
the resource service (``RunForegroundRequest.boundary``) send them as the resource proto's
messages. Shapes only: validation is the kernel core's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

PROFILE: Final[Mapping[str, int]] = {
    "read-only": sb.PERMISSION_PROFILE_READ_ONLY,
    "workspace-write": sb.PERMISSION_PROFILE_WORKSPACE_WRITE,
    "danger-full-access": sb.PERMISSION_PROFILE_DANGER_FULL_ACCESS,
}
PROFILE_NAME: Final[Mapping[int, str]] = {value: name for name, value in PROFILE.items()}
_ACCESS: Final[Mapping[str, int]] = {
    "read": sb.FILESYSTEM_ACCESS_READ,
    "write": sb.FILESYSTEM_ACCESS_WRITE,
}
_MATCH: Final[Mapping[str, int]] = {
    "exact": sb.PATH_MATCH_EXACT,
    "subtree": sb.PATH_MATCH_SUBTREE,
}
_ACCESS_NAME: Final = {value: name for name, value in _ACCESS.items()}
_MATCH_NAME: Final = {value: name for name, value in _MATCH.items()} | {
    sb.PATH_MATCH_UNSPECIFIED: "subtree"
}


def expansion_to_proto(tokens: Iterable[str]) -> sb.BoundaryExpansion:
    message = sb.BoundaryExpansion()
    for token in tokens:
        if token == "network":
            message.network = True
            continue
        access, match, path = token.split(":", 2)
        message.filesystem.add(path=path, access=_ACCESS[access], match=_MATCH[match])
    return message


def expansion_from_proto(message: sb.BoundaryExpansion) -> tuple[str, ...]:
    """The tokens of *message*; an entry with an unknown or unset access gives a token the
    kernel refuses (``ValueError`` from its check names it)."""
    tokens = [
        f"{_ACCESS_NAME.get(entry.access, 'unset')}:{_MATCH_NAME.get(entry.match, 'unset')}:"
        f"{entry.path}"
        for entry in message.filesystem
    ]
    return (*tokens, "network") if message.network else tuple(tokens)


def boundary_to_proto(
    profile: str, workspace_root: str, expansions: Sequence[Sequence[str]], revision: int
) -> sb.ExecutionBoundary:
    """A session's boundary as a run carries it: the workspace root as the writable root (read
    only under ``read-only``), the expansions oldest first."""
    return sb.ExecutionBoundary(
        profile=PROFILE[profile],  # type: ignore[arg-type]
        writable_roots=[workspace_root],
        expansions=[expansion_to_proto(tokens) for tokens in expansions],
        revision=revision,
    )
