"""maka_runtime.common pieces on their own: settings precedence, storage roots, ErrorInfo
statuses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from maka_runtime.common.config import SettingsParser
from maka_runtime.common.status import RESOURCE_DOMAIN, error_info, make_status
from maka_runtime.common.storage_root import (
    RootKindMismatchError,
    RootLeaseClosedError,
    RootOwnedError,
    acquire_root_owner,
    read_owner_info,
    resolve_storage_root,
    try_acquire_root_owner,
)


def parse(argv: list[str], env: dict[str, str]) -> object:
    return SettingsParser(service="kernel", description="test", default_port=50051, env=env).parse(
        argv
    )[0]


def test_settings_precedence_flag_then_service_env_then_generic_env_then_default() -> None:
    assert parse([], {}).listen == "127.0.0.1:50051"  # type: ignore[attr-defined]
    assert parse([], {"MAKA_LISTEN": "0.0.0.0:1"}).listen == "0.0.0.0:1"  # type: ignore[attr-defined]
    env = {"MAKA_LISTEN": "0.0.0.0:1", "MAKA_KERNEL_LISTEN": "0.0.0.0:2"}
    assert parse([], env).listen == "0.0.0.0:2"  # type: ignore[attr-defined]
    assert parse(["--listen", "[::1]:3"], env).listen == "[::1]:3"  # type: ignore[attr-defined]


def test_boolean_settings_flag_then_service_env_then_generic_env_then_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def standalone(argv: list[str], env: dict[str, str]) -> bool:
        settings = SettingsParser(service="resource", description="t", default_port=1, env=env)
        settings.add_flag("standalone", help="admit any session")
        return bool(settings.parse(argv)[1].standalone)

    assert standalone([], {}) is False
    assert standalone(["--standalone"], {}) is True
    for word in ("1", "true", "YES", "on"):
        assert standalone([], {"MAKA_STANDALONE": word}) is True
    for word in ("0", "false", "No", "off", ""):
        assert standalone([], {"MAKA_STANDALONE": word}) is False
    env = {"MAKA_STANDALONE": "false", "MAKA_RESOURCE_STANDALONE": "true"}
    assert standalone([], env) is True
    assert standalone(["--no-standalone"], env) is False  # the flag wins either way
    assert standalone(["--standalone"], {"MAKA_RESOURCE_STANDALONE": "0"}) is True

    with pytest.raises(SystemExit) as exited:
        standalone([], {"MAKA_RESOURCE_STANDALONE": "maybe"})
    assert exited.value.code == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "maka-resource: error: MAKA_RESOURCE_STANDALONE: expected true or false "
        "(1/0, yes/no, on/off), got 'maybe'"
    ]


def test_settings_resolve_data_dir_and_grace(tmp_path: Path) -> None:
    config = parse(["--data-dir", str(tmp_path / "x" / ".."), "--shutdown-grace", "2.5"], {})
    assert config.data_dir == tmp_path  # type: ignore[attr-defined]
    assert config.service_data_dir == tmp_path / "kernel"  # type: ignore[attr-defined]
    assert config.shutdown_grace == 2.5  # type: ignore[attr-defined]


def test_root_marker_refuses_another_kind(tmp_path: Path) -> None:
    resolve_storage_root(tmp_path / "root", "kernel")
    assert resolve_storage_root(tmp_path / "root", "kernel").kind == "kernel"
    with pytest.raises(RootKindMismatchError):
        resolve_storage_root(tmp_path / "root", "resource")


def test_owner_is_exclusive_and_lease_dies_with_it(tmp_path: Path) -> None:
    root = resolve_storage_root(tmp_path / "root", "resource")
    owner = try_acquire_root_owner(root)
    assert owner is not None
    assert try_acquire_root_owner(root) is None
    with pytest.raises(RootOwnedError, match=f"pid {os.getpid()}"):
        acquire_root_owner(root)
    assert read_owner_info(root)["pid"] == os.getpid()  # type: ignore[index]
    owner.lease.check()
    owner.close()
    owner.close()  # idempotent
    with pytest.raises(RootLeaseClosedError):
        owner.lease.check()
    again = try_acquire_root_owner(root)
    assert again is not None
    again.close()


def test_owner_lock_is_not_inherited_by_child_processes(tmp_path: Path) -> None:
    root = resolve_storage_root(tmp_path / "root", "resource")
    code = (
        "import sys; from maka_runtime.common.storage_root import *;"
        f"r = resolve_storage_root({str(root.path)!r}, 'resource');"
        "o = try_acquire_root_owner(r);"
        "import subprocess; p = subprocess.Popen(['sleep', '30'], stdout=-3, stderr=-3);"
        "print(p.pid, flush=True); import os; os._exit(0)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    child = int(out.stdout.strip())
    try:
        owner = try_acquire_root_owner(root)  # the orphaned `sleep` must not hold the lock
        assert owner is not None
        owner.close()
    finally:
        os.kill(child, 9)


def test_status_round_trips_error_info() -> None:
    status = make_status(
        grpc.StatusCode.ABORTED,
        "controller held by another connection",
        reason="OPERATION_CONFLICT",
        domain=RESOURCE_DOMAIN,
        metadata={"ref": "maka://runtime/background-tasks/1"},
    )
    assert status.code == grpc.StatusCode.ABORTED

    class Failed(grpc.RpcError):
        # The stubs type this as a tuple of ``_Metadatum`` (a stub-only class); grpc hands out
        # (key, value) pairs, as ``grpc.Status.trailing_metadata`` is typed and error_info reads.
        def trailing_metadata(self) -> tuple[tuple[str, str | bytes], ...]:  # type: ignore[override]
            return status.trailing_metadata

    info = error_info(Failed())
    assert info is not None
    assert info.reason == "OPERATION_CONFLICT"
    assert info.domain == RESOURCE_DOMAIN
    assert dict(info.metadata) == {"ref": "maka://runtime/background-tasks/1"}
