"""A 19x19 Go board that replays game records with the rules of SGF FF[5].

A move is executed in three steps (FF[5], "B / W: Move"):

1. the point is overwritten with the mover's colour, whatever was there
   (no prisoners are taken for an overwritten stone);
2. every opponent chain *adjacent to the move* that has no liberties is
   removed (several chains may go at once);
3. only then, if the mover's own chain has no liberties, it is removed
   (suicide).  A move that captured something in step 2 never suicides.

Setup stones (AB / AW / AE) just set points: they never capture, and
breathless stones they leave stay on the board until a later move next to
them removes them.  Only chains adjacent to a move are ever checked.

What this module deliberately does not know:

* legality in the game sense: ``play`` does not refuse an occupied point,
  a suicide or a ko retake; callers that care (the readers reject "move on
  an occupied point") check ``is_occupied`` first;
* corner sequences, joseki, symmetry, influence or anything else of the
  method: it only turns a ``GameRecord`` into positions;
* file formats: it never sees SGF or any other text except its own ASCII
  diagrams (used by tests and debugging).

The grid is a flat list of 361 ints (``point = row * 19 + col``, BLACK -1,
WHITE +1, EMPTY 0), the convention of ``joseki_miner.method.points``.
"""

from __future__ import annotations

from collections.abc import Iterable

from joseki_miner.method.points import BLACK, EMPTY, NPOINTS, PASS, SIZE, WHITE, neighbours

_NB = tuple(neighbours(p) for p in range(NPOINTS))

_DIAGRAM_CHARS = {".": EMPTY, "X": BLACK, "O": WHITE}
_DIAGRAM_OUT = {EMPTY: ".", BLACK: "X", WHITE: "O"}


class IllegalMove(ValueError):
    """A move or setup stone that cannot be executed at all (a point off the
    board, or a colour that is not BLACK / WHITE / EMPTY)."""


class Board:
    """19x19 board; grid is a list of 361 ints (BLACK -1, WHITE +1, EMPTY 0)."""

    __slots__ = ("grid", "_mark", "_stamp")

    def __init__(self) -> None:
        self.grid: list[int] = [EMPTY] * NPOINTS
        # flood-fill marker: a point is "seen" in the current fill when
        # _mark[p] == _stamp; bumping the stamp clears all marks at once.
        self._mark: list[int] = [0] * NPOINTS
        self._stamp = 0

    # -- moves and setup -----------------------------------------------------

    def play(self, colour: int, point: int) -> list[int]:
        """Execute a move as FF[5] says (overwrite, capture adjacent opponent
        groups without liberties, then suicide of the mover's group).

        Returns the captured points (opponent stones, or the mover's own
        stones on suicide), sorted.  PASS (-1) does nothing and returns [].
        Raises IllegalMove for a point off the board or a colour that is not
        BLACK or WHITE.
        """
        if point == PASS:
            return []
        if colour != BLACK and colour != WHITE:
            raise IllegalMove(f"not a colour to move: {colour!r}")
        if not 0 <= point < NPOINTS:
            raise IllegalMove(f"move off the board: {point!r}")
        grid = self.grid
        grid[point] = colour
        opponent = -colour
        captured: list[int] = []
        for n in _NB[point]:
            # a chain already removed through another neighbour is EMPTY now
            if grid[n] == opponent:
                dead = self._dead_chain(n)
                if dead is not None:
                    for q in dead:
                        grid[q] = EMPTY
                    captured.extend(dead)
        if captured:
            # a captured neighbour is a liberty of the move: no suicide
            captured.sort()
            return captured
        dead = self._dead_chain(point)
        if dead is None:
            return []
        for q in dead:
            grid[q] = EMPTY
        dead.sort()
        return dead

    def setup(self, colour: int, points: Iterable[int]) -> None:
        """Set points to colour (EMPTY for AE); never captures."""
        if colour != BLACK and colour != WHITE and colour != EMPTY:
            raise IllegalMove(f"not a setup colour: {colour!r}")
        grid = self.grid
        for p in points:
            if not 0 <= p < NPOINTS:
                raise IllegalMove(f"setup stone off the board: {p!r}")
            grid[p] = colour

    # -- queries ---------------------------------------------------------------

    def is_occupied(self, point: int) -> bool:
        """True if a stone (of either colour) stands on point."""
        return self.grid[point] != EMPTY

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.grid = self.grid[:]
        other._mark = [0] * NPOINTS
        other._stamp = 0
        return other

    def group(self, point: int) -> list[int]:
        """The chain containing point, sorted ([] for an empty point)."""
        chain, _ = self._chain(point)
        chain.sort()
        return chain

    def liberties(self, point: int) -> int:
        """Number of distinct liberties of the chain containing point
        (0 for an empty point)."""
        _, libs = self._chain(point)
        return libs

    # -- ASCII diagrams ---------------------------------------------------------

    @classmethod
    def from_diagram(cls, text: str) -> Board:
        """Board from an ASCII diagram: rows of '.', 'X' (black), 'O' (white),
        separated by spaces optional; a diagram smaller than 19x19 is placed
        at the top-left corner; blank lines and leading/trailing whitespace
        ignored.  Raises ValueError for any other character or a diagram
        larger than the board.
        """
        board = cls()
        grid = board.grid
        rows = [line.split() for line in text.strip().splitlines()]
        rows = ["".join(cells) for cells in rows if cells]
        if len(rows) > SIZE:
            raise ValueError(f"diagram has {len(rows)} rows, more than {SIZE}")
        for r, line in enumerate(rows):
            if len(line) > SIZE:
                raise ValueError(f"diagram row {r} has {len(line)} points, more than {SIZE}")
            for c, ch in enumerate(line):
                try:
                    grid[r * SIZE + c] = _DIAGRAM_CHARS[ch]
                except KeyError:
                    raise ValueError(f"unknown diagram character {ch!r} in row {r}") from None
        return board

    def diagram(self, rows: int = SIZE, cols: int = SIZE) -> str:
        """The top-left ``rows`` x ``cols`` part as an ASCII diagram (points
        separated by spaces, one line a row); inverse of ``from_diagram``."""
        grid = self.grid
        return "\n".join(" ".join(_DIAGRAM_OUT[grid[r * SIZE + c]] for c in range(cols)) for r in range(rows))

    def __repr__(self) -> str:
        return f"Board(\n{self.diagram()}\n)"

    # -- flood fill --------------------------------------------------------------

    def _dead_chain(self, p: int) -> list[int] | None:
        """The chain of the stone at p if it has no liberties, else None.

        Stops at the first liberty found, so live chains are cheap.
        """
        grid = self.grid
        colour = grid[p]
        mark = self._mark
        self._stamp += 1
        stamp = self._stamp
        mark[p] = stamp
        chain = [p]
        i = 0
        while i < len(chain):
            for n in _NB[chain[i]]:
                v = grid[n]
                if v == EMPTY:
                    return None
                if v == colour and mark[n] != stamp:
                    mark[n] = stamp
                    chain.append(n)
            i += 1
        return chain

    def _chain(self, p: int) -> tuple[list[int], int]:
        """(points of the chain at p, number of its distinct liberties)."""
        grid = self.grid
        colour = grid[p]
        if colour == EMPTY:
            return [], 0
        mark = self._mark
        self._stamp += 1
        stamp = self._stamp
        mark[p] = stamp
        chain = [p]
        libs = 0
        i = 0
        while i < len(chain):
            for n in _NB[chain[i]]:
                if mark[n] == stamp:
                    continue
                v = grid[n]
                if v == EMPTY:
                    mark[n] = stamp
                    libs += 1
                elif v == colour:
                    mark[n] = stamp
                    chain.append(n)
            i += 1
        return chain, libs


def replay(record) -> Board:
    """Board after all setup stones and moves of a GameRecord.

    setup_black / setup_white first, then the moves; ``record.setup_events``
    are (move_index, colour_or_EMPTY, point) applied just before the move
    with that index, or after the last move if index == len(moves).  Setup
    never captures.  Raises ValueError for a setup event whose index lies
    outside 0..len(moves), IllegalMove for a point off the board.
    """
    board = Board()
    board.setup(BLACK, record.setup_black)
    board.setup(WHITE, record.setup_white)
    moves = record.moves
    events = record.setup_events
    play = board.play
    if not events:
        for m in moves:
            play(m.colour, m.point)
        return board
    n = len(moves)
    by_index: dict[int, list[tuple[int, int]]] = {}
    for index, colour, p in events:
        if not 0 <= index <= n:
            raise ValueError(f"setup event before move {index}, but the record has {n} moves")
        by_index.setdefault(index, []).append((colour, p))
    for i, m in enumerate(moves):
        pending = by_index.get(i)
        if pending:
            for colour, p in pending:
                board.setup(colour, (p,))
        play(m.colour, m.point)
    for colour, p in by_index.get(n, ()):
        board.setup(colour, (p,))
    return board


def moves_on(board: Board, record):
    """Set ``record``'s starting position on ``board`` (black then white
    setup stones) and yield (index, move) for each of its moves, after the
    setup events that come before that move have been applied (setup never
    captures).  The caller plays the moves: this is how phase 1 and the
    validation walk a game."""
    board.setup(BLACK, record.setup_black)
    board.setup(WHITE, record.setup_white)
    events = list(record.setup_events)
    for index, move in enumerate(record.moves):
        while events and events[0][0] <= index:
            _, colour, p = events.pop(0)
            board.setup(colour, (p,))
        yield index, move


__all__ = ["Board", "IllegalMove", "moves_on", "replay"]
