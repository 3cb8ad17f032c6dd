"""The run as a whole, trusted after any stop (issue 14): stage files and
their manifests commit as one unit, a second run on the same folders is kept
out, a stop never looks like the end of the input, the run never reads its
own outputs, and every invocation error is one line."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from crashtest import BOOKKEEPING, leftovers, outputs
from joseki_miner.runs import store

ROOT = Path(__file__).resolve().parents[1]
JOSEKI = [sys.executable, "-m", "pipeline.cli"]
TIMINGS = BOOKKEEPING  # what docs/design.md says may differ between runs


def joseki(*args, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*JOSEKI, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=ROOT, **kw)


@pytest.fixture
def games(demo_games, tmp_path) -> Path:
    """The demo's 400 good games (its two collections), in a folder of their own."""
    folder = tmp_path / "g"
    for collection in ("club", "pro"):
        shutil.copytree(demo_games / collection, folder / collection)
    return folder


@pytest.fixture
def clean_run(games, tmp_path) -> dict[str, bytes]:
    done = joseki("mine", games, "--out", tmp_path / "clean", "--quiet")
    assert done.returncode == 0, done.stderr
    return outputs(tmp_path / "clean")


def test_a_failed_strict_run_leaves_nothing_the_next_run_trusts(games, clean_run, tmp_path):
    """The issue's session: --strict fails on a 9x9 game; once it is gone,
    the next runs (the same settings, then new ones, then the old ones) give
    what a clean run gives, not the failed run's empty files."""
    out = tmp_path / "o"
    assert joseki("mine", games, "--out", out, "--quiet").returncode == 0
    (games / "zz.sgf").write_text("(;FF[4]GM[1]SZ[9];B[ee])")
    failed = joseki("mine", games, "--out", out, "--strict", "--quiet")
    assert failed.returncode == 1 and "--strict" in failed.stderr
    assert leftovers(out) == []
    (games / "zz.sgf").unlink()
    assert joseki("mine", games, "--out", out, "--quiet").returncode == 0
    assert outputs(out) == clean_run
    wider = joseki("mine", games, "--out", out, "--set", "distance.maybe=6")
    assert wider.returncode == 0 and "sequences 1,585" in wider.stdout, wider.stdout  # not "sequences 0"
    assert joseki("mine", games, "--out", out, "--quiet").returncode == 0
    assert outputs(out) == clean_run


def test_a_manifest_is_trusted_only_with_the_files_it_names(games, clean_run, tmp_path):
    """A stage file deleted or changed by hand makes its stage run again."""
    out = tmp_path / "o"
    assert joseki("mine", games, "--out", out, "--quiet").returncode == 0
    (out / "joseki.sgf").unlink()
    (out / "interim" / "sequences.parquet").write_bytes(b"not parquet")
    again = joseki("mine", games, "--out", out)
    assert again.returncode == 0
    assert "extract: up to date" not in again.stderr and "emit: up to date" not in again.stderr
    assert outputs(out) == clean_run


# -- 1. two runs on the same folders ----------------------------------------------------


def test_a_second_run_on_the_same_folder_stops_at_once_naming_the_holder(games, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    lock = store.FolderLock(out, "pid 4242, joseki mine elsewhere, since 12:00:00")
    lock.acquire()
    try:
        started = time.perf_counter()
        busy = joseki("mine", games, "--out", out, "--quiet")
        assert busy.returncode == 2
        assert busy.stderr.strip().splitlines() == [
            f"joseki: {out} is in use by another run (pid 4242, joseki mine elsewhere, since 12:00:00); "
            "wait for it to end, or pass --wait"
        ]
        assert time.perf_counter() - started < 30  # at once: no reading was done
        assert not (out / "summary.json").exists()
        waiting = subprocess.Popen(
            [*JOSEKI, "mine", str(games), "--out", str(out), "--wait"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = waiting.stderr.readline()  # it says it waits, and waits
        assert first.strip() == f"waiting for the run using {out} (pid 4242, joseki mine elsewhere, since 12:00:00)"
        time.sleep(0.5)
        assert waiting.poll() is None
        lock.release()
        _, err = waiting.communicate(timeout=300)
        assert waiting.returncode == 0, err
    finally:
        lock.release()


def test_the_work_folder_is_locked_too(games, tmp_path):
    """Two runs with other output folders but one work folder collide there."""
    work = tmp_path / "shared-work"
    work.mkdir()
    lock = store.FolderLock(work, "pid 1, another run, since 00:00:00")
    lock.acquire()
    try:
        busy = joseki("ingest", games, "--out", tmp_path / "o2", "--work", work, "--quiet")
        assert busy.returncode == 2 and "in use by another run (pid 1" in busy.stderr
    finally:
        lock.release()


@pytest.mark.parametrize("before, after", [("file", "folder"), ("folder", "file"), ("folder", "folder")])
def test_a_commit_puts_a_folder_of_parts_where_a_file_was_and_back(tmp_path, before, after):
    """sequences.parquet is a folder of parts with the dask engine and a
    file with the others: a stage run again by the other engine replaces
    the one by the other, and its manifest trusts what it wrote."""

    def make(path: Path, kind: str, text: str) -> None:
        if kind == "file":
            path.write_text(text)
        else:
            path.mkdir()
            (path / "part-00000.parquet").write_text(text)

    out = tmp_path / "sequences.parquet"
    make(out, before, "old")
    make(store.staged(out), after, "new")
    manifest = tmp_path / "extract.manifest.json"
    store.commit([store.StageRecord(manifest, {"stage": "extract"}, [out])])
    assert (out if after == "file" else out / "part-00000.parquet").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["extract.manifest.json", "sequences.parquet"]
    assert store.intact(store.read_manifest(manifest), tmp_path)


def test_two_runs_started_together_do_not_collide(games, clean_run, tmp_path):
    """Before the lock: FileNotFoundError on rejects.parquet.tmp or
    graphviz's joseki.gv, or manifests of the other run's files."""
    out = tmp_path / "o"
    procs = [
        subprocess.Popen(
            [*JOSEKI, "mine", str(games), "--out", str(out), "--quiet", "--wait", "--force"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert "Traceback" not in err
    assert outputs(out) == clean_run and leftovers(out) == []


# -- 2. a stop is never the end of the input ------------------------------------------


@pytest.mark.shared_data
def test_ctrl_c_while_reading_ends_the_run_with_130_and_changes_nothing(shared_data, tmp_path):
    """Ctrl-C while games are read: one line, exit 130, no traceback, no
    temporary file left, and every output as the run before left it (before
    the fix: exit 0, a tree of half the games, or SystemError tracebacks)."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "kgs.tar.gz").symlink_to(shared_data / "kgs-6d" / "KGS-2017_02-19-525-.tar.gz")
    (games / "tom").symlink_to(shared_data / "tom-9d")
    out = tmp_path / "o"
    first = joseki("mine", games, "--out", out, "--quiet", "--set", "prune.min_count=50")
    assert first.returncode == 0, first.stderr
    before = outputs(out)
    for delay in (0.0, 0.3):  # as soon as reading starts, and a little later
        proc = subprocess.Popen(
            [*JOSEKI, "mine", str(games), "--out", str(out), "--quiet", "--force"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        staged = out / "interim" / "games.parquet.tmp"
        deadline = time.monotonic() + 120
        while not staged.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert err.strip().splitlines() == ["joseki: interrupted; outputs left as they were"]
        assert leftovers(out) == []
        assert outputs(out) == before


def test_a_stop_asked_for_is_raised_between_batches_not_swallowed(demo_games, tmp_path):
    """A stop requested while games are read (the flag a signal sets) ends
    the stage with Stopped, and nothing is committed."""
    from joseki_miner.runs import stop
    from joseki_miner.runs.config import load
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.catalog import STAGES
    from pipeline.run import Request, run_stages

    catalog = Catalog(work=tmp_path / "interim", out=tmp_path)
    calls = []

    def log(message: str) -> None:
        calls.append(message)

    stop.request("SIGINT")
    try:
        with pytest.raises(stop.Stopped):
            run_stages(catalog, load(None, []), STAGES, [demo_games], Request(progress=False), log=log)
    finally:
        stop.reset()
    assert not catalog.summary.exists() and not catalog.manifest("ingest").exists()
    assert leftovers(tmp_path) == []


# -- 5. FIFOs -----------------------------------------------------------------------------


def test_a_fifo_is_skipped_never_opened(games, tmp_path):
    os.mkfifo(games / "pipe.sgf")
    os.mkfifo(tmp_path / "given.sgf")
    done = joseki("mine", games, tmp_path / "given.sgf", "--out", tmp_path / "o", "--quiet", timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["games_read"] == 400
    assert summary["files_skipped"]["not a regular file (a FIFO, socket or device: never opened)"] == 2


# -- 7. invocation errors are one line ------------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["--set", "distance.certain=[1"], "distance.certain must be a single value"),
        (["--set", "max_length=100000000000000000000"], "max_length must be between 1 and 500"),
        (["--set", "influence.reach=40000"], "influence.reach must be between 1 and 1000"),
        (["--jobs", "-1"], "--jobs must be between 1 and 1024 (0: every core)"),
    ],
)
def test_invocation_errors_are_one_line_and_exit_2(games, tmp_path, args, words):
    done = joseki("mine", games, "--out", tmp_path / "o", "--quiet", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"joseki: invalid config: {words}" if "--set" in args else f"joseki: {words}"
    )


def test_an_output_that_is_a_folder_is_one_line_and_exit_2(games, tmp_path):
    (tmp_path / "o" / "joseki.sgf").mkdir(parents=True)
    done = joseki("mine", games, "--out", tmp_path / "o", "--quiet")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"joseki: cannot write {tmp_path / 'o' / 'joseki.sgf'}: something that is not a file (a folder?) is in the way"
    ]


def test_a_binary_config_is_one_line_and_exit_2(games, tmp_path):
    done = joseki("mine", games, "--out", tmp_path / "o", "--quiet", "--config", sys.executable)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"joseki: invalid config {sys.executable}: not a YAML text file (not UTF-8)"
    ]


def test_jobs_0_is_every_core(games, clean_run, tmp_path):
    assert joseki("mine", games, "--out", tmp_path / "o", "--quiet", "--jobs", "0").returncode == 0
    assert outputs(tmp_path / "o") == clean_run


# -- 8. the run's own folders are never input -------------------------------------------


def test_an_output_folder_inside_the_input_folder_is_never_read(games, tmp_path):
    for _ in range(2):
        done = joseki("mine", games, "--out", games / "o", "--quiet")
        assert done.returncode == 0, done.stderr
        summary = json.loads((games / "o" / "summary.json").read_text())
        assert summary["games_read"] == 400
    # an earlier run's output folder, not this run's, is not read either
    done = joseki("mine", games, "--out", tmp_path / "elsewhere", "--quiet")
    assert json.loads((tmp_path / "elsewhere" / "summary.json").read_text())["games_read"] == 400
    inside = joseki("mine", games / "o", "--out", games / "o", "--quiet")
    assert inside.returncode == 2
    assert "inside this run's own work or output folder" in inside.stderr


# -- 9. --strict with the games already ingested ----------------------------------------


def test_strict_fails_on_rejects_of_an_ingest_kept_from_before(demo_games, tmp_path):
    assert joseki("mine", demo_games, "--out", tmp_path / "o", "--quiet").returncode == 0
    strict = joseki("mine", demo_games, "--out", tmp_path / "o", "--strict")
    assert strict.returncode == 1
    assert "ingest: up to date, kept" in strict.stderr
    assert strict.stderr.strip().splitlines()[-1].startswith("joseki: --strict: ")
    assert "bad-" in strict.stderr.splitlines()[-1]


HANDICAP_GAME = "(;FF[4]GM[1]SZ[19]HA[2]AB[pd][dp];W[dd];B[qp];W[pq])\n"


@pytest.mark.parametrize("engine", ["fast", "reference", "dask"])
def test_strict_stops_at_a_bad_record_not_at_a_game_the_settings_leave_out(games, tmp_path, engine):
    """--strict on games with a handicap game (include_handicap off) and a
    duplicate: both are good records the settings leave out, so the run
    goes on and counts them as rejected, then again with the games
    ingested; a 9x9 game is a bad record, and stops it, on every engine."""
    if engine == "dask":
        pytest.importorskip("distributed", reason="the dask engine needs dask's distributed (make setup installs it)")
    from joseki_miner.cluster.client import Options
    from joseki_miner.runs.catalog import STAGES, Catalog
    from joseki_miner.runs.config import load
    from joseki_miner.runs.errors import StrictError
    from pipeline.run import Request, run_stages

    (games / "zz-handicap.sgf").write_text(HANDICAP_GAME)
    shutil.copy(next(iter(sorted((games / "club").glob("*.sgf")))), games / "zz-again.sgf")
    catalog = Catalog(work=tmp_path / "work", out=tmp_path / "out")
    request = Request(progress=False, strict=True, engine=engine, jobs=1, cluster=Options(workers=1))
    for _ in range(2):  # read, then kept from before
        summary = run_stages(catalog, load(None, []), STAGES, [games], request)
        assert summary["games_rejected"] == {"duplicate": 1, "handicap": 1}
    (games / "zz-small.sgf").write_text("(;FF[4]GM[1]SZ[9];B[ee];W[cc])\n")
    with pytest.raises(StrictError, match="zz-small.sgf.*not 19x19"):
        run_stages(catalog, load(None, []), STAGES, [games], request)


# -- 10. a full disk -----------------------------------------------------------------------


def _tmpfs(folder: Path, size: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True
        ).returncode
        != 0
    ):
        pytest.skip("a small disk needs a tmpfs mount (root); none could be mounted here")


def published(folder: Path) -> dict[str, bytes]:
    """The output folder's own files (not the work folder's)."""
    return {name: data for name, data in outputs(folder).items() if "/" not in name}


def test_a_full_disk_is_one_line_and_keeps_the_previous_outputs(games, tmp_path):
    """A threshold of 1 keeps every trie node: the disk fills, the run says
    so in one line, and the output folder is as the run before left it
    (work stages that finished are kept: they are whole)."""
    disk = tmp_path / "disk"
    _tmpfs(disk, "600k")
    try:
        small = joseki("mine", games, "--out", disk, "--quiet", "--set", "prune.min_count=100")
        assert small.returncode == 0, small.stderr
        before = published(disk)
        full = joseki("mine", games, "--out", disk, "--quiet", "--set", "prune.min_count=1")
        assert full.returncode == 1, full.stderr
        lines = full.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("joseki: no space left on the device")
        assert lines[0].endswith("; outputs left as they were")
        assert leftovers(disk) == []
        assert published(disk) == before
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


# -- 11. an input edited in place, same size, same time ---------------------------------------


def test_an_input_edited_within_the_same_tick_is_noticed(games, tmp_path):
    out = tmp_path / "o"
    victim = sorted(games.rglob("demo-*.sgf"))[0]
    st = victim.stat()
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns - 10**10))  # old enough to cache its digest
    assert joseki("mine", games, "--out", out, "--quiet").returncode == 0
    text = victim.read_text()
    swapped = text.replace("B[", "X[").replace("W[", "B[").replace("X[", "W[")  # colours swapped: same size
    assert swapped != text and len(swapped) == len(text)
    old = victim.stat()
    victim.write_text(swapped)
    os.utime(victim, ns=(old.st_atime_ns, old.st_mtime_ns))  # the same size and modification time as before
    again = joseki("mine", games, "--out", out)
    assert "ingest: up to date" not in again.stderr
    clean = joseki("mine", games, "--out", tmp_path / "clean", "--quiet")
    assert clean.returncode == 0 and outputs(out) == outputs(tmp_path / "clean")


def test_unchanged_inputs_are_not_read_again(games, tmp_path):
    """The digests are cached by stat identity: a run on unchanged inputs
    hashes none (but for files changed within the last two seconds)."""
    from joseki_miner.runs.inputs import inputs_key

    for f in games.rglob("*.sgf"):
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns - 10**10))
    time.sleep(2.1)  # the change times above are racy for two seconds
    cache = tmp_path / "digests.parquet"
    key, first = inputs_key([games], cache=cache)
    again, second = inputs_key([games], cache=cache)
    assert key == again and first["files_hashed"] == 400 and second["files_hashed"] == 0


# -- 12. what differs between identical runs -------------------------------------------------


def test_identical_runs_differ_only_in_the_documented_fields(games, tmp_path):
    """docs/design.md names what differs between two runs of the same games
    and config: summary.json's seconds (and rerun_seconds), the manifests' timings, memory and file
    stamps, and the digest cache (it names files by inode and time)."""
    for name in ("a", "b"):
        assert joseki("mine", games, "--out", tmp_path / name, "--quiet").returncode == 0
    a, b = outputs(tmp_path / "a"), outputs(tmp_path / "b")
    assert a == b
    raw = {n: json.loads((tmp_path / n / "interim" / "extract.manifest.json").read_text()) for n in "ab"}
    differing = {k for k in raw["a"] if raw["a"][k] != raw["b"][k]}
    assert differing <= TIMINGS
    design = (ROOT / "docs" / "design.md").read_text()
    for field in ("`seconds`", "`rerun_seconds`", "`run`", "`outputs`", "input-digests.bin"):
        assert field in design, field


def test_an_up_to_date_rerun_keeps_the_seconds_of_the_run_that_made_the_outputs(games, tmp_path):
    """summary.json's seconds are those of the run that made the outputs: a
    rerun that finds every stage up to date keeps them (and its figures),
    adds its own as rerun_seconds and says so; a run that makes something
    again has its own seconds and no rerun_seconds."""
    time.sleep(2.1)  # the games were just copied: past the digest cache's racy window, so a rerun reads none
    out = tmp_path / "o"
    assert joseki("mine", games, "--out", out, "--quiet").returncode == 0
    made = json.loads((out / "summary.json").read_text())
    # as if the first run had taken longer than any rerun takes: its seconds are kept, not this run's
    (out / "summary.json").write_text(json.dumps({**made, "seconds": 999.5}, indent=2) + "\n")
    for _ in range(2):
        again = joseki("mine", games, "--out", out, "--quiet")
        assert again.returncode == 0 and f"outputs in {out}, up to date (" in again.stdout, again.stdout
        summary = json.loads((out / "summary.json").read_text())
        assert summary["seconds"] == 999.5 and 0 < summary["rerun_seconds"] < 999.5
        assert {k: v for k, v in summary.items() if k != "rerun_seconds"} == {**made, "seconds": 999.5}
    assert joseki("mine", games, "--out", out, "--quiet", "--set", "prune.min_count=30").returncode == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "rerun_seconds" not in summary and summary["seconds"] < 999.5


def test_emit_writes_no_file_but_its_own(games, tmp_path):
    """Rendering SVG went through graphviz's joseki.gv beside the output,
    which two runs shared."""
    assert joseki("mine", games, "--out", tmp_path / "o", "--quiet").returncode == 0
    names = {p.name for p in (tmp_path / "o").iterdir()}
    assert not {n for n in names if n.endswith(".gv")}
    assert pq.read_table(tmp_path / "o" / "joseki.parquet").num_rows > 1


def test_a_first_run_says_it_is_compiling_once_and_compiles_for_later_runs(tmp_path, demo_games, request):
    """numba compiles the kernels on a machine's first run (cached after):
    the run says so once, however many kernels compile, rather than look
    slow, and then compiles those other inputs need; a later run on other
    inputs (the demo in a tar, real kifu dumps and archives where
    ../shared/data is) compiles nothing and says nothing of it."""
    import tarfile

    with tarfile.open(tmp_path / "demo.tar.gz", "w:gz") as tar:
        tar.add(demo_games, arcname="demo")
    others = [tmp_path / "demo.tar.gz"]
    try:
        others.append(request.getfixturevalue("real_subset"))
    except pytest.skip.Exception:
        pass  # the tar alone
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")}
    runs = [
        subprocess.run(
            [sys.executable, "-m", "pipeline.cli", "mine", *map(str, games), "--out", str(tmp_path / name)],
            env=env,
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[1],
        )
        for name, games in (("first", [demo_games]), ("second", [demo_games]), ("other", others))
    ]
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr[-500:] for r in runs]
    said = [r.stderr.count("compiling the fast engine's kernels") for r in runs]
    assert said == [1, 0, 0], runs[2].stderr
    assert re.search(r"compiled \d+ more kernels", runs[0].stderr), runs[0].stderr
    assert "more kernels" not in runs[1].stderr + runs[2].stderr
