"""validate: the checks a game passes before mining, on small hand-made
records; here the setup stones, which are read as a handicap's or leave
the game out, never mined as an empty corner."""

from __future__ import annotations

import pytest

from joseki_miner.method.records import GameRecord, RecordError
from joseki_miner.method.validate import check
from joseki_miner.readers.sgf import read_sgf_bytes

MOVES = ";B[pc];W[dp];B[qq];W[cd]"


def record(text: str) -> GameRecord:
    (item,) = read_sgf_bytes(text.encode(), "test.sgf")
    assert isinstance(item, GameRecord), item
    return item


def verdict(text: str, include_handicap: bool) -> tuple[str, str] | None:
    try:
        check(record(text), include_handicap)
    except RecordError as exc:
        return exc.reason, exc.detail
    return None


@pytest.mark.parametrize(
    "root,moves,off,on",
    [
        # black and white stones set up at the root without HA: a position, no handicap
        ("AB[pd][qp]AW[dd][dq]", MOVES, ("setup stones", "2 black and 2 white setup stones"), None),
        ("AW[dd]", MOVES, ("setup stones", "1 white setup stone"), None),  # only white ones
        ("AB[pd]", MOVES, ("setup stones", "1 black setup stone"), None),  # one black stone is no handicap
        # a handicap game with white setup stones too: its white stones would be mined as an empty corner
        (
            "HA[2]AB[pd][dp]AW[dd]",
            ";W[qp];B[cd]",
            ("handicap", "handicap 2"),
            "handicap 2: 2 black and 1 white setup stones",
        ),
        ("HA[2]AW[dd]", ";W[qp];B[cd]", ("handicap", "handicap 2"), "handicap 2: 1 white setup stone"),
        # setup after the first move: AB, AW, AE in a later node
        ("", ";B[pd];W[dp];AB[cc];B[qq]", ("setup stones after the root", "AB after move 2"), None),
        ("", ";B[pd];AE[pd]AW[cc];W[dp]", ("setup stones after the root", "AE after move 1"), None),
    ],
)
def test_setup_stones_that_are_not_a_handicaps_reject_their_game(root, moves, off, on):
    """Each reason with include_handicap off and on: a game rejected for
    its setup with handicaps left out stays rejected with them read (the
    handicap game's reason becomes "setup stones")."""
    text = f"(;GM[1]FF[4]SZ[19]{root}{moves})"
    assert verdict(text, False) == off
    assert verdict(text, True) == (off if on is None else ("setup stones", on))


@pytest.mark.parametrize("text", ["(;GM[1]SZ[19]AB[tt]AW[]" + MOVES + ")", "(;GM[1]SZ[19];B[pd];W[dp];AB[tt];B[qq])"])
def test_pass_like_setup_points_are_no_stones(text):
    """A "tt" or an empty value in a setup list, at the root or after it."""
    assert verdict(text, False) is None


def test_a_point_emptied_at_the_root_holds_no_setup_stone():
    assert verdict("(;GM[1]SZ[19]AB[pd][dd];AE[dd]" + MOVES + ")", True) == ("setup stones", "1 black setup stone")
    assert verdict("(;GM[1]SZ[19]AW[dd];AE[dd]" + MOVES + ")", True) is None


def test_a_handicap_games_own_stones_are_read_as_a_handicap():
    text = "(;GM[1]FF[4]SZ[19]HA[2]AB[pd][dp];W[qp];B[cd])"
    assert verdict(text, False) == ("handicap", "handicap 2")
    assert verdict(text, True) is None
    assert verdict("(;GM[1]FF[4]SZ[19]AB[pd][dp];W[qp];B[cd])", True) is None  # no HA: its black stones
