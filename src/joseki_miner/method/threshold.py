"""The pruning threshold of phase 2 (thesis 4.2): what a node needs to
survive.  A module of its own, without numpy, so a run can say whether its
stages are up to date (their keys hold it) without loading the engines.

The thesis keeps a node played "about 1% of the amount of games": a count
of at least a fixed share of the games.  With ``confidence`` the share is
read as evidence instead (our extension of 4.2 and of section 9's "the
pruning algorithm could be improved"): a line survives when the lower end
of the Wilson interval of the share of the games that play it is at least
``min_fraction``.  Few games make the interval wide, so a small selection
keeps only what it can show; more games narrow it towards the share
itself, so the book grows with the games towards every line that share of
the games plays.

Knows counts; nothing of tries or files.
"""

from __future__ import annotations

import math

# the normal quantiles of the intervals asked most, exactly as statistics.NormalDist gives them (a test holds
# them to it): a run that only reads its stages' keys does not load statistics (and random, fractions...)
QUANTILES = {0.8: 1.2815515655446008, 0.9: 1.6448536269514715, 0.95: 1.9599639845400536, 0.99: 2.5758293035489}


def threshold(games: int, min_count: int | None, min_fraction: float, confidence: float | None = None) -> int:
    """The pruning threshold: ``min_count`` when set; else, without
    ``confidence``, ``min_fraction`` of the games mined, rounded up (a
    count of sequences, the thesis); with it, ``evidence``'s number of
    games.  Never below 1."""
    if min_count is not None:
        return max(1, int(min_count))
    if confidence is not None:
        return evidence(games, min_fraction, confidence)
    return max(1, math.ceil(min_fraction * games - 1e-9))


def z_of(confidence: float | None) -> float:
    """The normal quantile of a two-sided interval at ``confidence`` (0
    without one: a share read as it is)."""
    if confidence is None:
        return 0.0
    z = QUANTILES.get(confidence)
    if z is None:
        from statistics import NormalDist

        z = NormalDist().inv_cdf((1 + confidence) / 2)
    return z


def lower_bound(played: int, games: int, confidence: float) -> float:
    """The lower end of the Wilson interval at ``confidence`` (two-sided,
    as the report's 95% intervals) of the share ``played / games``."""
    if games <= 0:
        return 0.0
    z = z_of(confidence)
    p = played / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(max(0.0, p * (1 - p)) / games + z * z / (4 * games * games))
    return max(0.0, (centre - spread) / (1 + z * z / games))


def evidence(games: int, fraction: float, confidence: float) -> int:
    """The fewest of ``games`` that must play a line for the lower end of
    its share's interval to reach ``fraction`` (``games`` + 1 when none
    can: no line survives); at least 1."""
    if fraction <= 0 or games <= 0:
        return 1
    lo, hi = 1, games + 1
    while lo < hi:  # the bound rises with the games played
        mid = (lo + hi) // 2
        if lower_bound(mid, games, confidence) >= fraction - 1e-12:
            hi = mid
        else:
            lo = mid + 1
    return lo


__all__ = ["threshold", "lower_bound", "evidence", "z_of"]
