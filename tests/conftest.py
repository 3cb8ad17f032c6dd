"""Shared fixtures: the real collections in ../shared/data (skipped with a
clear message where absent) and the demo collection."""

from __future__ import annotations

import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import settings

# No deadline for a drawn example: its time is the machine's load as much as
# the code's (a CI beside other jobs took 497 ms for one of 0.4 ms), and
# speed is shown by `make bench`, not by timed tests.
settings.register_profile("joseki", deadline=None)
settings.load_profile("joseki")

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory, monkeypatch):
    """The user's data folder (the practice file's default place) is a
    scratch one: no test, nor a command it runs, writes the real one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"real game collections not found at {SHARED_DATA} "
            "(see CONTRIBUTING.md, 'The real collections: ../shared/data')"
        )
    return SHARED_DATA


@pytest.fixture(scope="session")
def demo_games(tmp_path_factory) -> Path:
    from joseki_miner.readers.demo import write_collection

    folder = tmp_path_factory.mktemp("demo")
    write_collection(folder)
    # as a collection on a disk: past the digest cache's racy window (a file changed within 2 s is hashed again by
    # the next run, which then reads its inputs), so a test that mines it twice in a row finds it up to date
    time.sleep(2.1)
    return folder


def _tar_subset(src: Path, dest: Path, keep) -> Path:
    """A tar.gz of the members of ``src`` that ``keep(index, member)`` selects."""
    with tarfile.open(src) as tin, tarfile.open(dest, "w:gz") as tout:
        for i, member in enumerate(tin):
            if member.isfile() and keep(i, member):
                tout.addfile(member, tin.extractfile(member))
    return dest


@pytest.fixture(scope="session")
def all_mined(shared_data, tmp_path_factory):
    """All of ../shared/data mined once a session at the defaults, up to
    prune (the tree, its work folder; no pages): a Catalog."""
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.config import load
    from pipeline.run import Request, run_stages

    folder = tmp_path_factory.mktemp("all-mined")
    catalog = Catalog(work=folder / "work", out=folder / "out")
    run_stages(catalog, load(None, []), ("ingest", "extract", "build", "prune"), [shared_data], Request(progress=False))
    return catalog


@pytest.fixture(scope="session")
def real_subset(shared_data, tmp_path_factory) -> Path:
    """About 4,000 real games: one KGS archive, a sample of the ai tarball
    (SGF and kifu with its index), two Tom months with the Tom index, and
    1,000 lines of a Tygem month with the Tygem index (symlinked)."""
    root = tmp_path_factory.mktemp("subset")
    (root / "kgs").mkdir()
    (root / "kgs" / "KGS-2017_02.tar.gz").symlink_to(shared_data / "kgs-6d" / "KGS-2017_02-19-525-.tar.gz")
    _tar_subset(
        shared_data / "ai" / "ai-games.tar.gz",
        root / "ai.tar.gz",
        lambda i, m: (
            (i % 12 == 0 and "/kifu/" not in m.name)
            or m.name.endswith(".index")
            or m.name == "AI/DolBaram/kifu/2017-05"
        ),
    )
    (root / "tom").mkdir()
    (root / "tom" / "Kifu.index").symlink_to(shared_data / "tom-9d" / "Kifu.index")
    _tar_subset(
        shared_data / "tom-9d" / "kifu.tar.gz",
        root / "tom" / "kifu.tar.gz",
        lambda i, m: m.name in ("kifu/2006-08", "kifu/2007-01"),
    )
    tygem = root / "tygem"
    (tygem / "kifu").mkdir(parents=True)
    (tygem / "index").symlink_to(shared_data / "tygem-9d" / "index")
    with zipfile.ZipFile(shared_data / "tygem-9d" / "kifu" / "2011-09.zip") as z:
        name = z.namelist()[0]
        lines = z.read(name).split(b"\n")[:1000]
    with zipfile.ZipFile(tygem / "kifu" / "2011-09.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, b"\n".join(lines) + b"\n")
    return root
