"""SGF game records through sgfmill: main line only, setup stones kept.

Converts sgfmill's (row from the bottom, col) to the package's points.
"""

from __future__ import annotations

from collections.abc import Iterator

from sgfmill import sgf

from ..points import BLACK, EMPTY, PASS, SIZE, WHITE
from ..records import GameRecord, Move, Reject

META_PROPERTIES = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "RU", "PC")


def _point(size: int, rc: tuple[int, int] | None) -> int:
    if rc is None:
        return PASS
    row_from_bottom, col = rc
    return (size - 1 - row_from_bottom) * SIZE + col


def game_from_sgf(game: sgf.Sgf_game, source: str, location: str = "") -> GameRecord | Reject:
    """One parsed sgfmill game as a record (or a reject with its reason)."""
    size = game.get_size()
    if size != SIZE:
        return Reject(source, location, "not 19x19", f"board size {size}")
    root = game.get_root()
    meta = {}
    for prop in META_PROPERTIES:
        if root.has_property(prop):
            try:
                meta[prop] = str(root.get(prop))
            except (ValueError, UnicodeDecodeError):
                continue
    try:
        handicap = int(root.get("HA")) if root.has_property("HA") else 0
    except ValueError:
        handicap = 0
    black, white = [], []
    moves, events = [], []
    try:
        for index, node in enumerate(game.get_main_sequence()):
            ab, aw, ae = node.get_setup_stones()
            if index == 0:
                black.extend(_point(size, rc) for rc in sorted(ab))
                white.extend(_point(size, rc) for rc in sorted(aw))
            else:
                for colour, stones in ((EMPTY, ae), (BLACK, ab), (WHITE, aw)):
                    events.extend((len(moves), colour, _point(size, rc)) for rc in sorted(stones))
            colour, rc = node.get_move()
            if colour is not None:
                moves.append(Move(BLACK if colour == "b" else WHITE, _point(size, rc)))
    except ValueError as exc:
        return Reject(source, location, "parse error", str(exc))
    if handicap < 2 and black and not white:
        handicap = len(black)
    return GameRecord(
        source=source,
        location=location,
        size=size,
        handicap=handicap if handicap >= 2 else 0,
        setup_black=tuple(black),
        setup_white=tuple(white),
        moves=tuple(moves),
        setup_events=tuple(events),
        meta=meta,
    )


def read_sgf_bytes(data: bytes, source: str, location: str = "") -> Iterator[GameRecord | Reject]:
    """The game in one SGF text."""
    try:
        game = sgf.Sgf_game.from_bytes(data)
    except ValueError as exc:
        yield Reject(source, location, "parse error", str(exc))
        return
    yield game_from_sgf(game, source, location)
