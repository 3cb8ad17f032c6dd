"""The inputs of a run (joseki_miner.runs.inputs, files): walked once, each
file's content digest taken as the readers read it (a cold run reads every
input once), the cache of digests by stat identity (an up-to-date run reads
none), and the key that changes whenever an input's bytes do."""

from __future__ import annotations

import io
import json
import os
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from joseki_miner.runs.files import walk
from joseki_miner.runs.inputs import RACY_NS, digest_file, inputs_key, load_cache, scan
from joseki_miner.readers.bulk import read_batches
from joseki_miner.readers.dispatch import Taken
from joseki_miner.readers.digest import HashedFile

SGF = "(;FF[4]GM[1]SZ[19];B[pd];W[dp];B[pp];W[dd])\n"


def _aged(folder: Path, seconds: int = 10) -> None:
    """Every file's modification time set back (its change time moves to
    now: the tests that cache digests take a racy margin of a nanosecond)."""
    for f in folder.rglob("*"):
        if f.is_file():
            st = f.stat()
            os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 10**9))


@pytest.fixture
def no_racy_margin(monkeypatch):
    """Files changed a moment ago may be cached (the racy rule has its own test)."""
    monkeypatch.setattr("joseki_miner.runs.inputs.RACY_NS", 1)


@pytest.fixture
def collection(tmp_path) -> Path:
    """Every way the readers read a file: plain SGF, small and past the
    head, a tar.gz (streamed), a zip (read by seeks, its directory first),
    an index, a README (its head alone), a kifu dump, and an empty file."""
    root = tmp_path / "games"
    (root / "kgs").mkdir(parents=True)
    (root / "kgs" / "a.sgf").write_text(SGF)
    (root / "kgs" / "long.sgf").write_text(SGF.replace(")", "C[" + "x" * 20000 + "])"))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for i in range(3):
            data = SGF.replace("B[pp]", f"B[p{'pqr'[i]}]").encode()
            info = tarfile.TarInfo(f"g{i}.sgf")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (root / "games.tar.gz").write_bytes(buf.getvalue())
    with zipfile.ZipFile(root / "more.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.sgf", SGF.replace("W[dd]", "W[dc]"))
        z.writestr("y.sgf", SGF.replace("W[dd]", "W[cd]"))
    (root / "tom").mkdir()
    (root / "tom" / "Kifu.index").write_text("1\t2005-01-01 10:00\tw\tb\t6.5\tB+R\t4\t\n")
    (root / "tom" / "2005-01").write_text("1\t;B[pd];W[dp];B[pq];W[dd]\n")
    (root / "README.md").write_text("a collection\n" * 2000)
    (root / "empty.sgf").write_text("")
    return root


def test_the_digests_taken_while_reading_are_the_files_digests(collection):
    """Whatever way a reader read a file (whole, its head and again from
    its start, an archive streamed or by seeks, a head alone), the digest
    taken as it read is SHA-256 of the file's bytes."""
    taken: dict = {}
    games = sum(len(b) for b in read_batches([collection], taken=Taken(digests=taken)))
    assert games >= 8
    files = [f.path for f in walk([collection])]
    assert set(taken) == set(files)
    for path in files:
        assert taken[path][0] == digest_file(path), path
        assert taken[path][1].st_size == os.path.getsize(path)


def test_a_hashed_file_hashes_each_byte_once_whatever_the_order_of_reading(tmp_path):
    path = tmp_path / "f"
    data = os.urandom(3 * 2**20 + 17)
    path.write_bytes(data)
    with open(path, "rb") as raw:
        f = HashedFile(raw)
        f.seek(2**20)  # a skip forward: what it jumped over is read from the file
        assert f.read(100) == data[2**20 : 2**20 + 100]
        f.seek(0)  # back to the start: hashed already
        assert f.read(10) == data[:10]
        f.seek(-5, 2)
        assert f.read() == data[-5:]
        digest, st = f.finish()
    assert digest == digest_file(path) and st.st_size == len(data)


def _mine(paths, out: Path, *sets: str, engine: str = "fast") -> tuple[dict, list[str]]:
    from joseki_miner.runs.config import load
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.catalog import STAGES
    from pipeline.run import Request, run_stages

    log: list[str] = []
    catalog = Catalog(work=out / "work", out=out)
    summary = run_stages(
        catalog, load(None, list(sets)), STAGES, paths, Request(progress=False, engine=engine), log=log.append
    )
    return summary, log


def _run(out: Path, stage: str = "ingest") -> dict:
    return json.loads((out / "work" / f"{stage}.manifest.json").read_text())


def test_a_first_run_reads_each_input_once_and_keys_it_as_hashing_would(collection, tmp_path):
    """Cold, the fast engine hashes nothing apart: its readers take the
    digests; the key is the one hashing every file ahead gives (the
    reference engine, which hashes ahead), so either engine's later run
    finds the stages up to date."""
    _aged(collection)
    _mine([collection], tmp_path / "fast")
    fast = _run(tmp_path / "fast")
    assert fast["run"]["files_hashed"] == 0 and fast["run"]["input_files"] == 8
    _mine([collection], tmp_path / "reference", engine="reference")
    reference = _run(tmp_path / "reference")
    assert reference["run"]["files_hashed"] == 8
    assert fast["key"] == reference["key"] and fast["inputs"] == reference["inputs"]
    assert fast["inputs"] == inputs_key([collection])[0]


def test_an_unchanged_collection_is_neither_read_nor_hashed_again(collection, tmp_path, no_racy_margin):
    _aged(collection)
    _mine([collection], tmp_path / "o")
    cached = load_cache(tmp_path / "o" / "work" / "input-digests.bin")
    assert cached.count == 8 and sorted(cached.paths) == sorted(os.path.realpath(f.path) for f in walk([collection]))
    _, log = _mine([collection], tmp_path / "o")
    assert "ingest: up to date, kept" in log and all("hashed" not in line for line in log)
    assert log[0].startswith("inputs: 8 files walked in")


def test_a_file_touched_but_not_changed_is_hashed_and_the_stages_kept(collection, tmp_path, no_racy_margin):
    """Its stat identity moved, so its digest is not trusted: it is hashed
    again (a few files: ahead of ingest), found the same, and no stage runs."""
    _aged(collection)
    _mine([collection], tmp_path / "o")
    touched = collection / "kgs" / "a.sgf"
    touched.write_text(touched.read_text())  # rewritten in place, the same bytes
    _, log = _mine([collection], tmp_path / "o")
    assert any("1 hashed" in line for line in log), log
    assert [m for m in log if "done" in m] == []


def test_a_file_edited_in_place_changes_the_key(collection, tmp_path, no_racy_margin):
    _aged(collection)
    _mine([collection], tmp_path / "o")
    before = _run(tmp_path / "o")["inputs"]
    victim = collection / "kgs" / "a.sgf"
    st = victim.stat()
    victim.write_text(SGF.replace("B[pp]", "B[qq]"))  # the same size
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same modification time
    _, log = _mine([collection], tmp_path / "o")
    assert "ingest: up to date, kept" not in log
    assert _run(tmp_path / "o")["inputs"] != before


def test_most_files_new_are_hashed_as_they_are_read(collection, tmp_path, no_racy_margin):
    """A cache that cannot be read is none: every digest is taken again, by
    reading (not ahead), and the outputs are those of a clean run."""
    _aged(collection)
    _mine([collection], tmp_path / "o")
    clean = (tmp_path / "o" / "joseki.parquet").read_bytes()
    (tmp_path / "o" / "work" / "input-digests.bin").write_bytes(b"not a cache")
    _, log = _mine([collection], tmp_path / "o")
    assert any("8 to be hashed as they are read" in line for line in log), log
    assert _run(tmp_path / "o")["run"]["files_hashed"] == 0
    assert (tmp_path / "o" / "joseki.parquet").read_bytes() == clean


def test_a_racy_file_is_not_cached(collection, tmp_path):
    """A file changed within two seconds of the walk might change again
    without its times moving: its digest is used, never cached."""
    cache = tmp_path / "digests.bin"
    now = time.time_ns()
    scanned = scan([collection], cache=cache)
    scanned.hash_missing()
    scanned.save(cache)
    recent = {
        os.path.realpath(f.path) for f in scanned.walked.files if max(f.identity[3], f.identity[4]) >= now - RACY_NS
    }
    assert recent and not recent & set(load_cache(cache).paths)
    assert all(scanned.digests)  # used all the same


def test_a_run_whose_stages_are_up_to_date_loads_neither_pyarrow_nor_numpy(demo_games, tmp_path, no_racy_margin):
    """It walks the inputs, reads the digest cache (a file of its own
    format) and the manifests: pyarrow and numpy, a fifth of a second of
    imports, are not needed, and not loaded."""
    import subprocess
    import sys

    _mine([demo_games], tmp_path / "o")
    code = f"""
import sys
from pathlib import Path
import joseki_miner.runs.inputs
joseki_miner.runs.inputs.RACY_NS = 1  # the demo was written a moment ago
from joseki_miner.runs.config import load
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.catalog import STAGES
from pipeline.run import Request, run_stages
log = []
run_stages(Catalog(work=Path({str(tmp_path / "o" / "work")!r}), out=Path({str(tmp_path / "o")!r})), load(None),
           STAGES, [{str(demo_games)!r}], Request(progress=False), log=log.append)
assert [m for m in log if "done" in m] == [], log
print(sorted(m for m in ("pyarrow", "numpy", "numba", "pandas", "dask") if m in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_collections_are_named_by_the_folders_between_the_path_given_and_the_file(depth, tmp_path, monkeypatch):
    """A file under a folder given is named by that folder and the next
    ``depth`` folders where each holds several folders of games (one name a
    folder, found once); a folder whose games are all in one inner folder
    (tygem-9d: kifu/, its index/ aside) is named as given; a file given is
    its own collection, even inside a folder given; a source under nothing
    given is named by itself."""
    from joseki_miner.runs.inputs import Collections

    monkeypatch.chdir(tmp_path)
    sources = [
        "data/kgs/2001/a.sgf",
        "data/kgs/2001/x.sgf",
        "data/kgs/2001/b.sgf",
        "data/kgs/2002/y.sgf",
        "data/kgs/c.sgf",
        "data/tom/z.sgf",
        "data/d.sgf",
        "other/e.sgf",
        "tygem-9d/kifu/2011-01.txt",
        "tygem-9d/index/Kifu2011.txt",
    ]
    for source in sources:
        Path(source).parent.mkdir(parents=True, exist_ok=True)
        Path(source).write_text("(;)")
    outside = ["elsewhere/f.sgf", "elsewhere/g.sgf"]
    games = [s for s in sources if "/index/" not in s] + outside
    for order in (games, games[::-1]):
        names = Collections(["data", "data/kgs/2001/x.sgf", "./other/", "tygem-9d/"], depth=depth)
        got = [names.of(s) for s in order]
        expected = {
            "data/kgs/2001/a.sgf": ["data", "data/kgs", "data/kgs/2001"][depth],
            "data/kgs/2001/x.sgf": "data/kgs/2001/x.sgf",
            "data/kgs/2001/b.sgf": ["data", "data/kgs", "data/kgs/2001"][depth],
            "data/kgs/2002/y.sgf": ["data", "data/kgs", "data/kgs/2002"][depth],
            "data/kgs/c.sgf": ["data", "data/kgs", "data/kgs"][depth],
            "data/tom/z.sgf": ["data", "data/tom", "data/tom"][depth],
            "data/d.sgf": "data",
            "other/e.sgf": "other",
            "tygem-9d/kifu/2011-01.txt": "tygem-9d",
            "elsewhere/f.sgf": "elsewhere/f.sgf",
            "elsewhere/g.sgf": "elsewhere/g.sgf",
        }
        assert got == [expected[s] for s in order]


@pytest.mark.shared_data
def test_the_shared_collections_are_named_as_given(shared_data):
    """../shared/data names its four folders; tygem-9d given alone is
    tygem-9d, not its inner kifu/."""
    from joseki_miner.runs.inputs import Collections

    inner = next((shared_data / "tygem-9d" / "kifu").iterdir())
    assert Collections([shared_data / "tygem-9d"]).of(str(inner)) == str(shared_data / "tygem-9d")
    whole = Collections([shared_data])
    for name in ("ai", "kgs-6d", "tom-9d", "tygem-9d"):
        inside = next(f for f in sorted((shared_data / name).rglob("*")) if f.is_file() and "index" not in f.parts)
        assert whole.of(str(inside)) == str(shared_data / name)
