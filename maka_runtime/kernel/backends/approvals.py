"""Session approvals: what ``allow_session`` remembers for the rest of a session, and the
newest execution boundary the kernel process has seen for each session.

An approval for a command covers that exact command line only (surrounding spaces aside):
``git status`` allowed for the session does not allow ``git -c alias.x='!touch M' x``, nor
``LC_ALL=C git status``. (Before, it covered the command's *program*, which let a program's own
escapes — git aliases starting with ``!``, ``find -exec``, ``env``, ``xargs`` — run anything.)
"""

from __future__ import annotations

import shlex

from maka_runtime.kernel.core.boundary import Boundary


def program_of(command: str) -> str:
    """The program a command line runs: its first word after ``VAR=value`` assignments (the
    shell backend uses it to tell interactive programs; approvals do not)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        name, sep, _ = word.partition("=")
        if not (sep and name.isidentifier()):
            return word
    return command.strip()


#: Shell syntax that chains, substitutes or redirects (kept for callers that describe a line).
COMPOUND = frozenset(";&|$`<>(){}\n")


def approval_key(command: str) -> str:
    """What ``allow_session`` remembers: the exact command line."""
    return command.strip()


class SessionApprovals:
    """Command lines a user allowed for a whole session (``allow_session``), and each session's
    newest boundary as answers widened it.

    Shared by every backend generation of the kernel process, so a stopped turn (which replaces
    the session's backend) does not forget them. The command approvals are not persisted
    across kernel restarts; the boundary is (in the session's header: this is only the newest
    copy a turn has seen, for a turn that widened it to use on its next call).
    """

    def __init__(self, protected: tuple[str, ...] = ()) -> None:
        #: Directories no expansion may name (the kernel's data directory).
        self.protected = protected
        self._allowed: dict[str, set[str]] = {}
        self._boundaries: dict[str, Boundary] = {}

    def allows(self, session_id: str, command: str) -> bool:
        return approval_key(command) in self._allowed.get(session_id, ())

    def allow(self, session_id: str, command: str) -> None:
        self._allowed.setdefault(session_id, set()).add(approval_key(command))

    def boundary(self, session_id: str, header_boundary: Boundary) -> Boundary:
        """The newer of *header_boundary* and the one an answer last reported."""
        known = self._boundaries.get(session_id)
        if known is not None and known.revision > header_boundary.revision:
            return known
        return header_boundary

    def widened(self, session_id: str, boundary: Boundary) -> None:
        known = self._boundaries.get(session_id)
        if known is None or boundary.revision >= known.revision:
            self._boundaries[session_id] = boundary

    def forget(self, session_id: str) -> None:
        self._allowed.pop(session_id, None)
        self._boundaries.pop(session_id, None)
