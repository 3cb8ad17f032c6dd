"""The package's layers (pyproject.toml's import-linter contracts): kept by
the code as it is, and each broken by an import against it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed (make setup installs it)")


def lint(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{root / 'src'}{os.pathsep}{root}"}
    return subprocess.run(
        [str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )


def test_the_package_keeps_its_layers():
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    "module, line, broken",
    [
        # the method importing the book above it
        ("src/joseki_miner/method/points.py", "import joseki_miner.book.words", "Layers"),
        # the method and what keeps runs trusted are independent of each other
        ("src/joseki_miner/runs/store.py", "from joseki_miner.method import points", "Layers"),
        # the compiled engine importing the readers above it
        ("src/joseki_miner/fast/arrow.py", "from joseki_miner.readers import encoding", "Layers"),
        # the book importing the stages above it
        ("src/joseki_miner/book/words.py", "from joseki_miner.stages import params", "Layers"),
        # the package importing the pipeline
        ("src/joseki_miner/cluster/client.py", "import pipeline", "never imports the pipeline"),
        # what a runner runs importing it: a partition's work reaching back for the dask runner
        ("src/joseki_miner/cluster/partitions.py", "from joseki_miner.cluster import runner", "What runs is blind"),
    ],
)
def test_an_import_against_the_layers_is_caught(tmp_path, module, line, broken):
    for part in ("src", "pipeline"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = tmp_path / module
    path.write_text(path.read_text() + f"\n{line}\n")
    done = lint(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 kept, 1 broken" in done.stdout
    assert f"{broken}" in done.stdout.split("Broken contracts")[1]
