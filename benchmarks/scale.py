"""`make scale`: how far the dask engine's task graph lets a run scale.

    python benchmarks/scale.py TRACE...          the figures of traces written by `joseki mine --trace`
    python benchmarks/scale.py --run [N...]      trace runs on ../shared/data copied N times (default 1 3), then those

For each trace: the work T1 (every task's seconds), the critical path T_inf
(the longest chain of tasks, each waiting for the one before it), the
serial time S (no task running: imports, the cluster's start and close,
the driver between phases), Brent's bound on the wall time with P workers,
max(T1 / P, T_inf) + S, and its speed-up over one worker, for P = 1 to 256,
and the critical path's tasks.  Given two traces or more, the first (the
data once) and the last (several times over) fit how each kind of task
grows, and model a run on 100 million games.  With --run, each size is
run REPEAT times and the run of the median critical path stands for it;
written to benchmarks/SCALE.md too.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from joseki_miner.cluster import trace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
WORKERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
TARGET = 100_000_000  # the games of the model (OGS's server holds about 40 million)
# the run traced: two workers of this machine, 2 MB partitions, every copy kept (as the issue measures it)
# runs of each size: the figures are those of the run with the median critical path (one run's path
# moves by a third on this machine, as a task stalls on the disk or waits for a core; of three runs
# the median still did)
REPEAT = 5
RUN = ("--engine", "dask", "--workers", "2", "--partition-mb", "2", "--set", "dedupe=false", "--quiet")


def figures(path: Path) -> str:
    """The markdown of one trace's figures."""
    wall, tasks = trace.load(path)
    s = trace.scale(wall, tasks)
    kinds = trace.seconds_by_kind(tasks)
    lines = [
        f"### {path.name}\n",
        f"{len(tasks)} tasks; wall {s.wall:.1f} s; T1 {s.t1:.1f} s; T_inf {s.t_inf:.1f} s; S {s.s:.1f} s "
        f"(the bound's wall with 1 worker: {s.bound(1):.1f} s)\n",
        *bounds_and_path(s, wall=".1f", task=".2f"),
        "Tasks by kind:\n",
        "| kind | tasks | seconds | largest |",
        "| --- | ---: | ---: | ---: |",
        *(
            f"| {k} | {len(v)} | {sum(v):.1f} | {max(v):.2f} |"
            for k, v in sorted(kinds.items(), key=lambda kv: -sum(kv[1]))
        ),
        "",
    ]
    return "\n".join(lines)


def bounds_and_path(s: trace.Scale, wall: str, task: str) -> list[str]:
    """The markdown of the bound at each number of workers and of the
    critical path (``wall`` and ``task``: their seconds' formats)."""
    return [
        "| workers P | bound on wall s | speed-up |",
        "| ---: | ---: | ---: |",
        *(f"| {p} | {s.bound(p):{wall}} | {s.speedup(p):.2f}x |" for p in WORKERS),
        "",
        "The critical path:\n",
        "| task | seconds |",
        "| --- | ---: |",
        *(f"| {t.key} | {t.seconds:{task}} |" for t in s.path),
        "",
    ]


def traced_runs(counts: list[int], into: Path, repeat: int = REPEAT) -> tuple[list[Path], str]:
    """Trace runs on ../shared/data copied ``n`` times, for each ``n``,
    ``repeat`` times, the sizes taken in turn (a machine that slows for a
    while slows each size alike); for each ``n``, the run whose critical
    path is the median one, as trace-Nx.json; and the markdown of every
    run's critical path.  One run's T_inf is its slowest tasks' chain, as
    noisy as its largest tasks: the issue measured medians of runs too."""
    from bench import DATA, copies

    runs: dict[int, list[Path]] = {n: [] for n in counts}
    with tempfile.TemporaryDirectory() as tmp:
        data = {n: copies(Path(tmp) / f"data-{n}", n) if n > 1 else DATA for n in counts}
        # untraced, first: the compiled engine's kernels are compiled (and cached) by the first run after a change
        warm = [sys.executable, "-m", "pipeline.cli", "mine", str(DATA / "ai"), "--out", str(Path(tmp) / "warm")]
        subprocess.run([*warm, *RUN], check=True, cwd=ROOT)
        shutil.rmtree(Path(tmp) / "warm")
        for r, n in itertools.product(range(repeat), counts):
            out = Path(tmp) / "out"
            path = into / f"trace-{n}x-run{r + 1}.json"
            command = [sys.executable, "-m", "pipeline.cli", "mine", str(data[n]), "--out", str(out)]
            subprocess.run([*command, *RUN, "--trace", str(path)], check=True, cwd=ROOT)
            body = json.loads(path.read_text())  # the games read, for the model
            body["games"] = json.loads((out / "summary.json").read_text())["games_read"]
            path.write_text(json.dumps(body))
            shutil.rmtree(out)
            runs[n].append(path)
    chosen, lines = [], ["| data | critical path of each run s | median s |", "| --- | --- | ---: |"]
    for n in counts:
        paths = sorted(runs[n], key=lambda p: trace.scale(*trace.load(p)).t_inf)
        median = paths[(len(paths) - 1) // 2]
        shutil.copyfile(median, into / f"trace-{n}x.json")
        chosen.append(into / f"trace-{n}x.json")
        each = ", ".join(f"{trace.scale(*trace.load(p)).t_inf:.2f}" for p in runs[n])
        lines.append(f"| {n} time{'s' * (n > 1)} | {each} | {trace.scale(*trace.load(median)).t_inf:.2f} |")
    return chosen, "\n".join(lines) + "\n"


def modelled(one: Path, more: Path) -> str:
    """The markdown of the model at ``TARGET`` games from traces of the
    data once and several times over (``trace.model``)."""
    a, b = json.loads(one.read_text()), json.loads(more.read_text())
    if not a.get("games") or not b.get("games"):
        return ""
    times, factor = b["games"] / a["games"], TARGET / a["games"]
    s = trace.model(trace.load(one), trace.load(more), times, factor)
    kinds = trace.growth(trace.load(one)[1], trace.load(more)[1], times)
    lines = [
        f"### The model at {TARGET:,} games ({factor:.0f} times {a['games']:,})\n",
        f"From {one.name} and {more.name} ({times:.0f} times the games): each kind's work (its tasks' seconds "
        "in all) and its largest task grow as a power of the games, fitted on the two traces between 0 and 1; "
        "T_inf is the critical path of the run once, each task grown as its kind's largest.\n",
        f"| kind | tasks once | work once s | largest once s | work grows as games^ | largest grows as games^ "
        f"| work at {TARGET:,} s | largest s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *(
            f"| {k} | {g.tasks} | {g.seconds:.2f} | {g.largest:.2f} | {g.work:.2f} | {g.longest:.2f} "
            f"| {g.at(factor)[0]:,.0f} | {g.at(factor)[1]:,.1f} |"
            for k, g in sorted(kinds.items(), key=lambda kv: -kv[1].at(factor)[0])
        ),
        "",
        f"T1 {s.t1:,.0f} s; T_inf {s.t_inf:,.0f} s; S {s.s:,.0f} s\n",
        *bounds_and_path(s, wall=",.0f", task=",.1f"),
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    run = bool(argv) and argv[0] == "--run"
    runs = ""
    if run:
        into = ROOT / "data" / "scale"
        into.mkdir(parents=True, exist_ok=True)
        paths, runs = traced_runs([int(n) for n in argv[1:]] or [1, 3], into)
    else:
        paths = [Path(a) for a in argv]
    if not paths:
        print(__doc__)
        return 2
    text = "# Scale: the dask engine's task graph\n\n"
    if runs:
        text += f"Each size traced {REPEAT} times, in turn; the figures below are the median run's.\n\n{runs}\n"
    text += "\n".join(figures(p) for p in paths)
    if len(paths) > 1:
        text += "\n" + modelled(paths[0], paths[-1])
    print(text)
    if run:
        (ROOT / "benchmarks" / "SCALE.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
