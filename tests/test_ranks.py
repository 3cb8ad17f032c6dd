"""A player's rank as the collections write it (joseki_miner.runs.ranks)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from joseki_miner.runs.config import ConfigError, load
from joseki_miner.runs.ranks import rank_value


@pytest.mark.parametrize("text, value", [
    ("30k", -30), ("1k", -1), ("1d", 0), ("6d", 5), ("9d", 8), ("6d?", 5), ("5d*", 4), ("3 kyu", -3),
    ("4 Dan", 3), ("9段", 8), ("1級", -1), ("1p", 21), ("9p", 29), ("P9", 29), ("P8段", 28), ("p1", 21),
    ("P9p", 29), ("", None), ("?", None), ("-", None), ("pro", None), ("9x", None), ("0d", None), ("10d", None),
    ("31k", None), ("0p", None),
])
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
