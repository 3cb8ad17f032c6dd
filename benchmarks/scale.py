"""`make scale`: how far the dask engine's task graph lets a run scale.

    python benchmarks/scale.py TRACE...          the figures of traces written by `joseki mine --trace`
    python benchmarks/scale.py --run [N...]      trace a run on ../shared/data copied N times (default 1 3), then those

For each trace: the work T1 (every task's seconds), the critical path T_inf
(the longest chain of tasks, each waiting for the one before it), the
serial time S (no task running: imports, the cluster's start and close,
the driver between phases), Brent's bound on the wall time with P workers,
max(T1 / P, T_inf) + S, and its speed-up over one worker, for P = 1 to 256,
and the critical path's tasks.  Written to benchmarks/SCALE.md too.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from joseki_miner.cluster import trace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
WORKERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# the run traced: two workers of this machine, 2 MB partitions, every copy kept (as the issue measures it)
RUN = ("--engine", "dask", "--workers", "2", "--partition-mb", "2", "--set", "dedupe=false", "--quiet")


def kind(key: str) -> str:
    """A task's kind: its key without the run's token and its numbers."""
    parts = [p for p in key.split("-") if not any(c.isdigit() for c in p) or p.isalpha()]
    return "-".join(parts[:3]) or key


def figures(path: Path) -> str:
    """The markdown of one trace's figures."""
    wall, tasks = trace.load(path)
    s = trace.scale(wall, tasks)
    kinds: dict[str, list[float]] = {}
    for t in tasks:
        kinds.setdefault(kind(t.key), []).append(t.seconds)
    lines = [
        f"### {path.name}\n",
        f"{len(tasks)} tasks; wall {s.wall:.1f} s; T1 {s.t1:.1f} s; T_inf {s.t_inf:.1f} s; S {s.s:.1f} s "
        f"(the bound's wall with 1 worker: {s.bound(1):.1f} s)\n",
        "| workers P | bound on wall s | speed-up |",
        "| ---: | ---: | ---: |",
        *(f"| {p} | {s.bound(p):.1f} | {s.speedup(p):.2f}x |" for p in WORKERS),
        "",
        "The critical path:\n",
        "| task | seconds |",
        "| --- | ---: |",
        *(f"| {t.key} | {t.seconds:.2f} |" for t in s.path),
        "",
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


def traced_runs(counts: list[int], into: Path) -> list[Path]:
    """Trace a run on ../shared/data copied ``n`` times, for each ``n``."""
    from bench import DATA, copies

    out = []
    for n in counts:
        with tempfile.TemporaryDirectory() as tmp:
            data = copies(Path(tmp) / "data", n) if n > 1 else DATA
            path = into / f"trace-{n}x.json"
            command = [sys.executable, "-m", "pipeline.cli", "mine", str(data), "--out", str(Path(tmp) / "out")]
            subprocess.run([*command, *RUN, "--trace", str(path)], check=True, cwd=ROOT)
            out.append(path)
    return out


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--run":
        into = ROOT / "data" / "scale"
        into.mkdir(parents=True, exist_ok=True)
        paths = traced_runs([int(n) for n in argv[1:]] or [1, 3], into)
    else:
        paths = [Path(a) for a in argv]
    if not paths:
        print(__doc__)
        return 2
    text = "# Scale: the dask engine's task graph\n\n" + "\n".join(figures(p) for p in paths)
    print(text)
    (ROOT / "benchmarks" / "SCALE.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
