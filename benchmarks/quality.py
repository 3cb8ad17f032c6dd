"""`make quality`: is the book rich, and is what it calls joseki joseki?
Richness and rightness measured together, against Go knowledge
(benchmarks/named_shapes.yaml: well-known joseki and fuseki shapes with
their public sources) and against SGF joseki dictionaries where given (not
shipped: Kogo's, Pachi's...).

Mined: every collection of ../shared/data apart, all of them together, and
the games before 2012 and from 2012 (rules are chosen on the first and
reported on the second).  For each, the thesis' config, the defaults before
this book grew (the kinds, the thesis' 1%), each rule added in turn, and
the defaults; then the curve of rightness against richness over the
threshold's share, with and without each rule.

Per run: the nodes of the pruned tree, its joseki nodes, joseki leaves and
follow-ups; the named joseki it holds as joseki and the fuseki shapes it
holds as joseki (there should be none); and per dictionary, its joseki
nodes the dictionary holds (richness) and the share of its joseki leaves
it holds (rightness).  Prints the tables, writes benchmarks/QUALITY.md and
the curves as benchmarks/quality-curve.svg.

    python benchmarks/quality.py [--data ../shared/data] [--dictionary NAME=FILE.sgf[,FILE...] ...] [--only all]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from html import escape
from pathlib import Path

import pyarrow.parquet as pq
import yaml

from joseki_miner.book import quality
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import load
from pipeline.run import Request, run_stages

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SHAPES = ROOT / "benchmarks" / "named_shapes.yaml"
THESIS = ROOT / "configs" / "thesis.yaml"
DEFAULT = ROOT / "configs" / "default.yaml"
STAGES = ("ingest", "extract", "build", "prune", "context")  # the tree, with the board's kinds
SPLIT = 2012  # rules chosen on the games before, reported on the games from
# the defaults before this book grew: the kinds, tenuki folded, the start region, the thesis' threshold
BEFORE = (
    "prune.min_fraction=0.01",
    "prune.confidence=null",
    "prune.min_games=1",
    "prune.follow=null",
    "prune.family=null",
    "kinds.follow_up=false",
    "kinds.approach=null",
)
RULES = {  # each rule of this issue, as the keys that turn it on
    "follow-ups": ("kinds.follow_up=true",),
    "approaches from the side": ("kinds.approach=0.6",),
    "evidence threshold": ("prune.confidence=0.95", "prune.min_fraction=0.004", "prune.min_games=10"),
    "natural ends": ("prune.follow=0.8",),
    "opening families": ("prune.family=0.01",),
}
# (label, config, overrides): the thesis; the defaults before; each rule added in turn; the defaults
RUNS = (
    ("thesis", THESIS, ()),
    ("defaults before", DEFAULT, BEFORE),
    ("+ follow-ups", DEFAULT, (*BEFORE, *RULES["follow-ups"])),
    ("+ approaches from the side", DEFAULT, (*BEFORE, *RULES["follow-ups"], *RULES["approaches from the side"])),
    (
        "+ evidence threshold",
        DEFAULT,
        (*BEFORE, *RULES["follow-ups"], *RULES["approaches from the side"], *RULES["evidence threshold"]),
    ),
    ("+ natural ends", DEFAULT, ("prune.family=null",)),
    ("defaults (+ opening families)", DEFAULT, ()),
    ("+ move orders merged", DEFAULT, ("prune.merge_orders=true",)),
)
# the book against the number of games: nested samples of each data set (filter.sample), with and without the
# rule that lets the book grow with the evidence at the position
SAMPLES = (0.125, 0.25, 0.5, 1.0)
GROWTH = {
    "defaults": (),
    "+ evidence at the position": ("prune.position_share=0.5", "prune.position_games=100"),
}
# the curves: the threshold's share, with the rules of each variant
SHARES = (0.01, 0.007, 0.005, 0.004, 0.003, 0.0025, 0.002, 0.0015, 0.001)
CURVES = (
    ("kinds (before)", BEFORE),
    ("+ follow-ups", (*BEFORE, *RULES["follow-ups"])),
    ("+ approaches", (*BEFORE, *RULES["follow-ups"], *RULES["approaches from the side"])),
    ("all rules", ()),
)


def datasets(data: Path) -> list[tuple[str, list[Path], tuple[str, ...]]]:
    """(name, paths, filters): every collection apart, all of them, and
    the games before and from ``SPLIT``."""
    each = sorted(p for p in data.iterdir() if p.is_dir())
    return (
        [(p.name, [p], ()) for p in each]
        + [("all", each, ())]
        + [
            (f"before {SPLIT}", each, (f"filter.years=[1000, {SPLIT - 1}]",)),
            (f"from {SPLIT}", each, (f"filter.years=[{SPLIT}, 2999]",)),
        ]
    )


def _build(config) -> tuple:
    """What a run's build depends on: runs that share it share a work folder."""
    return (
        config.distance_noise,
        config.corner_start,
        config.distance_certain,
        config.distance_maybe,
        config.kinds,
        config.kinds_follow_up,
        config.kinds_approach,
        config.corner_region,
        config.filter_years,
        config.filter_sample,
    )


class Measurer:
    def __init__(self, data: Path, dictionaries: dict[str, set], tmp: Path) -> None:
        named = yaml.safe_load(SHAPES.read_text(encoding="utf-8"))
        self.joseki, self.fuseki = quality.shapes(named["joseki"]), quality.shapes(named["fuseki"])
        self.dictionaries, self.tmp, self.data = dictionaries, tmp, data

    def run(
        self, name: str, paths: list[Path], config_path: Path, sets: tuple[str, ...]
    ) -> tuple[quality.Measure, dict]:
        config = load(config_path, list(sets))
        folder = self.tmp / name.replace(" ", "-") / hashlib.sha256(repr(_build(config)).encode()).hexdigest()[:12]
        summary = run_stages(
            Catalog(work=folder / "work", out=folder / "out"), config, STAGES, paths, Request(progress=False)
        )
        table = pq.read_table(folder / "out" / "joseki.parquet").to_pydict()
        if "kind" in table:  # the book's kinds: the board's where a rule named a joseki move
            table["kind"] = (
                pq.read_table(folder / "out" / "node_context.parquet", columns=["kind"]).column(0).to_pylist()
            )
        m = quality.measure(
            quality.tree(table, config.min_length),
            self.joseki,
            self.fuseki,
            config.corner_region,
            dictionaries=self.dictionaries,
        )
        return m, summary


def _cells(m: quality.Measure, names: list[str]) -> str:
    found = "".join(f" {m.found[n].nodes:5d} {100 * m.found[n].share:5.1f}%" for n in names)
    return (
        f"{m.nodes:6d} {m.joseki_nodes:5d} {m.joseki_leaves:5d} {m.follow_ups:4d} {m.named_joseki:3d}/"
        f"{m.named_total} {m.fuseki_as_joseki:2d}/{m.fuseki_total}{found}"
    )


def table(rows: list[tuple], names: list[str]) -> str:
    head = [
        "games",
        "config",
        "threshold",
        "nodes",
        "joseki nodes",
        "joseki leaves",
        "follow-ups",
        "named joseki held as joseki",
        "fuseki shapes held as joseki",
    ]
    for n in names:
        head += [f"joseki nodes in {n} (richness)", f"joseki leaves in {n} (rightness)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, label, m, summary in rows:
        on = summary.get("threshold_on", "count")
        cells = [
            f"{name} ({summary['games_accepted']:,})",
            label,
            f"{summary['threshold']:,} {on}",
            f"{m.nodes:,}",
            f"{m.joseki_nodes:,}",
            f"{m.joseki_leaves:,}",
            f"{m.follow_ups:,}",
            f"{m.named_joseki} of {m.named_total}",
            f"{m.fuseki_as_joseki} of {m.fuseki_total}",
        ]
        for n in names:
            cells += [f"{m.found[n].nodes:,}", f"{100 * m.found[n].share:.1f}%"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


COLOURS = ("#999999", "#d08c2c", "#5b8fd0", "#2f7d5b")
DEFAULT_SHARE = 0.004  # configs/default.yaml's prune.min_fraction, ringed on the curves


def curve_svg(curves: dict[str, dict[str, list[tuple[float, int, float]]]], dictionary: str) -> str:
    """Rightness (share of joseki leaves in the dictionary) against richness
    (joseki nodes in it) over the threshold's share, one panel a data set,
    one line a variant of the rules, each point labelled with its share."""
    width, height, pad = 520, 330, 48
    panels = list(curves.items())
    xs = [x for _, c in panels for line in c.values() for _, x, _ in line]
    ys = [y for _, c in panels for line in c.values() for _, _, y in line]
    xmax = max(xs) * 1.05 if xs else 1
    ymin, ymax = (min(ys) - 5 if ys else 0), (max(ys) + 3 if ys else 100)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(panels)}" height="{height + 40}" '
        f'font-family="sans-serif" font-size="11">',
        '<rect width="100%" height="100%" fill="white"/>',
    ]
    for p, (name, lines) in enumerate(panels):
        ox = p * width

        def at(x, y):
            return ox + pad + (width - 2 * pad) * x / xmax, height - pad - (height - 2 * pad) * (y - ymin) / (
                ymax - ymin
            )

        out.append(f'<text x="{ox + width / 2}" y="18" text-anchor="middle" font-size="13">{escape(name)}</text>')
        x0, y0 = at(0, ymin)
        x1, y1 = at(xmax, ymax)
        out.append(f'<path d="M{x0:.1f},{y1:.1f} V{y0:.1f} H{x1:.1f}" fill="none" stroke="#333"/>')
        for v in range(0, int(xmax) + 1, 200):
            x, _ = at(v, ymin)
            out.append(f'<text x="{x:.1f}" y="{y0 + 14:.1f}" text-anchor="middle">{v}</text>')
        for v in range(int(ymin // 5 * 5 + 5), int(ymax) + 1, 5):
            _, y = at(0, v)
            out.append(
                f'<text x="{x0 - 4:.1f}" y="{y + 4:.1f}" text-anchor="end">{v}%</text>'
                f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="#eee"/>'
            )
        out.append(
            f'<text x="{ox + width / 2}" y="{height - 12}" text-anchor="middle">joseki nodes in '
            f"{escape(dictionary)} (richness)</text>"
        )
        out.append(
            f'<text transform="translate({ox + 12},{height / 2}) rotate(-90)" text-anchor="middle">'
            f"joseki leaves in {escape(dictionary)} (rightness)</text>"
        )
        for (label, line), colour in zip(lines.items(), COLOURS):
            points = [at(x, y) for _, x, y in line]
            out.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                + " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
                + '"/>'
            )
            for (share, _, _), (x, y) in zip(line, points):
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
                if label == "all rules":
                    out.append(
                        f'<text x="{x + 4:.1f}" y="{y - 5:.1f}" fill="{colour}" font-size="10">{100 * share:g}%</text>'
                    )
                    if share == DEFAULT_SHARE:
                        out.append(
                            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="none" stroke="#c0392b" stroke-width="2"/>'
                        )
                if label == CURVES[0][0] and share == 0.01:
                    out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="none" stroke="#555" stroke-width="2"/>')
    for i, (label, colour) in enumerate(zip([c for c, _ in CURVES], COLOURS)):
        out.append(
            f'<rect x="{20 + i * 150}" y="{height + 18}" width="12" height="4" fill="{colour}"/>'
            f'<text x="{36 + i * 150}" y="{height + 24}">{escape(label)}</text>'
        )
    out.append(
        f'<circle cx="{26 + 4 * 150}" cy="{height + 20}" r="6" fill="none" stroke="#c0392b" stroke-width="2"/>'
        f'<text x="{38 + 4 * 150}" y="{height + 24}">the defaults</text>'
        f'<circle cx="{26 + 5 * 150}" cy="{height + 20}" r="6" fill="none" stroke="#555" stroke-width="2"/>'
        f'<text x="{38 + 5 * 150}" y="{height + 24}">the 1% book before</text>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def growth(m: Measurer, data: Path, names: list[str], only: list[str]) -> str:
    """The book against the number of games: each data set (each collection
    apart, and all) in nested samples (``SAMPLES``), with the defaults and
    with each of ``GROWTH``'s rules; a markdown section."""
    head = ["games", "sample", "rules", "joseki nodes", "joseki leaves", "named joseki held as joseki"]
    head += [f"joseki nodes in {n}" for n in names] + [f"joseki leaves in {n}" for n in names]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---|" + "---:|" * (len(head) - 3)]
    for name, paths, sets in datasets(data):
        if sets or (only and name not in only):
            continue
        for share in SAMPLES:
            for label, extra in GROWTH.items():
                measured, summary = m.run(name, paths, DEFAULT, (*extra, f"filter.sample={share}"))
                cells = [
                    name,
                    f"{share:g} ({summary['games_accepted']:,})",
                    label,
                    f"{measured.joseki_nodes:,}",
                    f"{measured.joseki_leaves:,}",
                    f"{measured.named_joseki} of {measured.named_total}",
                ]
                cells += [f"{measured.found[n].nodes:,}" for n in names]
                cells += [f"{100 * measured.found[n].share:.1f}%" for n in names]
                lines.append("| " + " | ".join(cells) + " |")
                print(lines[-1], flush=True)
    return (
        "\n## The book against the number of games\n\n"
        f"`python benchmarks/quality.py --growth` on {data.name}, {time.strftime('%Y-%m-%d %H:%M')}: each "
        "collection apart and all together, in nested samples of their games (filter.sample), with the defaults "
        "and with each rule that lets the book grow with the evidence at a position.\n\n" + "\n".join(lines) + "\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--dictionary",
        action="append",
        default=[],
        help="NAME=FILE.sgf[,FILE.sgf...]: an SGF joseki dictionary (its variations; several files "
        "are one dictionary); the tree's lines are looked up in it",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="a data set (a collection, 'all', 'before 2012', 'from 2012') to measure alone",
    )
    parser.add_argument("--no-curves", action="store_true", help="the tables alone")
    parser.add_argument(
        "--growth", action="store_true", help="the book against the number of games alone (its section of --out)"
    )
    parser.add_argument("--work", type=Path, help="keep the mined trees here (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "QUALITY.md")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"quality: no game collections at {args.data} (see ../shared/data)", file=sys.stderr)
        return 2
    dictionaries: dict[str, set] = {}
    sources = []
    for given in args.dictionary:
        name, _, files = given.rpartition("=")
        paths = [Path(f) for f in files.split(",")]
        name = name or paths[0].stem
        from sgfmill import sgf

        dictionaries[name] = set()
        for path in paths:
            dictionaries[name] |= quality.dictionary_lines(sgf.Sgf_game.from_bytes(path.read_bytes()))
        sources.append(
            f"{name}: {', '.join(p.name for p in paths)} ({len(dictionaries[name]):,} lines and prefixes "
            "in normal form)"
        )
    names = list(dictionaries)
    if args.growth:
        with tempfile.TemporaryDirectory() as scratch:
            section = growth(Measurer(args.data, dictionaries, args.work or Path(scratch)), args.data, names, args.only)
        from bench import write_section  # beside this script: benchmarks/ is on the path

        write_section("\n## The book against the number of games\n", section, args.out)
        return 0
    rows, curves = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        m = Measurer(args.data, dictionaries, args.work or Path(scratch))
        for name, paths, sets in datasets(args.data):
            if args.only and name not in args.only:
                continue
            for label, config, extra in RUNS:
                t0 = time.perf_counter()
                measured, summary = m.run(name, paths, config, (*extra, *sets) if config == DEFAULT else sets)
                rows.append((name, label, measured, summary))
                print(
                    f"{name:12s} {label:28s} {_cells(measured, names)}  ({time.perf_counter() - t0:.0f} s)", flush=True
                )
            if args.no_curves or not names or name not in (f"before {SPLIT}", f"from {SPLIT}"):
                continue
            curves[name] = {}
            for label, extra in CURVES:
                line = []
                for share in SHARES:
                    measured, _ = m.run(name, paths, DEFAULT, (*extra, *sets, f"prune.min_fraction={share}"))
                    line.append((share, measured.found[names[0]].nodes, 100 * measured.found[names[0]].share))
                curves[name][label] = line
                print(
                    f"{name:12s} curve {label:20s} " + " ".join(f"{s:g}:{x}/{y:.1f}%" for s, x, y in line), flush=True
                )
    text = table(rows, names)
    missing = [
        f"- {name}: {'; '.join(m.missing) or 'none'}" for name, label, m, _ in rows if label.startswith("defaults (")
    ]
    stamp = time.strftime("%Y-%m-%d %H:%M")
    doc = [
        "# Quality: a rich book, and a right one\n",
        f"`make quality` (benchmarks/quality.py) on {os.path.relpath(args.data, ROOT)}, {stamp}: each collection "
        f"apart, all together, and the games before {SPLIT} (where the rules were chosen) and from {SPLIT} (where "
        "they are reported). The thesis' config, the defaults before this book grew (the kinds, the thesis' 1%), "
        "each rule added in turn, and the defaults. Named shapes: benchmarks/named_shapes.yaml.\n",
        "A joseki node is a move a joseki holds (not a tenuki, a follow-up or a fuseki shape); a joseki leaf is "
        "a joseki node with no joseki child, read without its trailing tenuki; a line is in a dictionary when its "
        "moves, in any orientation, are a path of it.\n",
        text,
        "Named joseki the defaults do not hold as joseki (a line too rare there to pass the threshold, a "
        "follow-up, or cut where it turns into fuseki):\n",
        "\n".join(missing) + "\n",
    ]
    if sources:
        doc.append(
            'Dictionaries (not shipped; `make quality DICTIONARY="NAME=FILE ..."`):\n\n'
            + "\n".join(f"- {s}" for s in sources)
            + "\n"
        )
    if curves:
        svg = args.out.with_name("quality-curve.svg")
        svg.write_text(curve_svg(curves, names[0]), encoding="utf-8")
        doc.append(
            f"## Rightness against richness\n\n![rightness against richness]({svg.name})\n\n"
            f"Each point is a threshold's share of the games (prune.min_fraction), {', '.join(f'{s:g}' for s in SHARES)}; "
            "each line a set of rules: the kinds alone (the defaults before), with follow-ups named apart, "
            "with approaches from the side too, and every rule (the evidence threshold and natural ends "
            "too).\n"
        )
        for name, lines in curves.items():
            doc.append(
                f"{name}:\n\n| rules | "
                + " | ".join(f"{s:g}" for s in SHARES)
                + " |\n|---|"
                + "---|" * len(SHARES)
                + "\n"
                + "\n".join(
                    f"| {label} | " + " | ".join(f"{x:,} / {y:.1f}%" for _, x, y in line) + " |"
                    for label, line in lines.items()
                )
                + "\n"
            )
    args.out.write_text("\n".join(doc), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
