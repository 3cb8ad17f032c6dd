"""Phase 1 (thesis 4.1, 7.3, 8): moves -> corner sequences, and the
symmetry property of the whole of phase 1 (section 5.1).

Games are written as (colour, row, col) triples; rows and columns count
from 0 at the top-left; the default distances are a = b = 5.
"""

from __future__ import annotations

import random

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import MAPS, classes_of, game, mine, transform_record
from joseki_miner.method.board import Board
from joseki_miner.method.influence import beam_scores
from joseki_miner.method.points import BLACK, PASS, RIGHT, TENUKI, WHITE, point
from joseki_miner.method.records import GameRecord, Move
from joseki_miner.method.sequences import Phase1Params, assign, corners_of, extract
from joseki_miner.fast.tables import trie_table

B, W = BLACK, WHITE
P = Phase1Params()
T = "T"


def stones(seq):
    """The entries of a sequence as (row, col), T for a tenuki."""
    return [T if p == TENUKI else divmod(p, 19) for p in seq.points]


def layout(record, params=P):
    return [stones(s) for s in assign(record, params)]


# -- joining and starting sequences ----------------------------------------------


def test_first_move_starts_a_sequence():
    seqs = assign(game(rcs=[(B, 3, 3)]), P)
    assert [stones(s) for s in seqs] == [[(3, 3)]]
    assert seqs[0].colours == [B]
    assert len(seqs[0].scores) == 1


def test_a_move_within_b_joins_the_sequence():
    assert layout(game(rcs=[(B, 3, 3), (W, 3, 8)])) == [[(3, 3), (3, 8)]]  # distance 5 = b
    assert layout(game(rcs=[(B, 3, 3), (W, 5, 6)])) == [[(3, 3), (5, 6)]]  # 2 + 3


def test_a_move_farther_than_b_from_all_starts_a_new_sequence():
    assert layout(game(rcs=[(B, 3, 3), (W, 3, 9)])) == [[(3, 3)], [(3, 9)]]  # distance 6
    # Manhattan, not straight-line: (6, 6) is 4.2 away in a straight line
    assert layout(game(rcs=[(B, 3, 3), (W, 6, 6)])) == [[(3, 3)], [(6, 6)]]


def test_distance_is_to_the_nearest_stone_of_the_sequence():
    g = game(rcs=[(B, 3, 3), (W, 3, 7), (B, 3, 12)])  # 9 from (3,3) but 5 from (3,7)
    assert layout(g) == [[(3, 3), (3, 7), (3, 12)]]


def test_a_move_within_b_of_two_sequences_joins_both_and_starts_none():
    g = game(rcs=[(B, 3, 3), (W, 3, 13), (W, 3, 8)])  # (3, 8) is 5 from both
    assert layout(g) == [[(3, 3), (3, 8)], [(3, 13), T, (3, 8)]]


def test_within_b_but_not_a_of_one_sequence_joins_it_and_starts_another():
    """certain a = 3, maybe b = 5: a move at distance 4 both belongs to the
    sequence and starts one of its own (thesis 4.1)."""
    params = Phase1Params(certain=3, maybe=5)
    assert layout(game(rcs=[(B, 3, 3), (W, 3, 7)]), params) == [[(3, 3), (3, 7)], [(3, 7)]]
    # within a: joins only
    assert layout(game(rcs=[(B, 3, 3), (W, 3, 6)]), params) == [[(3, 3), (3, 6)]]
    # with a = b it only joins
    assert layout(game(rcs=[(B, 3, 3), (W, 3, 7)])) == [[(3, 3), (3, 7)]]
    # beyond b: a new sequence only
    assert layout(game(rcs=[(B, 3, 3), (W, 3, 9)]), params) == [[(3, 3)], [(3, 9)]]


def test_within_b_of_two_sequences_starts_none_even_beyond_a():
    params = Phase1Params(certain=3, maybe=5)
    # (3, 3) then (3, 7) -> two sequences, both holding (3, 7); (3, 11) is 4
    # from (3, 7): within b of both, within a of neither -> joins both,
    # starts none
    g = game(rcs=[(B, 3, 3), (W, 3, 7), (B, 3, 11)])
    assert layout(g, params) == [[(3, 3), (3, 7), (3, 11)], [(3, 7), (3, 11)]]


def test_extract_keeps_the_order_sequences_were_started():
    # four 4-4 points: all become black "dd"; white's are colour-swapped
    g = game(rcs=[(B, 3, 15), (W, 15, 15), (B, 15, 3), (W, 3, 3)])
    out = extract(g, P)
    assert [s.keys for s in out] == [(point(3, 3),)] * 4
    assert [s.swapped for s in out] == [False, True, False, True]


# -- tenuki ---------------------------------------------------------------------


def test_tenuki_between_two_same_colour_moves():
    seqs = assign(game(rcs=[(B, 3, 3), (W, 15, 15), (B, 4, 5)]), P)
    assert [stones(s) for s in seqs] == [[(3, 3), T, (4, 5)], [(15, 15)]]
    assert seqs[0].colours == [B, W, B]  # the tenuki is the other side's
    assert seqs[0].points[1] == TENUKI
    assert len(seqs[0].scores) == 3
    (a, _) = extract(game(rcs=[(B, 3, 3), (W, 15, 15), (B, 4, 5)]), P)
    assert a.keys[1] == TENUKI and len(a.keys) == 3


def test_white_tenuki_is_black():
    seqs = assign(game(rcs=[(W, 3, 3), (B, 15, 15), (W, 4, 5)]), P)
    assert seqs[0].colours == [W, B, W]
    assert stones(seqs[0]) == [(3, 3), T, (4, 5)]


def test_several_tenuki_and_no_tenuki_when_colours_alternate():
    g = game(rcs=[(B, 3, 3), (W, 15, 15), (B, 4, 5), (W, 15, 3), (B, 5, 4), (W, 5, 3)])
    (a, *_) = assign(g, P)
    assert stones(a) == [(3, 3), T, (4, 5), T, (5, 4), (5, 3)]
    assert a.colours == [B, W, B, W, B, W]


def test_tenuki_influence_is_taken_before_the_move_comes_back():
    """The tenuki's scores are those of the old box on the board before the
    returning move; the white stone played elsewhere is already there."""
    g = game(rcs=[(B, 3, 3), (W, 3, 10), (B, 4, 5)])  # (3, 10) is 7 away: elsewhere
    a = assign(g, P)[0]
    assert stones(a) == [(3, 3), T, (4, 5)]
    assert a.scores[0] == (0, 0, 0, 0)
    assert a.scores[1] == (0, 17 - 7, 0, 0)  # box (3,3): white 7 to the right
    assert a.scores[2] == (0, 17 - 5, 0, 0)  # box rows 3-4, cols 3-5: 5 to the right


# -- when reading stops -----------------------------------------------------------


def test_corners_of_points():
    assert corners_of(point(3, 3)) == (0,)
    assert corners_of(point(3, 15)) == (1,)
    assert corners_of(point(15, 3)) == (2,)
    assert corners_of(point(15, 15)) == (3,)
    assert corners_of(point(8, 8)) == (0,)
    assert corners_of(point(10, 10)) == (3,)
    assert corners_of(point(3, 9)) == (0, 1)
    assert corners_of(point(9, 3)) == (0, 2)
    assert corners_of(point(9, 15)) == (1, 3)
    assert corners_of(point(9, 9)) == (0, 1, 2, 3)


FOUR_CORNERS_TWICE = [
    (B, 3, 3),
    (W, 2, 5),
    (B, 3, 15),
    (W, 2, 13),
    (B, 15, 3),
    (W, 16, 5),
    (B, 15, 15),
    (W, 16, 13),
]


def test_reading_stops_once_every_corner_holds_corner_stones():
    params = Phase1Params(corner_stones=2)
    g = game(rcs=FOUR_CORNERS_TWICE + [(B, 4, 4), (W, 14, 14)])
    assert layout(g, params) == [
        [(3, 3), (2, 5)],  # (4, 4) comes after the last corner got its 2nd stone
        [(3, 15), (2, 13)],
        [(15, 3), (16, 5)],
        [(15, 15), (16, 13)],  # the move that fills the last corner is read
    ]
    # with 3 stones a corner, the same moves are all read
    assert layout(g, Phase1Params(corner_stones=3))[0] == [(3, 3), (2, 5), (4, 4)]


def test_reading_goes_on_while_one_corner_is_short():
    params = Phase1Params(corner_stones=2)
    moves = [m for m in FOUR_CORNERS_TWICE if m != (W, 16, 13)]  # lower right holds 1
    g = game(rcs=moves + [(B, 4, 4), (W, 14, 14)])
    out = layout(g, params)
    assert out[0] == [(3, 3), (2, 5), (4, 4)]
    assert out[3] == [(15, 15), (14, 14)]


def test_tengen_counts_for_all_four_corners():
    g = game(rcs=[(B, 9, 9), (W, 9, 11)])
    assert layout(g, Phase1Params(corner_stones=1)) == [[(9, 9)]]
    assert layout(g, Phase1Params(corner_stones=2)) == [[(9, 9), (9, 11)]]


def test_a_stone_on_a_central_line_counts_for_both_corners():
    on_line = [(B, 3, 9), (W, 15, 3), (B, 15, 15), (B, 15, 5)]  # (3, 9): both upper corners
    assert layout(game(rcs=on_line), Phase1Params(corner_stones=1)) == [[(3, 9)], [(15, 3)], [(15, 15)]]
    off_line = [(B, 3, 8), (W, 15, 3), (B, 15, 15), (B, 15, 5)]  # upper right stays empty
    assert layout(game(rcs=off_line), Phase1Params(corner_stones=1)) == [[(3, 8)], [(15, 3), (15, 5)], [(15, 15)]]
    side = [(B, 9, 3), (W, 3, 15), (B, 15, 15), (W, 3, 13)]  # (9, 3): both left corners
    assert layout(game(rcs=side), Phase1Params(corner_stones=1)) == [[(9, 3)], [(3, 15)], [(15, 15)]]


# -- max_length -------------------------------------------------------------------


def test_max_length_caps_a_sequence():
    g = game(rcs=[(B, 3, 3), (W, 3, 5), (B, 4, 4), (W, 5, 5), (B, 5, 3)])
    assert layout(g, Phase1Params(max_length=3)) == [[(3, 3), (3, 5), (4, 4)]]
    assert layout(g, Phase1Params(max_length=5)) == [[(3, 3), (3, 5), (4, 4), (5, 5), (5, 3)]]


def test_a_tenuki_counts_towards_max_length():
    g = game(rcs=[(B, 3, 3), (W, 15, 15), (B, 3, 5), (W, 4, 4)])
    assert layout(g, Phase1Params(max_length=3))[0] == [(3, 3), T, (3, 5)]
    assert layout(g, Phase1Params(max_length=4))[0] == [(3, 3), T, (3, 5), (4, 4)]


def test_a_sequence_never_ends_on_a_tenuki():
    g = game(rcs=[(B, 3, 3), (W, 15, 15), (B, 3, 5)])
    assert layout(g, Phase1Params(max_length=2)) == [[(3, 3)], [(15, 15)]]
    assert layout(g, Phase1Params(max_length=3))[0] == [(3, 3), T, (3, 5)]


# -- passes and the board -----------------------------------------------------------


def test_passes_are_skipped():
    g = GameRecord(
        source="test",
        moves=(Move(B, point(3, 3)), Move(W, PASS), Move(B, point(3, 5)), Move(W, PASS), Move(B, point(15, 15))),
    )
    seqs = assign(g, P)
    assert [stones(s) for s in seqs] == [[(3, 3), T, (3, 5)], [(15, 15)]]
    assert all(PASS not in s.points for s in seqs)


def test_passes_do_not_count_for_the_corners():
    """Three corners hold a stone, the upper right none: reading goes on
    through the passes (a pass is no stone in any corner)."""
    moves = [
        Move(B, point(3, 3)),
        Move(W, PASS),
        Move(B, point(15, 3)),
        Move(W, PASS),
        Move(B, point(15, 15)),
        Move(W, PASS),
        Move(B, PASS),
        Move(W, point(3, 5)),
    ]
    g = GameRecord(source="test", moves=tuple(moves))
    assert [stones(s) for s in assign(g, Phase1Params(corner_stones=1))] == [[(3, 3), (3, 5)], [(15, 3)], [(15, 15)]]


CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . X . .
    . . . . . . O X .
    . . . . . . X . .
"""


def test_captures_during_replay_change_the_influence():
    """White (3, 6) is in atari; black's sequence move (3, 5) captures it,
    so the right-hand beam then sees black (3, 7) behind it instead."""
    board = Board.from_diagram(CAPTURE)
    setup_b = tuple(p for p, v in enumerate(board.grid) if v == B)
    setup_w = tuple(p for p, v in enumerate(board.grid) if v == W)
    g = game(rcs=[(B, 3, 3), (W, 15, 15), (B, 3, 5)], setup_black=setup_b, setup_white=setup_w)
    a = assign(g, P)[0]
    assert stones(a) == [(3, 3), T, (3, 5)]
    # before the capture, box (3,3): rows 2-4 from column 4 meet B, W, B at distance 3
    assert a.scores[0] == (0, -14 + 14 - 14, 0, 0)
    assert a.scores[1] == a.scores[0]
    # after: box cols 3-5; rows 2 and 4 meet black at 1, row 3 black (3, 7) at 2
    assert a.scores[2][RIGHT] == -16 - 15 - 16
    assert a.scores[2] == (-16, -47, -16, 0)
    # what a board without captures would have said
    board.play(B, point(3, 3))
    board.grid[point(3, 5)] = B
    assert beam_scores(board.grid, (3, 3, 3, 5), 17)[RIGHT] == -16
    assert a.scores[2][RIGHT] != -16


def test_a_captured_stone_still_counts_for_distance():
    """Sequences remember the stones played in them (the thesis' "stones of
    those sequences"), captured or not."""
    board = Board.from_diagram(CAPTURE)
    setup_b = tuple(p for p, v in enumerate(board.grid) if v == B)
    setup_w = tuple(p for p, v in enumerate(board.grid) if v == W)
    g = game(rcs=[(B, 3, 3), (W, 15, 15), (B, 3, 5)], setup_black=setup_b, setup_white=setup_w)
    assert assign(g, P)[0].stones == [(3, 3), (3, 5)]


def test_every_entry_has_its_four_scores():
    g = game(rcs=FOUR_CORNERS_TWICE + [(B, 4, 4), (W, 3, 4), (B, 9, 9)])
    for s in assign(g, P):
        assert len(s.scores) == len(s.points) == len(s.colours)
        assert all(len(x) == 4 for x in s.scores)


# -- the symmetry property of phase 1 (section 5.1) ---------------------------------

CENTRES = [(3, 3), (3, 15), (15, 3), (15, 15), (2, 3), (16, 15), (9, 9), (3, 9), (9, 3), (15, 9), (9, 15)]
AXES = [point(r, c) for r in range(19) for c in range(19) if r == c or r + c == 18 or r == 9 or c == 9]

step = st.one_of(
    st.tuples(st.just("near"), st.sampled_from(CENTRES), st.integers(-4, 4), st.integers(-4, 4)),
    st.tuples(st.just("axis"), st.sampled_from(AXES), st.just(0), st.just(0)),
    st.tuples(st.just("any"), st.integers(0, 360), st.just(0), st.just(0)),
    st.tuples(st.just("pass"), st.just(0), st.just(0), st.just(0)),
)


def _point_of(kind, where, dr, dc):
    if kind == "near":
        r, c = where
        return point(min(18, max(0, r + dr)), min(18, max(0, c + dc)))
    if kind == "pass":
        return PASS
    return where


@st.composite
def games(draw, min_moves=10, max_moves=60):
    """Alternating moves on distinct empty-at-first points, mostly clustered
    around corners and axes (so sequences get several moves and axis ties
    occur), with a pass now and then and sometimes a few setup stones."""
    steps = draw(st.lists(step, min_size=min_moves, max_size=max_moves))
    first = draw(st.sampled_from([B, W]))
    used, moves = set(), []
    colour = first
    for s in steps:
        p = _point_of(*s)
        if p != PASS:
            if p in used:
                continue
            used.add(p)
        moves.append(Move(colour, p))
        colour = -colour
    setup = draw(st.lists(st.sampled_from(AXES + [point(3, 3), point(15, 15)]), max_size=3, unique=True))
    setup = [p for p in setup if p not in used]
    return GameRecord(source="hyp", moves=tuple(moves), setup_black=tuple(setup))


params_st = st.builds(
    lambda a, extra, corner, cap: Phase1Params(certain=a, maybe=a + extra, corner_stones=corner, max_length=cap),
    st.integers(1, 6),
    st.integers(0, 2),
    st.integers(2, 20),
    st.integers(2, 30),
)


def _plain(seqs):
    return [(s.keys, s.scores) for s in seqs]


@settings(max_examples=200, deadline=None)
@given(
    collection=st.lists(games(), min_size=1, max_size=3),
    params=params_st,
    maps=st.lists(st.sampled_from(MAPS), min_size=1, max_size=3, unique=True),
)
def test_mining_is_invariant_under_the_16_symmetry_colour_maps(collection, params, maps):
    """Mining a collection and mining it with every game transformed by any
    of the 8 board symmetries x colour swap give identical tries (counts and
    influence counters), and identical normal sequences game by game."""
    expected = trie_table(mine(collection, params))
    for t, swap in maps:
        moved = [transform_record(g, t, swap) for g in collection]
        for g, h in zip(collection, moved):
            assert _plain(extract(g, params)) == _plain(extract(h, params))
        pd.testing.assert_frame_equal(trie_table(mine(moved, params)), expected)


def _random_game(rng, n):
    used, moves, colour = set(), [], rng.choice([B, W])
    while len(moves) < n:
        kind = rng.random()
        if kind < 0.7:
            r0, c0 = rng.choice(CENTRES)
            p = point(min(18, max(0, r0 + rng.randint(-4, 4))), min(18, max(0, c0 + rng.randint(-4, 4))))
        elif kind < 0.85:
            p = rng.choice(AXES)
        else:
            p = rng.randrange(361)
        if p in used:
            continue
        used.add(p)
        moves.append(Move(colour, p))
        colour = -colour
    return GameRecord(source="rnd", moves=tuple(moves))


def test_all_16_maps_on_a_fixed_random_collection():
    rng = random.Random(2007)
    collection = [_random_game(rng, rng.randint(10, 80)) for _ in range(20)]
    params = Phase1Params(corner_stones=6)
    expected = trie_table(mine(collection, params))
    assert expected["count"].iloc[0] > 40  # many sequences
    assert expected["depth"].max() >= 4  # several moves deep
    for t, swap in MAPS:
        moved = [transform_record(g, t, swap) for g in collection]
        pd.testing.assert_frame_equal(trie_table(mine(moved, params)), expected)


@settings(max_examples=100, deadline=None)
@given(game_=games(), params=params_st)
def test_phase1_sequence_shape(game_, params):
    """Every sequence alternates colours, holds at most max_length entries,
    starts and ends with a stone, and its normal form starts black."""
    for s in assign(game_, params):
        assert all(a == -b for a, b in zip(s.colours, s.colours[1:]))
        assert 1 <= len(s.points) <= params.max_length
        assert s.points[0] != TENUKI and s.points[-1] != TENUKI
        assert all(p != TENUKI for p, q in zip(s.points, s.points[1:]) if q == TENUKI)  # never two tenuki
    for n in extract(game_, params):
        assert n.keys[0] != TENUKI
        r, c = divmod(n.keys[0], 19)
        assert r <= c <= 9
        cls = classes_of(n.scores)
        assert len(cls) == len(n.keys)


def test_a_swapped_game_gives_the_same_keys_and_scores():
    g = game(rcs=[(B, 3, 15), (W, 5, 16), (B, 2, 13), (W, 15, 3), (B, 9, 9)])
    h = transform_record(g, 0, True)
    assert [m.colour for m in h.moves] == [W, B, W, B, W]
    assert _plain(extract(g, P)) == _plain(extract(h, P))
    assert [s.swapped for s in extract(g, P)] == [not s.swapped for s in extract(h, P)]


@pytest.mark.parametrize("t, swap", MAPS)
def test_diagram_12_game_is_mined_the_same_in_every_orientation(t, swap):
    g = game(
        "B pp W nq B pr W mp W qn B pm",  # the sequence of test_influence's Diagram 12
        setup_black=(point(3, 15), point(14, 8), point(16, 4)),
        setup_white=(point(17, 2),),
    )
    assert _plain(extract(transform_record(g, t, swap), P)) == _plain(extract(g, P))


# -- the future work's rules of phase 1: where sequences start (9), noise (5.2) ---------


def test_a_first_move_beyond_the_start_lines_starts_no_sequence():
    """The side star point first, then the 3-6 point near the corner: in
    the thesis the corner move joins the side stone's sequence (a tenuki
    between); with sequences starting within 6 lines of the corner's edges,
    the side stone starts none and the corner move starts its own."""
    record = game(rcs=[(B, 3, 9), (W, 15, 15), (B, 2, 5)])
    assert layout(record) == [[(3, 9), T, (2, 5)], [(15, 15)]]
    assert layout(record, Phase1Params(start=6)) == [[(15, 15)], [(2, 5)]]
    assert layout(record, Phase1Params(start=10)) == layout(record)  # 10: anywhere in the quarter


def test_a_move_beyond_the_start_lines_still_joins_a_sequence_near_it():
    record = game(rcs=[(B, 3, 3), (W, 3, 8)])  # the ninth line: no start, but 5 from the 4-4 point
    assert layout(record, Phase1Params(start=6)) == [[(3, 3), (3, 8)]]


def test_noise_stones_in_the_way_hide_a_sequence_from_a_move():
    """Thesis Diagram 8: Black's 3-4 point and small knight's enclosure,
    two white stones between them.  With noise recognition the enclosure
    stone is cut off from the 3-4 point and starts a sequence of its own."""
    record = game(rcs=[(B, 2, 3), (W, 15, 15), (B, 4, 2)], setup_white=(point(3, 2), point(3, 3)))
    assert layout(record) == [[(2, 3), T, (4, 2)], [(15, 15)]]
    assert layout(record, Phase1Params(noise=True)) == [[(2, 3)], [(15, 15)], [(4, 2)]]
    # nothing in the way: the same as the thesis
    clear = game(rcs=[(B, 2, 3), (W, 15, 15), (B, 4, 2)])
    assert layout(clear, Phase1Params(noise=True)) == layout(clear)


def test_noise_a_sequences_own_stones_are_never_in_the_way():
    """White's approach and Black's answer stand between Black's 4-4 point
    and White's next move; they are the sequence's own, so it joins."""
    record = game(rcs=[(B, 3, 3), (W, 2, 5), (B, 2, 4), (W, 1, 3)])
    assert layout(record, Phase1Params(noise=True)) == layout(record) == [[(3, 3), (2, 5), (2, 4), (1, 3)]]


def test_noise_a_clear_stone_within_reach_is_enough():
    """One stone of the sequence is hidden by an unrelated stone, another
    within reach is not: the move joins, at the clear one's distance."""
    record = game(
        rcs=[(B, 3, 3), (W, 15, 15), (B, 3, 6), (W, 15, 3), (B, 5, 6)], setup_white=(point(4, 4), point(4, 3))
    )
    seqs = layout(record, Phase1Params(noise=True))
    assert [(3, 3), T, (3, 6), T, (5, 6)] in seqs


# -- handicap stones (include_handicap.starts) --------------------------------------

H = Phase1Params(handicap=True)
STAR = {"D4": point(15, 3), "Q16": point(3, 15), "D16": point(3, 3), "Q4": point(15, 15), "D10": point(9, 3)}


def handicap_game(rcs, stones=("D4", "Q16"), **kw):
    return game(rcs=rcs, handicap=len(stones), setup_black=tuple(sorted(STAR[s] for s in stones)), **kw)


def test_a_handicap_stone_opens_its_corner_and_whites_approach_answers_it():
    """White's 3-3 invasion under the upper right handicap stone is the
    second entry of the stone's sequence, which starts at move 0; the
    other stone opens a sequence White has not come to yet."""
    record = handicap_game([(W, 2, 16), (B, 3, 16), (W, 2, 15)])
    assert layout(record, H) == [[(3, 15), (2, 16), (3, 16), (2, 15)], [(15, 3)]]
    assert [s.start for s in assign(record, H)] == [0, 0]
    first = extract(record, H)[0]
    assert first.keys[:2] == (point(3, 3), point(2, 2)) and not first.swapped  # the 4-4 point, then the 3-3 invasion


def test_without_the_rule_handicap_stones_are_setup_stones():
    """The thesis' reading: the stones stand on the board and open nothing;
    White's invasion starts a sequence of its own, White first."""
    record = handicap_game([(W, 2, 16), (B, 3, 16), (W, 2, 15)])
    assert layout(record) == [[(2, 16), (3, 16), (2, 15)]]
    assert [s.start for s in assign(record, P)] == [1]


def test_an_even_games_setup_stones_open_nothing():
    """Setup stones of a game without a handicap (a problem, a diagram)
    stay setup stones, whatever the rule."""
    record = game(rcs=[(W, 2, 16)], setup_black=(STAR["Q16"],))
    assert layout(record, H) == [[(2, 16)]]


def test_black_playing_by_its_own_handicap_stone_first_leaves_a_tenuki_between():
    record = handicap_game([(W, 9, 9), (B, 2, 13)])
    assert layout(record, H)[0] == [(3, 15), T, (2, 13)]


def test_handicap_stones_join_no_other_and_their_order_does_not_matter():
    """Two stones within b of each other (free placement) each open their
    own sequence, listed in any order; a move near both joins both."""
    near = (point(3, 15), point(3, 12))
    for setup in (near, near[::-1]):
        record = game(rcs=[(W, 2, 14)], handicap=2, setup_black=setup)
        assert sorted(layout(record, H)) == [[(3, 12), (2, 14)], [(3, 15), (2, 14)]]


def test_a_handicap_stone_beyond_the_start_lines_opens_nothing():
    """The side star point of a 5-stone handicap is on the 10th line: with
    corner.start 6 it opens no corner (a move there would start none)."""
    record = handicap_game([(W, 9, 1)], stones=("D4", "Q16", "D16", "Q4", "D10"))
    assert sorted(layout(record, Phase1Params(handicap=True, start=6))) == [[(3, 3)], [(3, 15)], [(15, 3)], [(15, 15)]]
    assert [(9, 3), (9, 1)] in layout(record, H)  # 10 lines (the thesis): it opens a sequence as any first move


@st.composite
def handicap_games(draw):
    """A handicap game: two to nine black setup stones, mostly near the
    corners' star points, then alternating moves from White."""
    record = draw(games(min_moves=4, max_moves=40))
    taken = {m.point for m in record.moves}
    spots = draw(
        st.lists(st.tuples(st.sampled_from(CENTRES), st.integers(-1, 1), st.integers(-1, 1)), min_size=2, max_size=9)
    )
    stones = sorted({point(r + dr, c + dc) for (r, c), dr, dc in spots} - taken)
    moves = tuple(Move(W if i % 2 == 0 else B, m.point) for i, m in enumerate(record.moves))
    return GameRecord(source="test", handicap=max(2, len(stones)), setup_black=tuple(stones), moves=moves)


def _kernel(record, params):
    """The compiled kernel's sequences of one game (keys, scores, start,
    numbers, near)."""
    import numpy as np

    from joseki_miner.fast import kernel

    setup = [(-1, p) for p in record.setup_black] + [(1, p) for p in record.setup_white]
    out = kernel.extract_batch(
        np.array([m.colour for m in record.moves], np.int8),
        np.array([m.point for m in record.moves], np.int16),
        np.array([0, len(record.moves)]),
        np.array([c for c, _ in setup], np.int8),
        np.array([p for _, p in setup], np.int16),
        np.array([0, len(setup)]),
        params,
        handicap=np.array([record.handicap]),
    )
    assert out["numbers"].dtype == np.int16 and out["near"].dtype == np.uint8
    keys, scores, numbers, near = (
        np.split(out[name], out["offsets"][1:-1]) if len(out["start"]) else []
        for name in ("keys", "scores", "numbers", "near")
    )
    return [
        (tuple(k.tolist()), tuple(map(tuple, s.tolist())), int(t), tuple(n.tolist()), tuple(b.tolist()))
        for k, s, t, n, b in zip(keys, scores, out["start"], numbers, near)
    ]


def _reference(record, params):
    """The reference's sequences of one game, as ``_kernel`` gives them."""
    return [(s.keys, s.scores, s.start, s.numbers, s.near) for s in extract(record, params)]


@settings(max_examples=150, deadline=None)
@given(record=handicap_games(), params=params_st, starts=st.booleans(), t=st.integers(0, 7))
def test_handicap_games_kernel_equals_reference_in_every_orientation(record, params, starts, t):
    """The kernel gives the reference's sequences (keys, influence, start,
    each entry's move number and nearness) for handicap games, with or
    without the rule; and the tree's sequences are those of the game turned
    or mirrored, its stones listed in another order."""
    params = Phase1Params(
        certain=params.certain,
        maybe=params.maybe,
        corner_stones=params.corner_stones,
        max_length=params.max_length,
        handicap=starts,
    )
    reference = _reference(record, params)
    assert _kernel(record, params) == reference
    moved = transform_record(record, t, False)
    moved = GameRecord(
        source="test", handicap=record.handicap, setup_black=tuple(reversed(moved.setup_black)), moves=moved.moves
    )
    assert sorted(reference) == sorted(_reference(moved, params))


# -- each entry's move number and whether it was played near another sequence ------------


def numbered(record, params=P):
    """Each sequence's entries as (entry, move number, near)."""
    return [list(zip(stones(s), s.numbers, s.near)) for s in assign(record, params)]


def test_a_move_near_two_sequences_is_near_and_a_move_near_its_own_alone_is_not():
    """(3, 8) is within b of the 4-4 point and of (3, 13): near, in both
    the sequences it joins; (4, 2), near the 4-4 point alone (7 from
    (3, 8)), is not."""
    record = game(rcs=[(B, 3, 3), (W, 3, 13), (B, 15, 15), (W, 3, 8), (B, 4, 2)])
    assert numbered(record) == [
        [((3, 3), 1, 0), ((3, 8), 4, 1), ((4, 2), 5, 0)],
        [((3, 13), 2, 0), (T, 4, 0), ((3, 8), 4, 1)],
        [((15, 15), 3, 0)],
    ]
    assert _kernel(record, P) == _reference(record, P)


def test_a_tenuki_takes_the_number_of_the_move_that_comes_back():
    record = game(rcs=[(B, 3, 3), (W, 15, 15), (B, 4, 5), (W, 15, 3), (B, 5, 4)])
    assert numbered(record) == [
        [((3, 3), 1, 0), (T, 3, 0), ((4, 5), 3, 0), (T, 5, 0), ((5, 4), 5, 0)],
        [((15, 15), 2, 0)],
        [((15, 3), 4, 0)],
    ]
    assert _kernel(record, P) == _reference(record, P)


def test_move_numbers_count_the_passes():
    moves = (
        Move(B, point(3, 3)),
        Move(W, PASS),
        Move(B, PASS),
        Move(W, point(3, 5)),
        Move(B, PASS),
        Move(W, point(15, 15)),
        Move(B, point(4, 4)),
    )
    record = GameRecord(source="test", moves=moves)
    assert numbered(record) == [[((3, 3), 1, 0), ((3, 5), 4, 0), ((4, 4), 7, 0)], [((15, 15), 6, 0)]]
    (first, second) = extract(record, P)
    assert (first.start, first.numbers, second.start, second.numbers) == (1, (1, 4, 7), 6, (6,))
    assert _kernel(record, P) == _reference(record, P)


def test_a_full_sequence_still_makes_a_move_near_it_near():
    """max_length 2: the upper left sequence is full when (3, 9) comes,
    within b of it and of (3, 13); the move joins (3, 13) alone, and is near."""
    params = Phase1Params(max_length=2)
    record = game(rcs=[(B, 3, 3), (W, 3, 5), (B, 3, 13), (W, 3, 9)])
    assert numbered(record, params) == [[((3, 3), 1, 0), ((3, 5), 2, 0)], [((3, 13), 3, 0), ((3, 9), 4, 1)]]
    assert _kernel(record, params) == _reference(record, params)


def test_with_noise_a_sequence_hidden_from_a_move_does_not_make_it_near():
    """A stone between (3, 8) and (3, 13) hides the right sequence from the
    move: with noise recognition it joins the left one alone, not near."""
    record = game(rcs=[(B, 3, 3), (W, 3, 13), (B, 15, 15), (W, 3, 8)], setup_black=(point(3, 10),))
    assert numbered(record)[:2] == [[((3, 3), 1, 0), ((3, 8), 4, 1)], [((3, 13), 2, 0), (T, 4, 0), ((3, 8), 4, 1)]]
    noise = Phase1Params(noise=True)
    assert numbered(record, noise)[:2] == [[((3, 3), 1, 0), ((3, 8), 4, 0)], [((3, 13), 2, 0)]]
    for params in (P, noise):
        assert _kernel(record, params) == _reference(record, params)


def test_handicap_stones_are_move_0_and_never_near():
    """The stones open their sequences at move 0; White's first move is 1."""
    record = handicap_game([(W, 2, 16), (B, 3, 16), (W, 2, 15)])
    assert numbered(record, H) == [
        [((3, 15), 0, 0), ((2, 16), 1, 0), ((3, 16), 2, 0), ((2, 15), 3, 0)],
        [((15, 3), 0, 0)],
    ]
    record = game(rcs=[(W, 2, 14)], handicap=2, setup_black=(point(3, 15), point(3, 12)))
    assert sorted(numbered(record, H)) == [[((3, 12), 0, 0), ((2, 14), 1, 1)], [((3, 15), 0, 0), ((2, 14), 1, 1)]]
    assert _kernel(record, H) == _reference(record, H)


def test_normal_form_keeps_each_entrys_number_and_nearness_beside_it():
    """A game turned and colour-swapped gives the same keys, and the same
    numbers and nearness entry by entry."""
    record = game(rcs=[(B, 3, 3), (W, 3, 13), (B, 15, 15), (W, 3, 8), (B, 4, 2)])
    for t, swap in MAPS:
        moved = [(s.keys, s.numbers, s.near) for s in extract(transform_record(record, t, swap), P)]
        assert moved == [(s.keys, s.numbers, s.near) for s in extract(record, P)]


@settings(max_examples=150, deadline=None)
@given(record=games(), params=params_st, noise=st.booleans(), start=st.sampled_from([4, 6, 10]))
def test_kernel_equals_reference_on_every_entrys_number_and_nearness(record, params, noise, start):
    """Even games, either colour first, passes and setup stones, with or
    without noise recognition and the start region: the kernel's sequences
    are the reference's, move numbers and nearness included."""
    params = Phase1Params(
        certain=params.certain,
        maybe=params.maybe,
        corner_stones=params.corner_stones,
        max_length=params.max_length,
        noise=noise,
        start=start,
    )
    reference = _reference(record, params)
    assert _kernel(record, params) == reference
    played = [i + 1 for i, m in enumerate(record.moves) if m.point != PASS]
    for _, _, first, numbers, near in reference:
        assert numbers[0] == first and all(n in played for n in numbers)
        assert list(numbers) == sorted(numbers) and set(near) <= {0, 1}
