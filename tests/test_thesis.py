"""configs/thesis.yaml keeps the thesis exactly: its outputs are those the
project wrote before the options of the thesis' future work (kinds of
nodes, tenuki folded, the pruning function, the start region, noise
recognition) existed, byte for byte.

The digests in fixtures/thesis-outputs.json were written by this module
run as a script (``python tests/test_thesis.py``) on the code of commit
"Thesis outputs recorded" (before those options); the SGF's digest is
of its text with the headline's separator " · " written as "; ", the
one change of words since (CGoban reads comments as Latin-1, so the SGF's
own words are ASCII).  Every path is given relative to the folder mined
from, so the digests hold wherever the test runs.

The real subset's digests were written again by the code of issue 35,
after checking that its outputs differ from that commit's only where that
issue asked: the Tygem folder is named as given ("tygem", not its inner
"tygem/kifu" and "kifu") and the example games' dates are ISO's
("2017-08-15", not "2017.08.15 15:26"); every table equal row for row
under those two renamings, every text file equal after them.  The style
sheet's digest (both) was written again when it gained the repertoire's
ringed stone (``.played``), its one change.  Issue 36 added one file, the
build's position index (interim/trie_positions.parquet): its digests were
added to both after checking that every other file's digest was unchanged.
Issue 63 wrote both again after checking that no table (no .parquet file)
changed: only the words and pages it asked for did (the DOT labels in board
points, the records named by collection, the most popular year within
collections, the legend and phone layout, and the example games' SGF files
under report/games/).  Issue 65 wrote both again after checking that only
two files differed: interim/sequences.parquet, which gained each entry's
move number and nearness (its other columns as they were), and the new
node_context.parquet; the thesis' tree, without kinds, says no context.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "thesis-outputs.json"
THESIS = ROOT / "configs" / "thesis.yaml"
# what differs between two identical runs (docs/design.md: the seconds, the manifests' run entries and file times, the
# lock, the digest cache), and the SVG renderings (Graphviz's, of the DOT files compared here)
SKIPPED = {"summary.json", ".joseki.lock", "input-digests.parquet", "input-digests.bin", "joseki.svg", "influence.svg"}
REAL = ["kgs", "ai.tar.gz", "tom", "tygem"]  # the real subset's collections (conftest.real_subset)


def digests(out: Path) -> dict[str, str]:
    """SHA-256 of every output file under ``out`` (its work folder inside),
    but the manifests and what differs between identical runs; the
    summary without its seconds."""
    found = {}
    for path in sorted(out.rglob("*")):
        name = path.relative_to(out).as_posix()
        if not path.is_file() or path.name in SKIPPED or path.name.endswith(".manifest.json"):
            continue
        data = path.read_bytes()
        if path.name == "joseki.sgf":
            data = data.decode("utf-8").replace(" \u00b7 ", "; ").encode("utf-8")
        found[name] = hashlib.sha256(data).hexdigest()
    summary = json.loads((out / "summary.json").read_text())
    summary.pop("seconds")
    found["summary.json"] = hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()
    return found


def mined(folder: Path, paths: list[str], config: Path | None) -> dict[str, str]:
    """The digests of mining ``paths`` (relative to ``folder``) into
    ``folder/out``."""
    from joseki_miner.runs.config import load
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.catalog import STAGES
    from pipeline.run import Request, run_stages

    catalog = Catalog(work=Path("out") / "interim", out=Path("out"))
    run_stages(catalog, load(config), STAGES, paths, Request(progress=False), log=lambda _: None)
    return digests(folder / "out")


@pytest.fixture
def at(monkeypatch):
    def enter(folder: Path) -> Path:
        monkeypatch.chdir(folder)
        return folder

    return enter


def test_the_thesis_config_gives_the_outputs_of_the_demo_written_before_the_options(tmp_path, at):
    from joseki_miner.readers.demo import write_collection

    want = json.loads(FIXTURE.read_text())["demo"]
    write_collection(at(tmp_path) / "demo")
    assert mined(tmp_path, ["demo"], THESIS) == want


def test_the_thesis_config_gives_the_outputs_of_real_games_written_before_the_options(real_subset, at):
    want = json.loads(FIXTURE.read_text())["real"]
    at(real_subset)
    try:
        assert mined(real_subset, REAL, THESIS) == want
    finally:
        import shutil

        shutil.rmtree(real_subset / "out", ignore_errors=True)


if __name__ == "__main__":  # record the digests (on the code before the options: see the docstring)
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    import os

    from conftest import SHARED_DATA, _tar_subset  # noqa: F401 - the subset is built as the fixture builds it

    recorded = {}
    with tempfile.TemporaryDirectory() as tmp:
        from joseki_miner.readers.demo import write_collection

        os.chdir(tmp)
        write_collection(Path(tmp) / "demo")
        recorded["demo"] = mined(Path(tmp), ["demo"], None)
    import conftest

    with tempfile.TemporaryDirectory() as tmp:

        class Factory:
            @staticmethod
            def mktemp(name):
                path = Path(tmp) / name
                path.mkdir()
                return path

        subset = conftest.real_subset.__wrapped__(SHARED_DATA, Factory)
        os.chdir(subset)
        recorded["real"] = mined(subset, REAL, None)
    FIXTURE.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}: {len(recorded['demo'])} and {len(recorded['real'])} files")
