"""Write src/joseki_miner/runners/kernel_signatures.py: every type signature
the package's kernels are called with from Python, as numba compiled them.

A run that compiles a kernel compiles every signature of this table too
(``runners.kernels.warm``), so a machine's first run caches what later runs
on other inputs need (a tar, a kifu dump, a mapped table).  Mine with this
script after a kernel or its callers change; it adds what it finds to the
table (nothing is dropped but a kernel gone):

    python scripts/kernel_signatures.py [GAMES...]        (default: every collection in ../shared/data)

Each mine runs three times: as asked, with its tables mapped and its sorted
runs spilled (--table-memory 0, --sort-memory 1), and with the reference
engine's build (a trie counted from files).  ``--cache-index DIR...`` adds
the signatures of numba's cache indexes (*.nbi) in DIR (a copy's
__pycache__ where the tests ran; given alone, nothing is mined)."""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
OUT = ROOT / "src" / "joseki_miner" / "runners" / "kernel_signatures.py"
MODULES = ("joseki_miner.fast.kernel", "joseki_miner.fast.fasttrie", "joseki_miner.fast.fingerprints")
MODULES += ("joseki_miner.fast.scan", "joseki_miner.readers.tarwalk")


def dispatchers() -> dict[tuple[str, str], object]:
    from importlib import import_module

    from numba.core.registry import CPUDispatcher

    found = {}
    for name in MODULES:
        module = import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name:
                found[(name, attr)] = value
    return found


def mined(paths: list[str]) -> set:
    from joseki_miner.runs.catalog import STAGES, Catalog
    from joseki_miner.runs.config import load
    from pipeline.run import Request, run_stages

    seen = set()
    for options in ({}, {"table_memory": 0.0, "sort_memory": 1.0}, {"engine": "reference"}):
        with tempfile.TemporaryDirectory() as folder:
            catalog = Catalog(work=Path(folder) / "work", out=Path(folder) / "out")
            run_stages(catalog, load(None, []), STAGES, paths, Request(progress=False, **options))
        for key, dispatcher in dispatchers().items():
            seen |= {(key, tuple(sig)) for sig in dispatcher.signatures}
    return seen


def indexed(folder: Path) -> set:
    """The signatures of numba's cache indexes in ``folder`` (its format:
    the numba version pickled, then (stamp, overloads by (signature, ...)))."""
    names = {key[1]: key for key in dispatchers()}
    seen = set()
    for index in sorted(folder.glob("*.nbi")):
        module, _, name = index.name.split("-")[0].partition(".")
        key = names.get(name)
        if key is None or not key[0].endswith("." + module):
            continue
        with index.open("rb") as fh:
            pickle.load(fh)
            _, overloads = pickle.loads(fh.read())
        seen |= {(key, tuple(k[0].args if hasattr(k[0], "args") else k[0])) for k in overloads}
    return seen


def source(t) -> str:
    from numba.core import types

    if isinstance(t, types.Array):
        return f'A({source(t.dtype)}, {t.ndim}, "{t.layout}"{", True" if not t.mutable else ""})'
    if isinstance(t, types.Literal):  # a constant a kernel passes a kernel: never a call from Python
        raise ValueError(t)
    if isinstance(t, (types.Integer, types.Float)):
        return f"t.{t}"
    if isinstance(t, types.Boolean):
        return "t.boolean"
    raise SystemExit(f"a kernel takes a type this script cannot write: {t!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="game collections (default: every one in ../shared/data)")
    parser.add_argument("--cache-index", nargs="*", type=Path, default=[], help="folders of numba cache indexes")
    args = parser.parse_args()
    shared = ROOT.parent / "shared" / "data"
    games = args.games or ([] if args.cache_index else sorted(str(p) for p in shared.iterdir() if p.is_dir()))
    seen = mined(games) if games else set()
    for folder in args.cache_index:
        seen |= indexed(folder)
    try:
        from joseki_miner.runners.kernel_signatures import SIGNATURES
    except ImportError:
        SIGNATURES = ()
    table: dict[tuple[str, str], set[str]] = {}
    for dispatcher, sigs in SIGNATURES:
        key = (dispatcher.py_func.__module__, dispatcher.py_func.__name__)
        table.setdefault(key, set()).update(f"({', '.join(map(source, s))},)" for s in sigs)
    for key, sig in seen:
        try:
            table.setdefault(key, set()).add(f"({', '.join(map(source, sig))},)")
        except ValueError:
            continue
    lines = [
        '"""The type signatures the kernels are called with from Python, as',
        "numba compiled them over ../shared/data and the tests (written by",
        'scripts/kernel_signatures.py: do not edit; ``runners.kernels`` reads it)."""',
        "",
        "from typing import Any",
        "",
        "from numba import types as t",
        "",
        *sorted({f"from {m.rpartition('.')[0]} import {m.rpartition('.')[2]}" for m, _ in table}),
        "",
        "A = t.Array",
        "",
        "SIGNATURES: tuple[tuple[Any, list[tuple[t.Type, ...]]], ...] = (",
    ]
    for (module, name), sigs in sorted(table.items()):
        lines.append(f"    ({module.rpartition('.')[2]}.{name}, [")
        lines += [f"        {s}" + "," for s in sorted(sigs)]
        lines.append("    ]),")
    lines.append(")")
    OUT.write_text("\n".join(lines) + "\n")
    subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", str(OUT)], check=False)
    print(f"{sum(map(len, table.values()))} signatures of {len(table)} kernels -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
