"""Accept or reject a game record before mining: board size, handicap,
moves, legality on a real board.

Knows records and the board; nothing of the method or of files.
"""

from __future__ import annotations

from joseki_miner.method.board import Board, moves_on
from joseki_miner.method.points import PASS, SIZE
from joseki_miner.method.records import MAX_HANDICAP, GameRecord, RecordError


def check(record: GameRecord, include_handicap: bool) -> None:
    """Raise RecordError with a documented reason when the game cannot be
    mined; return None when it can."""
    if record.size != SIZE:
        raise RecordError("not 19x19", f"board size {record.size}")
    if record.handicap and not include_handicap:
        raise RecordError("handicap", f"handicap {record.handicap}")
    if record.handicap > MAX_HANDICAP:
        raise RecordError("bad handicap", f"handicap {record.handicap}: more than {MAX_HANDICAP} stones")
    if not any(m.point != PASS for m in record.moves):
        raise RecordError("no moves")
    board = Board()
    for index, move in moves_on(board, record):
        if move.point == PASS:
            continue
        if board.grid[move.point]:
            raise RecordError("move on an occupied point", f"move {index + 1}")
        board.play(move.colour, move.point)
