"""`make quality`: is what the tree calls joseki joseki?  Measured against
Go knowledge (benchmarks/named_shapes.yaml: well-known joseki and common
fuseki shapes with their public sources), on every collection of
../shared/data apart and on all of them together, for the thesis' config,
for each rule of its future work added alone, and for the defaults.

Prints the table and writes benchmarks/QUALITY.md.  Per run: the nodes of
the pruned tree, its joseki leaves (where a joseki ends; the thesis' tree
calls every leaf one), how many of the named joseki it holds as joseki,
how many of the fuseki shapes it holds as joseki (there should be none),
the share of joseki leaves whose moves all stay in the corner's region,
and, with ``--dictionary FILE.sgf`` (an SGF joseki dictionary such as
Kogo's, not shipped here), the share of joseki leaves the dictionary holds.

    python benchmarks/quality.py [--data ../shared/data] [--dictionary FILE.sgf ...] [--only all]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from joseki_miner.book import quality
from joseki_miner.runs.config import load
from joseki_miner.runs.catalog import Catalog
from pipeline.run import run_stages

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SHAPES = ROOT / "benchmarks" / "named_shapes.yaml"
THESIS = ROOT / "configs" / "thesis.yaml"
DEFAULT = ROOT / "configs" / "default.yaml"
STAGES = ("ingest", "extract", "build", "prune")
LABELS = ("kinds=true", "prune.fold_tenuki=true")  # the nodes' kinds (issue 27, item 1), under every option
# (label, config, overrides): the thesis; the kinds alone; each rule of the future work added alone; the defaults
RUNS = (
    ("thesis", THESIS, ()),
    ("kinds, tenuki folded", THESIS, LABELS),
    ("+ start within 5 lines", THESIS, (*LABELS, "corner.start=5")),
    ("+ start within 6 lines", THESIS, (*LABELS, "corner.start=6")),
    ("+ start within 7 lines", THESIS, (*LABELS, "corner.start=7")),
    ("+ noise recognition", THESIS, (*LABELS, "distance.noise=true")),
    ("+ follow 0.5", THESIS, (*LABELS, "prune.follow=0.5")),
    ("+ follow 0.7", THESIS, (*LABELS, "prune.follow=0.7")),
    ("+ min share 0.02", THESIS, (*LABELS, "prune.min_share=0.02")),
    ("+ min share 0.05", THESIS, (*LABELS, "prune.min_share=0.05")),
    ("defaults", DEFAULT, ()),
)


def collections(data: Path) -> list[tuple[str, list[Path]]]:
    """Every collection of ``data`` apart, then all of them together."""
    each = sorted(p for p in data.iterdir() if p.is_dir())
    return [(p.name, [p]) for p in each] + [("all", each)]


def _extraction(config) -> tuple:
    """What a run's extraction depends on: runs that share it share a work folder."""
    return (config.distance_noise, config.corner_start, config.distance_certain, config.distance_maybe)


def run(data: Path, dictionaries: list[Path], only: list[str], tmp: Path) -> tuple[str, list[tuple]]:
    named = yaml.safe_load(SHAPES.read_text(encoding="utf-8"))
    joseki, fuseki = quality.shapes(named["joseki"]), quality.shapes(named["fuseki"])
    known = None
    if dictionaries:
        from sgfmill import sgf

        known = set()
        for path in dictionaries:
            known |= quality.dictionary_lines(sgf.Sgf_game.from_bytes(path.read_bytes()))
    rows = []
    for name, paths in collections(data):
        if only and name not in only:
            continue
        for label, config_path, sets in RUNS:
            config = load(config_path, list(sets))
            folder = tmp / name / str(abs(hash(_extraction(config))))
            t0 = time.perf_counter()
            run_stages(Catalog(work=folder / "work", out=folder / "out"), config, STAGES, paths, progress=False)
            table = pq.read_table(folder / "out" / "joseki.parquet").to_pydict()
            m = quality.measure(quality.tree(table, config.min_length), joseki, fuseki, config.corner_region, known)
            rows.append((name, label, m))
            print(f"{name:9s} {label:24s} {_cells(m)}  ({time.perf_counter() - t0:.0f} s)", flush=True)
    return markdown(rows, known is not None, dictionaries), rows


def _cells(m: quality.Measure) -> str:
    known = "" if m.in_dictionary is None else f" {100 * m.in_dictionary:5.0f}%"
    return (f"{m.nodes:5d} {m.joseki_leaves:5d} {m.named_joseki:3d}/{m.named_total} {m.fuseki_as_joseki:3d}/"
            f"{m.fuseki_total} {100 * m.in_region:5.0f}%{known}")


def markdown(rows: list[tuple], with_dictionary: bool, dictionaries: list[Path]) -> str:
    head = ["collection", "config", "nodes", "joseki leaves", "named joseki held as joseki",
            "fuseki shapes held as joseki", "fuseki shapes named as such", "joseki leaves in the region"]
    if with_dictionary:
        head.append("joseki leaves in the dictionary")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, label, m in rows:
        cells = [name, label, f"{m.nodes:,}", f"{m.joseki_leaves:,}", f"{m.named_joseki} of {m.named_total}",
                 f"{m.fuseki_as_joseki} of {m.fuseki_total}", f"{m.fuseki_named} of {m.fuseki_total}",
                 f"{100 * m.in_region:.0f}%"]
        if with_dictionary:
            cells.append(f"{100 * m.in_dictionary:.0f}%")
        lines.append("| " + " | ".join(cells) + " |")
    missing = {}
    for name, label, m in rows:
        if label == "defaults":
            missing[name] = m.missing
    notes = ["", "Named joseki the defaults do not hold as joseki, by collection (a line too rare there to pass "
             "the threshold, or cut where it turns into fuseki):", ""]
    notes += [f"- {name}: {'; '.join(names) if names else 'none'}" for name, names in missing.items()]
    if with_dictionary:
        notes += ["", "Dictionary (the joseki leaves, a trailing tenuki dropped, looked up among its lines and their "
                  "prefixes in any orientation): " + ", ".join(p.name for p in dictionaries)]
    return "\n".join(lines + notes) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--dictionary", type=Path, action="append", default=[],
                        help="an SGF joseki dictionary (its variations); joseki leaves are looked up in it")
    parser.add_argument("--only", action="append", default=[], help="a collection (or 'all') to measure alone")
    parser.add_argument("--work", type=Path, help="keep the mined trees here (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "QUALITY.md")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"quality: no game collections at {args.data} (see ../shared/data)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.work or Path(scratch)
        text, _ = run(args.data, args.dictionary, args.only, tmp)
    header = ("# Quality: joseki, not fuseki\n\n`make quality` (benchmarks/quality.py) on "
              f"{os.path.relpath(args.data, ROOT)}, {time.strftime('%Y-%m-%d %H:%M')}: each collection apart and "
              "all together; "
              "the thesis' config, each rule of its future work added alone to the kinds, and the defaults. "
              "Named shapes: benchmarks/named_shapes.yaml.\n\n")
    args.out.write_text(header + text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
