"""One registry of error reasons (``maka.common.v1.ErrorReason``): every reason a service can
send is in it, nothing in the services spells one by hand, and the three clients agree on it."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from maka_runtime_client import errors as sdk
from maka_runtime_proto.common.v1 import errors_pb2

from maka_runtime.common import auth, request_guard
from maka_runtime.common.status import ErrorMapping, reason_name
from maka_runtime.kernel.api import status as kernel_status
from maka_runtime.resource.api import status as resource_status

ROOT = Path(__file__).resolve().parents[2]
SERVICE_SOURCES = ("maka_runtime",)
MAPPINGS = (kernel_status.MAPPING, resource_status.MAPPING)


def emitted(mapping: ErrorMapping) -> dict[str, grpc.StatusCode]:
    """Reason -> status code of everything *mapping* can end a call with."""
    reasons = {reason_name(reason): code for _, code, reason in mapping.rules}
    failure = mapping.failure_of(RuntimeError("unknown"))
    return {**reasons, failure.reason: failure.code}


def test_every_reason_a_service_can_send_is_in_the_registry() -> None:
    sent: set[str] = {request_guard.TOO_LARGE, request_guard.UNDECODABLE}
    sent |= {auth.UNAUTHENTICATED, auth.PERMISSION_DENIED}
    for mapping in MAPPINGS:
        sent |= emitted(mapping).keys()
    assert sent <= sdk.REASONS
    # The registry holds nothing no service sends (a reason is added with its first use).
    assert sdk.REASONS - sent == set()


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def test_no_service_spells_a_reason_by_hand() -> None:
    files = [p for root in SERVICE_SOURCES for p in sorted((ROOT / root).rglob("*.py"))]
    files.append(ROOT / "clients" / "python" / "maka_runtime_client" / "errors.py")
    spelt = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in files
        for line, text in _literals(path)
        if text in sdk.REASONS
    ]
    assert spelt == [], "take reasons from maka.common.v1.ErrorReason (reason_name)"


def _documented_codes() -> dict[str, str]:
    """Reason -> the status code its proto comment names ("UNAVAILABLE: …")."""
    files = descriptor_pb2.FileDescriptorSet.FromString(
        (ROOT / "clients" / "python" / "maka_runtime_proto" / "descriptors.binpb").read_bytes()
    )
    [registry] = [f for f in files.file if f.name == "maka/common/v1/errors.proto"]
    [enum] = registry.enum_type
    enum_index = 0  # the file's first enum: its values' comments are at [5, 0, 2, j]
    comments = {
        tuple(loc.path): loc.leading_comments
        for loc in registry.source_code_info.location
        if loc.leading_comments
    }
    documented = {}
    for index, value in enumerate(enum.value):
        comment = comments.get((5, enum_index, 2, index), "")
        assert comment.strip(), f"{value.name} has no comment"
        if value.number:
            documented[sdk.reason_name(errors_pb2.ErrorReason.ValueType(value.number))] = (
                comment.strip().split(":", 1)[0]
            )
    return documented


def test_each_reason_is_documented_with_the_status_code_it_comes_with() -> None:
    documented = _documented_codes()
    documented_codes = {reason: code.split(" or ") for reason, code in documented.items()}
    for mapping in MAPPINGS:
        for reason, code in emitted(mapping).items():
            assert code.name in documented_codes[reason], (mapping.service, reason, code)
    assert documented[request_guard.TOO_LARGE] == "RESOURCE_EXHAUSTED"
    assert documented[request_guard.UNDECODABLE] == "INVALID_ARGUMENT"


def test_reason_names_strip_the_enum_prefix() -> None:
    assert reason_name(errors_pb2.ERROR_REASON_OPERATION_CONFLICT) == "OPERATION_CONFLICT"
    with pytest.raises(ValueError, match="UNSPECIFIED"):
        reason_name(errors_pb2.ERROR_REASON_UNSPECIFIED)
    assert "UNSPECIFIED" not in sdk.REASONS
    assert set(sdk.BY_REASON) <= sdk.REASONS


def test_the_go_client_has_the_same_registry() -> None:
    generated = ROOT / "clients" / "go" / "gen" / "maka" / "common" / "v1" / "errors.pb.go"
    names = re.findall(
        r"^\s+ErrorReason_ERROR_REASON_(\w+)\s+ErrorReason = \d+", generated.read_text(), re.M
    )
    assert set(names) - {"UNSPECIFIED"} == sdk.REASONS


def test_the_node_client_reads_the_same_registry() -> None:
    node = shutil.which("node")
    cwd = ROOT / "clients" / "node"
    if node is None or not (cwd / "node_modules").exists():
        if os.environ.get("MAKA_REQUIRE_TOOLCHAINS") == "1":
            pytest.fail("node and clients/node/node_modules are required in CI")
        pytest.skip("node or clients/node/node_modules is missing")
    script = "import('./index.js').then((m) => console.log(JSON.stringify(Object.keys(m.Reason))))"
    result = subprocess.run(
        [node, "-e", script], cwd=cwd, capture_output=True, text=True, timeout=60, check=True
    )
    assert set(json.loads(result.stdout)) == sdk.REASONS
