"""Regenerate the code made from ``protos/`` (the one codegen command).

    python scripts/gen_protos.py          # write maka_runtime_proto/** (and clients/go/gen/**,
                                          # clients/node/protos/**, clients/node/types/**)
    python scripts/gen_protos.py --check  # exit 1 if the checked-in code is stale

Go code is made by ``buf generate`` with the pinned protoc-gen-go plugins that ``./dev``
installs under ``.tools/``; without them (no Go toolchain) only the Python code is made, unless
``--require-go`` is given (as in CI).

The Node package ships a copy of the protos (``clients/node/protos``, which it loads at run time
with ``@grpc/proto-loader``) and their TypeScript declarations (``clients/node/types``): made by
``proto-loader-gen-types`` (from ``@grpc/proto-loader``, with the loader options the package
uses) and compiled to ``.d.ts`` by ``tsc``, both pinned by ``./dev`` under ``.tools/``; without
them (no npm) the Node files are not made, unless ``--require-node`` is given (as in CI).

Output: ``*_pb2.py`` (messages), ``*_pb2_grpc.py`` (stubs and servicers) and their typed
``.pyi`` stubs (mypy-protobuf), plus ``__init__.py`` files so ``maka_runtime_proto.kernel.v1``
and ``maka_runtime_proto.resource.v1`` import as regular packages, and
``maka_runtime_proto/descriptors.binpb``: a ``FileDescriptorSet`` of every proto with its imports
and source info (the comments), which the services' reflection serves
(``maka_runtime/common/reflection.py``).

The package is ``maka_runtime_proto`` (shipped in the client distribution, ``clients/python``),
while the proto packages stay ``maka.*.v1``: protoc writes ``maka/``, which is moved to
``maka_runtime_proto/`` and whose Python module references are rewritten (imports,
``maka.common.v1.errors_pb2.X`` in the stubs, the module names given to the builder). Proto full
names (``/maka.kernel.v1.KernelService/StartTurn``) and descriptor file names
(``maka/kernel/v1/kernel.proto``) are left as they are: they are the wire.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "clients" / "python"
#: The generated package: ./dev gen owns this directory (and nothing else under OUT).
PACKAGE_DIR = OUT / "maka_runtime_proto"
GO_OUT = Path("clients") / "go" / "gen"
TOOLS = ROOT / ".tools"
GO_TEMPLATE = PROTOS / "buf.gen.go.yaml"
NODE = Path("clients") / "node"
#: What the Node package's loader reads; the types describe what it returns.
NODE_PROTOS = ("maka/kernel/v1/kernel.proto", "maka/resource/v1/resource.proto")
NODE_REGISTRY = "maka/common/v1/errors.proto"
#: The options index.js passes to protoLoader.loadSync, as proto-loader-gen-types flags.
NODE_LOADER_FLAGS = ("--longs=String", "--enums=String", "--defaults", "--oneofs")
BIN = Path(sys.executable).parent
HEADER = '"""Generated from protos/ by scripts/gen_protos.py. Do not edit."""\n'
#: The descriptor set (with comments) served by reflection, inside the generated package.
DESCRIPTORS = "descriptors.binpb"
#: protoc writes the proto package's directory (``maka/``); it becomes the Python package.
PROTO_ROOT, PACKAGE = "maka", PACKAGE_DIR.name
_PROTO_PKGS = r"(?:common|kernel|resource)"
#: Python module references to the generated modules (pattern, replacement); proto full names
#: and .proto file names never match.
MODULE_REFERENCES = (
    # maka.kernel.v1.kernel_pb2 / maka.common.v1.errors_pb2_grpc, anywhere
    (re.compile(rf"(?<![\w.])maka(?=\.{_PROTO_PKGS}\.v1\.\w+_pb2(?:_grpc)?\b)"), PACKAGE),
    # from maka.kernel.v1 import …, import maka.kernel.v1.kernel_pb2
    (re.compile(r"(?m)^(\s*(?:from|import)\s+)maka(?=\.)"), rf"\g<1>{PACKAGE}"),
    # file names of generated modules (maka/kernel/v1/kernel_pb2_grpc.py), not of .proto files
    (re.compile(rf"(?<![\w./-])maka(?=/{_PROTO_PKGS}/v1/\w+_pb2(?:_grpc)?\.pyi?\b)"), PACKAGE),
)


def generate(out: Path) -> None:
    """Write the package ``out / PACKAGE`` (*out* must not hold one yet)."""
    with tempfile.TemporaryDirectory() as tmp:
        protoc_out = Path(tmp)
        run_protoc(protoc_out)
        package = protoc_out / PROTO_ROOT
        for path in package.rglob("*.py*"):
            if path.suffix in (".py", ".pyi"):
                path.write_text(module_references(path.read_text()))
        (out / PACKAGE).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(package, out / PACKAGE)  # the descriptor set moves along


def module_references(text: str) -> str:
    """*text* with every Python reference to the ``maka`` modules naming ``PACKAGE``."""
    for pattern, replacement in MODULE_REFERENCES:
        text = pattern.sub(replacement, text)
    return text


def run_protoc(out: Path) -> None:
    """protoc's own output under ``out / PROTO_ROOT``, with ``__init__.py`` files."""
    sources = sorted(p.relative_to(PROTOS).as_posix() for p in PROTOS.rglob("*.proto"))
    if not sources:
        raise SystemExit("no .proto files under protos/")
    descriptors = out / PROTO_ROOT / DESCRIPTORS
    descriptors.parent.mkdir(parents=True, exist_ok=True)
    include = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={out}",
        f"--plugin=protoc-gen-mypy={BIN / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={BIN / 'protoc-gen-mypy_grpc'}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        f"--grpc_python_out={out}",
        "--include_imports",
        "--include_source_info",
        f"--descriptor_set_out={descriptors}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for leaf in sorted({p.parent for p in out.rglob("*_pb2.py")}):
        for directory in (leaf, *leaf.parents):
            if directory == out:
                break
            init = directory / "__init__.py"
            if not init.exists():
                init.write_text(HEADER)
    (out / PROTO_ROOT / "py.typed").write_text("")


def go_tools() -> dict[str, Path] | None:
    tools = {
        "buf": TOOLS / "node_modules" / ".bin" / "buf",
        "protoc-gen-go": TOOLS / "bin" / "protoc-gen-go",
        "protoc-gen-go-grpc": TOOLS / "bin" / "protoc-gen-go-grpc",
    }
    return tools if all(path.exists() for path in tools.values()) else None


def generate_go(base: Path, tools: dict[str, Path]) -> None:
    """Write the Go code under ``base / clients/go/gen``."""
    env = {**os.environ, "PATH": f"{TOOLS / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    subprocess.run(
        [
            str(tools["buf"]),
            "generate",
            str(PROTOS),
            "--template",
            str(GO_TEMPLATE),
            "-o",
            str(base),
        ],
        check=True,
        env=env,
        cwd=ROOT,
    )


def node_tools() -> dict[str, Path] | None:
    bin_dir = TOOLS / "node_modules" / ".bin"
    tools = {"gen-types": bin_dir / "proto-loader-gen-types", "tsc": bin_dir / "tsc"}
    return tools if all(path.exists() for path in tools.values()) else None


def generate_node(base: Path, tools: dict[str, Path]) -> None:
    """Write the Node package's proto copy and ``.d.ts`` types under ``base / clients/node``."""
    out = base / NODE
    for proto in sorted(PROTOS.rglob("*.proto")):
        target = out / "protos" / proto.relative_to(PROTOS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(proto, target)
    # The .ts sources live under .tools so that tsc finds @grpc/grpc-js in .tools/node_modules.
    with tempfile.TemporaryDirectory(dir=TOOLS) as scratch:
        sources = Path(scratch) / "ts"
        subprocess.run(
            [
                str(tools["gen-types"]),
                *NODE_LOADER_FLAGS,
                "--includeComments",
                "--grpcLib=@grpc/grpc-js",
                "--importFileExtension=.js",
                "-I",
                "protos",
                "-O",
                str(sources),
                *NODE_PROTOS,
                NODE_REGISTRY,
            ],
            check=True,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )
        config = {
            "compilerOptions": {
                **NODE_TSC_OPTIONS,
                "rootDir": str(sources),
                "outDir": str(out / "types"),
            },
            "include": [str(sources / "**" / "*.ts")],
        }
        (Path(scratch) / "tsconfig.json").write_text(json.dumps(config))
        subprocess.run([str(tools["tsc"]), "-p", scratch], check=True, cwd=scratch)


#: tsc turns the generated .ts into the package's .d.ts (declarations only, comments kept).
NODE_TSC_OPTIONS = {
    "declaration": True,
    "emitDeclarationOnly": True,
    "strict": True,
    "skipLibCheck": True,
    "types": [],
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
}


def snapshot(root: Path) -> dict[str, Path]:
    return {
        p.relative_to(root).as_posix(): p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if generated code is stale")
    parser.add_argument("--require-go", action="store_true", help="fail without the Go tools")
    parser.add_argument("--require-node", action="store_true", help="fail without the Node tools")
    args = parser.parse_args()
    tools, node = go_tools(), node_tools()
    if tools is None:
        if args.require_go:
            print("Go code generators are missing under .tools/ (run ./dev setup-go)")
            return 1
        print("note: Go tools not installed; Go code not regenerated")
    if node is None:
        if args.require_node:
            print("Node code generators are missing under .tools/ (run ./dev setup-node)")
            return 1
        print("note: Node tools not installed; clients/node/protos and types not regenerated")
    if args.check:
        return check(tools, node)
    if PACKAGE_DIR.exists():
        shutil.rmtree(PACKAGE_DIR)
    OUT.mkdir(parents=True, exist_ok=True)
    generate(OUT)
    print(f"generated {len(snapshot(PACKAGE_DIR))} files under {PACKAGE_DIR.relative_to(ROOT)}")
    if tools is not None:
        if (ROOT / GO_OUT).exists():
            shutil.rmtree(ROOT / GO_OUT)
        generate_go(ROOT, tools)
        print(f"generated {len(snapshot(ROOT / GO_OUT))} files under {GO_OUT}")
    if node is not None:
        for made in NODE_OUTPUTS:
            if (ROOT / NODE / made).exists():
                shutil.rmtree(ROOT / NODE / made)
        generate_node(ROOT, node)
        count = sum(len(snapshot(ROOT / NODE / made)) for made in NODE_OUTPUTS)
        print(f"generated {count} files under {NODE}/protos and {NODE}/types")
    return 0


#: The directories of clients/node that generate_node writes (and --check compares).
NODE_OUTPUTS = ("protos", "types")


def check(tools: dict[str, Path] | None, node: dict[str, Path] | None) -> int:
    stale: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "python")
        stale += compare(Path(tmp) / "python" / PACKAGE_DIR.name, PACKAGE_DIR)
        if tools is not None:
            generate_go(Path(tmp) / "go", tools)
            stale += compare(Path(tmp) / "go" / GO_OUT, ROOT / GO_OUT)
        if node is not None:
            generate_node(Path(tmp) / "node", node)
            for made in NODE_OUTPUTS:
                stale += compare(Path(tmp) / "node" / NODE / made, ROOT / NODE / made)
    if stale:
        print("generated code is stale; run ./dev gen and commit:", *stale, sep="\n  ")
        return 1
    print("generated code is up to date")
    return 0


def compare(fresh_root: Path, current_root: Path) -> list[str]:
    fresh, current = snapshot(fresh_root), snapshot(current_root)
    return sorted(
        str(current_root.relative_to(ROOT) / name)
        for name in fresh.keys() | current.keys()
        if name not in fresh
        or name not in current
        or not filecmp.cmp(fresh[name], current[name], shallow=False)
    )


if __name__ == "__main__":
    sys.exit(main())
