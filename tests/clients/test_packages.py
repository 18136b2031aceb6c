"""The Node and Go clients as their users get them, used from outside the repository.

Node: ``npm pack`` of ``clients/node``, the tarball installed into an empty directory, the
client scenario (``clients/node/consumer/scenario.mjs``) run from there and a TypeScript
consumer type-checked against the installed declarations. Go: the module published at a
version into a file-system GOPROXY (``clients/go/tools/modproxy``), the example
``clients/go/examples/first-turn`` copied into a module of its own that requires it by path
and version (no ``replace``), built with an empty module cache and run. Both against a real
pair, and both marked ``packages`` (left out of the default run; ``scripts/ci_clients.sh`` runs
them): they install from the npm registry and the Go module proxy.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.test_other_languages import toolchain
from tests.support import auth
from tests.support.processes import running_service

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "clients" / "node"
GO_DIR = ROOT / "clients" / "go"
#: The Go module path (README "Client packages") and the version the test publishes it at.
GO_MODULE = "github.com/maka-runtime/maka-runtime/clients/go"
GO_VERSION = "v0.1.0"
#: What the TypeScript consumer is checked with (pinned like every tool).
CONSUMER_TOOLS = ("typescript@5.9.3", "@types/node@20.19.43")


def test_the_node_types_are_generated_with_the_loader_options_of_the_package() -> None:
    """types/ describes what index.js's loader returns only if both use the same options."""
    source = (NODE_DIR / "index.js").read_text()
    loaded = re.search(r"protoLoader\.loadSync\(.*?\{(.*?)\}", source, re.S)
    assert loaded, "index.js no longer calls protoLoader.loadSync with options"
    options = dict(re.findall(r"(\w+): \[?(\w+)", loaded.group(1)))
    assert options.pop("includeDirs") == "PROTO_ROOT"
    flags = {"keepCase": "false"}  # proto-loader-gen-types' default, as in the loader
    for flag in node_loader_flags():
        name, _, value = flag.removeprefix("--").partition("=")
        flags[name] = value or "true"
    assert options == flags


def node_loader_flags() -> tuple[str, ...]:
    """NODE_LOADER_FLAGS of scripts/gen_protos.py: the options the types are generated with."""
    tree = ast.parse((ROOT / "scripts" / "gen_protos.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "NODE_LOADER_FLAGS" for t in targets):
                assert node.value is not None
                flags = ast.literal_eval(node.value)
                assert isinstance(flags, tuple)
                return tuple(str(flag) for flag in flags)
    raise AssertionError("scripts/gen_protos.py has no NODE_LOADER_FLAGS")


@dataclass
class Pair:
    kernel: str
    resource: str
    workspace: Path
    env: dict[str, str]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    """A real kernel and resource service; what a client outside the repository is given."""
    for name in ("kernel-data", "resource-data", "workspace"):
        (tmp_path / name).mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKA_", "GO", "NPM"))}
    env.update(auth.ENV)
    with (
        running_service("resource", tmp_path / "resource-data", "--standalone") as resource,
        running_service(
            "kernel",
            tmp_path / "kernel-data",
            *("--default-backend", "scripted", "--resource-address", resource.address),
        ) as kernel,
    ):
        yield Pair(kernel.address, resource.address, tmp_path / "workspace", env)


def run(
    argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, f"{argv} failed:\n{result.stdout}\n{result.stderr}"
    return result


def packed_tarball(npm: str, into: Path, env: dict[str, str]) -> Path:
    """``npm pack`` of clients/node; asserts the package carries its protos and types only."""
    packed = json.loads(
        run([npm, "pack", "--json", "--pack-destination", str(into)], NODE_DIR, env).stdout
    )[0]
    files = {entry["path"] for entry in packed["files"]}
    for shipped in (
        "index.js",
        "index.d.ts",
        "package.json",
        "protos/maka/kernel/v1/kernel.proto",
        "protos/maka/common/v1/errors.proto",
        "types/kernel.d.ts",
        "types/maka/kernel/v1/SessionEvent.d.ts",
    ):
        assert shipped in files, f"{shipped} is not in the package: {sorted(files)}"
    assert not {name for name in files if name.startswith(("test/", "consumer/"))}
    return into / str(packed["filename"])


@pytest.mark.slow
@pytest.mark.packages
@pytest.mark.timeout(600)
def test_the_node_package_works_installed_from_its_tarball(tmp_path: Path, pair: Pair) -> None:
    node, npm = toolchain("node"), toolchain("npm")
    tarball = packed_tarball(npm, tmp_path, pair.env)
    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text('{"private": true, "type": "module"}\n')
    quiet = ["--no-audit", "--no-fund", "--no-save"]
    run([npm, "install", *quiet, str(tarball), *CONSUMER_TOOLS], consumer, pair.env)
    for name in ("scenario.mjs", "consumer.ts", "tsconfig.json"):
        shutil.copyfile(NODE_DIR / "consumer" / name, consumer / name)

    # The declarations: every use in consumer.ts checks, every @ts-expect-error misuse fails.
    tsc = consumer / "node_modules" / "typescript" / "bin" / "tsc"
    run([node, str(tsc), "-p", "."], consumer, pair.env)

    env = {
        **pair.env,
        "MAKA_KERNEL_ADDRESS": pair.kernel,
        "MAKA_RESOURCE_ADDRESS": pair.resource,
        "MAKA_WORKSPACE": str(pair.workspace),
    }
    result = run([node, "scenario.mjs"], consumer, env, timeout=120)
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    installed = consumer / "node_modules" / "@maka" / "runtime-client"
    assert Path(summary["protoRoot"]) == installed / "protos"
    assert summary["status"] == "TURN_STATUS_COMPLETED"
    assert summary["text"] == "hellodone"
    assert summary["tool"] == "bash"
    assert summary["events"][-1] == "turnState"
    assert summary["error"] == {
        "notFound": True,
        "reason": "NOT_FOUND",
        "registered": True,
        "domain": "kernel.maka",
    }


def go_env(tmp_path: Path, go: str, proxy: Path, base: dict[str, str]) -> dict[str, str]:
    """A user's Go environment: an empty module cache, the module only through GOPROXY."""
    cache = subprocess.run(
        [go, "env", "GOMODCACHE"], capture_output=True, text=True, check=True
    ).stdout.strip()
    # The machine's module cache is itself a GOPROXY layout: dependencies come from there
    # when they are in it, from proxy.golang.org otherwise; this module only from `proxy`.
    proxies = [proxy.as_uri()]
    if cache and (Path(cache) / "cache" / "download").is_dir():
        proxies.append((Path(cache) / "cache" / "download").as_uri())
    proxies.append("https://proxy.golang.org")
    return {
        **base,
        "GOMODCACHE": str(tmp_path / "gomodcache"),
        "GOPROXY": ",".join(proxies),
        "GOFLAGS": "-mod=mod -modcacherw",
        "GONOSUMDB": GO_MODULE,
        "GOWORK": "off",
        "GOTOOLCHAIN": "local",
    }


@pytest.mark.slow
@pytest.mark.packages
@pytest.mark.timeout(600)
def test_the_go_example_builds_outside_the_repository(tmp_path: Path, pair: Pair) -> None:
    go = toolchain("go")
    proxy = tmp_path / "goproxy"
    publish = ["run", ".", "-dir", str(GO_DIR), "-version", GO_VERSION, "-out", str(proxy)]
    run([go, *publish], GO_DIR / "tools" / "modproxy", {**pair.env, "GOFLAGS": "-mod=mod"})
    example = tmp_path / "example"
    example.mkdir()
    shutil.copyfile(GO_DIR / "examples" / "first-turn" / "main.go", example / "main.go")
    (example / "go.mod").write_text(
        f"module example.com/first-turn\n\ngo 1.25.0\n\nrequire {GO_MODULE} {GO_VERSION}\n"
    )
    env = go_env(tmp_path, go, proxy, pair.env)
    run([go, "build", "-o", "first-turn", "."], example, env)

    # Resolved by path and version, from the proxy, into the empty module cache.
    assert "replace" not in (example / "go.mod").read_text()
    assert f"{GO_MODULE} {GO_VERSION} h1:" in (example / "go.sum").read_text()
    listed = run([go, "list", "-m", "-f", "{{.Dir}}", GO_MODULE], example, env).stdout.strip()
    assert Path(listed).is_relative_to(tmp_path / "gomodcache"), listed

    args = ["-kernel", pair.kernel, "-resource", pair.resource, "-workspace", str(pair.workspace)]
    lines = run([str(example / "first-turn"), *args], example, pair.env, 120).stdout.splitlines()
    assert lines[0].startswith("session "), lines
    assert "tool bash ls" in lines, lines
    assert any(line.startswith("turn ") and "TURN_STATUS_COMPLETED" in line for line in lines)
    assert "text hellodone" in lines, lines
    assert lines[-1] == "error NotFound NOT_FOUND kernel.maka", lines
