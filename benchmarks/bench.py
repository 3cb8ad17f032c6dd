"""`make bench`: throughput of joseki-miner on the real collections in
../shared/data, against a plain sgfmill loop measured in the same run.

Prints and writes benchmarks/RESULTS.md:
- the baseline: sgfmill parse + main line + replay on a Board, games/s;
- per collection: games/s of each stage and of the steady state
  (read, replay, sequences, normalization, influence, trie: the ingest,
  extract and build stages), warm (compiled code cached), the median of
  three runs;
- end to end: every collection in one `joseki mine` process, start-up,
  pruning and emission included: wall time, games/s, peak RSS, and an
  extrapolation of the memory to 10 million games;
- the ratio of the end-to-end rate to the baseline;
- lookups: ``joseki lookup``, ``games``, ``trend``, ``compare`` and ``repertoire`` from a cold process;
- search by position: the position index's cost in a run, ``joseki position`` cold and in process;
- the explorer: ``joseki explore``'s start-up, random walks with and without filters, the page's load,
  a load of 50 clients, its memory (alone: ``bench.py --explorer OUT [WORK]``);
- a folder of loose SGF files (kgs-6d unpacked), cold and up to date, against
  the commit before issue 28 (``BEFORE_LOOSE``, in a worktree), interleaved;
- an up-to-date rerun of that folder, and where its time goes (``--rerun FOLDER OUT``: that alone);
- the engines side by side (fast, dask).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from joseki_miner.fast.sorting import SORT_MEMORY  # MB, the default of `--sort-memory`
from joseki_miner.runs.catalog import PUBLISHED
from joseki_miner.runs.catalog import STAGES

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
COLLECTIONS = ("kgs-6d", "tom-9d", "tygem-9d", "ai")
RUNS = 3  # of every measure (baseline, each collection, end to end): the median reported
# the CLI as its own process; its peak RSS comes from the kernel (wait4)
JOSEKI = [sys.executable, "-m", "pipeline.cli"]
# the last commit before a folder of loose files mined as fast as an archive (issue 28): its runs and this
# tree's, interleaved, on kgs-6d unpacked into one folder
BEFORE_LOOSE = os.environ.get("BENCH_BEFORE_LOOSE", "4fe4212")
LOOSE_RUNS = 3
LOOKUPS = (
    ("lookup", "Q16 R17 R16"),
    ("lookup", "Q16"),
    ("games", "Q16 R17 R16", "--limit", "10"),
    ("games", "Q16", "--limit", "10"),
    ("trend", "Q16 R17"),
    ("compare", "--a", "filter.sources=[kgs-6d, tom-9d, tygem-9d]", "--b", "filter.sources=[ai]"),
    ("repertoire", "GBPacker"),
)  # a Tom player with 1,062 games


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import numba

    return (
        f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, numba {numba.__version__}"
    )


def baseline(games: int = 2000) -> float:
    """The plain loop of issue 4: sgfmill parse + main line + replay (<=150 moves)."""
    from sgfmill import boards, sgf

    texts = []
    with tarfile.open(DATA / "kgs-6d" / "KGS-2003-19-7582-.tar.gz") as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(".sgf"):
                texts.append(tar.extractfile(member).read())
                if len(texts) == games:
                    break
    start = time.perf_counter()
    for text in texts:
        game = sgf.Sgf_game.from_bytes(text)
        board = boards.Board(game.get_size())
        for node in game.get_main_sequence()[:151]:
            colour, move = node.get_move()
            if colour is not None and move is not None:
                try:
                    board.play(move[0], move[1], colour)
                except ValueError:
                    break
    return len(texts) / (time.perf_counter() - start)


def mine(paths: list[Path], out: Path, *extra: str, tree: Path = ROOT) -> tuple[float, float, dict]:
    """Run `joseki mine` as its own process (of the code in ``tree``): wall
    seconds, peak RSS (MiB), summary."""
    wall, rss, _ = _timed([*JOSEKI, "mine", *map(str, paths), "--out", str(out), "--quiet", "--force", *extra], tree)
    return wall, rss, json.loads((out / "summary.json").read_text())


def _timed(command: list[str], tree: Path = ROOT) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds of a command run from ``tree``."""
    env = {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=tree, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage: ru_maxrss in KiB
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, child.args)
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


ENGINE_RUNS = (
    ("fast", "--jobs", "1"),
    ("fast", "--jobs", "2"),
    ("dask", "--workers", "1"),
    ("dask", "--workers", "2"),
    ("dask", "--scheduler", "APART"),
)
APART = 2  # workers of the cluster started apart (``dask scheduler``, ``dask worker``), as a real cluster runs


class Apart:
    """A dask scheduler and ``APART`` one-thread workers started as their
    own processes before a run (as on a cluster: the scheduler is not in the
    driver's process), stopped after it (``scheduler_cpu``: its CPU
    seconds; the workers' come from the run's log)."""

    def __enter__(self):
        import socket

        from distributed import Client

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        env = {
            **os.environ,
            "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}",
            # as the engine's own LocalCluster: glibc's trim threshold left alone
            "DASK_DISTRIBUTED__NANNY__PRE_SPAWN_ENVIRON__MALLOC_TRIM_THRESHOLD_": "None",
        }
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": "/", "env": env}
        self.scheduler = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", str(port), "--no-dashboard"], **quiet
        )
        self.workers = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                self.address,
                "--nthreads",
                "1",
                "--nworkers",
                str(APART),
                "--no-dashboard",
            ],
            **quiet,
        )
        try:
            with Client(self.address, timeout="60s") as client:
                client.wait_for_workers(APART, timeout=60)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        _stop(self.workers)
        self.scheduler_cpu = _stop(self.scheduler)


def _stop(proc: subprocess.Popen) -> float:
    """Stop a process (SIGINT, SIGKILL after 30 s); its CPU seconds."""
    proc.send_signal(signal.SIGINT)
    deadline = time.monotonic() + 30
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            proc.kill()
            deadline = float("inf")
        time.sleep(0.05)


ENGINES_START, ENGINES_END = "<!-- engines -->\n", "<!-- /engines -->\n"


def engines(tmp: Path, runs: int = RUNS) -> str:
    """Both engines side by side on all of ../shared/data, end to end from
    a cold work folder (the dask cluster's start-up included), ``runs`` runs
    each, interleaved, the median: wall time; for the dask engine how long
    mining the partitions and joining them took, and the CPU time of the
    driver against the workers'."""
    import re
    import statistics

    found: dict[tuple, list[dict]] = {e: [] for e in ENGINE_RUNS}
    ceilings = []
    for _ in range(runs):
        ceilings.append(ceiling())  # measured between the engines' runs: the machine as they found it
        for e in ENGINE_RUNS:
            out = tmp / "engines"
            shutil.rmtree(out, ignore_errors=True)
            env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
            with contextlib.ExitStack() as stack:
                options = list(e[1:])
                if "APART" in options:  # a cluster started before the run, as on a cluster
                    apart = stack.enter_context(Apart())
                    options[options.index("APART")] = apart.address
                start = time.perf_counter()
                done = subprocess.run(
                    [*JOSEKI, "mine", str(DATA), "--out", str(out), "--engine", e[0], *options],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                row = {"wall": time.perf_counter() - start, "stages": stage_seconds(out)}
            if "APART" in e:
                row["scheduler"] = apart.scheduler_cpu
            log = done.stderr
            if m := re.search(r"partitions \(.*?\) in ([\d.]+) s, joined in ([\d.]+) s", log):
                row["partitions"], row["joined"] = float(m[1]), float(m[2])
            if m := re.search(
                r"driver CPU ([\d.]+) s(?: \(dask's event loop ([\d.]+) s\))?, workers CPU ([\d.]+) s", log
            ):
                row["driver"], row["loop"], row["workers"] = float(m[1]), float(m[2] or 0), float(m[3])
            if m := re.search(r"workers? ready, ([\d.]+) s into the run", log):
                row["ready"] = float(m[1])
                row["steady"] = json.loads((out / "summary.json").read_text())["seconds"] - row["ready"]
            found[e].append(row)

    def med(e, key, sub=None) -> float:
        return statistics.median(r[key] if sub is None else r[key].get(sub, 0.0) for r in found[e])

    most = statistics.median(ceilings)
    lines = [
        ENGINES_START,
        f"\n## Engines side by side (all of ../shared/data, {runs} runs each, the median)\n\n"
        "End to end from an empty work folder: `joseki mine ../shared/data --engine E`, every stage, the "
        "dask cluster's start-up (and its workers' warm-up) included. For the dask engine: when its workers "
        "were ready (seconds into the run), the run from then on (steady), the partitions (mined on the "
        "workers, the wait for the cluster included), their joining into the stage files, the build (which "
        "counts the partitions' sequences beside the joins: from the partitions' end), and the CPU time of "
        "the driver (of it, dask's event loop: the client and the local cluster's scheduler, which a real "
        "cluster runs in a process of its own) against all the workers'.\n\n"
        "| engine | wall s | ready s | steady s | ingest+extract s | joined s | build s | report s | driver CPU s "
        "| of it dask's loop s | workers CPU s | driver share | without the loop |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    ]
    for e in ENGINE_RUNS:
        name = " ".join(e) if "APART" not in e else f"dask, {APART} workers and a scheduler started apart"
        if e[0] == "dask":
            driver, loop, workers = med(e, "driver"), med(e, "loop"), med(e, "workers")
            lines.append(
                f"| {name} | {med(e, 'wall'):.1f} | {med(e, 'ready'):.1f} | {med(e, 'steady'):.1f} | "
                f"{med(e, 'partitions'):.1f} | {med(e, 'joined'):.1f} | "
                f"{med(e, 'stages', 'build'):.1f} | {med(e, 'stages', 'report'):.1f} | {driver:.2f} | "
                f"{loop:.2f} | {workers:.1f} | {100 * driver / (driver + workers):.1f}% | "
                f"{100 * (driver - loop) / (driver + workers):.1f}% |\n"
            )
        else:
            lines.append(
                f"| {name} | {med(e, 'wall'):.1f} | - | - | "
                f"{med(e, 'stages', 'ingest') + med(e, 'stages', 'extract'):.1f}"
                f" | - | {med(e, 'stages', 'build'):.1f} | {med(e, 'stages', 'report'):.1f} | - | - | - | - "
                "| - |\n"
            )
    one, two = ENGINE_RUNS[2], ENGINE_RUNS[3]

    def ratio(key, sub=None) -> str:
        return f"{med(one, key, sub) / med(two, key, sub):.2f}x"

    apart = ENGINE_RUNS[4]
    scheduler, driver, workers = med(apart, "scheduler"), med(apart, "driver"), med(apart, "workers")
    lines.append(
        f"\nWith the scheduler and {APART} workers started apart (`dask scheduler`, `dask worker --nthreads "
        "1`, as a cluster runs them; the wall time then leaves out their start-up): the driver's CPU "
        f"{driver:.2f} s is {100 * driver / (driver + workers + scheduler):.1f}% of all the CPU of the run "
        f"(driver, workers {workers:.1f} s, scheduler {scheduler:.2f} s).\n"
    )
    lines.append(
        f"\nDask, 2 workers against 1: end to end {ratio('wall')}; steady (from the workers' being ready) "
        f"{ratio('steady')}; the partitions {ratio('partitions')}, the build {ratio('stages', 'build')}, the "
        f"report {ratio('stages', 'report')}. This machine's own ceiling, measured between the runs: two "
        f"processes of a pure-Python loop at once do {most:.2f}x the work of one in the same time (the "
        f"median of {runs}; on this virtual machine it has ranged from about 1.5x to 2x from hour to "
        "hour).\n"
    )
    lines.append(ENGINES_END)
    return "".join(lines)


def ceiling() -> float:
    """How much faster two CPU-bound processes that share nothing run than
    one (the work of two, a pure-Python loop each): what two of this
    machine's cores give at most."""

    def seconds(n: int) -> float:
        start = time.perf_counter()
        loops = [
            subprocess.Popen([sys.executable, "-c", "x = 0\nfor i in range(20_000_000): x += i"]) for _ in range(n)
        ]
        for p in loops:
            p.wait()
        return time.perf_counter() - start

    return 2 * seconds(1) / seconds(2)


def loose_files(tmp: Path) -> str:
    """kgs-6d unpacked into one folder of loose SGF files (36,692): a cold
    run (an empty output folder) and an up-to-date run, of this tree and of
    ``BEFORE_LOOSE`` (a worktree), interleaved; the medians, and the peak
    memory."""
    folder = tmp / "loose"
    folder.mkdir()
    for archive in sorted((DATA / "kgs-6d").glob("*.tar.gz")):
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
    files = sum(1 for f in folder.rglob("*") if f.is_file())
    before = tmp / "before-loose"
    made = subprocess.run(
        ["git", "worktree", "add", "--detach", str(before), BEFORE_LOOSE], cwd=ROOT, capture_output=True, text=True
    )
    trees = {"now": ROOT} if made.returncode else {"before": before, "now": ROOT}
    runs: dict[str, dict[str, list]] = {k: {"cold": [], "again": []} for k in trees}
    try:
        for name, tree in trees.items():  # compiled code cached in each tree
            _timed([*JOSEKI, "mine", str(folder), "--out", str(tmp / f"loose-warm-{name}"), "--quiet"], tree)
        for _ in range(LOOSE_RUNS):
            for name, tree in trees.items():
                out = tmp / f"loose-{name}"
                shutil.rmtree(out, ignore_errors=True)
                runs[name]["cold"].append(_timed([*JOSEKI, "mine", str(folder), "--out", str(out), "--quiet"], tree))
                runs[name]["again"].append(_timed([*JOSEKI, "mine", str(folder), "--out", str(out), "--quiet"], tree))
    finally:
        if len(trees) > 1:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    median = {k: {m: sorted(r[0] for r in v[m])[len(v[m]) // 2] for m in v} for k, v in runs.items()}
    rss = {k: max(r[1] for r in v["cold"]) for k, v in runs.items()}
    for name in trees:
        print(
            f"loose files ({name}): {files:,} files, cold {median[name]['cold']:.2f} s, up to date "
            f"{median[name]['again']:.2f} s (medians of {LOOSE_RUNS}); peak RSS {rss[name]:,.0f} MiB"
        )
    rows = "".join(
        f"| {name} | {median[name]['cold']:.2f} s | {', '.join(f'{r[0]:.2f}' for r in runs[name]['cold'])} "
        f"| {median[name]['again']:.2f} s | {', '.join(f'{r[0]:.2f}' for r in runs[name]['again'])} "
        f"| {rss[name]:,.0f} MiB |\n"
        for name in trees
    )
    ratio = (
        f"\nThis tree against {BEFORE_LOOSE}: cold **{median['now']['cold'] / median['before']['cold']:.2f}x** "
        f"the time, up to date **{median['now']['again'] / median['before']['again']:.2f}x**.\n"
        if "before" in trees
        else f"\n{BEFORE_LOOSE} not measured: {made.stderr.strip()}\n"
    )
    return (
        f"\n## A folder of loose SGF files\n\nkgs-6d unpacked into one folder ({files:,} files), `joseki mine "
        f"FOLDER --out OUT` as its own process: cold (an empty output folder, the digest cache with it) and "
        f"again (every stage up to date); this tree and {BEFORE_LOOSE} (the commit before the inputs were read "
        f"once), {LOOSE_RUNS} runs of each interleaved, the medians:\n\n| code | cold | every run | up to date | "
        f"every run | peak RSS |\n| --- | ---: | --- | ---: | --- | ---: |\n" + rows + ratio
    )


# the parts of an up-to-date rerun, timed in a process of their own (``rerun_parts``): each the best of RERUN_RUNS
RERUN_PARTS = r"""
import json, sys, time
t0 = time.perf_counter()
import pipeline.cli  # what `joseki mine` imports before it runs
imports = time.perf_counter() - t0
from pathlib import Path
from joseki_miner.runs import files, lineage, store
from joseki_miner.runs.catalog import Catalog, STAGES
from joseki_miner.runs.config import load
from joseki_miner.runs.inputs import scan
from joseki_miner.runs.summary import summarize
from pipeline.run import Request, run_stages
folder, out, runs = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
catalog = Catalog(work=out / "interim", out=out)
def best(work):
    times = []
    for _ in range(runs):
        t = time.perf_counter(); work(); times.append(time.perf_counter() - t)
    return min(times)
parts = {
    "imports": imports,
    "walk": best(lambda: sum(map(len, files.walk_batches([folder])))),
    "walk and digests": best(lambda: scan([folder], cache=catalog.digests, exclude=(catalog.work, out), progress=False).key()),
    "manifests": best(lambda: [store.read_manifest(catalog.manifest(s)) for s in STAGES] + [lineage.held(catalog.work)]),
    "summary": best(lambda: summarize(catalog, 0.0)),
    "run in process": best(lambda: run_stages(catalog, load(None, []), STAGES, [folder], Request(progress=False))),
}
print(json.dumps(parts))
"""


def rerun_parts(folder: Path, out: Path, runs: int = 5) -> str:
    """An up-to-date rerun of ``folder`` mined in ``out`` (mined first where
    it is not): ``joseki mine`` as its own process (the median of ``runs``,
    and every run), and where its time goes, each part the best of ``runs``
    in one process: the imports, the walk of the inputs, the walk with the
    digest cache read (the inputs' key), the manifests and the work
    folder's lineage read, summary.json made, and the run in process (all
    of it but the imports and the interpreter's start)."""
    command = [*JOSEKI, "mine", str(folder), "--out", str(out), "--quiet"]
    if not (out / "summary.json").exists():
        _timed(command)
    timed = [_timed(command) for _ in range(runs)]
    walls, cpu = [t[0] for t in timed], sorted(t[2] for t in timed)[runs // 2]
    bare = sorted(_timed([sys.executable, "-c", "pass"])[0] for _ in range(runs))[runs // 2]
    done = subprocess.run(
        [sys.executable, "-c", RERUN_PARTS, str(folder), str(out), str(runs)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
    )
    if done.returncode:
        raise SystemExit(f"bench: the rerun's parts failed: {done.stderr.strip()[-300:]}")
    parts = json.loads(done.stdout)
    files = sum(1 for f in folder.rglob("*") if f.is_file())
    median = sorted(walls)[runs // 2]
    print(f"up-to-date rerun: {files:,} files, {median:.2f} s (median of {runs}); parts: {parts}")
    rows = "".join(f"| {name} | {seconds:.3f} s |\n" for name, seconds in parts.items())
    return (
        f"\n## An up-to-date rerun and where its time goes\n\n`joseki mine FOLDER --out OUT` on {folder.name} "
        f"({files:,} files), every stage up to date, as its own process: **{median:.2f} s**, the median of "
        f"{runs} ({', '.join(f'{w:.2f}' for w in walls)}), {cpu:.2f} s of CPU; the interpreter alone starts in "
        f"{bare:.2f} s. Its "
        f"parts, each the best of {runs} in one process (the walk and the digests are part of the run in "
        f"process; the run in process is all but the imports and the start):\n\n| part | seconds |\n"
        f"| --- | ---: |\n" + rows
    )


def write_section(head: str, section: str, path: Path = ROOT / "benchmarks" / "RESULTS.md") -> None:
    """``path`` (RESULTS.md) with ``section`` in place of the one under ``head`` (or added at its end)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if head in text:
        end = text.find("\n## ", text.index(head) + len(head))
        text = text[: text.index(head)] + section + (text[end:] if end >= 0 else "")
    else:
        text += section
    path.write_text(text, encoding="utf-8")


def rerun_only(folder: Path, out: Path) -> int:
    """`bench.py --rerun FOLDER OUT`: the up-to-date rerun's section alone,
    written in place of its section of RESULTS.md."""
    bytecode()
    section = rerun_parts(folder, out)
    write_section("\n## An up-to-date rerun and where its time goes\n", section)
    print(section)
    return 0


def lookups(out: Path) -> str:
    """``LOOKUPS`` on the mined outputs in ``out``, each from a cold process."""
    rows = []
    for command in LOOKUPS:
        times = sorted(_timed([*JOSEKI, *command, "--out", str(out)])[0] for _ in range(5))
        rows.append((" ".join(f'"{c}"' if " " in c else c for c in command), times))
        print(f"{rows[-1][0]}: {times[2]:.2f} s (median of 5)")
    return (
        "\n## Lookups from a cold process\n\nOn the outputs of all collections, each command its own "
        "process (the interpreter's start and imports included), 5 runs, the median (target: under "
        "0.5 s):\n\n| command | median | every run |\n| --- | ---: | --- |\n"
        + "".join(f"| `joseki {c}` | {t[2]:.2f} s | {', '.join(f'{x:.2f}' for x in t)} |\n" for c, t in rows)
    )


POSITION = ("--black", "R16,P17", "--to-play", "W")  # the position: the small knight's enclosure
GAME = ("KGS-2017_02-19-525-.tar.gz", "kgs-19-2017-02-new/2017-02-01-1.sgf")  # a game of kgs-6d: --sgf
KOMBILO_SECONDS = "0.07-0.09"  # Kombilo's corner search on the same files, in process (issue 36's measure)
INDEX_SCRIPT = """
import sys, time
import numpy as np, pyarrow.parquet as pq
started = time.perf_counter()
from joseki_miner.book.explore import move_keys
from joseki_miner.fast.tables import POSITIONS_FILE, positions_table
from joseki_miner.stages.build import position_index
from joseki_miner.fast.arrow import numpy
trie = pq.ParquetFile(sys.argv[1], read_dictionary=["move"]).read(columns=["node", "parent", "depth", "move"])
nodes = {c: numpy(trie.column(c)) for c in ("node", "parent", "depth")}
nodes["key"] = move_keys(trie.column("move"))
read = time.perf_counter()
pq.write_table(positions_table(position_index(nodes)), sys.argv[2], **POSITIONS_FILE)
print(time.perf_counter() - read, read - started)
"""
SEARCH_SCRIPT = """
import sys, time
from joseki_miner.book.position import Position, position
from joseki_miner.runs.catalog import Catalog
from pathlib import Path
catalog = Catalog(work=Path(sys.argv[1]), out=Path(sys.argv[2]))
asked = Position.of("R16,P17", "", "W")
times = []
for _ in range(7):
    start = time.perf_counter()
    position(catalog, asked)
    times.append(time.perf_counter() - start)
print(sorted(times)[3])
"""


def positions(out: Path, wall: float, work: Path | None = None) -> str:
    """The position index (trie_positions.parquet): what keying every stored
    node and writing the index costs, in a process of its own as in a
    build (the compiled code loaded from its cache), against the run's
    wall time; ``joseki position`` from a cold process and in process."""
    work = work or out / "interim"
    costs = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(RUNS):
            done = subprocess.run(
                [sys.executable, "-c", INDEX_SCRIPT, str(work / "trie.parquet"), str(Path(tmp) / "positions.parquet")],
                capture_output=True,
                text=True,
                check=True,
            )
            costs.append(float(done.stdout.split()[0]))
    cost = sorted(costs)[len(costs) // 2]
    nodes = json.loads((work / "build.manifest.json").read_text())["figures"]["nodes_stored"]
    cold = sorted(_timed([*JOSEKI, "position", *POSITION, "--out", str(out)])[0] for _ in range(5))
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(DATA / "kgs-6d" / GAME[0]) as archive:
        game = Path(tmp) / "game.sgf"
        game.write_bytes(archive.extractfile(GAME[1]).read())
        sgf = sorted(
            _timed([*JOSEKI, "position", "--sgf", str(game), "--move", "12", "--out", str(out)])[0] for _ in range(5)
        )
    warm = float(
        subprocess.run(
            [sys.executable, "-c", SEARCH_SCRIPT, str(work), str(out)], capture_output=True, text=True, check=True
        ).stdout
    )
    print(
        f"position index: {cost:.2f} s for {nodes:,} stored nodes ({100 * cost / wall:.1f}% of the run's "
        f"{wall:.1f} s); joseki position {cold[2]:.2f} s cold, {warm:.3f} s in process; --sgf {sgf[2]:.2f} s"
    )
    return (
        "\n## Search by position\n\nThe index of every stored node's position (trie_positions.parquet, "
        f"written by the build): {cost:.2f} s to key {nodes:,} nodes and write it (the median of {RUNS}, each "
        f"in a process of its own, as a build does), {100 * cost / wall:.1f}% of the end-to-end run's "
        f"{wall:.1f} s (target: at most 20%).\n\n| search | median | every run |\n| --- | ---: | --- |\n"
        f"| `joseki position {' '.join(POSITION)}`, a cold process | {cold[2]:.2f} s | "
        f"{', '.join(f'{x:.2f}' for x in cold)} |\n"
        f"| `joseki position --sgf {Path(GAME[1]).name} --move 12` (kgs-6d), a cold process | {sgf[2]:.2f} s | "
        f"{', '.join(f'{x:.2f}' for x in sgf)} |\n"
        f"| the same position in process (7 calls, the median) | {warm:.3f} s | |\n"
        f"| Kombilo's corner search, in process (as the issue measured it) | {KOMBILO_SECONDS} s | |\n"
    )


EXPLORER_WALKS = 1000  # random walks down the stored trie, a request at each step
EXPLORER_DEPTH = 8  # the deepest step of a walk
EXPLORER_FILTERS = {
    "unfiltered": {},
    "years and a collection": {"years": "2010-2019", "collections": "tygem-9d"},
    "a player": {"player": "GBPacker"},  # a Tom player with 1,062 games
}
LOAD_CLIENTS, LOAD_REQUESTS = 50, 10_000


def _rss(pid: int) -> tuple[float, float]:
    """A process's resident and peak resident memory, MiB (Linux's /proc)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            found[line.split(":")[0]] = int(line.split()[1]) / 1024
    return found.get("VmRSS", 0.0), found.get("VmHWM", 0.0)


def _walks(port: int, filters: dict, walks: int, seed: int = 1) -> list[float]:
    """Seconds of each /api/explore request of ``walks`` random walks from
    the empty corner, each step a continuation drawn by its share."""
    import http.client
    import random
    import urllib.parse

    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for _ in range(walks):
        moves: list[str] = []
        for _ in range(rng.randint(1, EXPLORER_DEPTH)):
            query = urllib.parse.urlencode({"moves": ",".join(moves), **filters})
            start = time.perf_counter()
            connection.request("GET", f"/api/explore?{query}")
            response = connection.getresponse()
            body = response.read()
            times.append(time.perf_counter() - start)
            if response.status != 200:
                raise RuntimeError(f"/api/explore?{query}: {response.status} {body[:200]!r}")
            moves_here = json.loads(body)["continuations"]
            if not moves_here:
                break
            moves.append(rng.choices([c["board"] for c in moves_here], [c["count"] for c in moves_here])[0])
    connection.close()
    return times


def _load(port: int) -> tuple[int, int, float]:
    """``LOAD_CLIENTS`` clients sending ``LOAD_REQUESTS`` requests in all
    (explore, games, trend, with and without filters): the errors, the
    requests answered and the seconds."""
    import http.client
    from concurrent.futures import ThreadPoolExecutor

    paths = [
        "/api/explore?moves=Q16,R14",
        "/api/explore?moves=Q16&years=2016-2019",
        "/api/games?moves=Q16,R17&limit=10&offset=20",
        "/api/trend?moves=Q16,R17",
        "/api/explore?moves=R16,P17&collections=ai",
        "/api/explore?moves=Q16&player=GBPacker&color=black",
        "/api/explore?moves=Z99",  # a 400, as asked
    ]

    def client(k: int) -> tuple[int, int]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        errors = done = 0
        for i in range(LOAD_REQUESTS // LOAD_CLIENTS):
            path = paths[(k + i) % len(paths)]
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            done += 1
            errors += response.status != (400 if "Z99" in path else 200)
        connection.close()
        return errors, done

    start = time.perf_counter()
    with ThreadPoolExecutor(LOAD_CLIENTS) as pool:
        results = list(pool.map(client, range(LOAD_CLIENTS)))
    return sum(e for e, _ in results), sum(d for _, d in results), time.perf_counter() - start


def _page_load(port: int) -> float | None:
    """Seconds from asking for the page to the page showing the empty
    corner's continuations and games, in Debian's chromium (None without it)."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(driver), options=options)
    try:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            browser.get(f"http://127.0.0.1:{port}/")
            WebDriverWait(browser, 30).until(lambda b: b.execute_script("return document.body.dataset.games"))
            times.append(time.perf_counter() - start)
        return sorted(times)[2]
    finally:
        browser.quit()


def explorer(out: Path, work: Path | None = None) -> str:
    """`joseki explore` on all data, as its own process: its start-up,
    ``EXPLORER_WALKS`` random walks with each filter (p50, p95), the page's
    first load, a load of ``LOAD_CLIENTS`` clients, and its memory."""
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [*JOSEKI, "explore", "--out", str(out), "--port", str(port), "--no-open"]
    if work is not None:
        command += ["--work", str(work)]
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/run", timeout=5) as r:
                    opened = json.loads(r.read())
                break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - start > 120:
                    raise RuntimeError(f"joseki explore did not start: {proc.stderr.read() if proc.stderr else ''}")
                time.sleep(0.05)
        started = time.perf_counter() - start
        rss_started = _rss(proc.pid)[0]
        rows = []
        for name, filters in EXPLORER_FILTERS.items():
            _walks(port, filters, 20, seed=99)  # warm: the selection's mask made once, as a user's first click
            times = sorted(_walks(port, filters, EXPLORER_WALKS))
            p50, p95 = times[len(times) // 2], times[int(len(times) * 0.95)]
            rows.append((name, filters, len(times), p50, p95, times[-1]))
            print(
                f"explore, {name}: {len(times):,} requests, p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms",
                flush=True,
            )
        page = _page_load(port)
        rss_walked = _rss(proc.pid)[0]
        errors, answered, seconds = _load(port)
        rss, peak = _rss(proc.pid)
        print(
            f"explore: started in {started:.2f} s; page {page}; load {answered:,} in {seconds:.1f} s, {errors} errors"
        )
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    stopped = proc.returncode
    table = "".join(
        f"| {name} | `{' '.join(f'{k}={v}' for k, v in f.items()) or '-'}` | {n:,} | {p50 * 1000:.1f} ms | "
        f"**{p95 * 1000:.1f} ms** | {most * 1000:.0f} ms |\n"
        for name, f, n, p50, p95, most in rows
    )
    return (
        "\n## The explorer\n\n"
        f"`joseki explore` on the outputs of all collections ({opened['games']:,} games, {opened['nodes']:,} stored "
        f"nodes), as its own process, asked over HTTP on 127.0.0.1 by one client with a kept connection. "
        f"{EXPLORER_WALKS:,} random walks down the stored trie with each selection (each walk from the empty "
        f"corner, 1 to {EXPLORER_DEPTH} steps, each step a continuation drawn by its share; each selection asked "
        "by 20 walks first, as a user's first click makes its mask). Targets: unfiltered p50 <= 30 ms, p95 <= "
        "100 ms; filtered p95 <= 300 ms; the page's first load <= 1 s; start-up < 2 s; memory < 1 GB.\n\n"
        "| selection | parameters | requests | p50 | p95 | slowest |\n| --- | --- | ---: | ---: | ---: | ---: |\n"
        + table
        + f"\n- start-up, the process's start to its first answer: **{started:.2f} s** (reading the run: "
        f"{opened['started_seconds']:.2f} s)\n"
        + (
            f"- the page's first load in chromium, to the continuations and games shown: **{page:.2f} s** "
            "(the median of 5)\n"
            if page is not None
            else "- the page's first load: not measured (no chromium here)\n"
        )
        + f"- memory: {rss_started:,.0f} MiB resident once started, {rss_walked:,.0f} MiB after the walks, "
        f"**{rss:,.0f} MiB** after the load below (peak {peak:,.0f} MiB)\n"
        f"- load: {LOAD_CLIENTS} clients, {answered:,} requests (explore, games, trend, filtered and not, a 400 "
        f"among them) in {seconds:.1f} s ({answered / seconds:,.0f}/s): **{errors} errors**\n"
        f"- Ctrl-C (SIGINT): exit {stopped}\n"
    )


def explorer_only(out: Path, work: Path | None) -> int:
    """`bench.py --explorer OUT [WORK]`: the explorer's section alone, on
    the outputs of all data in OUT, written in place of its section of
    RESULTS.md."""
    write_section("\n## The explorer\n", explorer(out, work))
    return 0


# the memory bound: the data read once and three times over, duplicates kept,
# with this little memory for the sequences before sorted runs are spilled
BOUND_SORT_MEMORY = 16
BOUND_TABLE_MEMORY = 8
BOUND_COPIES = 3


def copies(dest: Path, n: int) -> Path:
    """``n`` copies of the data as trees of file symlinks (folders walked as
    the originals): a collection ``n`` times the size, without the disk."""
    for i in range(n):
        for root, _, files in os.walk(DATA):
            folder = dest / f"copy{i}" / Path(root).relative_to(DATA)
            folder.mkdir(parents=True, exist_ok=True)
            for name in files:
                (folder / name).symlink_to(Path(root) / name)
    return dest


def tar_size(path: Path) -> int:
    """Bytes of a tar.gz inflated."""
    with gzip.open(path) as f:
        return sum(len(block) for block in iter(lambda: f.read(1 << 24), b""))


def memory_bound(tmp: Path) -> list[dict]:
    """The data once and ``BOUND_COPIES`` times over in one run each
    (dedupe off, so every copy is read, replayed and counted), the
    sequences spilled past ``BOUND_SORT_MEMORY`` MB, the kifu index lines
    mapped past ``BOUND_TABLE_MEMORY`` MB: the RSS when reading ends and
    the peaks, while reading and overall, against the games."""
    rows = []
    for n in (1, BOUND_COPIES):
        out = tmp / f"bound{n}"
        wall, rss, summary = mine(
            [copies(tmp / f"data{n}", n)],
            out,
            "--set",
            "dedupe=false",
            "--sort-memory",
            str(BOUND_SORT_MEMORY),
            "--table-memory",
            str(BOUND_TABLE_MEMORY),
        )
        extract = manifest(out, "extract")["run"]
        ingest = manifest(out, "ingest")["run"]
        rows.append(
            {
                "copies": n,
                "games": summary["games_read"],
                "wall": wall,
                "rss": rss,
                "reading": extract["peak_rss_mib"],
                "held": extract["rss_mib"],
                "spilled": extract["spilled_bytes"],
                "runs": extract["runs_spilled"],
                "stored": figure(out, "build", "nodes_stored"),
                "tables": ingest["tables_bytes"],
                "mapped": ingest["tables_mapped_bytes"],
            }
        )
        r = rows[-1]
        print(
            f"memory bound, data x{n}: {r['games']:,} games, tables {r['tables'] / 2**20:,.0f} MiB "
            f"({r['mapped'] / 2**20:,.0f} MiB mapped), RSS when reading ends {r['held']:,.0f} MiB "
            f"(peak so far {r['reading']:,.0f} MiB), "
            f"peak {rss:,.0f} MiB ({r['stored']:,} trie nodes stored), {r['runs']} runs spilled, {wall:.1f} s"
        )
    return rows


def manifest(out: Path, stage: str) -> dict:
    """A run's stage manifest (the work folder is OUT/interim; the published stages' are in OUT)."""
    folder = out if stage in PUBLISHED else out / "interim"
    return json.loads((folder / f"{stage}.manifest.json").read_text())


def figure(out: Path, stage: str, name: str) -> int:
    """One figure of a run's stage manifest, of what it found or of how the
    run went (0 when absent)."""
    record = manifest(out, stage)
    return record["figures"].get(name, record["run"].get(name, 0))


def stage_seconds(out: Path) -> dict[str, float]:
    return {stage: manifest(out, stage)["run"]["seconds"] for stage in STAGES}


def bytecode() -> None:
    """The package's bytecode written, as `make setup` (and any install)
    leaves it: where PYTHONDONTWRITEBYTECODE is set, every process measured
    would otherwise compile the modules it imports."""
    import compileall

    for folder in ("src", "pipeline"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def kept_engines() -> str:
    """`bench.py --keep-engines`: the engines' section of the last
    RESULTS.md, as it was measured (its date is in it)."""
    path = ROOT / "benchmarks" / "RESULTS.md"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if ENGINES_START in text and ENGINES_END in text:
        print("engines: the last measurement kept (--keep-engines)")
        section = text[text.index(ENGINES_START) : text.index(ENGINES_END) + len(ENGINES_END)]
        when = next((line for line in text.splitlines() if line.startswith("Measured ")), "")
        if when and "(kept from the bench" not in section:
            title_end = section.index("\n\n", section.index("## Engines")) + 2
            section = (
                section[:title_end] + f"(kept from the bench of {when[len('Measured ') :].rstrip('.')}: "
                "`bench.py --keep-engines`)\n\n" + section[title_end:]
            )
        return section
    return ""


def engines_only() -> int:
    """`bench.py --engines`: measure the engines alone and replace their
    section of RESULTS.md."""
    bytecode()
    path = ROOT / "benchmarks" / "RESULTS.md"
    with tempfile.TemporaryDirectory() as tmp:
        section = engines(Path(tmp))
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if ENGINES_START in text and ENGINES_END in text:
        text = text[: text.index(ENGINES_START)] + section + text[text.index(ENGINES_END) + len(ENGINES_END) :]
    else:
        text += section
    path.write_text(text, encoding="utf-8")
    print(section)
    return 0


def main() -> int:
    if not DATA.is_dir():
        print(f"bench: the real collections are not at {DATA}; nothing to measure")
        return 0
    bytecode()
    lines = [f"# Benchmark results\n\nMachine: {machine()}\n", f"Measured {time.strftime('%Y-%m-%d %H:%M')}.\n"]
    bases = sorted(baseline() for _ in range(RUNS))
    base = bases[len(bases) // 2]
    print(f"baseline (sgfmill parse + main line + replay): {base:,.0f} games/s (median of {RUNS})")
    lines.append(
        f"Baseline, plain sgfmill loop (parse + main line + replay of <=150 moves), "
        f"2,000 KGS games: **{base:,.0f} games/s**, the median of {RUNS} runs "
        f"({', '.join(f'{b:,.0f}' for b in bases)}).\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        from joseki_miner.readers.demo import write_collection

        write_collection(tmp / "demo")
        mine([tmp / "demo"], tmp / "warm")  # compile (cached on disk) before timing
        lines.append(
            f"\n## Per collection (one `joseki mine` process each, warm; {RUNS} runs, the median)\n\n"
            "`mine` streams: phase 1 (extract) runs on each batch of accepted games while the next "
            "is read, so *ingest* is reading, validation and phase 1 together, *extract* the phase-1 "
            "work left when reading ends, *build* the trie counted from the sequences in memory and "
            "written to trie.parquet (the last row groups of games.parquet and sequences.parquet are "
            "written beside the count: the build ends when all are whole). "
            "The run of median steady state is shown, with the steady state of every run.\n\n"
            "| collection | games read | ingest | extract | build | steady state | runs | prune + emit "
            "| report "
            "| wall | peak RSS |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        )
        for name in COLLECTIONS:
            runs = []
            for i in range(RUNS):  # this machine's timings vary by several percent
                out = tmp / f"{name}{i}"
                wall, rss, summary = mine([DATA / name], out)
                s = stage_seconds(out)
                runs.append((s["ingest"] + s["extract"] + s["build"], wall, rss, summary, s))
            runs.sort(key=lambda r: r[0])
            steady, wall, rss, summary, s = runs[len(runs) // 2]
            n = summary["games_read"]
            rate = lambda sec: f"{n / sec:,.0f}/s" if sec > 0 else "-"  # noqa: E731
            each = ", ".join(f"{n / r[0]:,.0f}" for r in runs)
            print(
                f"{name}: {n:,} games; ingest {rate(s['ingest'])}, extract {rate(s['extract'])}, "
                f"build {rate(s['build'])}; steady state {rate(steady)} (runs: {each}); wall {wall:.1f} s"
            )
            lines.append(
                f"| {name} | {n:,} | {rate(s['ingest'])} | {rate(s['extract'])} | {rate(s['build'])} | "
                f"**{rate(steady)}** | {each} | {s['prune'] + s['emit']:.2f} s | {s['report']:.2f} s | "
                f"{wall:.1f} s | "
                f"{rss:,.0f} MiB |\n"
            )
        # this machine's timings vary by several percent, and its speed from hour to hour: three runs, the
        # median reported, each beside a run of the plain loop (the ratio of each pair, the median of them)
        runs, beside = [], []
        for i in range(RUNS):
            out = tmp / f"all{i}"
            loop = baseline()
            runs.append((*mine([DATA / c for c in COLLECTIONS], out), out))
            beside.append((runs[-1][2]["games_read"] / runs[-1][0] / loop, loop))
        runs.sort(key=lambda r: r[0])
        beside.sort()
        paired, loop = beside[len(beside) // 2]
        wall, rss, summary, out = runs[len(runs) // 2]
        walls = ", ".join(f"{r[0]:.1f}" for r in runs)
        rss = max(r[1] for r in runs)
        s = stage_seconds(out)
        n = summary["games_read"]
        # memory against games: the data once and three times over, duplicates
        # kept; the duplicate table (dedupe on) by its own figures
        bound = memory_bound(tmp)
        inflated = sum(tar_size(p) for p in sorted(DATA.rglob("*.tar.gz"))) / 2**20
        dedupe = figure(out, "ingest", "dedupe_bytes") / n / 2**20
        tables = figure(out, "ingest", "tables_bytes") / 2**20  # fingerprints and kifu index lines
        table_memory = figure(out, "ingest", "table_memory_bytes") / 2**20
        stored = figure(out, "build", "nodes_stored")
        # at 10 million games: this run's reading peak, its sequences grown to
        # the default sort memory, the growing tables to the default table memory
        sequences = figure(out, "extract", "sequence_bytes") / 2**20
        reading_peak = manifest(out, "extract")["run"]["peak_rss_mib"]
        ten_million = (
            reading_peak
            - sequences
            + min(SORT_MEMORY, sequences / n * 1e7)
            - tables
            + min(table_memory, tables / n * 1e7)
        )
        print(
            f"end to end, all collections ({RUNS} runs: {walls} s): {n:,} games in {wall:.1f} s "
            f"(median) = {n / wall:,.0f} games/s; "
            f"peak RSS {rss:,.0f} MiB; ratio to baseline {n / wall / base:.1f}x; to the loop run beside each "
            f"run {paired:.1f}x (the median of {', '.join(f'{r:.1f}' for r, _ in beside)}; loop "
            f"{', '.join(f'{b:,.0f}' for _, b in beside)} games/s)"
        )
        lines.append(
            f"\n## End to end: every collection in one `joseki mine` process\n\n"
            f"{n:,} games read ({summary['games_accepted']:,} accepted), {summary['sequences']:,} sequences, "
            f"{summary['nodes_before_prune']:,} trie nodes, {summary.get('joseki', summary['leaves']):,} joseki.\n\n"
            f"- wall time, start-up, pruning, emission and the report included: **{wall:.1f} s** "
            f"({n / wall:,.0f} games/s), the median of {RUNS} runs ({walls} s)\n"
            f"- stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in s.items()) + "\n"
            f"- peak RSS: **{rss:,.0f} MiB**, the largest of the runs; "
            f"{reading_peak:,.0f} MiB when reading ended\n"
            f"- ratio to the baseline sgfmill loop: **{n / wall / base:.1f}x**; to the loop run just before each "
            f"run (the machine's speed moves from hour to hour, and within one), the median of the three "
            f"pairs: **{paired:.1f}x** ({', '.join(f'{r:.1f}x' for r, _ in beside)}; the loop at "
            f"{', '.join(f'{b:,.0f}' for _, b in beside)} games/s)\n"
            f"\n## Memory against the number of games\n\n"
            f"Games are streamed in bounded batches, archives are held within fixed bounds (the index "
            f"pre-pass keeps up to 256 MB of inflated archives for the main pass; a zip is read ahead up to "
            f"256 MB), the sequences kept for the trie are held up to `--sort-memory` (default "
            f"{SORT_MEMORY:,} MB), then spilled to disk as sorted runs and merged into the count a block at "
            f"a time, and the two tables that grow with the games (duplicate fingerprints, kifu index lines) "
            f"are held up to `--table-memory` (default {table_memory:,.0f} MB): half of it in memory, the rest "
            f"in mapped files of which the other half stays resident. The data read once and {BOUND_COPIES} "
            f"times over (file symlinks), duplicates kept (`--set dedupe=false`) so every copy is read, replayed "
            f"and counted, with `--sort-memory {BOUND_SORT_MEMORY} --table-memory {BOUND_TABLE_MEMORY}`:\n\n"
            f"| data | games read | runs spilled | tables (mapped) | RSS when reading ends | peak RSS while reading "
            f"| peak RSS | trie nodes stored | wall |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            + "".join(
                f"| x{r['copies']} | {r['games']:,} | {r['runs']} ({r['spilled'] / 2**20:,.0f} MiB) | "
                f"{r['tables'] / 2**20:,.0f} MiB ({r['mapped'] / 2**20:,.0f} MiB) | "
                f"{r['held']:,.0f} MiB | {r['reading']:,.0f} MiB | {r['rss']:,.0f} MiB | {r['stored']:,} | "
                f"{r['wall']:.1f} s |\n"
                for r in bound
            )
            + f"\nNeither the sequences nor the tables grow in memory with the games: past their budgets "
            f"they go to disk. The peak while reading still moves from x1 to x{BOUND_COPIES}, within a fixed "
            f"bound: the tar archives of all data inflate to {inflated:,.0f} MiB, all kept from the pre-pass, "
            f"and x{BOUND_COPIES}'s to {BOUND_COPIES * inflated:,.0f} MiB, of which 256 MB are kept. The peak after reading is the stored trie: copies of "
            f"the same games count every node at least {BOUND_COPIES} times, so x{BOUND_COPIES} stores every "
            f"node of the trie, while distinct games store only the nodes counted at least twice ({stored:,} of "
            f"{summary['nodes_before_prune']:,} for all data). With duplicates removed (the default) the "
            f"fingerprint table is {dedupe * 2**20:,.0f} bytes a game read, and the tables {tables:,.0f} MiB "
            f"for all data (where each game was read goes to a file of the run, not to memory). "
            f"Extrapolated from all data (its reading peak, its {sequences:,.0f} MiB of sequences grown to "
            f"at most {SORT_MEMORY:,} MB, its {tables:,.0f} MiB of tables grown to at most {table_memory:,.0f} "
            f"MB): about **{ten_million / 1024:,.1f} GiB while reading 10 million games**, plus the stored trie, "
            f"which grows with the distinct sequences played.\n"
        )
        lines.append(lookups(out))
        lines.append(positions(out, wall))
        lines.append(explorer(out))
        lines.append(loose_files(tmp))
        lines.append(rerun_parts(tmp / "loose", tmp / "loose-rerun"))
        lines.append(engines(tmp) if "--keep-engines" not in sys.argv[1:] else kept_engines())
    (ROOT / "benchmarks" / "RESULTS.md").write_text("".join(lines), encoding="utf-8")
    print("written to benchmarks/RESULTS.md")
    return 0


def positions_only(out: Path, work: Path | None) -> int:
    """`bench.py --positions OUT [WORK]`: the search section alone, on the
    outputs of all data in OUT (its work folder WORK, or OUT/interim),
    written in place of its section of RESULTS.md."""
    summary = json.loads((out / "summary.json").read_text())
    write_section("\n## Search by position\n", positions(out, float(summary["seconds"]), work))
    return 0


if __name__ == "__main__":
    if "--explorer" in sys.argv[1:]:
        given = sys.argv[sys.argv.index("--explorer") + 1 :]
        sys.exit(explorer_only(Path(given[0]), Path(given[1]) if len(given) > 1 else None))
    if "--rerun" in sys.argv[1:]:
        given = sys.argv[sys.argv.index("--rerun") + 1 :]
        sys.exit(rerun_only(Path(given[0]), Path(given[1])))
    if "--positions" in sys.argv[1:]:
        given = sys.argv[sys.argv.index("--positions") + 1 :]
        sys.exit(positions_only(Path(given[0]), Path(given[1]) if len(given) > 1 else None))
    sys.exit(engines_only() if "--engines" in sys.argv[1:] else main())
