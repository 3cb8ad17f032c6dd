"""records: the move codec and the handicap rule shared by every reader."""

from __future__ import annotations

import pytest

from joseki_miner.method.points import BLACK, PASS, WHITE
from joseki_miner.method.records import (
    HANDICAP_CAP,
    Move,
    Reject,
    decode_moves,
    declared_handicap,
    encode_moves,
    handicap_of,
)


@pytest.mark.parametrize(
    "declared,black,white,expected",
    [
        (0, 0, 0, 0),  # an even game
        (1, 0, 0, 0),  # HA[1] is no handicap
        (3, 3, 0, 3),  # HA with its stones
        (0, 4, 0, 4),  # no HA: only black setup stones are a handicap
        (0, 4, 2, 0),  # setup stones of both colours are a position, not a handicap
        (0, 1, 0, 0),  # one stone is no handicap
        (5, 0, 0, 5),  # HA without stones (free placement to come)
    ],
)
def test_handicap_of(declared, black, white, expected):
    assert handicap_of(declared, black, white) == expected


def test_move_codec_round_trips_with_passes():
    moves = (Move(BLACK, 60), Move(WHITE, PASS), Move(BLACK, 0), Move(WHITE, 360))
    text = encode_moves(moves)
    assert text == "BddWttBaaWss"  # 3 characters a move, a pass as "tt"
    assert decode_moves(text) == moves


def test_rejects_need_a_documented_reason():
    with pytest.raises(ValueError, match="undocumented"):
        Reject("f.sgf", "", "it felt wrong")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("3", 3),
        (b" 40000 ", 40000),
        ("2.0", 2),
        ("", 0),
        ("two", 0),
        ("nan", 0),
        ("-4", -4),
        ("18446744073709551618", HANDICAP_CAP),
        ("1e400", HANDICAP_CAP),
        ("9" * 5000, HANDICAP_CAP),
    ],
)
def test_declared_handicap_is_exact_below_its_cap_and_never_wraps(text, expected):
    assert declared_handicap(text) == expected
