"""Game records: what the method needs of a game, whatever format it came in.

A ``GameRecord`` is metadata + setup stones + the main line of moves + where
it came from.  Readers (``joseki_miner.readers``) build records; the method
never sees a file format.  This module knows points and colours but nothing
of rules (see ``board``) or of the method.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from joseki_miner.method.points import BLACK, NPOINTS, PASS, WHITE, colour_of, from_sgf, to_sgf

# The documented reasons a game is rejected (docs/inputs.md, "Reject reasons").
REJECT_REASONS = {
    "parse error": "the record could not be parsed",
    "not 19x19": "the board is not 19x19",
    "handicap": "a handicap game (include_handicap is off)",
    "bad handicap": "a handicap of more than 9 stones (include_handicap is on): not a real handicap game",
    "setup stones": "setup stones that are not a handicap's: white ones, or black ones without a handicap",
    "setup stones after the root": "stones set up or removed (AB, AW, AE) after the first move",
    "no moves": "the record holds no moves",
    "move off the board": "a move or setup stone lies outside the board",
    "move on an occupied point": "a move is played on a point that holds a stone",
    "duplicate": "the same moves as a game read earlier",
    "unreadable archive member": "an archive member could not be read",
    "undecodable text": "the text could not be decoded in any known encoding",
    "not a game": "the file holds no game record",
    "unreadable file": "a file could not be read (permissions, I/O error)",
    "archive member too large": "an archive member (or single compressed file) inflates past limits.member_mb",
    "file too large": "a game file is larger than limits.member_mb",
    "field too long": "a property value (a kifu id, an Ishi header line) is longer than limits.field_kb",
}

# The reasons that name a good record the settings leave out (include_handicap off, dedupe on), not a bad one:
# --strict stops at the first reject of any other reason
LEFT_OUT = frozenset({"handicap", "duplicate"})


def bad_record(reason: str) -> bool:
    """Is a reject of this reason a bad record (--strict stops at it)?"""
    return reason not in LEFT_OUT


# The game-info properties games.parquet keeps, one column each
GAME_INFO = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM")


@dataclass(frozen=True)
class Move:
    """One move of the main line: a colour and a point (PASS for a pass)."""

    colour: int
    point: int


@dataclass(frozen=True)
class GameRecord:
    """One game as the method sees it.

    ``source`` is the file (or archive) it was read from and ``location`` the
    place inside it (archive member, line, game index), so every reject and
    every count can be traced back.
    """

    source: str
    location: str = ""
    size: int = 19
    handicap: int = 0
    setup_black: tuple[int, ...] = ()
    setup_white: tuple[int, ...] = ()
    moves: tuple[Move, ...] = ()
    # setup stones after the root (rare in game records): (index of the move
    # they precede, colour or EMPTY for AE, point); they never capture.  A
    # game that holds any, or setup stones that are not a handicap's, is
    # read but not mined (``validate``: "setup stones after the root", "setup stones").
    setup_events: tuple[tuple[int, int, int], ...] = ()
    meta: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def where(self) -> str:
        return where_of(self.source, self.location)


def where_of(source: str, location: str) -> str:
    """Where a game was read: its source, then its location in it, if any."""
    return f"{source}:{location}" if location else source


@dataclass(frozen=True)
class Reject:
    """A game that was read but not accepted, with one documented reason."""

    source: str
    location: str
    reason: str
    detail: str = ""

    def __post_init__(self) -> None:
        if self.reason not in REJECT_REASONS:
            raise ValueError(f"undocumented reject reason: {self.reason!r}")


MAX_HANDICAP = 9  # stones; a game declaring more is no real handicap game ("bad handicap")
HANDICAP_CAP = 10**9  # a declared handicap above it reads as it: no value can wrap a fixed-width column


def declared_handicap(text: str | bytes) -> int:
    """A record's HA value as a whole number (its whole part, "2.0" -> 2),
    at most HANDICAP_CAP (so "1e400" is a huge handicap, not 0); 0 where it
    is no number.  Read exactly below the cap (a float holds those)."""
    try:
        number = float(text.strip() or "0")
    except ValueError:
        return 0
    if number != number:  # nan
        return 0
    return int(max(-HANDICAP_CAP, min(HANDICAP_CAP, number)))


def handicap_of(declared: int, black: int, white: int) -> int:
    """The handicap of a game: its HA value when that is 2 or more, else the
    number of black setup stones when only black has setup stones, else 0."""
    if declared < 2 and black and not white:
        declared = black
    return declared if declared >= 2 else 0


def game_record(
    source: str, location: str, size: int, declared_handicap: int, stones: tuple, moves, events, meta: dict
) -> GameRecord:
    """A reader's record: setup stones as read (``stones``: Black's and
    White's, repeats dropped, sorted), the handicap from HA and them
    (``handicap_of``)."""
    black, white = sorted(set(stones[0])), sorted(set(stones[1]))
    return GameRecord(
        source=source,
        location=location,
        size=size,
        handicap=handicap_of(declared_handicap, len(black), len(white)),
        setup_black=tuple(black),
        setup_white=tuple(white),
        moves=tuple(moves),
        setup_events=tuple(events),
        meta=meta,
    )


class RecordError(ValueError):
    """A record that cannot be accepted; ``reason`` is one of REJECT_REASONS."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


# -- the compact text form used in Parquet tables --------------------------
# moves: 3 characters a move, colour letter + SGF point ("tt" for a pass),
# e.g. "BpdWdpBqp"; setup stones: 2 characters a point.


def encode_moves(moves: tuple[Move, ...] | list[Move]) -> str:
    return "".join(("B" if m.colour == BLACK else "W") + (to_sgf(m.point) or "tt") for m in moves)


def decode_moves(text: str) -> tuple[Move, ...]:
    return tuple(Move(colour_of(text[i]), from_sgf(text[i + 1 : i + 3])) for i in range(0, len(text), 3))


def encode_points(points: tuple[int, ...] | list[int]) -> str:
    return "".join(to_sgf(p) for p in points)


def decode_points(text: str) -> tuple[int, ...]:
    return tuple(from_sgf(text[i : i + 2]) for i in range(0, len(text), 2))


def check_points(points: tuple[int, ...]) -> None:
    for p in points:
        if not (0 <= p < NPOINTS or p == PASS):
            raise RecordError("move off the board", str(p))


__all__ = [
    "BLACK",
    "WHITE",
    "GameRecord",
    "Move",
    "Reject",
    "RecordError",
    "REJECT_REASONS",
    "LEFT_OUT",
    "bad_record",
    "encode_moves",
    "decode_moves",
    "encode_points",
    "decode_points",
]
