"""What a bash call needs beyond its session's execution boundary, and how it is known.

A need is known two ways:

* **declared** before the run: the shell backend's ``/net CMD`` (the network) and
  ``/write PATH CMD`` (write PATH and below; both may be combined, ``/net /write /srv x``), the
  LLM backend's ``request_sandbox_boundary`` tool (an expansion and a justification, granted to
  its next ``bash`` call). A declared need the boundary covers runs at once; one it does not
  raises a sandbox-boundary request naming the expansion (permission mode ``ask``), or — in
  ``bypass``, which never asks — fails the call with ``sandbox_boundary_required``, unrun;
* **detected** after a run that failed, from what its output reports: ``Read-only file
  system`` on a path the boundary does not let it write (the need is write access to that
  path's directory) or a network error while the boundary has no network. Detection only
  reads the output — which the command controls, so it may be anything the command printed —
  and *proposes*; the user decides. The tool result then carries ``sandbox_boundary_required``
  and the expansion; the shell backend asks once, quoting the output line, and, approved, runs
  the command again with it.

Every path is resolved first (taken from the cwd, ``..`` and symlinks followed; ``~`` is not
expanded, so a ``~`` path is refused): the request names the real path. What can never be
granted (writing ``/`` or a system directory, anything inside the kernel's data directory) is
refused before it runs when declared; when detected, the result carries ``requires_bypass``
(no expansion: no approval can help) instead of a request.

The original system detects needs the same way (a declared preflight plus the sandbox's denial)
and never retries unsandboxed: neither does this.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from maka_runtime.kernel.backends.bash_call import BashOutcome
from maka_runtime.kernel.core.boundary import (
    BOUNDARY_REQUIRED,
    NETWORK,
    REQUIRES_BYPASS,
    Boundary,
    BoundaryError,
    Expansion,
    Grant,
    expansion,
    missing,
    outside,
    resolve,
)

NET_PREFIX = "/net"
WRITE_PREFIX = "/write"

_READ_ONLY = re.compile(r"(?:'([^'\n]+)'|([^\s:'\"]+)): Read-only file system")
_NETWORK = re.compile(
    r"Network is unreachable|Could not resolve host|Temporary failure in name resolution"
    r"|Name or service not known|Connection refused|No route to host"
)


@dataclass(frozen=True, kw_only=True, slots=True)
class Declared:
    """A command line with its declared needs taken off the front."""

    command: str
    need: Expansion = ()
    #: How the declared paths were resolved (``a -> /real/a``, ``; ``-separated), when a
    #: path as written differs from the real one.
    resolved: str = ""


def declared(text: str, cwd: str, protected: Sequence[str] = ()) -> Declared:
    """Parse ``/net`` and ``/write PATH`` prefixes (any order, repeatable). PATH is resolved
    (:func:`resolve`); a malformed one, or one that can never be granted (a system directory,
    inside a *protected* directory), is :class:`BoundaryError`."""
    rest = text.strip()
    grants: list[Grant] = []
    network = False
    notes: list[str] = []
    while True:
        word, _, after = rest.partition(" ")
        if word == NET_PREFIX:
            network, rest = True, after.strip()
        elif word == WRITE_PREFIX:
            path, _, after = after.strip().partition(" ")
            if not path:
                raise BoundaryError("/write needs a path: /write PATH COMMAND")
            real = resolve(path, cwd)
            if real != posixpath.normpath(posixpath.join(cwd, path)):
                notes.append(f"{path} -> {real}")
            grants.append(Grant(path=real))
            rest = after.strip()
        else:
            break
    if not grants and not network:
        return Declared(command=rest)
    need = expansion(tuple(grants), network)
    outside(need, protected)
    return Declared(command=rest, need=need, resolved="; ".join(notes))


def detected(
    output: str, boundary: Boundary, cwd: str, protected: Sequence[str] = ()
) -> tuple[Expansion, str]:
    """The need a failed run's *output* reports and the detail to say about it: the quoted
    line, or why the need can never be granted (the need then ``()``); ``((), "")`` when
    the output reports nothing the boundary does not cover."""
    for line in output.splitlines():
        found = _READ_ONLY.search(line)
        if found:
            try:
                path = resolve(found.group(1) or found.group(2), cwd)
            except BoundaryError:
                continue
            if not missing(boundary, (Grant(path=path, match="exact").token,)):
                continue
            quoted = f"the command's output reported {line.strip()!r}"
            try:
                need = expansion((Grant(path=posixpath.dirname(path) or "/"),))
                outside(need, protected)
            except BoundaryError as error:
                return (), f"{quoted}; {error}"
            return need, quoted
        if _NETWORK.search(line) and missing(boundary, (NETWORK,)):
            return (NETWORK,), f"the command's output reported {line.strip()!r}"
    return (), ""


def refused(outcome: BashOutcome | None, need: Expansion, detail: str) -> BashOutcome | None:
    """*outcome* with its result marked ``sandbox_boundary_required`` for *need*, or
    ``requires_bypass`` when *need* is empty (nothing could be granted: *detail* says why)."""
    if outcome is None:
        return None
    result = replace(
        outcome.result,
        sandbox_failure=BOUNDARY_REQUIRED if need else REQUIRES_BYPASS,
        required_expansion=need,
        failure_detail=detail,
    )
    return replace(outcome, result=result)
