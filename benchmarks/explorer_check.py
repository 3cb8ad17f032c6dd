"""The explorer's figures against the commands' on all of ../shared/data.

    python benchmarks/explorer_check.py OUT WORK [SCRATCH] [--filtered]

OUT and WORK: a run mined from all of ../shared/data.  Checks that
- unfiltered, the explorer's index gives exactly ``joseki lookup``'s figures
  (``book.explore.lookup``, what ``lookup --json`` prints) for every node of
  a random sample of 500 stored nodes;
- filtered by years, by a collection and by a player, it gives exactly the
  figures of a lookup on a run mined with the same ``filter.*`` key (mined
  into SCRATCH, default explorer-check in the
  system temporary folder, once), for 100 stored nodes of
  each filtered run.
Prints one line a check and exits 1 on the first difference."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from joseki_miner.book import explore
from joseki_miner.book.lookup import board_name, query
from joseki_miner.explorer import params
from joseki_miner.explorer.index import Index
from joseki_miner.method.points import TENUKI
from joseki_miner.runs.catalog import Catalog

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FIGURES = ("count", "games", "black_wins", "white_wins", "first_year", "last_year", "years", "sources", "most_popular")
MOVE = ("board", "count", "share", "games", "black_wins", "white_wins", "last_year")
FILTERS = (
    ("filter.years=[2016,2019]", {"years": "2016-2019"}),
    ("filter.sources=[kgs-6d]", {"collections": "kgs-6d"}),
    ('filter.players=["GBPacker"]', {"player": "GBPacker"}),
)


def text_of(index: Index, node: int) -> str:
    return " ".join("tenuki" if k == TENUKI else board_name(k) for k in index.path(node))


def sample(index: Index, n: int, seed: int) -> list[int]:
    """The 20 most played stored nodes (the first moves' figures are the largest sums) and ``n`` at random."""
    nodes = np.flatnonzero(index.parent >= 0).tolist()
    nodes = [x for x in nodes if index.path(x)[0] != TENUKI]
    top = sorted(nodes, key=lambda x: -int(index.count[x]))[:20]
    return list(dict.fromkeys(top + random.Random(seed).sample(nodes, min(n, len(nodes)))))


def short(value):
    """Collections by their last part: a run names them by the path it was given (../shared/data/ai)."""
    return {str(k).rsplit("/", 1)[-1]: v for k, v in value.items()} if isinstance(value, dict) else value


def same(found: dict, looked: dict, moves: tuple[str, ...]) -> str | None:
    for k in FIGURES:
        if short(found[k]) != short(looked[k]):
            return f"{k}: {found[k]!r} != {looked[k]!r}"
    mine = [{k: c[k] for k in moves} for c in found["continuations"]]
    theirs = [{k: c[k] for k in moves} for c in looked["continuations"]]
    return None if mine == theirs else f"continuations differ: {mine[:3]} != {theirs[:3]}"


def main(out: Path, work: Path, scratch: Path, unfiltered: bool = True) -> int:
    catalog = Catalog(work=work, out=out)
    index = Index.read(catalog)
    t0 = time.perf_counter()
    nodes = sample(index, 500, 1) if unfiltered else []
    for node in nodes:
        text = text_of(index, node)
        why = same(index.explore(query(text, checked=False)), explore.lookup(catalog, text), (*MOVE, "kind", "move"))
        if why:
            print(f"unfiltered, {text}: {why}")
            return 1
    if unfiltered:
        print(
            f"unfiltered: {len(nodes)} stored nodes (the 20 most played, 500 at random) equal lookup's figures ({time.perf_counter() - t0:.0f} s)"
        )
    for setting, asked in FILTERS:
        folder = scratch / setting.split("=")[0].split(".")[1]
        if not (folder / "joseki.parquet").exists():
            t = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "pipeline.cli", "mine", os.path.relpath(DATA, ROOT), "--out", str(folder)]
                + ["--set", setting],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            if done.returncode:
                print(f"mine --set {setting}: {done.stderr.strip().splitlines()[-1:]}")
                return 1
            print(f"mined --set {setting} in {time.perf_counter() - t:.0f} s")
        run = Catalog(work=folder / "interim", out=folder)
        other = Index.read(run)
        chosen = params.selection(asked, index)
        nodes = sample(other, 100, 2)
        for node in nodes:
            text = text_of(other, node)
            why = same(index.explore(query(text, checked=False), chosen), explore.lookup(run, text), MOVE)
            if why:
                print(f"{setting}, {text}: {why}")
                return 1
        top = index.explore(query(text_of(other, nodes[0]), checked=False), chosen)
        print(
            f"{setting}: {len(nodes)} stored nodes of the run mined with it (its 20 most played, 100 at random) "
            f"equal the explorer's {json.dumps(asked)} (the most played: {top['games']:,} games)"
        )
    return 0


if __name__ == "__main__":
    given = [Path(a) for a in sys.argv[1:] if a != "--filtered"]  # --filtered: the filtered checks alone
    if len(given) < 2:
        print(__doc__)
        sys.exit(2)
    scratch = given[2] if len(given) > 2 else Path(tempfile.gettempdir()) / "explorer-check"
    sys.exit(main(given[0], given[1], scratch, "--filtered" not in sys.argv[1:]))
