"""The import rules of the architecture (pyproject's ``[tool.importlinter]``) hold."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_import_contract_is_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


#: The product's own code (generated code, tests and benchmarks are not held to these sizes).
PRODUCT = ("maka_runtime", "clients/python/maka_runtime_client")


def _product_sources() -> list[Path]:
    return sorted(path for package in PRODUCT for path in (ROOT / package).rglob("*.py"))


def test_no_product_module_is_over_500_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _product_sources()
        if (lines := len(path.read_text().splitlines())) > 500
    }
    assert long == {}


def test_no_product_function_is_over_50_lines() -> None:
    long: dict[str, int] = {}
    for path in _product_sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > 50:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = length
    assert long == {}
