"""A start loads what serving needs, not the optional parts a default start never uses.

Cold start is mostly imports, so the modules of optional features are imported on first use:
the llm backend (and its HTTP client and TOML reader) when a session uses it, OpenTelemetry
with ``--otel``, pyte when a PTY run's screen is read, ``prometheus_client`` (and the HTTP
server it brings) with ``--metrics-listen``, ``python-json-logger`` with ``--log-format json``,
``importlib.metadata`` with the first ``GetServerInfo``, and the kernel's backends (the agent
machinery of the shell backend, the scripted backend) when the first session that uses one is
built. Each test starts the service module in a fresh interpreter and asserts on what that
interpreter imported — behaviour, not timing. The service modules also pause the cyclic garbage
collector while their imports run, and turn it back on once they are done, with what the
imports made frozen out of its reach.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2, kernel_pb2_grpc

from tests.support import auth
from tests.support.processes import MODULES, running_service

#: The kernel's backends: imported when the first session that uses one is built.
BACKENDS = (
    "maka_runtime.kernel.backends.agent",
    "maka_runtime.kernel.backends.bash_call",
    "maka_runtime.kernel.backends.gate",
    "maka_runtime.kernel.backends.needs",
    "maka_runtime.kernel.backends.scripted",
    "maka_runtime.kernel.backends.shell",
)
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
        *BACKENDS,
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
        return imported_before_listening(handle.lines)


def imported_before_listening(lines: list[str]) -> set[str]:
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


def test_a_backend_is_imported_by_the_first_turn_of_a_session_that_uses_it(
    data_dir: Path, tmp_path: Path
) -> None:
    env = {"PYTHONPROFILEIMPORTTIME": "1"}
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with running_service("kernel", data_dir, env=env) as kernel:
        at_start = imported_before_listening(list(kernel.lines))
        assert loaded(at_start, "maka_runtime.kernel.backends.factories")
        assert [b for b in BACKENDS if loaded(at_start, b)] == []
        with grpc.insecure_channel(kernel.address) as channel:
            stub = kernel_pb2_grpc.KernelServiceStub(channel)
            session = stub.CreateSession(
                kernel_pb2.CreateSessionRequest(workspace_root=str(workspace), backend="scripted"),
                metadata=auth.METADATA,
                timeout=30,
            ).session
            answers = stub.StartTurn(
                kernel_pb2.StartTurnRequest(session_id=session.id, text="/script say hi"),
                metadata=auth.METADATA,
                timeout=30,
            )
            events = [e for answer in answers for e in (answer.event, *answer.more_events)]
        # The first turn built the backend, importing its module; the turn ran as ever.
        assert kernel.wait_logged("| maka_runtime.kernel.backends.scripted\n")
        assert "hi" in "".join(e.text_delta.text for e in events if e.HasField("text_delta"))
        assert any(e.HasField("complete") for e in events)
        assert events[-1].turn_state.status == kernel_pb2.TURN_STATUS_COMPLETED


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_the_collector_is_paused_while_a_service_module_imports_and_on_after(
    service: str,
) -> None:
    # A finder ahead of the others notes whether the collector ran as each module was looked up.
    code = (
        "import gc, json, sys\n"
        "seen = {}\n"
        "class Spy:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        seen.setdefault(name, gc.isenabled())\n"
        "sys.meta_path.insert(0, Spy())\n"
        f"import {MODULES[service]}\n"
        "frozen = gc.get_freeze_count() > 0\n"
        f"print(json.dumps([seen['grpc'], seen['{MODULES[service]}'], gc.isenabled(), frozen]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    # On while the entry module is found, off for the imports it makes, on again after them,
    # with what they made frozen out of its reach.
    assert json.loads(done.stdout) == [False, True, True, True]
