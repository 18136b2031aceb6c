"""Regenerate the Python protocol package from ``protos/`` (the one codegen command).

    python scripts/gen_protos.py          # write gen/python/maka/**
    python scripts/gen_protos.py --check  # exit 1 if the checked-in code is stale

Output: ``*_pb2.py`` (messages), ``*_pb2_grpc.py`` (stubs and servicers) and their typed
``.pyi`` stubs (mypy-protobuf), plus ``__init__.py`` files so ``maka.kernel.v1`` and
``maka.resource.v1`` import as regular packages.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "gen" / "python"
BIN = Path(sys.executable).parent
HEADER = '"""Generated from protos/ by scripts/gen_protos.py. Do not edit."""\n'


def generate(out: Path) -> None:
    sources = sorted(p.relative_to(PROTOS).as_posix() for p in PROTOS.rglob("*.proto"))
    if not sources:
        raise SystemExit("no .proto files under protos/")
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
    (out / "maka" / "py.typed").write_text("")


def snapshot(root: Path) -> dict[str, Path]:
    return {
        p.relative_to(root).as_posix(): p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if gen/python is stale")
    args = parser.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(Path(tmp))
            fresh, current = snapshot(Path(tmp)), snapshot(OUT)
            stale = sorted(
                name
                for name in fresh.keys() | current.keys()
                if name not in fresh
                or name not in current
                or not filecmp.cmp(fresh[name], current[name], shallow=False)
            )
        if stale:
            print("generated code is stale; run ./dev gen and commit:", *stale, sep="\n  ")
            return 1
        print(f"generated code is up to date ({len(fresh)} files)")
        return 0
    if (OUT / "maka").exists():
        shutil.rmtree(OUT / "maka")
    OUT.mkdir(parents=True, exist_ok=True)
    generate(OUT)
    print(f"generated {len(snapshot(OUT))} files under {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
