"""``--sqlite-synchronous``: one setting, both services, both stores; ``normal`` by default."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from maka_runtime.common.sqlite import Synchronous
from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.server import parse_config as kernel_config
from maka_runtime.kernel.store.sqlite import SqliteSessionStore
from maka_runtime.resource.server import parse_config as resource_config
from maka_runtime.resource.store import SqliteShellRunStore
from tests.support.processes import refused_at_start, running_service

#: ``PRAGMA synchronous`` as SQLite answers it.
PRAGMA_VALUE = {"NORMAL": 1, "FULL": 2}
VARIABLES = (
    "MAKA_SQLITE_SYNCHRONOUS",
    "MAKA_KERNEL_SQLITE_SYNCHRONOUS",
    "MAKA_RESOURCE_SQLITE_SYNCHRONOUS",
)


@pytest.fixture(autouse=True)
def _unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def test_both_services_default_to_normal_and_take_full_by_flag() -> None:
    assert kernel_config([]).sqlite_synchronous == "NORMAL"
    assert resource_config([]).sqlite_synchronous == "NORMAL"
    assert kernel_config(["--sqlite-synchronous", "full"]).sqlite_synchronous == "FULL"
    assert resource_config(["--sqlite-synchronous", "FULL"]).sqlite_synchronous == "FULL"


def test_the_shared_variable_sets_both_and_a_service_s_own_sets_only_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MAKA_SQLITE_SYNCHRONOUS", "full")
    assert kernel_config([]).sqlite_synchronous == "FULL"
    assert resource_config([]).sqlite_synchronous == "FULL"
    monkeypatch.setenv("MAKA_SQLITE_SYNCHRONOUS", "normal")
    monkeypatch.setenv("MAKA_RESOURCE_SQLITE_SYNCHRONOUS", "full")
    assert kernel_config([]).sqlite_synchronous == "NORMAL"
    assert resource_config([]).sqlite_synchronous == "FULL"


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_a_bad_value_is_refused_at_start_naming_it(service: str, data_dir: Path) -> None:
    refused = refused_at_start(
        service, ["--data-dir", str(data_dir), "--sqlite-synchronous", "off"]
    )
    assert refused.returncode == 2
    assert "expected normal or full, got 'off'" in refused.stderr


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL"])
async def test_each_store_commits_with_what_it_was_given(tmp_path: Path, synchronous: str) -> None:
    value: Synchronous = "FULL" if synchronous == "FULL" else "NORMAL"
    for kind, opener in (
        ("kernel", SqliteSessionStore.open),
        ("resource", SqliteShellRunStore.open),
    ):
        owner = try_acquire_root_owner(resolve_storage_root(tmp_path / kind, kind))
        assert owner is not None
        try:
            store = await opener(owner.lease, synchronous=value)
            try:
                pragma = await store._worker.read(
                    lambda conn: conn.execute("PRAGMA synchronous").fetchone()[0]
                )
            finally:
                await store.close()
        finally:
            owner.close()
        assert pragma == PRAGMA_VALUE[synchronous], kind


@pytest.mark.parametrize("service", ["kernel", "resource"])
def test_each_service_says_what_its_commits_survive(service: str, data_dir: Path) -> None:
    extra = ("--standalone",) if service == "resource" else ()
    with running_service(service, data_dir, *extra) as host:
        host.signal(signal.SIGTERM)
        host.process.wait(30)
    assert "store: synchronous=normal: a commit survives a crashed process" in host.stderr
    with running_service(service, data_dir, *extra, "--sqlite-synchronous", "full") as host:
        host.signal(signal.SIGTERM)
        host.process.wait(30)
    assert "store: synchronous=full: a commit survives a crashed process and a power" in (
        host.stderr
    )
