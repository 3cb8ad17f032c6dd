"""Global influence (thesis section 8): beam scores, classes, verdicts."""

from __future__ import annotations

import pytest

from helpers import game
from joseki_miner.method.board import Board
from joseki_miner.method.influence import INF_BLACK, INF_NEUTRAL, INF_WHITE, beam_scores, classify, verdict
from joseki_miner.method.points import BLACK, SIZE, WHITE, from_sgf, point
from joseki_miner.method.sequences import Phase1Params, assign, extract
from joseki_miner.method.symmetry import transform_scores

# -- Diagram 12 -----------------------------------------------------------------

# The bottom-right sequence is the six stones inside the box rows 12..17,
# columns 12..16 (marked by position below); the last one played is black
# "pm" = (12, 15), the thesis' triangle stone, which sets the top of the box.
#
#   * black "pd" = (3, 15): straight above the box, 9 lines up from its top
#     edge (row 12 - 9 = 3)                                  -> up  = -(17-9) = -8
#   * left of the box (the beam is rows 11..18, searched from column 11):
#       black (14, 8):  distance 12 - 8  = 4                   -> -13
#       black (16, 4):  distance 12 - 4  = 8                   -> -9
#       white (17, 2):  distance 12 - 2  = 10                  -> +7
#                                                      left  = -15
#   * nothing to the right (columns 17, 18) or below (row 18) -> 0 and 0
#
# which are the thesis' numbers: up, right, down, left = -8, 0, 0, -15.
DIAGRAM_12 = """
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . X . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . . X . . .
    . . . . . . . . . . . . . . . . O . .
    . . . . . . . . X . . . . . . . . . .
    . . . . . . . . . . . . O . . X . . .
    . . . . X . . . . . . . . O . . . . .
    . . O . . . . . . . . . . . . X . . .
    . . . . . . . . . . . . . . . . . . .
"""
BOX_12 = (12, 17, 12, 16)  # rmin, rmax, cmin, cmax of the six sequence stones
SEQUENCE_12 = "B pp W nq B pr W mp W qn B pm"  # W plays twice: a tenuki


def test_diagram_12_left_influence_is_minus_15():
    """The worked figure: -13 - 9 + 7 = -15 to the left; -8, 0, 0 up,
    right and down."""
    board = Board.from_diagram(DIAGRAM_12)
    assert beam_scores(board.grid, BOX_12, 17) == (-8, 0, 0, -15)


def test_diagram_12_each_stone_contributes_17_minus_its_distance():
    board = Board.from_diagram(DIAGRAM_12)
    grid = board.grid
    for where, alone in [((14, 8), -13), ((16, 4), -9), ((17, 2), 7)]:
        g = list(grid)
        for other in [(14, 8), (16, 4), (17, 2)]:
            if other != where:
                g[point(*other)] = 0
        assert beam_scores(g, BOX_12, 17)[3] == alone


def test_diagram_12_from_a_replayed_game_and_normalized():
    """The same position reached by phase 1: the five sequence stones are
    moves, the four influence stones are setup stones; the scores of the
    last move are the thesis' numbers, and the normal form carries them to
    the upper-left corner (mirror rows and columns, or that and a
    transposition): up and left there are the edges."""
    record = game(
        SEQUENCE_12,
        setup_black=(from_sgf("pd"), point(14, 8), point(16, 4)),
        setup_white=(point(17, 2),),
    )
    seqs = assign(record, Phase1Params())
    assert len(seqs) == 1
    seq = seqs[0]
    assert seq.box == BOX_12
    assert seq.scores[-1] == (-8, 0, 0, -15)
    (normal,) = extract(record, Phase1Params())
    # the bottom-right corner goes to the upper-left: left -> right, up -> down
    # (and, when transposed as well, up -> right, left -> down)
    assert normal.scores[-1] in ((0, -15, -8, 0), (0, -8, -15, 0))
    assert normal.scores[-1] == transform_scores(normal.transform, normal.swapped, (-8, 0, 0, -15))
    assert normal.swapped is False  # black played first


def test_a_stone_in_the_box_does_not_count():
    board = Board.from_diagram(DIAGRAM_12)
    board.grid[point(14, 13)] = WHITE  # inside the box: no beam sees it
    assert beam_scores(board.grid, BOX_12, 17) == (-8, 0, 0, -15)


# -- the beam ---------------------------------------------------------------------


def grid_with(*stones):
    g = [0] * (SIZE * SIZE)
    for colour, r, c in stones:
        g[point(r, c)] = colour
    return g


BOX = (6, 8, 6, 9)  # rows 6..8, columns 6..9; beams: rows 5..9, columns 5..10


@pytest.mark.parametrize(
    "stone, direction",
    [
        ((5, 2), 3),  # top widened line, left
        ((9, 2), 3),  # bottom widened line, left
        ((5, 15), 1),  # right
        ((9, 15), 1),
        ((2, 5), 0),  # left widened column, up
        ((2, 10), 0),  # right widened column, up
        ((14, 5), 2),  # down
        ((14, 10), 2),
    ],
)
def test_the_widened_line_is_in_the_beam(stone, direction):
    """Beam width = box width plus one line each side."""
    scores = beam_scores(grid_with((BLACK, *stone)), BOX, 17)
    r, c = stone
    d = {3: 6 - c, 1: c - 9, 0: 6 - r, 2: r - 8}[direction]
    expected = [0, 0, 0, 0]
    expected[direction] = -(17 - d)
    assert scores == tuple(expected)


@pytest.mark.parametrize("stone", [(4, 2), (10, 2), (4, 15), (10, 15), (2, 4), (2, 11), (14, 4), (14, 11)])
def test_a_stone_just_outside_the_widened_beam_is_not_seen(stone):
    assert beam_scores(grid_with((WHITE, *stone)), BOX, 17) == (0, 0, 0, 0)


def test_the_beam_widens_with_the_box():
    # 1x1 box at (9, 9): the left beam is rows 8..10
    for r, seen in [(7, False), (8, True), (9, True), (10, True), (11, False)]:
        left = beam_scores(grid_with((WHITE, r, 3)), (9, 9, 9, 9), 17)[3]
        assert left == (11 if seen else 0), r


def test_each_line_stops_at_the_first_stone():
    g = grid_with((BLACK, 7, 4), (WHITE, 7, 1))  # row 7: black at distance 2, white behind it
    assert beam_scores(g, BOX, 17)[3] == -15
    g = grid_with((WHITE, 7, 4), (BLACK, 7, 1), (BLACK, 6, 3))  # another row counts on its own
    assert beam_scores(g, BOX, 17)[3] == 15 - 14


def test_every_line_of_the_beam_adds_up():
    # a white wall on column 12 facing the right side, all 5 lines: 5 * (17 - 3)
    g = grid_with(*[(WHITE, r, 12) for r in range(0, 19)])
    assert beam_scores(g, BOX, 17)[1] == 5 * 14


def test_reach_17():
    """A stone at distance d scores 17 - d; at distance 17 or more nothing."""
    box = (9, 9, 18, 18)  # a stone on the right edge: the left beam runs 18 points
    for col, score in [(17, 16), (10, 9), (2, 1), (1, 0), (0, 0)]:
        g = grid_with((BLACK, 9, col))
        assert beam_scores(g, box, 17) == (0, 0, 0, -score), col
    # out of reach in one line, just in reach in the next
    g = grid_with((BLACK, 9, 1), (WHITE, 8, 2))
    assert beam_scores(g, box, 17)[3] == 1
    # reach is a parameter
    assert beam_scores(grid_with((WHITE, 9, 8)), box, 10)[3] == 0  # distance 10
    assert beam_scores(grid_with((WHITE, 9, 9)), box, 10)[3] == 1  # distance 9


def test_beams_stop_at_the_board_edge():
    # a box touching the upper and left edges sees nothing up or left
    g = grid_with((BLACK, 0, 0), (WHITE, 18, 18))
    assert beam_scores(g, (0, 3, 0, 3), 17) == (0, 0, 0, 0)
    g = grid_with((BLACK, 0, 2), (WHITE, 2, 0))
    assert beam_scores(g, (1, 3, 1, 3), 17) == (-16, 0, 0, 16)


def test_a_stone_diagonally_off_the_box_corner_is_in_two_beams():
    """The widened lines of two beams cross at the box's diagonal corner."""
    g = grid_with((BLACK, 0, 4))
    assert beam_scores(g, (1, 3, 1, 3), 17) == (-16, -16, 0, 0)


def test_colours_are_signed():
    assert beam_scores(grid_with((BLACK, 7, 3)), BOX, 17)[3] == -14
    assert beam_scores(grid_with((WHITE, 7, 3)), BOX, 17)[3] == 14


# -- classes and verdicts -----------------------------------------------------------


def test_classify_neutral_band_is_inclusive():
    assert classify(-5, 5) == INF_NEUTRAL
    assert classify(5, 5) == INF_NEUTRAL
    assert classify(0, 5) == INF_NEUTRAL
    assert classify(-6, 5) == INF_BLACK
    assert classify(6, 5) == INF_WHITE
    assert classify(-15, 5) == INF_BLACK  # Diagram 12: black influence
    assert classify(0, 0) == INF_NEUTRAL
    assert classify(-1, 0) == INF_BLACK
    assert classify(1, 0) == INF_WHITE
    assert classify(9, 10) == INF_NEUTRAL


def test_verdict_share_strictly_greater():
    assert verdict(4, 0, 6, 0.30) == "black"
    assert verdict(3, 0, 7, 0.30) == "none"  # exactly 30% is not more than 30%
    assert verdict(0, 4, 6, 0.30) == "white"
    assert verdict(0, 3, 7, 0.30) == "none"
    assert verdict(27, 27, 36, 0.30) == "none"


def test_verdict_any_none_and_one_colour():
    assert verdict(4, 4, 2, 0.30) == "any"
    assert verdict(31, 30, 39, 0.30) == "black"  # white exactly at 30%
    assert verdict(30, 31, 39, 0.30) == "white"
    assert verdict(1, 1, 8, 0.30) == "none"
    assert verdict(0, 0, 0, 0.30) == "none"
    assert verdict(10, 0, 0, 0.30) == "black"
    assert verdict(2, 2, 0, 0.5) == "none"  # share is a parameter
    assert verdict(3, 2, 0, 0.5) == "black"
