"""The pruning threshold of phase 2 (thesis 4.2): a count a node needs to
survive.  A module of its own, without numpy, so a run can say whether its
stages are up to date (their keys hold it) without loading the engines.

Knows counts; nothing of tries or files.
"""

from __future__ import annotations

import math


def threshold(games: int, min_count: int | None, min_fraction: float) -> int:
    """The pruning threshold: ``min_count`` when set, else ``min_fraction``
    of the games mined, rounded up, and never below 1."""
    if min_count is not None:
        return max(1, int(min_count))
    return max(1, math.ceil(min_fraction * games - 1e-9))


__all__ = ["threshold"]
