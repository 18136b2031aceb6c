"""What a bash call needs beyond its session's execution boundary, and how it is known.

A need is known two ways:

* **declared** before the run: the shell backend's ``/net CMD`` (the network) and
  ``/write PATH CMD`` (write PATH and below; both may be combined, ``/net /write /srv x``), the
  LLM backend's ``request_sandbox_boundary`` tool (an expansion and a justification, granted to
  its next ``bash`` call). A declared need the boundary covers runs at once; one it does not
  raises a sandbox-boundary request naming the expansion (permission mode ``ask``), or — in
  ``bypass``, which never asks — fails the call with ``sandbox_boundary_required``, unrun;
* **detected** after a run that failed, from the sandbox's refusal in its output: a path the
  run could not write because it is read-only to it (``Read-only file system`` on a path the
  boundary does not let it write: the need is write access to that path's directory) or a
  network error while the boundary has no network. The tool result then carries
  ``sandbox_boundary_required`` and the expansion; the shell backend asks once and, approved,
  runs the command again with it.

The original system detects needs the same way (a declared preflight plus the sandbox's denial)
and never retries unsandboxed: neither does this.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace

from maka_runtime.kernel.backends.bash_call import BashOutcome
from maka_runtime.kernel.core.boundary import (
    BOUNDARY_REQUIRED,
    NETWORK,
    Boundary,
    BoundaryError,
    Expansion,
    Grant,
    expansion,
    missing,
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


def declared(text: str, cwd: str) -> Declared:
    """Parse ``/net`` and ``/write PATH`` prefixes (any order, repeatable). A relative PATH is
    taken from *cwd*; a malformed one is :class:`BoundaryError`."""
    rest = text.strip()
    grants: list[Grant] = []
    network = False
    while True:
        word, _, after = rest.partition(" ")
        if word == NET_PREFIX:
            network, rest = True, after.strip()
        elif word == WRITE_PREFIX:
            path, _, after = after.strip().partition(" ")
            if not path:
                raise BoundaryError("/write needs a path: /write PATH COMMAND")
            grants.append(Grant(path=posixpath.join(cwd, path)))
            rest = after.strip()
        else:
            break
    if not grants and not network:
        return Declared(command=rest)
    return Declared(command=rest, need=expansion(tuple(grants), network))


def detected(output: str, boundary: Boundary, cwd: str) -> tuple[Expansion, str]:
    """The need a failed run's *output* shows and the line that shows it (``()`` when none)."""
    for line in output.splitlines():
        found = _READ_ONLY.search(line)
        if found:
            path = posixpath.normpath(posixpath.join(cwd, found.group(1) or found.group(2)))
            need = expansion((Grant(path=posixpath.dirname(path) or "/"),))
            if missing(boundary, (Grant(path=path, match="exact").token,)):
                return need, line.strip()
        if _NETWORK.search(line) and missing(boundary, (NETWORK,)):
            return (NETWORK,), line.strip()
    return (), ""


def refused(outcome: BashOutcome | None, need: Expansion, detail: str) -> BashOutcome | None:
    """*outcome* with its result marked ``sandbox_boundary_required`` for *need*."""
    if outcome is None:
        return None
    result = replace(
        outcome.result,
        sandbox_failure=BOUNDARY_REQUIRED,
        required_expansion=need,
        failure_detail=detail,
    )
    return replace(outcome, result=result)
