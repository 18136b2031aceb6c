"""Session approvals: what ``allow_session`` remembers for the rest of a session.

An approval for a simple command covers its program (``git`` for ``git status``); for a
compound command line (chained, substituted, redirected) it covers that exact line only.
"""

from __future__ import annotations

import shlex


def program_of(command: str) -> str:
    """The program a command line runs: its first word after ``VAR=value`` assignments."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        name, sep, _ = word.partition("=")
        if not (sep and name.isidentifier()):
            return word
    return command.strip()


#: Shell syntax that chains, substitutes or redirects: a command line with any of these is more
#: than one program, so an approval for the session covers that exact line only.
COMPOUND = frozenset(";&|$`<>(){}\n")


def approval_key(command: str) -> str:
    """What ``allow_session`` remembers: the program of a simple command (``git`` for
    ``git status``), the exact line of a compound one (``ls && rm x`` is not "an ls command")."""
    if COMPOUND.intersection(command):
        return "\0" + command.strip()
    return program_of(command)


class SessionApprovals:
    """Programs a user allowed for a whole session (``allow_session``).

    Shared by every backend generation of the kernel process, so a stopped turn (which replaces
    the session's backend) does not forget them; not persisted across kernel restarts.
    """

    def __init__(self) -> None:
        self._allowed: dict[str, set[str]] = {}

    def allows(self, session_id: str, command: str) -> bool:
        return approval_key(command) in self._allowed.get(session_id, ())

    def allow(self, session_id: str, command: str) -> None:
        self._allowed.setdefault(session_id, set()).add(approval_key(command))

    def forget(self, session_id: str) -> None:
        self._allowed.pop(session_id, None)
