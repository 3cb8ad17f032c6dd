"""A player's sequence in any orientation, colour and notation: to the
tree's normal form and back (joseki_miner.book.lookup)."""

from __future__ import annotations

import numpy as np
import pytest

from joseki_miner.book.lookup import SequenceError, board_name, parse, query, sorted_range
from joseki_miner.method.points import BLACK, TENUKI, WHITE, from_sgf, to_sgf

dd, cc, dc, fc = (from_sgf(s) for s in ("dd", "cc", "dc", "fc"))


def test_board_points_are_gtp_points():
    assert board_name(from_sgf("pd")) == "Q16"
    assert board_name(from_sgf("aa")) == "A19" and board_name(from_sgf("ss")) == "T1"
    assert board_name(from_sgf("ia")) == "J19"  # no I


@pytest.mark.parametrize(
    "text", ["Q16 R17 R16", "B[pd];W[qc];B[qd]", ";B[pd] ;W[qc];B[qd]", "(;B[pd];W[qc];B[qd])", "q16, r17, r16"]
)
def test_the_same_sequence_written_any_way_has_one_normal_form(text):
    q = query(text)
    assert q.keys == (dd, cc, dc)  # the 3-3 invasion under a 4-4 stone, blocked
    assert not q.swapped


def test_white_first_swaps_colours_and_tenuki_is_filled_in():
    q = query("W Q16 R17")
    assert q.swapped and q.keys == (dd, cc) and q.colours == (WHITE, BLACK)
    assert q.text() == "W Q16 R17"
    q = query("B[pd];B[qc]")
    assert q.keys == (dd, TENUKI, cc)
    assert q.text() == "B[pd] tenuki B[qc]"
    assert query("Q16 tenuki R17").keys == (dd, TENUKI, cc)


def test_each_move_may_be_prefixed_by_its_colour():
    """ "B Q16 W R17" is "Q16 R17", as "W Q16 B R17" is "W Q16 R17"; two
    moves of one colour in a row imply a tenuki, as in SGF."""
    assert query("B Q16 W R17").keys == query("Q16 R17").keys
    assert query("W Q16 B R17").keys == query("W Q16 R17").keys and query("W Q16 B R17").swapped
    assert query("B Q16 B R17").keys == (dd, TENUKI, cc)
    assert query("b q16, w r17").keys == query("Q16 R17").keys


def test_tree_moves_are_written_back_in_the_players_orientation():
    q = query("Q16")  # upper right
    assert q.move_text(fc, 2) in ("O17", "R14")  # the knight's approach, from one side or the other
    q = query("B[dp]")  # lower left, as SGF
    assert q.move_text(TENUKI, 2) == "tenuki"
    text = q.move_text(fc, 2)
    assert text.startswith("W[") and query(f"B[dp];{text}").keys == (dd, fc)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "no moves"),
        ("Z99", "not a point"),
        ("Q16 R99", "not a point"),
        ("B[pd];X", "not an SGF move"),
        ("tenuki", "at least one move"),
    ],
)
def test_what_is_not_a_sequence_says_why(text, words):
    with pytest.raises(SequenceError, match=words):
        parse(text)


def _moves_column(sequences: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    texts = ["".join("--" if k == TENUKI else to_sgf(k) for k in s).encode() for s in sequences]
    offsets = np.r_[0, np.cumsum([len(t) for t in texts])].astype(np.int64)
    return offsets, np.frombuffer(b"".join(texts), np.uint8)


def test_the_range_of_sequences_that_start_with_keys():
    """In trie order (a prefix first, tenuki last), by binary search."""
    rows = sorted([(dd,), (dd, cc), (dd, cc, dc), (dd, cc, TENUKI), (dd, fc), (dd, TENUKI), (dc,), (dc, dd), (cc,)])
    offsets, data = _moves_column(rows)
    for keys in [(dd,), (dd, cc), (dd, cc, dc), (dc,), (cc, dd), (dd, TENUKI), (fc,), ()]:
        lo, hi = sorted_range(offsets, data, keys)
        assert [r for r in rows[lo:hi]] == [r for r in rows if r[: len(keys)] == keys], keys
        assert all(r[: len(keys)] < keys for r in rows[:lo] if r[: len(keys)] != keys)


def test_answers_write_counts_and_years_as_a_person_does():
    """ "1 game", not "1 games"; "2016", not "2016-2016"."""
    from joseki_miner.book.answers import lookup_text
    from joseki_miner.book.words import counted, year_span

    assert counted(1, "game") == "1 game" and counted(2045, "game") == "2,045 games"
    assert year_span(2016, 2016) == "2016" and year_span(2001, 2018) == "2001-2018" and year_span(None, None) == ""
    found = {
        "first_player": "black",
        "board": "Q16 R17",
        "normal_board": "D16 C17",
        "count": 1,
        "games": 1,
        "first_year": 2016,
        "last_year": 2016,
        "black_wins": 1,
        "white_wins": 0,
        "sources": {},
        "continuations": [],
        "ended_or_rarer": 1,
    }
    text = lookup_text(found)
    assert "1 sequence in 1 game, 2016\n" in text and "of 1 game with a winner" in text
    assert "2016-2016" not in text and "1 games" not in text
