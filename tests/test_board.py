"""Board rules (SGF FF[5] move execution), drawn as small ASCII diagrams.

Diagrams sit at the top-left corner of the 19x19 board: X black, O white.
"""

from __future__ import annotations

import random

import pytest

from joseki_miner.method.board import Board, IllegalMove, moves_on, replay
from joseki_miner.method.points import BLACK, EMPTY, PASS, SIZE, WHITE, from_sgf, point
from joseki_miner.method.records import GameRecord, Move


def board(text: str) -> Board:
    return Board.from_diagram(text)


def same(b: Board, text: str) -> bool:
    """b equals the diagram, and the rest of the board is empty."""
    return b.grid == Board.from_diagram(text).grid


def sgf(*coords: str) -> list[int]:
    return [from_sgf(c) for c in coords]


# -- captures ----------------------------------------------------------------


def test_capture_in_the_middle():
    b = board("""
        . . . . .
        . . X . .
        . X O X .
        . . . . .
    """)
    assert b.play(BLACK, point(3, 2)) == [point(2, 2)]
    assert same(
        b,
        """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
    """,
    )


def test_capture_on_the_edge():
    b = board("""
        . X O X .
        . . . . .
    """)
    assert b.liberties(point(0, 2)) == 1
    assert b.play(BLACK, point(1, 2)) == [point(0, 2)]
    assert same(
        b,
        """
        . X . X .
        . . X . .
    """,
    )


def test_capture_in_the_corner():
    b = board("""
        O X .
        . . .
    """)
    assert b.play(BLACK, point(1, 0)) == [point(0, 0)]
    assert same(
        b,
        """
        . X .
        X . .
    """,
    )


def test_capture_in_the_far_corner():
    b = Board()
    b.setup(WHITE, [point(18, 18)])
    b.setup(BLACK, [point(18, 17)])
    assert b.play(BLACK, point(17, 18)) == [point(18, 18)]
    assert not b.is_occupied(point(18, 18))


def test_white_captures_black():
    b = board("""
        . O .
        O X O
        . . .
    """)
    assert b.play(WHITE, point(2, 1)) == [point(1, 1)]
    assert b.grid[point(1, 1)] == EMPTY


def test_one_move_captures_two_separate_groups():
    b = board("""
        . X X . X .
        X O O . O X
        . X X . X .
    """)
    assert b.group(point(1, 1)) == [point(1, 1), point(1, 2)]
    assert b.group(point(1, 4)) == [point(1, 4)]
    assert b.play(BLACK, point(1, 3)) == [point(1, 1), point(1, 2), point(1, 4)]
    assert same(
        b,
        """
        . X X . X .
        X . . X . X
        . X X . X .
    """,
    )


def test_one_move_captures_four_stones_around_it():
    b = board("""
        . . X . .
        . X O X .
        X O . O X
        . X O X .
        . . X . .
    """)
    assert b.play(BLACK, point(2, 2)) == [point(1, 2), point(2, 1), point(2, 3), point(3, 2)]
    assert b.liberties(point(2, 2)) == 4


def test_capture_of_a_big_group():
    b = board("""
        O O O O X
        O O O O X
        O O O X .
        X X . . .
    """)
    assert len(b.group(point(0, 0))) == 11
    assert b.liberties(point(0, 0)) == 1
    captured = b.play(BLACK, point(3, 2))
    assert len(captured) == 11
    assert captured == sorted(captured)
    assert same(
        b,
        """
        . . . . X
        . . . . X
        . . . X .
        X X X . .
    """,
    )


def test_filling_the_last_eye_captures_the_ring():
    # the black stone has no liberty of its own: capture comes first
    b = board("""
        X X X X X
        X O O O X
        X O . O X
        X O O O X
        X X X X X
        . . . . .
    """)
    captured = b.play(BLACK, point(2, 2))
    assert len(captured) == 8
    assert same(
        b,
        """
        X X X X X
        X . . . X
        X . X . X
        X . . . X
        X X X X X
    """,
    )
    assert b.liberties(point(2, 2)) == 4


def test_a_chain_with_a_liberty_is_not_captured():
    b = board("""
        . X O O .
        . . X . .
    """)
    assert b.play(BLACK, point(1, 3)) == []
    assert b.group(point(0, 2)) == [point(0, 2), point(0, 3)]
    assert b.liberties(point(0, 2)) == 1


# -- suicide -------------------------------------------------------------------


def test_suicide_of_a_single_stone():
    text = """
        . X .
        X . X
        . X .
    """
    b = board(text)
    assert b.play(WHITE, point(1, 1)) == [point(1, 1)]
    assert same(b, text)


def test_suicide_of_a_multi_stone_group():
    b = board("""
        X X X .
        X O . X
        X X X .
    """)
    assert b.play(WHITE, point(1, 2)) == [point(1, 1), point(1, 2)]
    assert same(
        b,
        """
        X X X .
        X . . X
        X X X .
    """,
    )


def test_suicide_in_the_corner():
    b = board("""
        . X
        X .
    """)
    assert b.play(WHITE, point(0, 0)) == [point(0, 0)]
    assert b.grid[point(0, 0)] == EMPTY


def test_ff5_example_white_overwrites_black_then_suicides():
    # (;FF[5]GM[1]SZ[6] AB[cb][bc][cc][dc][cd] ;W[cc] )
    b = Board()
    b.setup(BLACK, sgf("cb", "bc", "cc", "dc", "cd"))
    assert same(
        b,
        """
        . . . .
        . . X .
        . X X X
        . . X .
    """,
    )
    # phase 1 overwrites the black stone (no prisoners), phase 2 finds no
    # black chain without liberties, phase 3 removes the white stone
    assert b.play(WHITE, from_sgf("cc")) == [from_sgf("cc")]
    assert same(
        b,
        """
        . . . .
        . . X .
        . X . X
        . . X .
    """,
    )


def test_capture_takes_precedence_over_suicide():
    # the white stone at (1,2) has no liberty after the move; it captures
    # the black stone at (1,1) first and so lives
    b = board("""
        . O X . .
        O X . X .
        . O X . .
    """)
    assert b.play(WHITE, point(1, 2)) == [point(1, 1)]
    assert same(
        b,
        """
        . O X . .
        O . O X .
        . O X . .
    """,
    )


# -- ko ----------------------------------------------------------------------


def test_ko_capture_and_retake():
    b = board("""
        . X O .
        X O . O
        . X O .
    """)
    assert b.play(BLACK, point(1, 2)) == [point(1, 1)]
    assert same(
        b,
        """
        . X O .
        X . X O
        . X O .
    """,
    )
    assert b.group(point(1, 2)) == [point(1, 2)]
    assert b.liberties(point(1, 2)) == 1
    # play() does not enforce the ko rule: the retake works the same way
    assert b.play(WHITE, point(1, 1)) == [point(1, 2)]
    assert same(
        b,
        """
        . X O .
        X O . O
        . X O .
    """,
    )


# -- setup -----------------------------------------------------------------------

NODE0 = """
    . . . . . .
    . X X X X .
    . X X X X .
    . X X X X .
    . X X X X .
    . . . . . .
"""
NODE1 = """
    . . . . . .
    . O X X X .
    . X X O X .
    . X O X X .
    . X X X O .
    . . . . . .
"""
NODE2 = """
    . . . . . .
    . O O X O .
    . O X O X .
    . X O X O .
    . O X O O .
    . . . . . .
"""
NODE3 = """
    . . . . . .
    . O O X O .
    . O X . X .
    . X . X O .
    . O X O O .
    . . . . . .
"""
BB_EE = sgf(*(c + r for c in "bcde" for r in "bcde"))


def test_setup_never_captures_ff5_example():
    # (;FF[5]GM[1]SZ[6] AB[bb:ee] ;AW[bb][ee][dc][cd]
    #  ;AW[cb][bc][be][eb][ed][de] ;AE[dc][cd] )
    b = Board()
    b.setup(BLACK, BB_EE)
    assert same(b, NODE0)
    b.setup(WHITE, sgf("bb", "ee", "dc", "cd"))
    assert same(b, NODE1)  # no captures: an illegal position
    assert b.liberties(from_sgf("dc")) == 0
    assert b.liberties(from_sgf("cd")) == 0
    b.setup(WHITE, sgf("cb", "bc", "be", "eb", "ed", "de"))
    assert same(b, NODE2)  # breathless stones of both colours stay
    assert b.liberties(from_sgf("cc")) == 0  # black
    assert b.liberties(from_sgf("dd")) == 0  # black
    assert b.liberties(from_sgf("dc")) == 0  # white
    b.setup(EMPTY, sgf("dc", "cd"))  # AE: cleared, no prisoners
    assert same(b, NODE3)


def test_move_captures_breathless_adjacent_stones_ff5_example():
    # (;FF[5]GM[1]SZ[6] AB[bb:ee]AW[bb][ee][dc][cd][cb][bc][be][eb][ed][de]
    #  ;B[dd] ): B overwrites its own stone, then takes the two W stones
    b = Board()
    b.setup(BLACK, BB_EE)
    b.setup(WHITE, sgf("bb", "ee", "dc", "cd", "cb", "bc", "be", "eb", "ed", "de"))
    assert same(b, NODE2)
    assert b.play(BLACK, from_sgf("dd")) == sorted(sgf("dc", "cd"))
    assert same(b, NODE3)


def test_only_chains_adjacent_to_the_move_are_checked():
    b = Board()
    b.setup(BLACK, BB_EE)
    b.setup(WHITE, sgf("bb", "ee", "dc", "cd", "cb", "bc", "be", "eb", "ed", "de"))
    expected = Board.from_diagram(NODE2)
    assert b.play(BLACK, point(5, 2)) == []  # next to black ce only
    assert b.play(WHITE, point(0, 0)) == []  # next to nothing
    expected.setup(BLACK, [point(5, 2)])
    expected.setup(WHITE, [point(0, 0)])
    assert b.grid == expected.grid
    # breathless stones of both colours, not next to a move, stay
    assert b.liberties(from_sgf("dc")) == 0
    assert b.liberties(from_sgf("cc")) == 0
    # a move next to a chain takes it: W da leaves black db without liberties
    assert b.play(WHITE, from_sgf("da")) == [from_sgf("db")]


def test_setup_overwrites_and_ae_clears():
    b = board("""
        X O .
        . . .
    """)
    b.setup(WHITE, [point(0, 0)])
    b.setup(BLACK, [point(0, 1), point(1, 1)])
    b.setup(EMPTY, [point(1, 1), point(2, 2)])  # AE of an empty point is harmless
    assert same(
        b,
        """
        O X .
        . . .
    """,
    )


def test_setup_accepts_any_iterable():
    b = Board()
    b.setup(BLACK, (p for p in range(3)))
    assert b.diagram(1, 4) == "X X X ."


# -- overwrite and pass ---------------------------------------------------------


def test_move_on_occupied_point_overwrites_without_prisoners():
    b = board("""
        . . .
        . O .
        . . .
    """)
    assert b.is_occupied(point(1, 1))
    assert b.play(BLACK, point(1, 1)) == []  # the white stone is no prisoner
    assert b.grid[point(1, 1)] == BLACK


def test_overwrite_then_captures():
    b = board("""
        X O X .
        . O . .
        . . . .
    """)
    assert b.play(BLACK, point(1, 1)) == [point(0, 1)]
    assert same(
        b,
        """
        X . X .
        . X . .
    """,
    )


def test_overwrite_splitting_a_chain_checks_each_part():
    b = board("""
        X O X
        X O X
        X O X
        . . .
    """)
    assert b.play(BLACK, point(1, 1)) == [point(0, 1)]
    assert same(
        b,
        """
        X . X
        X X X
        X O X
    """,
    )
    assert b.liberties(point(2, 1)) == 1


def test_overwrite_of_own_stone_captures_breathless_neighbour():
    b = board("""
        X O X
        . X .
    """)  # set up: the white stone is already breathless
    assert b.play(BLACK, point(1, 1)) == [point(0, 1)]
    assert same(
        b,
        """
        X . X
        . X .
    """,
    )


def test_pass_does_nothing():
    text = """
        . X O .
        X O . O
    """
    b = board(text)
    assert b.play(BLACK, PASS) == []
    assert b.play(WHITE, PASS) == []
    assert same(b, text)


def test_off_board_and_bad_colour_are_illegal():
    b = Board()
    with pytest.raises(IllegalMove):
        b.play(BLACK, 361)
    with pytest.raises(IllegalMove):
        b.play(EMPTY, 0)
    with pytest.raises(IllegalMove):
        b.setup(BLACK, [400])
    assert issubclass(IllegalMove, ValueError)
    assert b.grid == [EMPTY] * 361


# -- queries, copies, diagrams --------------------------------------------------


def test_group_and_liberties_count_distinct_points():
    b = board("""
        X X . .
        X . X .
        . . . .
    """)
    assert b.group(point(0, 1)) == [point(0, 0), point(0, 1), point(1, 0)]
    # liberties (0,2), (1,1), (2,0): (1,1) is shared by two stones, counted once
    assert b.liberties(point(0, 0)) == 3
    assert b.group(point(2, 2)) == []
    assert b.liberties(point(2, 2)) == 0


def test_copy_is_independent():
    b = board("X O")
    c = b.copy()
    c.play(BLACK, point(1, 1))
    c.setup(EMPTY, [point(0, 0)])
    assert b.diagram(2, 2) == "X O\n. ."
    assert c.diagram(2, 2) == ". O\n. X"


def test_diagram_round_trip_and_placement():
    b = Board.from_diagram("""

        XO.
        .X O

    """)
    assert b.grid[point(0, 0)] == BLACK
    assert b.grid[point(0, 1)] == WHITE
    assert b.grid[point(1, 1)] == BLACK
    assert b.grid[point(1, 2)] == WHITE
    assert sum(1 for v in b.grid if v) == 4
    assert b.diagram(2, 3) == "X O .\n. X O"
    assert Board.from_diagram(b.diagram()).grid == b.grid
    assert len(b.diagram().splitlines()) == SIZE


def test_diagram_rejects_unknown_characters_and_oversize():
    with pytest.raises(ValueError):
        Board.from_diagram("X ? O")
    with pytest.raises(ValueError):
        Board.from_diagram("." * 20)
    with pytest.raises(ValueError):
        Board.from_diagram("\n".join(["."] * 20))


# -- replay ----------------------------------------------------------------------


def test_replay_with_setup_stones_and_moves():
    record = GameRecord(
        source="test",
        setup_black=(point(0, 1), point(1, 0)),
        setup_white=(point(0, 0), point(5, 5)),  # (0,0) breathless: stays
        moves=(
            Move(BLACK, point(3, 3)),
            Move(WHITE, PASS),
            Move(BLACK, point(0, 2)),  # not adjacent to (0,0): no capture
            Move(WHITE, point(9, 9)),
            Move(BLACK, point(1, 1)),  # not adjacent either
        ),
    )
    b = replay(record)
    assert same(
        b,
        """
        O X X .
        X X . .
        . . . .
        . . . X
        . . . .
        . . . . . O
        . . . .
        . . . .
        . . . .
        . . . . . . . . . O
    """,
    )


def test_replay_captures_during_the_moves():
    record = GameRecord(
        source="test",
        setup_black=(point(0, 1),),
        setup_white=(point(0, 0),),
        moves=(Move(WHITE, point(1, 1)), Move(BLACK, point(1, 0))),
    )
    b = replay(record)
    assert same(
        b,
        """
        . X
        X O
    """,
    )


def test_replay_applies_setup_events_before_their_move():
    record = GameRecord(
        source="test",
        moves=(
            Move(BLACK, point(0, 1)),
            Move(WHITE, point(0, 0)),
            Move(BLACK, point(2, 2)),
            Move(WHITE, point(3, 3)),
        ),
        setup_events=(
            (1, BLACK, point(1, 0)),  # before W (0,0), which is then a suicide
            (2, EMPTY, point(0, 1)),  # AE takes no prisoners
            (4, WHITE, point(1, 1)),  # after the last move
            (4, EMPTY, point(2, 2)),
        ),
    )
    b = replay(record)
    # had the AB come after move 1, W (0,0) would have lived
    assert same(
        b,
        """
        . . . .
        X O . .
        . . . .
        . . . O
    """,
    )


def test_replay_setup_event_before_a_capturing_move():
    record = GameRecord(
        source="test",
        setup_white=(point(0, 0),),
        moves=(Move(BLACK, point(0, 1)), Move(BLACK, point(1, 0))),
        setup_events=((1, WHITE, point(0, 1)),),  # AW overwrites the black stone
    )
    b = replay(record)
    assert same(
        b,
        """
        O O
        X .
    """,
    )


def test_replay_rejects_setup_event_past_the_end():
    record = GameRecord(
        source="test",
        moves=(Move(BLACK, point(3, 3)),),
        setup_events=((2, BLACK, point(0, 0)),),
    )
    with pytest.raises(ValueError):
        replay(record)


# -- against an independent implementation ------------------------------------------


def test_random_games_agree_with_sgfmill():
    boards = pytest.importorskip("sgfmill.boards")
    rng = random.Random(20070101)
    for game in range(40):
        ours = Board()
        theirs = boards.Board(SIZE)
        colour = BLACK
        total_captured = 0
        for _ in range(300):
            empty = [p for p in range(SIZE * SIZE) if not ours.is_occupied(p)]
            # favour a small area so that captures and suicides happen often
            if game % 2:
                empty = [p for p in empty if p % SIZE < 6 and p // SIZE < 6] or empty
            p = rng.choice(empty)
            before = sum(1 for v in ours.grid if v)
            captured = ours.play(colour, p)
            r, c = divmod(p, SIZE)
            theirs.play(SIZE - 1 - r, c, "b" if colour == BLACK else "w")
            assert sum(1 for v in ours.grid if v) == before + 1 - len(captured)
            total_captured += len(captured)
            colour = -colour
        for r in range(SIZE):
            for c in range(SIZE):
                v = theirs.get(SIZE - 1 - r, c)
                want = EMPTY if v is None else (BLACK if v == "b" else WHITE)
                assert ours.grid[point(r, c)] == want, (game, r, c)
        if game % 2:
            assert total_captured > 0


def test_moves_on_applies_setup_events_before_their_move():
    """The walk phase 1 and validation share: setup events take effect just
    before the move they precede, and the caller plays the moves."""
    record = GameRecord(
        source="t",
        setup_black=(0,),
        setup_white=(1,),
        moves=(Move(BLACK, 40), Move(WHITE, 41), Move(BLACK, 42)),
        setup_events=((1, EMPTY, 0), (2, WHITE, 19)),
    )
    board = Board()
    seen = []
    for index, move in moves_on(board, record):
        seen.append((index, board.grid[0], board.grid[19]))
        board.play(move.colour, move.point)
    # before move 0: the setup stones only; before move 1: black's corner
    # stone cleared (AE); before move 2: a white stone added at 19
    assert seen == [(0, BLACK, EMPTY), (1, EMPTY, EMPTY), (2, EMPTY, WHITE)]
    assert board.grid[1] == WHITE and board.grid[42] == BLACK
