"""The pruning threshold (joseki_miner.method.threshold): the thesis'
share of the games (4.2), and the share read as evidence (prune.confidence):
the lower end of the Wilson interval of the share of the games a line is
played in must reach min_fraction."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.method.threshold import evidence, lower_bound, threshold


def test_the_lower_bound_is_the_wilson_intervals():
    from joseki_miner.method.gameinfo import wilson

    for played, games in ((1, 93), (45, 18_000), (510, 155_861), (0, 10), (10, 10)):
        assert abs(lower_bound(played, games, 0.95) - wilson(played, games)[0]) < 1e-6


@settings(max_examples=200, deadline=None)
@given(games=st.integers(1, 2_000_000), fraction=st.floats(1e-4, 0.2), confidence=st.sampled_from([0.8, 0.95, 0.99]))
def test_evidence_is_the_fewest_games_whose_interval_reaches_the_share(games, fraction, confidence):
    n = evidence(games, fraction, confidence)
    if n <= games:
        assert lower_bound(n, games, confidence) >= fraction - 1e-12
        assert n == 1 or lower_bound(n - 1, games, confidence) < fraction
        assert n >= fraction * games  # never below the plain share: the interval's lower end is under it
    else:
        assert lower_bound(games, games, confidence) < fraction  # even every game would not show it


def test_the_book_grows_with_the_games():
    """Ten times the games need less than ten times the count: the share
    of the games a line needs falls towards min_fraction as the interval
    narrows (0.38% of 18,000 games, 0.33% of 155,861, 0.31% of 1.5 million
    at 0.3%)."""
    shares = [evidence(n, 0.003, 0.95) / n for n in (1_800, 18_000, 180_000, 1_800_000)]
    assert shares == sorted(shares, reverse=True) and all(s > 0.003 for s in shares)
    assert shares[-1] < 0.0031 and shares[1] > 0.0036
    assert evidence(18_000, 0.003, 0.95) == threshold(18_000, None, 0.003, 0.95)


def test_a_higher_confidence_needs_more_games():
    assert evidence(20_000, 0.003, 0.8) < evidence(20_000, 0.003, 0.95) < evidence(20_000, 0.003, 0.99)


def test_min_count_still_wins_and_the_thesis_share_is_unchanged_without_confidence():
    assert threshold(18_000, 150, 0.003, 0.95) == 150
    assert threshold(13325, None, 0.01, None) == threshold(13325, None, 0.01) == 134
    assert threshold(0, None, 0.003, 0.95) == 1
