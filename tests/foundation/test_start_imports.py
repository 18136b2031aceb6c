"""A start loads what serving needs, not the optional parts a default start never uses.

Cold start is mostly imports, so the modules of optional features are imported on first use:
the llm backend (and its HTTP client and TOML reader) when a session uses it, OpenTelemetry
with ``--otel``, pyte when a PTY run's screen is read, ``prometheus_client`` (and the HTTP
server it brings) with ``--metrics-listen``, ``python-json-logger`` with ``--log-format json``,
``importlib.metadata`` with the first ``GetServerInfo``. Each test starts the service module in
a fresh interpreter and asserts on what that interpreter imported — behaviour, not timing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import MODULES, running_service

#: Never imported by either service's module or default start.
COMMON = ("prometheus_client", "wsgiref", "pythonjsonlogger", "importlib.metadata")
#: Never imported by importing a service module or by a start with default flags.
OPTIONAL = {
    "kernel": (
        "maka_runtime.kernel.backends.llm.loop",
        "maka_runtime.kernel.backends.llm.chat",
        "maka_runtime.kernel.backends.llm.connections",
        "httpx",
        "httpx_sse",
        "tomllib",
        "opentelemetry",
        "pyte",
        *COMMON,
    ),
    "resource": ("opentelemetry", "pyte", "httpx", *COMMON),
}
#: Imported by every start: the positive control that the listing below is read at all.
NEEDED = ("grpc", "google.protobuf", "sqlite3")

IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$")


def imported_by_import(module: str) -> set[str]:
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return set(json.loads(done.stdout))


def imported_by_start(service: str, data_dir: Path) -> set[str]:
    """Every module the service imported from its spawn to its ``listening`` line (logged once
    its health is SERVING), from the interpreter's own import trace (``-X importtime``)."""
    with running_service(service, data_dir, env={"PYTHONPROFILEIMPORTTIME": "1"}) as handle:
        lines = list(handle.lines)
    names: set[str] = set()
    for line in lines:
        if "listening on" in line:
            break
        match = IMPORTED.match(line)
        if match:
            names.add(match.group(1))
    return names


def loaded(names: set[str], package: str) -> list[str]:
    return sorted(n for n in names if n == package or n.startswith(package + "."))


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_importing_a_service_module_leaves_optional_parts_unloaded(service: str) -> None:
    names = imported_by_import(MODULES[service])
    assert all(loaded(names, needed) for needed in NEEDED)
    assert {p: loaded(names, p) for p in OPTIONAL[service] if loaded(names, p)} == {}


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_a_default_start_leaves_optional_parts_unloaded(service: str, data_dir: Path) -> None:
    names = imported_by_start(service, data_dir)
    assert all(loaded(names, needed) for needed in NEEDED)
    assert {p: loaded(names, p) for p in OPTIONAL[service] if loaded(names, p)} == {}


def test_the_llm_backend_is_loaded_when_a_session_uses_it() -> None:
    code = (
        "import json, sys\n"
        "from maka_runtime.kernel.backends import llm\n"
        "from maka_runtime.kernel.backends.agent import SessionApprovals\n"
        "from maka_runtime.kernel.core.session import SessionHeader\n"
        "factory = llm.llm_factory({}, None, SessionApprovals())\n"
        "before = 'maka_runtime.kernel.backends.llm.loop' in sys.modules\n"
        "header = SessionHeader(id='s', workspace_root='/', cwd='/', created_at=0,"
        " last_used_at=0, backend='llm')\n"
        "backend = factory(header)\n"
        "print(json.dumps([before, type(backend).__name__, backend.kind]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [False, "LlmBackend", "llm"]
