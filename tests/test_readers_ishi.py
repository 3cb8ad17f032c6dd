"""The Ishi Standard Format, with the specification's own sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from joseki_miner.method.points import BLACK, PASS, WHITE, to_sgf
from joseki_miner.readers import read_paths, sniff
from joseki_miner.readers.ishi import read_ishi_bytes
from joseki_miner.method.records import GameRecord, Move, Reject

SAMPLE = Path(__file__).parent / "fixtures" / "readers" / "testspec.go"


def read(text: str) -> list:
    return list(read_ishi_bytes(text.encode("ascii"), "t.go"))


def sgf_moves(record: GameRecord) -> list[str]:
    return [("B" if m.colour == BLACK else "W") + (to_sgf(m.point) or "tt") for m in record.moves]


def loc(letter: str, row: int) -> int:
    """A letter-number location as a point, worked out by hand."""
    col = "abcdefghjklmnopqrst".index(letter.lower())
    return (19 - row) * 19 + col


@pytest.fixture(scope="module")
def sample():
    return list(read_paths([SAMPLE]))


def test_sample_has_three_events(sample):
    assert [i.location for i in sample] == ["event 1", "event 2", "event 3"]
    assert [type(i).__name__ for i in sample] == ["GameRecord", "Reject", "GameRecord"]
    assert sniff("testspec.go", SAMPLE.read_bytes()) == "ishi"
    assert b"\r\n" in SAMPLE.read_bytes()


def test_sample_event_1_game(sample):
    game = sample[0]
    assert len(game.moves) == 58
    assert game.moves[0] == Move(BLACK, loc("R", 16))
    assert sgf_moves(game)[:4] == ["Bqd", "Wdc", "Bpq", "Woc"]  # R16 D17 Q3 P17
    assert game.moves[25] == Move(WHITE, loc("J", 3))  # W 26 J3: J is the 9th column
    assert game.moves[-1] == Move(WHITE, loc("G", 5))
    assert [m.colour for m in game.moves] == [BLACK, WHITE] * 29
    assert game.setup_black == game.setup_white == () and game.handicap == 0
    assert game.meta == {}  # the remarks before it are not data


def test_sample_event_2_is_10x10(sample):
    reject = sample[1]
    assert isinstance(reject, Reject) and reject.reason == "not 19x19" and "10" in reject.detail


def test_sample_event_3_problem(sample):
    problem = sample[2]
    assert problem.meta == {"EV": "Problem 1 from Ishigure"}
    black = "R16 C4 R5 P17 O5 P6 Q6 O7 P8 O3 N5 M5".split()
    white = "E17 Q3 E3 Q8 P5 P4 O6 N6 Q10 O4 N4 L3".split()
    assert problem.setup_black == tuple(sorted(loc(x[0], int(x[1:])) for x in black))
    assert problem.setup_white == tuple(sorted(loc(x[0], int(x[1:])) for x in white))
    assert problem.handicap == 0
    # main line only: variations (nested, with comments and user blocks) skipped
    main = [("B", "Q12"), ("W", "M6"), ("B", "L5"), ("W", "L6"), ("B", "K5"), ("W", "L8")]
    assert problem.moves == tuple(Move(BLACK if c == "B" else WHITE, loc(x[0], int(x[1:]))) for c, x in main)


def test_headers_and_handicap():
    text = (
        "EVENT Honinbo 1989 Final\nblack Alan Chen (9 years old)\nWHITE Kato 9 Dan\nKomi 5\n"
        "KOMI 4.5\nSource one\nsource two\nHANDICAP 2\nresult Black by 3\nSETUP B d4 q16\n"
        "b 1 pass\nW 2 Q4\n"
    )
    [g] = read(text)
    assert g.meta == {
        "EV": "Honinbo 1989 Final",
        "PB": "Alan Chen (9 years old)",
        "PW": "Kato 9 Dan",
        "KM": "4.5",
        "SO": "one two",
        "HA": "2",
        "RE": "Black by 3",
    }
    assert g.handicap == 2 and g.setup_black == tuple(sorted((loc("D", 4), loc("Q", 16))))
    assert g.moves == (Move(BLACK, PASS), Move(WHITE, loc("Q", 4)))


def test_implicit_event_and_handicap_from_setup():
    [g] = read("REMARK hi\nSETUP B D4 Q16 Q4\nW 1 C3\n")
    assert g.handicap == 3 and g.location == ""


def test_empty_event_is_a_record_without_moves():
    items = read("EVENT one\nEVENT two\nB 1 D4\n")
    assert [len(i.moves) for i in items] == [0, 1]


@pytest.mark.parametrize(
    "line, reason",
    [
        ("B 22 Q3 R7", "parse error"),  # the specification's own error example
        ("B 3", "parse error"),
        ("B x Q3", "parse error"),
        ("B 0 Q3", "parse error"),
        ("B 3 I5", "parse error"),  # no letter I
        ("B 3 Q20", "move off the board"),
        ("B 3 U5", "move off the board"),
        ("B 3 Q0", "move off the board"),
        ("SETUP Q4", "parse error"),
        ("BOARDSIZE nine", "parse error"),
        ("ENDVAR", "parse error"),
    ],
)
def test_errors_spoil_only_their_event(line, reason):
    items = read(f"EVENT one\nB 1 D4\nW 2 Q16\n{line}\nEVENT two\nB 1 D4\n")
    assert isinstance(items[0], Reject) and items[0].reason == reason and items[0].detail
    assert isinstance(items[1], GameRecord) and len(items[1].moves) == 1


def test_blocks_hide_keywords():
    text = "EVENT x\nB 1 D4\nCOM title\nB 2 Q4\nEVENT not an event\nENDCOM\nUSER\nW 2 Q16\nENDVAR\nEnduser\nW 2 C3\n"
    [g] = read(text)
    assert g.moves == (Move(BLACK, loc("D", 4)), Move(WHITE, loc("C", 3)))


def test_unclosed_comment_spoils_its_event_only():
    items = read("EVENT a\nB 1 D4\nCOM oops\ntext\nEVENT b\nB 1 Q4\nEVENT c\nB 1 C3\n")
    assert [type(i).__name__ for i in items] == ["Reject", "GameRecord", "GameRecord"]
    assert "COM without ENDCOM" in items[0].detail
    assert items[1].moves == (Move(BLACK, loc("Q", 4)),)


def test_diagram_setup_is_not_the_position():
    [g] = read("EVENT\nSETUP B D4\nB 1 Q4\nDIAGRAM\nSETUP W C3 C4\nHIDE #1\nW 2 Q16\n")
    assert g.setup_black == (loc("D", 4),) and g.setup_white == ()
    assert len(g.moves) == 2


def test_setup_after_moves_is_an_event():
    [g] = read("EVENT\nB 1 Q4\nSETUP W C3\nB 2 D4\n")
    assert g.setup_events == ((1, WHITE, loc("C", 3)),)


def test_case_insensitive_and_blanks():
    [g] = read("  event\tmixed Case\n\tbOaRdSiZe 19\n  b   1   q4  \n w 2 PASS\n")
    assert g.meta["EV"] == "mixed Case"
    assert g.moves == (Move(BLACK, loc("Q", 4)), Move(WHITE, PASS))


def test_no_event_at_all_is_not_a_game():
    [r] = read("REMARK only a remark\n")
    assert r.reason == "not a game"


def test_read_paths_finds_ishi_by_content(tmp_path):
    (tmp_path / "game").write_text("EVENT g\nB 1 Q4\nW 2 D4\n")
    (tmp_path / "notes.txt").write_text("Black is strong.\nWhite is weak.\n")
    (tmp_path / "main.go").write_text("package main\nfunc main() {}\n")
    skipped = []
    items = list(read_paths([tmp_path], on_skip=lambda s, where, w: skipped.append(Path(s).name)))
    assert [Path(i.source).name for i in items] == ["game"]
    assert sorted(skipped) == ["main.go", "notes.txt"]


def test_a_header_past_the_field_limit_makes_its_event_too_long():
    """limits.field_kb: a header line (or an EVENT title) longer than it
    rejects its event as "field too long"; the other events are read."""
    text = "EVENT one\nBLACK " + "x" * 3000 + "\nB 1 Q16\nEVENT two\nB 1 Q16\nEVENT " + "t" * 3000 + "\nB 1 D4\n"
    items = list(read_ishi_bytes(text.encode("ascii"), "t.go", field_bytes=2048))
    assert [i.reason if isinstance(i, Reject) else "game" for i in items] == [
        "field too long",
        "game",
        "field too long",
    ]
    assert items[0].detail == "line 2: BLACK of 3,000 bytes (limits.field_kb: at most 2,048)"
    assert all(isinstance(i, GameRecord) for i in read(text))  # within the default limit
