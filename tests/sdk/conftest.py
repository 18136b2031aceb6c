"""Real ``maka-kernel`` / ``maka-resource`` processes for the SDK tests.

The shared servers are module-scoped (starting a process costs more than most tests); tests
that restart or break a server start their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sdk.proxy import Proxy
from tests.support.processes import ServiceProcess, running_service


@pytest.fixture(scope="module")
def kernel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    with running_service("kernel", tmp_path_factory.mktemp("kernel-data")) as server:
        yield server


@pytest.fixture(scope="module")
def resource_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    with running_service(
        "resource", tmp_path_factory.mktemp("resource-data"), "--standalone"
    ) as server:
        yield server


@pytest.fixture
def workspace(tmp_path: Path) -> str:
    path = tmp_path / "workspace"
    path.mkdir()
    return str(path)


@pytest.fixture
def proxy_to() -> Iterator[type[Proxy]]:
    """Make proxies with ``proxy_to(address)``; all are closed after the test."""
    made: list[Proxy] = []

    class Tracked(Proxy):
        def __init__(self, upstream: str) -> None:
            super().__init__(upstream)
            made.append(self)

    yield Tracked
    for proxy in made:
        proxy.close()
