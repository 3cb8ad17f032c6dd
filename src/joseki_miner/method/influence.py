"""Global influence around a corner sequence (thesis section 8).

For every move of a sequence, four "beams" search outward from the edges of
the sequence's bounding box, one per direction.  A beam is the box's width
(or height) plus one line each side; each line of the beam stops at the
first stone it meets, which scores ``reach - distance`` (17 in the thesis),
negative for black and positive for white.  The sum is black influence below
``-neutral``, white above ``+neutral`` and neutral in between.  Trie nodes
count these three classes per direction; the verdict of a node says which
colour's influence a joseki is played under.

Knows the board grid and points; nothing of sequences, tries or symmetry.
"""

from __future__ import annotations

from collections.abc import Sequence

from joseki_miner.method.points import SIZE

# Class of one beam score, as stored in a normalized sequence.
INF_BLACK, INF_NEUTRAL, INF_WHITE = -1, 0, 1
VERDICTS = ("black", "white", "any", "none")


def beam_scores(grid: Sequence[int], box: tuple[int, int, int, int], reach: int) -> tuple[int, int, int, int]:
    """Influence scores (up, right, down, left) around ``box``.

    ``grid`` holds BLACK -1 / WHITE +1 / EMPTY 0 per point; ``box`` is
    (row_min, row_max, col_min, col_max) of the sequence's stones.  A stone
    at distance d from the box edge scores ``reach - d``; stones at distance
    ``reach`` or more score nothing.
    """
    rmin, rmax, cmin, cmax = box
    lo_r, hi_r = max(0, rmin - 1), min(SIZE - 1, rmax + 1)
    lo_c, hi_c = max(0, cmin - 1), min(SIZE - 1, cmax + 1)
    up = right = down = left = 0
    for c in range(lo_c, hi_c + 1):
        for d in range(1, min(reach, rmin + 1)):  # upwards from row rmin - 1
            v = grid[(rmin - d) * SIZE + c]
            if v:
                up += v * (reach - d)
                break
        for d in range(1, min(reach, SIZE - rmax)):  # downwards from rmax + 1
            v = grid[(rmax + d) * SIZE + c]
            if v:
                down += v * (reach - d)
                break
    for r in range(lo_r, hi_r + 1):
        base = r * SIZE
        for d in range(1, min(reach, SIZE - cmax)):  # rightwards from cmax + 1
            v = grid[base + cmax + d]
            if v:
                right += v * (reach - d)
                break
        for d in range(1, min(reach, cmin + 1)):  # leftwards from cmin - 1
            v = grid[base + cmin - d]
            if v:
                left += v * (reach - d)
                break
    return up, right, down, left


def classify(score: int, neutral: int) -> int:
    """INF_BLACK below -neutral, INF_WHITE above +neutral, else INF_NEUTRAL
    (the thesis: "between -5 and 5" is neutral; the bounds count as neutral)."""
    if score < -neutral:
        return INF_BLACK
    if score > neutral:
        return INF_WHITE
    return INF_NEUTRAL


def verdict(black: int, white: int, neutral: int, share: float) -> str:
    """The thesis' verdict for one direction of a node: a colour whose
    influence is seen in more than ``share`` of the cases while the other's
    is not; "any" when both are; else "none"."""
    total = black + white + neutral
    if total == 0:
        return "none"
    b, w = black / total > share, white / total > share
    if b and w:
        return "any"
    if b:
        return "black"
    if w:
        return "white"
    return "none"
