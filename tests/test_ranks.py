"""A player's rank as the collections write it (joseki_miner.runs.ranks)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from joseki_miner.runs.config import ConfigError, load
from joseki_miner.runs.ranks import rank_value


@pytest.mark.parametrize(
    "text, value",
    [
        ("30k", -30),
        ("1k", -1),
        ("1d", 0),
        ("6d", 5),
        ("9d", 8),
        ("6d?", 5),
        ("5d*", 4),
        ("3 kyu", -3),
        ("4 Dan", 3),
        ("9段", 8),
        ("1級", -1),
        ("1p", 21),
        ("9p", 29),
        ("P9", 29),
        ("P8段", 28),
        ("p1", 21),
        ("P9p", 29),
        ("", None),
        ("?", None),
        ("-", None),
        ("pro", None),
        ("9x", None),
        ("0d", None),
        ("10d", None),
        ("31k", None),
        ("0p", None),
    ],
)
def test_ranks_as_the_collections_write_them(text, value):
    assert rank_value(text) == value


@given(st.integers(1, 30), st.integers(1, 9), st.integers(1, 9))
def test_kyu_below_dan_below_professional(kyu, dan, pro):
    assert rank_value(f"{kyu}k") < rank_value(f"{dan}d") < rank_value(f"{pro}p")
    assert rank_value(f"{kyu}k") < rank_value("1k") or kyu == 1


def test_a_config_takes_a_rank_or_says_why_not():
    assert load(None, ["filter.min_rank=5d"]).filter_min_rank == "5d"
    assert load(None, ["filter.min_rank=P9"]).filter_min_rank == "P9"
    with pytest.raises(ConfigError, match="filter.min_rank"):
        load(None, ["filter.min_rank=strong"])
    with pytest.raises(ConfigError, match="filter.min_rank"):
        load(None, ["filter.min_rank=99d"])


@pytest.mark.parametrize("engine", ["reference", "fast"])
def test_a_collection_declares_its_players_rank_where_records_carry_none(tmp_path, engine):
    """Tom and Tygem records carry no rank (their folders: 9 dan vs 9 dan):
    filter.min_rank dropped every game as rank unknown.  collections.ranks
    fills an empty BR or WR with the collection's rank; a rank the record
    writes stays its own."""
    import pyarrow.parquet as pq

    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.config import load
    from pipeline.run import Request, run_stages

    game = "(;GM[1]FF[4]SZ[19]PB[b{n}]PW[w{n}]{ranks}DT[2010-01-01]RE[B+R];B[pd];W[dp];B[{m}q])"
    for k, (folder, ranks) in enumerate((("tom-9d", ""), ("club", ""), ("club2", "BR[3d]"))):
        (tmp_path / "games" / folder).mkdir(parents=True)
        for n in range(3):
            (tmp_path / "games" / folder / f"{n}.sgf").write_text(
                game.format(n=f"{folder}{n}", ranks=ranks, m="abcdefghijk"[n + 3 * k])
            )
    kept = {}
    for name, sets in (("asked", ["collections.ranks={tom-9d: 9d, club2: 9d}"]), ("not", [])):
        catalog = Catalog(work=tmp_path / name / "w", out=tmp_path / name)
        run_stages(
            catalog,
            load(None, ["filter.min_rank=7d", *sets]),
            ["ingest"],
            [tmp_path / "games"],
            Request(progress=False, engine=engine),
            log=lambda s: None,
        )
        table = pq.read_table(catalog.games, columns=["PB", "BR", "WR"]).to_pylist()
        kept[name] = sorted((r["PB"], r["BR"], r["WR"]) for r in table)
    assert kept["asked"] == [(f"btom-9d{n}", "9d", "9d") for n in range(3)]  # club2's own 3d stays, and is below
    assert kept["not"] == []
