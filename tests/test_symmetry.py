"""Normal form of a sequence (thesis section 5.1, Diagram 7).

Points are row * 19 + col from the top-left; the canonical eighth is
row <= col <= 9 (upper-left corner, above-right of the diagonal, left of the
vertical centre line).  SGF "dc" is column d=3, row c=2: the 4-3 point.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import MAPS
from joseki_miner.method.influence import beam_scores
from joseki_miner.method.points import BLACK, DOWN, LEFT, RIGHT, SIZE, TENUKI, UP, WHITE, from_sgf, point, to_sgf
from joseki_miner.method.symmetry import (
    DIRECTION_MAP,
    IDENTITY,
    POINT_MAP,
    TRANSFORMS,
    apply_rc,
    canonical_transforms,
    compose,
    inverse,
    normalize,
    transform_scores,
)

ZERO = (0, 0, 0, 0)
TENGEN = point(9, 9)


def norm(points, colours=None, scores=None):
    """normalize() with alternating colours starting black and zero scores
    unless given; returns (t, swap, points as SGF strings, scores)."""
    if colours is None:
        colours = [BLACK if i % 2 == 0 else WHITE for i in range(len(points))]
    if scores is None:
        scores = [ZERO] * len(points)
    t, swap, pts, sc = normalize(colours, points, scores)
    return t, swap, [to_sgf(p) if p != TENUKI else "--" for p in pts], sc


def images(p):
    """The 8 images of point p."""
    return [POINT_MAP[t][p] for t in TRANSFORMS]


def in_eighth(p):
    r, c = divmod(p, SIZE)
    return r <= c <= 9


# -- the transforms themselves ------------------------------------------------


def test_the_eight_transforms_are_distinct_bijections_of_the_board():
    tables = {POINT_MAP[t] for t in TRANSFORMS}
    assert len(tables) == 8
    for t in TRANSFORMS:
        assert sorted(POINT_MAP[t][:361]) == list(range(361))
        assert POINT_MAP[t][TENUKI] == TENUKI
    assert POINT_MAP[IDENTITY][:361] == tuple(range(361))


def test_transform_bits_swap_then_mirror():
    # t = swap*4 + flip_rows*2 + flip_cols
    assert apply_rc(0, 2, 3) == (2, 3)
    assert apply_rc(1, 2, 3) == (2, 15)
    assert apply_rc(2, 2, 3) == (16, 3)
    assert apply_rc(3, 2, 3) == (16, 15)
    assert apply_rc(4, 2, 3) == (3, 2)
    assert apply_rc(5, 2, 3) == (3, 16)  # swap first, then mirror columns
    assert apply_rc(6, 2, 3) == (15, 2)
    assert apply_rc(7, 2, 3) == (15, 16)


def test_compose_and_inverse_agree_with_the_point_tables():
    for a, b in itertools.product(TRANSFORMS, repeat=2):
        ab = compose(a, b)
        assert all(POINT_MAP[ab][p] == POINT_MAP[a][POINT_MAP[b][p]] for p in range(361))
    for t in TRANSFORMS:
        u = inverse(t)
        assert all(POINT_MAP[u][POINT_MAP[t][p]] == p for p in range(361))


def test_direction_map_follows_the_point_map():
    """A neighbour in direction d becomes the neighbour in direction
    DIRECTION_MAP[t][d] of the image point."""
    step = {UP: (-1, 0), RIGHT: (0, 1), DOWN: (1, 0), LEFT: (0, -1)}
    for t in TRANSFORMS:
        assert sorted(DIRECTION_MAP[t]) == [0, 1, 2, 3]
        for r, c in [(4, 6), (9, 9), (1, 17), (12, 2)]:
            for d, (dr, dc) in step.items():
                a = divmod(POINT_MAP[t][point(r, c)], SIZE)
                b = divmod(POINT_MAP[t][point(r + dr, c + dc)], SIZE)
                er, ec = step[DIRECTION_MAP[t][d]]
                assert (b[0] - a[0], b[1] - a[1]) == (er, ec), (t, d)


def test_direction_map_examples():
    # mirror the columns (t=1): right <-> left, up/down stay
    assert DIRECTION_MAP[1] == (UP, LEFT, DOWN, RIGHT)
    # mirror the rows (t=2): up <-> down
    assert DIRECTION_MAP[2] == (DOWN, RIGHT, UP, LEFT)
    # transpose (t=4): up <-> left, right <-> down
    assert DIRECTION_MAP[4] == (LEFT, DOWN, RIGHT, UP)


def test_transform_scores_moves_directions_and_negates_on_colour_swap():
    s = (-8, 0, 3, -15)  # up, right, down, left
    assert transform_scores(0, False, s) == s
    assert transform_scores(0, True, s) == (8, 0, -3, 15)
    # a bottom-right sequence moved to the upper-left (mirror rows and
    # columns, t=3): what was its left is now its right, its up now its down
    assert transform_scores(3, False, s) == (3, -15, -8, 0)
    assert transform_scores(3, True, s) == (-3, 15, 8, 0)
    assert transform_scores(4, False, s) == (-15, 3, 0, -8)


def _transform_grid(grid, t, swap):
    out = [0] * 361
    sign = -1 if swap else 1
    for p, v in enumerate(grid):
        out[POINT_MAP[t][p]] = sign * v
    return out


def _transform_box(box, t):
    rmin, rmax, cmin, cmax = box
    a = apply_rc(t, rmin, cmin)
    b = apply_rc(t, rmax, cmax)
    return (min(a[0], b[0]), max(a[0], b[0]), min(a[1], b[1]), max(a[1], b[1]))


@settings(max_examples=60, deadline=None)
@given(
    stones=st.dictionaries(st.integers(0, 360), st.sampled_from([BLACK, WHITE]), max_size=60),
    corner=st.tuples(st.integers(0, 18), st.integers(0, 18)),
    size=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    m=st.sampled_from(MAPS),
)
def test_influence_scores_transform_with_the_board(stones, corner, size, m):
    """Beam scores on the transformed board (and box) are the scores of the
    original, moved by DIRECTION_MAP and negated when colours swap."""
    t, swap = m
    grid = [0] * 361
    for p, v in stones.items():
        grid[p] = v
    r0, c0 = corner
    box = (r0, min(18, r0 + size[0]), c0, min(18, c0 + size[1]))
    before = beam_scores(grid, box, 17)
    after = beam_scores(_transform_grid(grid, t, swap), _transform_box(box, t), 17)
    assert after == transform_scores(t, swap, before)


# -- first move: Diagram 7 ---------------------------------------------------


@pytest.mark.parametrize("colour", [BLACK, WHITE])
@pytest.mark.parametrize("sgf", ["dc", "cd", "pc", "qd", "cp", "dq", "qp", "pq"])
def test_the_16_equivalent_4_3_moves_become_black_dc(sgf, colour):
    """Diagram 7: the 8 komoku points x 2 colours all become black "dc"."""
    t, swap, pts, _ = norm([from_sgf(sgf)], colours=[colour])
    assert pts == ["dc"]
    assert swap == (colour == WHITE)
    assert to_sgf(POINT_MAP[t][from_sgf(sgf)]) == "dc"


def test_every_first_move_goes_to_the_canonical_eighth():
    for p in range(361):
        for q in images(p):
            for colour in (BLACK, WHITE):
                t, swap, pts, _ = normalize([colour], [q], [ZERO])
                assert pts == (POINT_MAP[t][q],)
                assert in_eighth(pts[0])
                assert swap == (colour == WHITE)
        # all 8 images of a point share one normal point
        assert len({normalize([BLACK], [q], [ZERO])[2] for q in images(p)}) == 1
    # and a point already in the eighth stays where it is
    for r in range(10):
        for c in range(r, 10):
            assert normalize([BLACK], [point(r, c)], [ZERO])[2] == (point(r, c),)


def test_colour_swap_applies_to_the_whole_sequence():
    pts = [from_sgf("pd"), from_sgf("qf"), from_sgf("nc")]
    black_first = norm(pts, colours=[BLACK, WHITE, BLACK])
    white_first = norm(pts, colours=[WHITE, BLACK, WHITE])
    assert black_first[2] == white_first[2]
    assert black_first[1] is False and white_first[1] is True
    s = (-6, 7, 0, 12)
    assert norm(pts, colours=[WHITE, BLACK, WHITE], scores=[s] * 3)[3] == tuple(
        transform_scores(white_first[0], True, s) for _ in range(3)
    )


# -- later moves: axes decided by the next stone -----------------------------


def test_off_axis_first_stone_fixes_the_transform():
    # komoku "pc" = (2, 15) in the upper-right: one transform only (mirror
    # the columns), which takes the next stone "qe" = (4, 16) to "ce"
    assert canonical_transforms([from_sgf("pc")]) == [1]
    assert norm([from_sgf("pc"), from_sgf("qe")])[:3] == (1, False, ["dc", "ce"])


def test_4_4_in_another_corner_then_the_approach_decides():
    # pd = (3, 15) goes to (3, 3) "dd" on the diagonal, by mirroring the
    # columns (t=1) or by transposing and mirroring the rows (t=6); qf =
    # (5, 16) must then go above-right of the diagonal: "fc" (t=6)
    assert canonical_transforms([from_sgf("pd")]) == [1, 6]
    t, _, pts, _ = norm([from_sgf("pd"), from_sgf("qf")])
    assert canonical_transforms([from_sgf("pd"), from_sgf("qf")]) == [t] == [6]
    assert pts == ["dd", "fc"]


@pytest.mark.parametrize("second", ["cf", "fc"])
def test_diagonal_first_stone_next_stone_goes_above_right(second):
    """3-3 "cc" is on the diagonal: the next stone decides, and goes to the
    half above-right of the diagonal (row < col), whichever side it was on."""
    assert norm([from_sgf("cc"), from_sgf(second)])[2] == ["cc", "fc"]


@pytest.mark.parametrize("corner", range(8))
def test_diagonal_rule_in_every_orientation(corner):
    cc, cf = from_sgf("cc"), from_sgf("cf")
    pts = [POINT_MAP[corner][cc], POINT_MAP[corner][cf]]
    assert norm(pts)[2] == ["cc", "fc"]


@pytest.mark.parametrize("second", ["fg", "ng"])
def test_vertical_centre_line_first_stone_next_stone_goes_left(second):
    """ "jd" = (3, 9) is on the vertical centre line: the next stone goes to
    the left half (col <= 9), whichever side it was on."""
    assert norm([from_sgf("jd"), from_sgf(second)])[2] == ["jd", "fg"]


@pytest.mark.parametrize("first", ["dj", "pj", "jp"])
def test_side_star_point_moves_to_the_top_and_next_stone_goes_left(first):
    """The other side star points on the central lines become "jd"; the
    next stone is decided in the same way."""
    for q in images(from_sgf("ng")):
        out = norm([from_sgf(first), q])[2]
        assert out[0] == "jd"
        r, c = divmod(from_sgf(out[1]), SIZE)
        assert c < 9, out


def test_tengen_then_next_stone_goes_to_the_eighth():
    """Tengen stays tengen under every transform; the next stone is placed
    in the canonical eighth (row <= col <= 9)."""
    for q in images(from_sgf("dc")):
        assert norm([TENGEN, q])[2] == ["jj", "dc"]
    # tengen, then a stone on the diagonal: still a choice; the third stone
    # goes above-right of the diagonal
    for t in TRANSFORMS:
        pts = [TENGEN, POINT_MAP[t][from_sgf("dd")], POINT_MAP[t][from_sgf("dg")]]
        assert norm(pts)[2] == ["jj", "dd", "gd"]
    # tengen, then a stone on the vertical line: the third goes left
    for t in TRANSFORMS:
        pts = [TENGEN, POINT_MAP[t][from_sgf("jd")], POINT_MAP[t][from_sgf("ne")]]
        assert norm(pts)[2] == ["jj", "jd", "fe"]


def test_later_stones_on_the_axis_keep_the_choice_open():
    """cc, ee (both on the diagonal), then a stone off it: the third stone
    decides and goes above-right."""
    for third in ("ch", "hc"):
        assert norm([from_sgf("cc"), from_sgf("ee"), from_sgf(third)])[2] == ["cc", "ee", "hc"]
    # a tenuki in between changes nothing
    pts = [from_sgf("cc"), TENUKI, from_sgf("ch")]
    assert norm(pts, colours=[BLACK, WHITE, BLACK])[2] == ["cc", "--", "hc"]


def test_sequence_entirely_on_an_axis_gives_identical_points():
    """All stones on the diagonal: two transforms remain and give the same
    points; tengen alone: all eight do."""
    pts = [from_sgf("cc"), from_sgf("ee"), from_sgf("dd")]
    ts = canonical_transforms(pts)
    assert len(ts) == 2
    assert len({tuple(POINT_MAP[t][p] for p in pts) for t in ts}) == 1
    assert canonical_transforms([TENGEN]) == list(TRANSFORMS)
    assert len({POINT_MAP[t][TENGEN] for t in TRANSFORMS}) == 1
    line = [from_sgf("jd"), from_sgf("jf"), from_sgf("jc")]
    ts = canonical_transforms(line)
    assert len(ts) == 2
    assert len({tuple(POINT_MAP[t][p] for p in line) for t in ts}) == 1


def test_all_on_axis_tie_is_broken_by_influence_the_same_way():
    """A diagonal sequence and its mirror image in the diagonal have the same
    points; their influence scores differ by the mirror, and the normal form
    must choose the same orientation for both."""
    pts = [from_sgf("cc"), from_sgf("ee")]
    s = [(-10, 0, 0, 7), (3, -8, 0, 0)]
    mirrored = [transform_scores(4, False, x) for x in s]  # transpose
    a = normalize([BLACK, WHITE], pts, s)
    b = normalize([BLACK, WHITE], pts, mirrored)
    assert a[2] == b[2]
    assert a[3] == b[3]
    # same for tengen alone under every transform and colour swap
    s1 = [(-9, 2, 0, 14)]
    outs = set()
    for t, swap in MAPS:
        colours = [WHITE if swap else BLACK]
        sc = [transform_scores(t, swap, s1[0])]
        outs.add(normalize(colours, [TENGEN], sc)[2:])
    assert len(outs) == 1


# -- properties ----------------------------------------------------------------

AXIS_POINTS = [point(r, c) for r in range(19) for c in range(19) if r == c or r + c == 18 or r == 9 or c == 9]
cluster_point = st.one_of(
    st.sampled_from(AXIS_POINTS),
    st.integers(0, 360),
    st.sampled_from([point(9, 9), point(3, 3), point(3, 9), point(9, 3), point(15, 15)]),
)


@st.composite
def sequences(draw):
    pts = draw(st.lists(cluster_point, min_size=1, max_size=8, unique=True))
    # occasional tenuki between stones (never first)
    out = [pts[0]]
    for p in pts[1:]:
        if draw(st.booleans()) and draw(st.booleans()):
            out.append(TENUKI)
        out.append(p)
    first = draw(st.sampled_from([BLACK, WHITE]))
    colours = [first * (-1) ** i for i in range(len(out))]
    scores = draw(st.lists(st.tuples(*[st.integers(-40, 40)] * 4), min_size=len(out), max_size=len(out)))
    return colours, out, scores


@settings(max_examples=300, deadline=None)
@given(seq=sequences(), m=st.sampled_from(MAPS))
def test_normal_form_is_invariant_under_the_16_maps(seq, m):
    colours, pts, scores = seq
    t, swap = m
    moved = (
        [(-c if swap else c) for c in colours],
        [POINT_MAP[t][p] for p in pts],
        [transform_scores(t, swap, s) for s in scores],
    )
    a = normalize(colours, pts, scores)
    b = normalize(*moved)
    assert a[2] == b[2]  # same points
    assert a[3] == b[3]  # same influence scores


@settings(max_examples=300, deadline=None)
@given(seq=sequences())
def test_normal_form_obeys_the_rules(seq):
    colours, pts, scores = seq
    t, swap, out, sc = normalize(colours, pts, scores)
    # rule 3: it is one transform of the whole sequence (relative positions kept)
    assert out == tuple(POINT_MAP[t][p] for p in pts)
    stones_in = [p for p in pts if p != TENUKI]
    stones_out = [p for p in out if p != TENUKI]
    for (p, q), (p2, q2) in zip(itertools.combinations(stones_in, 2), itertools.combinations(stones_out, 2)):
        (r1, c1), (r2, c2) = divmod(p, SIZE), divmod(q, SIZE)
        (s1, d1), (s2, d2) = divmod(p2, SIZE), divmod(q2, SIZE)
        assert abs(r1 - r2) + abs(c1 - c2) == abs(s1 - s2) + abs(d1 - d2)
    # rules 4, 5: first move black, colours swapped for all moves together
    assert swap == (colours[0] == WHITE)
    assert sc == tuple(transform_scores(t, swap, s) for s in scores)
    # rule 1: first stone in the canonical eighth
    assert in_eighth(out[0])
    # rule 2: the first stone off every axis that still leaves a choice
    # (diagonal: row == col; vertical centre line: col == 9) lies on the
    # canonical side of it
    r0, c0 = divmod(out[0], SIZE)
    on_diag = all(divmod(p, SIZE)[0] == divmod(p, SIZE)[1] for p in stones_out[:1])
    if (r0, c0) == (9, 9):
        rest = stones_out[1:]
        if rest:
            assert in_eighth(rest[0])
    elif on_diag:
        for p in stones_out[1:]:
            r, c = divmod(p, SIZE)
            if r != c:
                assert r < c
                break
    elif c0 == 9:
        for p in stones_out[1:]:
            r, c = divmod(p, SIZE)
            if c != 9:
                assert c < 9
                break


def test_canonical_transforms_of_all_8_images_of_a_long_sequence_agree():
    seq = [from_sgf(s) for s in ("pd", "nc", "qf", "pc", "qc", "oc", "qe")]
    colours = [BLACK, WHITE] * 3 + [BLACK]
    outs = {normalize(colours, [POINT_MAP[t][p] for p in seq], [ZERO] * 7)[2] for t in TRANSFORMS}
    assert len(outs) == 1
    # 4-4 "pd" -> "dd" (diagonal); the second stone "nc" decides: above-right
    assert [to_sgf(p) for p in next(iter(outs))] == ["dd", "fc", "cf", "dc", "cc", "ec", "ce"]
