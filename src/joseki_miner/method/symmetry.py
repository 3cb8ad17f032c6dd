"""The 8 board symmetries and colour swap; normal form of a sequence
(thesis section 5.1).

A transform is an int 0..7 = swap*4 + flip_rows*2 + flip_cols: first swap
row and column (reflect in the main diagonal) when ``swap``, then mirror the
rows (top <-> bottom) and/or the columns (left <-> right).

Normal form: the first stone is black and lies in the canonical eighth of the
upper-left corner, ``row <= col <= 9`` (the 4-3 point is "dc", as in the
thesis' "(4,3) point"); while the stones so far lie on a symmetry axis and
several transforms remain, the next stone that tells them apart goes to the
half of the board on the canonical side of that axis (left of the vertical
axis, above-right of the diagonal).  When every stone is on the axis the
remaining transforms give the same points, and the tie is broken by the
influence they would record, so equal inputs in any orientation give equal
outputs.

Knows points, directions and colours; nothing of boards, games or tries.
"""

from __future__ import annotations

from collections.abc import Sequence

from joseki_miner.method.points import DOWN, LEFT, RIGHT, SIZE, TENUKI, UP

N = SIZE - 1  # 18: the mirror of row r is N - r
MID = N // 2  # 9: the central lines
TRANSFORMS = tuple(range(8))
IDENTITY = 0

_VECTORS = {UP: (-1, 0), RIGHT: (0, 1), DOWN: (1, 0), LEFT: (0, -1)}
_DIRECTION_OF = {v: k for k, v in _VECTORS.items()}


def apply_rc(t: int, r: int, c: int) -> tuple[int, int]:
    """(row, col) under transform t."""
    if t & 4:
        r, c = c, r
    if t & 2:
        r = N - r
    if t & 1:
        c = N - c
    return r, c


def _point_table(t: int) -> tuple[int, ...]:
    out = []
    for p in range(SIZE * SIZE):
        r, c = apply_rc(t, *divmod(p, SIZE))
        out.append(r * SIZE + c)
    out.append(TENUKI)
    return tuple(out)


# POINT_MAP[t][p]: point p under transform t (TENUKI maps to itself)
POINT_MAP = tuple(_point_table(t) for t in TRANSFORMS)


def _direction_table(t: int) -> tuple[int, ...]:
    out = []
    for d in (UP, RIGHT, DOWN, LEFT):
        dr, dc = _VECTORS[d]
        if t & 4:
            dr, dc = dc, dr
        if t & 2:
            dr = -dr
        if t & 1:
            dc = -dc
        out.append(_DIRECTION_OF[(dr, dc)])
    return tuple(out)


# DIRECTION_MAP[t][d]: where direction d points after transform t
DIRECTION_MAP = tuple(_direction_table(t) for t in TRANSFORMS)


def compose(a: int, b: int) -> int:
    """The transform 'first b, then a'."""
    for t in TRANSFORMS:
        if all(POINT_MAP[t][p] == POINT_MAP[a][POINT_MAP[b][p]] for p in (0, 1, SIZE)):
            return t
    raise AssertionError("the 8 symmetries are closed under composition")


def inverse(t: int) -> int:
    return _INVERSE[t]


_INVERSE = tuple(next(u for u in TRANSFORMS if compose(u, t) == IDENTITY) for t in TRANSFORMS)


def transform_scores(t: int, swap: bool, scores: Sequence[int]) -> tuple[int, int, int, int]:
    """Directional scores (up, right, down, left) seen after transform t and,
    when ``swap``, a colour swap (black influence becomes white)."""
    out = [0, 0, 0, 0]
    sign = -1 if swap else 1
    for d in (UP, RIGHT, DOWN, LEFT):
        out[DIRECTION_MAP[t][d]] = sign * scores[d]
    return out[0], out[1], out[2], out[3]


def _in_canonical_half(axis: str, r: int, c: int) -> bool:
    if axis == "vertical":
        return c <= MID
    if axis == "diagonal":
        return r <= c
    if axis == "horizontal":
        return r <= MID
    return r + c <= N  # anti-diagonal


def _axis_between(a: tuple[int, int], b: tuple[int, int]) -> str:
    """The mirror axis that maps a to b (a != b)."""
    (r1, c1), (r2, c2) = a, b
    if r1 == r2:
        return "vertical"
    if c1 == c2:
        return "horizontal"
    if (r2, c2) == (c1, r1):
        return "diagonal"
    return "anti-diagonal"


def _choose(candidates: list[int], p: int) -> list[int]:
    """The candidates that place point p where section 5.1 wants it."""
    images = {t: divmod(POINT_MAP[t][p], SIZE) for t in candidates}
    distinct = sorted(set(images.values()))
    if len(distinct) == 1:
        return candidates
    if len(candidates) == 8:
        # rule 1: the canonical eighth row <= col <= 9
        best = next(q for q in distinct if q[0] <= q[1] <= MID)
    else:
        # rule 2: two transforms remain, related by the axis the earlier
        # stones lie on: take the canonical half of that axis
        assert len(distinct) == 2, "a stabilizer in the corner eighth has order 1, 2 or 8"
        axis = _axis_between(distinct[0], distinct[1])
        best = next(q for q in distinct if _in_canonical_half(axis, *q))
    return [t for t in candidates if images[t] == best]


def canonical_transforms(points: Sequence[int]) -> list[int]:
    """The transforms (in increasing order) that put the points of a
    sequence in normal form; several only when all its stones lie on axes
    that leave a choice, and then they give the same points."""
    candidates = list(TRANSFORMS)
    for p in points:
        if p == TENUKI:
            continue
        candidates = _choose(candidates, p)
        if len(candidates) == 1:
            break
    return candidates


def normalize(
    colours: Sequence[int], points: Sequence[int], scores: Sequence[Sequence[int]]
) -> tuple[int, bool, tuple[int, ...], tuple[tuple[int, int, int, int], ...]]:
    """Normal form of one sequence: (transform, colour swapped?, points,
    influence scores), the points and scores as seen after the transform.

    ``colours`` only decides the swap: the first move must become black."""
    swap = colours[0] > 0  # first move white -> swap colours
    options = []
    for t in canonical_transforms(points):
        pts = tuple(POINT_MAP[t][p] for p in points)
        sc = tuple(transform_scores(t, swap, s) for s in scores)
        options.append((sc, t, pts))
    sc, t, pts = min(options)
    return t, swap, pts, sc
