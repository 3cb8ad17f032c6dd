"""Accept or reject a game record before mining: board size, handicap,
setup stones, moves, legality on a real board.

Knows records and the board; nothing of the method or of files.
"""

from __future__ import annotations

from joseki_miner.method.board import Board, moves_on
from joseki_miner.method.points import BLACK, PASS, SIZE, WHITE
from joseki_miner.method.records import MAX_HANDICAP, GameRecord, RecordError

_SETUP_NAMES = {BLACK: "AB", WHITE: "AW"}  # AE for any other (an emptied point)


def check(record: GameRecord, include_handicap: bool) -> None:
    """Raise RecordError with a documented reason when the game cannot be
    mined; return None when it can."""
    if record.size != SIZE:
        raise RecordError("not 19x19", f"board size {record.size}")
    if record.handicap and not include_handicap:
        raise RecordError("handicap", f"handicap {record.handicap}")
    if record.handicap > MAX_HANDICAP:
        raise RecordError("bad handicap", f"handicap {record.handicap}: more than {MAX_HANDICAP} stones")
    setup = setup_stones(len(record.setup_black), len(record.setup_white), record.handicap)
    if setup is not None:
        raise RecordError("setup stones", setup)
    if record.setup_events:
        raise RecordError("setup stones after the root", setup_after_root(record.setup_events))
    if not any(m.point != PASS for m in record.moves):
        raise RecordError("no moves")
    board = Board()
    for index, move in moves_on(board, record):
        if move.point == PASS:
            continue
        if board.grid[move.point]:
            raise RecordError("move on an occupied point", f"move {index + 1}")
        board.play(move.colour, move.point)


def setup_stones(black: int, white: int, handicap: int) -> str | None:
    """Why setup stones before the first move (``black`` and ``white`` of
    them) are not a handicap game's, or None when they are (none at all, or
    black ones only in a handicap game).  The method reads a handicap's
    stones; any other setup would be mined as an empty corner."""
    if not white and (not black or handicap):
        return None
    counts = " and ".join(f"{n} {colour}" for n, colour in ((black, "black"), (white, "white")) if n)
    stones = f"{counts} setup stone{'s' if black + white > 1 else ''}"
    return f"handicap {handicap}: {stones}" if handicap else stones


def setup_after_root(events: tuple[tuple[int, int, int], ...]) -> str:
    """Where a game's first setup after its first move is: "AB after move 11"."""
    at, colour, _ = events[0]
    name = _SETUP_NAMES.get(colour, "AE")
    return f"{name} after move {at}" if at else f"{name} before the first move"
