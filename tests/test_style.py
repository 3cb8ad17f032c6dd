"""The style (pyproject.toml's ruff settings): the code as it is passes
ruff's checks and is laid out as ruff formats it, and a line against them
is caught; the types where the runners meet the stages pass mypy."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).with_name("ruff")

pytestmark = pytest.mark.skipif(not RUFF.exists(), reason="ruff is not installed (make setup installs it)")


def check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(RUFF), "check", "--no-cache", "--output-format", "concise", "src", "pipeline", "tests", "benchmarks"],
        cwd=root,
        capture_output=True,
        text=True,
    )


def test_the_code_passes_the_style_checks():
    done = check(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_laid_out_as_ruff_formats_it():
    done = subprocess.run(
        [str(RUFF), "format", "--check", "--no-cache", "src", "pipeline", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_runners_seam_passes_mypy():
    """The context handed down, what comes back, the runners and the run
    that commits (pyproject.toml's [tool.mypy] files)."""
    pytest.importorskip("mypy", reason="mypy is not installed (make setup installs it)")
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("line, rule", [("import os", "F401"), ("x = " + "1 + " * 40 + "1", "E501")])
def test_a_line_against_the_style_is_caught(tmp_path, line, rule):
    for part in ("src", "pipeline"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for part in ("tests", "benchmarks"):
        (tmp_path / part).mkdir()
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / "src" / "joseki_miner" / "method" / "points.py"
    path.write_text(path.read_text() + f"\n{line}\n")
    done = check(tmp_path)
    assert done.returncode == 1 and rule in done.stdout, done.stdout + done.stderr


def _callee(call: ast.Call) -> str:
    """The name a call's function goes by: ``njit`` in ``njit(cache=True)(f)``."""
    func = call.func
    while isinstance(func, ast.Call):
        func = func.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def test_no_function_takes_more_than_eight_parameters_but_kernels_and_commands():
    """Options travel as values (``Reading``, ``Pruning``, ``Request``...):
    only a compiled kernel (its arrays one by one) or a CLI command (its
    options one by one) takes more than eight parameters."""
    wide = []
    for path in sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "pipeline").glob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        compiled, commands = set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
                if "jit" in _callee(node) or "compiled" in _callee(node):
                    compiled.add(node.args[0].id)
                if _callee(node) == "command":
                    commands.add(node.args[0].id)
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.arg not in ("self", "cls")]
            decorators = [ast.unparse(d) for d in node.decorator_list]
            kernel = node.name in compiled or any("jit" in d for d in decorators)
            command = node.name in commands or any("command" in d for d in decorators)
            if len(names) + bool(a.vararg) + bool(a.kwarg) > 8 and not kernel and not command:
                wide.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert wide == []
