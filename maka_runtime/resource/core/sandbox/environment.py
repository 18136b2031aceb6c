"""The environment a run starts with: an allow-list of the service's variables plus what the
request sets — never the rest of the service's own environment (its credentials, its API keys).

Request variables that change how the sandbox or the shell starts (the dynamic loader's, bash's
start-up files and options) are refused unless the profile is ``danger-full-access``: inside the
sandbox they would run code before the command, outside the user's view.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from maka_runtime.resource.core.errors import InvalidRequestError

__all__ = [
    "ALLOWED_VARIABLES",
    "DEFAULT_PATH",
    "REFUSED_VARIABLES",
    "check_request_env",
    "run_environment",
]

#: The service's variables a run sees (when the service has them).
ALLOWED_VARIABLES: Final = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_COLLATE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "TERM",
    "TZ",
)
#: PATH when the service itself has none.
DEFAULT_PATH: Final = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: Request variables refused unless the profile is ``danger-full-access``; every ``LD_*`` too.
REFUSED_VARIABLES: Final = frozenset(
    {
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PROMPT_COMMAND",
        "PS4",
        "IFS",
        "GLOBIGNORE",
        "BASH_XTRACEFD",
        "GCONV_PATH",
        "LOCPATH",
        "NLSPATH",
        "HOSTALIASES",
        "RESOLV_HOST_CONF",
    }
)
_REFUSED_PREFIX: Final = re.compile(r"LD_|BASH_FUNC_")


def check_request_env(env: Mapping[str, str], *, sandboxed: bool) -> None:
    """Refuse a variable that changes how the sandbox or the shell starts (sandboxed runs)."""
    if not sandboxed:
        return
    for name in sorted(env):
        if name in REFUSED_VARIABLES or _REFUSED_PREFIX.match(name):
            raise InvalidRequestError(
                f"env {name} changes how the sandbox or the shell starts; it is refused "
                "unless the run's profile is danger-full-access",
                field="env",
            )


def run_environment(
    service_env: Mapping[str, str],
    request_env: Mapping[str, str],
    *,
    also_allowed: Iterable[str] = (),
) -> dict[str, str]:
    """The allow-listed variables of *service_env*, then *request_env* on top."""
    names = (*ALLOWED_VARIABLES, *also_allowed)
    env = {name: service_env[name] for name in names if name in service_env}
    env.setdefault("PATH", DEFAULT_PATH)
    env.update(request_env)
    return env
