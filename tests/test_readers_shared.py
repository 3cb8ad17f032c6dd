"""Slices of the real collections in ../shared/data, read in place.

Skipped (with a message) on a machine without that folder."""

from __future__ import annotations

import re
import tarfile
import zipfile
from pathlib import Path

import pytest

from joseki_miner.readers import read_paths
from joseki_miner.method.records import GameRecord

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(
        not DATA.is_dir(),
        reason=f"real collections not found at {DATA} (see CONTRIBUTING.md, 'The real collections: ../shared/data')",
    ),
]


def test_one_kgs_archive():
    path = DATA / "kgs-6d" / "KGS-2017_02-19-525-.tar.gz"
    items = list(read_paths([path]))
    handicaps = {}
    with tarfile.open(path) as tar:
        for m in tar:
            if m.isfile() and m.name.lower().endswith(".sgf"):
                ha = re.search(rb"HA\[(\d+)\]", tar.extractfile(m).read())
                handicaps[m.name] = int(ha.group(1)) if ha and int(ha.group(1)) >= 2 else 0
    assert len(items) == len(handicaps) == 525
    assert all(isinstance(i, GameRecord) for i in items)
    assert [i.location for i in items] == list(handicaps)
    assert all(i.meta.get("PB") and i.meta.get("PW") and i.meta.get("DT") for i in items)
    assert {i.location: i.handicap for i in items} == handicaps
    assert sum(1 for i in items if not i.moves) < 10  # a few games end before a move
    assert all(len(i.setup_black) == i.handicap for i in items)


def test_first_tom_month_with_its_index():
    folder = DATA / "tom-9d"
    with tarfile.open(folder / "kifu.tar.gz") as tar:
        first = next(m for m in tar if m.isfile())
        lines = tar.extractfile(first).read().decode().splitlines()
    items = []
    for item in read_paths([folder]):
        if not item.location.startswith(first.name + ":"):
            break
        items.append(item)
    assert len(items) == len(lines)
    assert all(isinstance(i, GameRecord) for i in items)
    for item, line in zip(items, lines):
        game_id, moves = line.split("\t")
        assert item.meta["id"] == game_id
        assert len(item.moves) == moves.count(";")
        # the index joined: players, date, komi, result
        assert {"PB", "PW", "DT", "KM", "RE"} <= set(item.meta), item.meta
        assert item.meta["DT"][:4].isdigit() and item.meta["DT"][4] == "-"


def test_one_tygem_month_with_its_index(tmp_path):
    """A collection folder as stored (index/ and kifu/), here with one month:
    links to the real files, nothing copied."""
    source = DATA / "tygem-9d"
    (tmp_path / "index").mkdir()
    (tmp_path / "kifu").mkdir()
    (tmp_path / "index" / "Kifu2016.zip").symlink_to(source / "index" / "Kifu2016.zip")
    (tmp_path / "kifu" / "2016-06.zip").symlink_to(source / "kifu" / "2016-06.zip")
    with zipfile.ZipFile(source / "kifu" / "2016-06.zip") as z:
        lines = z.read(z.namelist()[0]).decode().splitlines()
    skipped = []
    items = list(read_paths([tmp_path], on_skip=lambda s, where, w: skipped.append(w)))
    assert skipped == ["index file (metadata, not games)"]
    assert len(items) == len(lines) == 9712
    assert all(isinstance(i, GameRecord) for i in items)
    joined = [i for i in items if {"PB", "PW", "DT", "RE"} <= set(i.meta)]
    assert len(joined) == len(items)
    assert all(i.meta["DT"].startswith("2016-") for i in items)


def test_ai_collection_sgf_and_kifu():
    skipped = []
    items = list(read_paths([DATA / "ai"], on_skip=lambda s, where, w: skipped.append(where)))
    with tarfile.open(DATA / "ai" / "ai-games.tar.gz") as tar:
        names = [m.name for m in tar if m.isfile()]
    sgf = [n for n in names if n.lower().endswith(".sgf")]
    kifu = [n for n in names if "/kifu/" in n]
    indexes = [n for n in names if n.endswith(".index")]
    assert len(sgf) == 7259
    assert sorted(skipped) == sorted(indexes)
    by_kind = {"sgf": 0, "kifu": 0}
    for item in items:
        by_kind["kifu" if "/kifu/" in item.location else "sgf"] += 1
    assert by_kind["sgf"] == len(sgf)
    assert by_kind["kifu"] > 0 and len(kifu) > 0
    assert all(isinstance(i, GameRecord) for i in items)
    kifu_items = [i for i in items if "/kifu/" in i.location]
    assert all({"PB", "PW", "id"} <= set(i.meta) for i in kifu_items)
