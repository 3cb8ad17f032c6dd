"""Fault injection: stop `joseki mine` at many moments, then check that the
next run gives what a clean run gives (issue 14).

Each case starts from a folder state (empty, a finished run with the default
settings, a finished run with other settings), runs `joseki mine` with some
settings, and stops it: SIGKILL or SIGINT at a moment spread between the
moment it takes its folders' lock and the moment it would have ended
(measured by an uninterrupted run of the same case), a SIGKILL at every step
of a commit (``store.failpoint``: between a file's rename and its manifest
too), a failure by --strict, and a full disk (a small tmpfs where one can be
mounted, an injected ENOSPC otherwise).  Then a run with the default
settings must leave byte-identical outputs to a clean run's (manifests
without their "run" and "outputs" entries, summary.json without its
seconds), and nothing temporary.  A SIGINT must end the run with one line
and exit 130 (or, if it came after the last commit, exit 0).  The stages
run alone that publish (`joseki prune`, `joseki emit`, `joseki report`,
each with settings that make it run) are stopped the same way.

    python tests/crashtest.py [--moments N] [--engine dask] [--alone] [DATA...]      (make crashtest)

With ``--engine dask`` every run (the clean one, the stopped one, the next
one) mines on a LocalCluster of two worker processes: a stop may come while
the workers mine partitions, count subtrees or write the report's parts.

Prints how many cases ran and how many differed; exits 1 if any did.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOSEKI = [sys.executable, "-m", "pipeline.cli"]
LOCK = ".joseki.lock"
# what may differ between two runs of the same games and config (rerun_seconds: a run that found every stage up to date)
BOOKKEEPING = {"run", "outputs", "seconds", "rerun_seconds"}
# the interrupted run's settings: each makes a different set of stages run
VARIANTS = {
    "force": ["--force"],
    "distance": ["--set", "distance.maybe=6"],
    "neutral": ["--set", "influence.neutral=3"],
    "threshold": ["--set", "prune.min_count=40"],
    "orders": ["--set", "prune.merge_orders=true"],  # node_orders.parquet written, then gone again
    "no-dedupe": ["--set", "dedupe=false"],
}
# a stage run alone, with settings that make it run: stopped, the output folder must stay one tree (the next run
# mends what the stop left)
ALONE = {
    "prune-alone": ["prune", "--set", "prune.min_count=40"],  # prune, then emit and the report
    "emit-alone": ["emit", "--set", "emit.counters=true"],  # emit, then the report
    "report-alone": ["report", "--set", "influence.share=0.25"],
}
STATES = ("empty", "default", "other")  # the folder the interrupted run starts from
COMMIT_POINTS = ("commit-synced", "commit-unrecorded", "commit-renamed", "commit-recorded")
BAD_GAME = "(;FF[4]GM[1]SZ[9];B[ee];W[cc])\n"


# The dask engine's folders of parts of the trie: a part a range of the build's counts, which a build
# from the stage files (a run that starts at the build) cuts otherwise than one beside the partitions
SHARDED = ("trie.parquet", "trie_years.parquet", "trie_sources.parquet", "trie_positions.parquet")
SHARDED += ("sorted_sequences.parquet",)


def outputs(folder: Path) -> dict[str, bytes]:
    """Every file a run leaves in its folders, as a clean run must give it:
    manifests without "run" and "outputs", summary.json without its
    seconds; the lock files and the digest cache (bookkeeping) left out;
    the folders of parts of the trie (``SHARDED``) by their rows."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and path.name in SHARDED:
            found[str(path.relative_to(folder))] = dataset_rows(path)
        if not path.is_file() or path.name in (LOCK, "input-digests.bin") or path.parent.name in SHARDED:
            continue
        data = path.read_bytes()
        if path.name.endswith(".manifest.json") or path.name == "summary.json":
            record = json.loads(data)
            data = json.dumps({k: v for k, v in record.items() if k not in BOOKKEEPING}, sort_keys=True).encode()
        found[str(path.relative_to(folder))] = data
    return found


def dataset_rows(path: Path) -> bytes:
    """A Parquet file's (or folder of parts') schema and rows, as bytes
    (trie_positions.parquet's by position, then node: each part of it is
    sorted alike)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = sorted(path.glob("part-*.parquet")) if path.is_dir() else [path]
    table = pa.concat_tables([pq.read_table(p) for p in parts])
    if path.name == "trie_positions.parquet":
        hi, lo, node = (table.column(c).to_numpy() for c in ("hi", "lo", "node"))
        table = table.take(np.lexsort((node, lo, hi)))
    return f"{table.schema}\n{table.to_pydict()}".encode()


def leftovers(folder: Path) -> list[str]:
    """Temporary names, spilled runs, where-logs, table files: what no
    finished or stopped run may leave."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.name.endswith((".tmp", ".wheres", ".mapped", ".old")) or p.name == "runs"
    )


def joseki(args: list, env: dict | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*JOSEKI, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@dataclass
class Harness:
    inputs: list[Path]  # the games: real collections, and a folder of our own (for --strict)
    root: Path
    log: callable = print
    engine: list[str] = field(default_factory=list)  # e.g. ["--engine", "dask", "--workers", "2"]: every run's
    results: list[tuple[str, str]] = field(default_factory=list)  # (case, what differed or "")

    def __post_init__(self) -> None:
        self.extra = self.root / "extra"
        self.extra.mkdir(parents=True, exist_ok=True)
        self.reference = self.root / "reference"
        self.log(f"clean run of {', '.join(str(p) for p in self.inputs)} ...")
        done = self.mine(self.reference, [])
        if done.returncode != 0:
            raise SystemExit(f"the clean run failed: {done.stderr}")
        self.expected = outputs(self.reference)
        self.snapshots = {"default": self.reference}
        other = self.root / "state-other"
        if (
            self.mine(
                other, ["--set", "distance.certain=4", "--set", "distance.maybe=4", "--set", "prune.min_count=30"]
            ).returncode
            != 0
        ):
            raise SystemExit("the run with other settings failed")
        self.snapshots["other"] = other
        self.footprint = sum(p.stat().st_size for p in self.reference.rglob("*") if p.is_file())

    def mine(self, out: Path, args: list, env: dict | None = None) -> subprocess.CompletedProcess:
        return joseki(["mine", *self.inputs, self.extra, "--out", out, "--quiet", *self.engine, *args], env)

    def command(self, out: Path, args: list) -> list[str]:
        """The command of a case: `joseki mine` with ``args``, or where
        ``args`` starts with a stage's name, that stage alone (its engine
        without a cluster's options: a stage alone starts a cluster of one
        worker a core)."""
        if args and not args[0].startswith("-"):
            return [*JOSEKI, args[0], "--out", str(out), "--quiet", *self.engine[:2], *args[1:]]
        return [
            *JOSEKI,
            "mine",
            *map(str, self.inputs),
            str(self.extra),
            "--out",
            str(out),
            "--quiet",
            *self.engine,
            *args,
        ]

    def start(self, state: str, name: str) -> Path:
        out = self.root / "cases" / name
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if state == "empty":
            out.mkdir()
        else:
            shutil.copytree(self.snapshots[state], out, symlinks=True)  # copy2: times kept, manifests stay true
        return out

    def check(self, case: str, out: Path, interrupted: subprocess.CompletedProcess, how: str) -> None:
        """The run after the fault (default settings) against the clean run.
        ``how`` the run was stopped: "kill" (it could leave temporary files:
        the next run removes them), "sigint" or "failure" (it may not)."""
        problems = []
        sigint = how == "sigint"
        if sigint:
            lines = interrupted.stderr.strip().splitlines()
            if interrupted.returncode == 130:
                if lines != ["joseki: interrupted; outputs left as they were"]:
                    problems.append(f"SIGINT printed {lines!r}")
            elif interrupted.returncode != 0:
                problems.append(f"SIGINT ended with exit {interrupted.returncode}: {lines[-3:]!r}")
        if "Traceback" in interrupted.stderr:
            problems.append("a traceback: " + interrupted.stderr.strip().splitlines()[-1])
        if how != "kill" and leftovers(out):
            problems.append(f"left after the fault: {leftovers(out)}")
        done = self.mine(out, [])
        if done.returncode != 0:
            problems.append(f"the next run failed ({done.returncode}): {done.stderr.strip()[-300:]}")
        got = outputs(out)
        differing = sorted(n for n in set(got) | set(self.expected) if got.get(n) != self.expected.get(n))
        if differing:
            problems.append(f"differs from a clean run: {differing}")
        if leftovers(out):
            problems.append(f"left after the next run: {leftovers(out)}")
        self.results.append((case, "; ".join(problems)))
        self.log(f"  {case}: {'ok' if not problems else 'DIFFERS: ' + '; '.join(problems)}")

    # -- the faults ---------------------------------------------------------------------
    def timed(self, state: str, variant: str, moments: list[float]) -> None:
        """Stops at fractions of the run, measured from the lock to the end."""
        args = VARIANTS.get(variant) or ALONE[variant]
        out = self.start(state, f"{state}-{variant}-calibrate")
        started = time.monotonic()
        proc = subprocess.Popen(
            self.command(out, args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        locked = self._wait_lock(out, proc)
        proc.communicate(timeout=900)
        length = max(0.05, time.monotonic() - (locked or started))
        for i, fraction in enumerate(moments):
            sig = signal.SIGKILL if i % 2 == 0 else signal.SIGINT
            case = f"{state}-{variant}-{sig.name}-at-{fraction:.2f}"
            out = self.start(state, case)
            proc = subprocess.Popen(
                self.command(out, args),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            self._wait_lock(out, proc)
            time.sleep(fraction * length)
            if proc.poll() is None:
                if sig == signal.SIGINT:  # Ctrl-C in a terminal: to every process of the group (the workers too)
                    os.killpg(proc.pid, sig)
                else:  # the run's own process dies; its workers are left to notice
                    proc.send_signal(sig)
            stdout, stderr = proc.communicate(timeout=900)
            self.check(
                case,
                out,
                subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr),
                "sigint" if sig == signal.SIGINT else "kill",
            )

    @staticmethod
    def _wait_lock(out: Path, proc: subprocess.Popen) -> float | None:
        """When the run took its lock (the lock file names its pid)."""
        lock = out / LOCK
        needle = f"pid {proc.pid},"
        while proc.poll() is None:
            try:
                if lock.read_text().startswith(needle):
                    return time.monotonic()
            except OSError:
                pass
            time.sleep(0.002)
        return None

    def failpoints(self, state: str, variant: str, only: list[tuple[str, int]] | None = None) -> None:
        """A SIGKILL at every step of every commit of the run (``only``:
        at these (point, nth) steps)."""
        if only is not None:
            for point, nth in only:
                case = f"{state}-{variant}-kill-{point}@{nth}"
                out = self.start(state, case)
                done = self.mine(out, VARIANTS[variant], env={"JOSEKI_FAILPOINT": f"{point}@{nth}"})
                if done.returncode == 0:
                    self.results.append((case, "the run never reached that step"))
                    continue
                self.check(case, out, done, "kill")
            return
        for point in COMMIT_POINTS:
            nth = 1
            while True:
                case = f"{state}-{variant}-kill-{point}@{nth}"
                out = self.start(state, case)
                done = self.mine(out, VARIANTS[variant], env={"JOSEKI_FAILPOINT": f"{point}@{nth}"})
                if done.returncode == 0:  # the run passed that point fewer times: every step of it was tried
                    shutil.rmtree(out)
                    break
                self.check(case, out, done, "kill")
                nth += 1

    def strict(self, state: str) -> None:
        case = f"{state}-strict"
        out = self.start(state, case)
        (self.extra / "small.sgf").write_text(BAD_GAME)
        try:
            done = self.mine(out, ["--strict", "--set", "distance.maybe=6"])
        finally:
            (self.extra / "small.sgf").unlink()
        if done.returncode != 1:
            self.results.append((case, f"--strict ended with {done.returncode}: {done.stderr.strip()[-300:]}"))
            return
        self.check(case, out, done, "failure")

    def enospc(self, state: str) -> None:
        """An injected ENOSPC as a commit starts."""
        case = f"{state}-enospc-injected"
        out = self.start(state, case)
        done = self.mine(out, ["--set", "influence.neutral=3"], env={"JOSEKI_FAILPOINT": "commit-synced@1=enospc"})
        if done.returncode != 1 or "no space left" not in done.stderr:
            self.results.append((case, f"ENOSPC ended with {done.returncode}: {done.stderr.strip()[-200:]}"))
            return
        self.check(case, out, done, "failure")

    def small_disk(self, fractions: list[float]) -> bool:
        """A real full disk: the folder on a tmpfs too small for the run;
        then the disk grows and the next run must mend everything."""
        if os.geteuid() != 0:
            self.log("  (no tmpfs: not root; the full disk is only injected)")
            return False
        for fraction in fractions:
            case = f"tmpfs-{int(fraction * 100)}%"
            disk = self.root / "cases" / case
            disk.mkdir(parents=True, exist_ok=True)
            size = max(64 << 10, int(self.footprint * fraction)) // 4096 * 4096
            if (
                subprocess.run(
                    ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(disk)], capture_output=True
                ).returncode
                != 0
            ):
                self.log("  (no tmpfs could be mounted; the full disk is only injected)")
                return False
            try:
                done = self.mine(disk, ["--set", "influence.neutral=3"])
                if done.returncode == 0:
                    self.log(f"  {case}: the run fitted ({size:,} bytes); nothing to check")
                    continue
                if done.returncode != 1 or "no space left" not in done.stderr:
                    self.results.append((case, f"full disk ended with {done.returncode}: {done.stderr.strip()[-300:]}"))
                    continue
                subprocess.run(
                    ["mount", "-o", f"remount,size={4 * self.footprint + (16 << 20)}", str(disk)], check=True
                )
                self.check(case, disk, done, "failure")
            finally:
                subprocess.run(["umount", str(disk)], capture_output=True)
        return True

    def report(self) -> int:
        differing = [(c, p) for c, p in self.results if p]
        self.log(f"crash cases run: {len(self.results)}; differed: {len(differing)}")
        for case, problem in differing:
            self.log(f"  {case}: {problem}")
        return len(differing)


# (the state a stage alone starts from, the stage and its settings)
ALONE_PAIRS = [("default", "prune-alone"), ("other", "emit-alone"), ("default", "report-alone")]


def run(
    inputs: list[Path],
    root: Path,
    moments: int,
    quick: bool = False,
    log=print,
    engine: list[str] | None = None,
    alone: bool = False,
) -> Harness:
    """Every kind of fault; ``moments`` timed stops a (state, settings)
    pair.  ``quick`` (the test suite's version): three pairs of
    `joseki mine` and one of prune alone, a few steps of the commits, one
    --strict, one ENOSPC, one small disk.  ``engine``: the options every
    run takes (``--engine dask --workers 2``).  ``alone``: only the timed
    stops of the stages run alone (``ALONE``)."""
    h = Harness(inputs, root, log, engine or [])
    spread = [(i + 0.5) / moments for i in range(moments)]
    for state, variant in ALONE_PAIRS[:1] if quick else ALONE_PAIRS:
        log(f"timed stops: from {state}, {variant} ...")
        h.timed(state, variant, spread)
    if alone:
        return h
    pairs = [
        ("empty", "force"),
        ("default", "distance"),
        ("other", "neutral"),
        ("default", "threshold"),
        ("other", "no-dedupe"),
        ("default", "orders"),
    ]
    for state, variant in pairs[:3] if quick else pairs:
        log(f"timed stops: from {state}, mining with {variant} ...")
        h.timed(state, variant, spread)
    if quick:
        log("steps of the commits: from default, mining with neutral ...")
        h.failpoints(
            "default",
            "neutral",
            only=[("commit-unrecorded", 1), ("commit-renamed", 1), ("commit-renamed", 3), ("commit-recorded", 2)],
        )
    else:
        for state, variant in [("empty", "force"), ("default", "neutral")]:
            log(f"every step of every commit: from {state}, mining with {variant} ...")
            h.failpoints(state, variant)
    log("--strict, an injected ENOSPC, a small disk ...")
    for state in ("default",) if quick else STATES:
        h.strict(state)
        h.enospc(state)
    h.small_disk([0.5] if quick else [0.15, 0.4, 0.7, 0.95])
    return h


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="*", type=Path, help="game collections (default: every one in ../shared/data)")
    parser.add_argument("--moments", type=int, default=10, help="timed stops a (state, settings) pair (6 pairs)")
    parser.add_argument("--keep", action="store_true", help="keep the case folders")
    parser.add_argument(
        "--alone", action="store_true", help="only the stops of the stages run alone (prune, emit, report)"
    )
    parser.add_argument(
        "--engine",
        choices=("fast", "dask"),
        default="fast",
        help="the engine of every run (dask: a LocalCluster of 2 worker processes)",
    )
    args = parser.parse_args()
    data = ROOT.parent / "shared" / "data"
    inputs = args.data or sorted(p for p in data.iterdir() if p.is_dir())
    if not inputs:
        print(f"no game collections at {data}", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="crashtest-"))
    try:
        engine = ["--engine", "dask", "--workers", "2"] if args.engine == "dask" else []
        harness = run(inputs, root, args.moments, engine=engine, alone=args.alone)
        return 1 if harness.report() else 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
