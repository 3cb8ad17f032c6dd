"""Phase 1, step 1 (thesis 4.1): give each move of a game to its corner
sequences, with the influence each move saw (section 8).

A move joins every open sequence whose nearest stone lies within the "maybe"
distance b (Manhattan).  It starts a sequence of its own when it is within the
"certain" distance a of no sequence, unless it is within b of two or more
sequences.  When a sequence gets two moves of the same colour in a row, the
other side played elsewhere: a tenuki is recorded between them.  Reading stops
once every corner holds ``corner_stones`` stones, and a sequence stops growing
at ``max_length`` entries (tenuki included; it never ends on a tenuki).

Each entry keeps two facts of the game beside it: its move number (from 1,
passes counted; a tenuki takes the number of the move that brings play
back, a handicap stone 0) and whether the move was played near another
sequence, that is within b of two or more sequences as it was played (0 for
a tenuki and a handicap stone).

Two rules of the thesis' future work, off by default in the thesis' own
config: a move starts a sequence only within ``start`` lines of its
corner's two edges (section 9's "smarter sequence mechanism": a move on the
central line or far up the side starts none, though it still joins a
sequence near it); and noise
recognition (5.2): a stone of a sequence counts for a move's distance only
when no other stone stands in the way, that is, on a point of the rectangle
the two span (corners included, the two themselves excluded) that is not a
point the sequence has played.

The board is split into four corners by its central lines; a stone on a
central line counts for both corners beside it (tengen for all four).

Knows boards and records; nothing of symmetry, tries or files.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from joseki_miner.method.board import BLACK, WHITE, Board, moves_on
from joseki_miner.method.influence import beam_scores
from joseki_miner.method.points import PASS, SIZE, TENUKI
from joseki_miner.method.records import GameRecord
from joseki_miner.method.symmetry import normalize

MID = SIZE // 2


@dataclass(frozen=True)
class Phase1Params:
    """The knobs of phase 1 (see configs/default.yaml)."""

    certain: int = 5
    maybe: int = 5
    corner_stones: int = 20
    max_length: int = 30
    reach: int = 17
    start: int = 10  # a sequence starts within this many lines of its corner's edges (10: anywhere)
    noise: bool = False  # 5.2: stones in the way hide a sequence's stone from a move
    handicap: bool = False  # a handicap game's stones start their corners' sequences (include_handicap.starts)


@dataclass
class Sequence:
    """A corner sequence in board coordinates, as the game played it."""

    colours: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)  # TENUKI for a tenuki
    scores: list[tuple[int, int, int, int]] = field(default_factory=list)
    stones: list[tuple[int, int]] = field(default_factory=list)  # (row, col) played
    numbers: list[int] = field(default_factory=list)  # each entry's move number (module docstring)
    near: list[int] = field(default_factory=list)  # 1 where the entry's move was near another sequence
    box: tuple[int, int, int, int] = (SIZE, -1, SIZE, -1)  # rmin, rmax, cmin, cmax
    start: int = 0  # the move number (from 1, passes counted) of its first move

    def distance(self, r: int, c: int) -> int:
        """Manhattan distance from (r, c) to the nearest stone played in it."""
        return min(abs(r - sr) + abs(c - sc) for sr, sc in self.stones)

    def clear_distance(self, r: int, c: int, grid: list[int], within: int) -> int:
        """Noise recognition (5.2): the distance from (r, c) to the nearest
        stone of the sequence, at most ``within``, that no other stone
        hides (``in_the_way``); ``within + 1`` when there is none."""
        best = within + 1
        mine = set(self.points)
        for sr, sc in self.stones:
            d = abs(r - sr) + abs(c - sc)
            if d < best and not in_the_way(grid, r, c, sr, sc, mine):
                best = d
        return best

    def add_stone(self, colour: int, point: int, number: int = 0, near: bool = False) -> None:
        r, c = divmod(point, SIZE)
        self.colours.append(colour)
        self.points.append(point)
        self.numbers.append(number)
        self.near.append(int(near))
        self.stones.append((r, c))
        rmin, rmax, cmin, cmax = self.box
        self.box = (min(rmin, r), max(rmax, r), min(cmin, c), max(cmax, c))


@dataclass(frozen=True)
class NormalSequence:
    """A sequence in normal form (section 5.1): trie keys (points, TENUKI)
    starting with black and alternating, and the influence each saw; per
    entry, as ``Sequence`` keeps them, its move number and whether it was
    played near another sequence."""

    keys: tuple[int, ...]
    scores: tuple[tuple[int, int, int, int], ...]
    transform: int
    swapped: bool
    start: int = 0  # the move number in the game where it starts (from 1)
    numbers: tuple[int, ...] = ()
    near: tuple[int, ...] = ()


def in_the_way(grid: list[int], r: int, c: int, sr: int, sc: int, mine: set[int]) -> bool:
    """Whether a stone stands between (r, c) and (sr, sc): on a point of
    the rectangle they span, but the two themselves, that is not one of
    ``mine`` (the points the sequence played)."""
    for row in range(min(r, sr), max(r, sr) + 1):
        for col in range(min(c, sc), max(c, sc) + 1):
            p = row * SIZE + col
            if grid[p] and p not in mine and (row, col) != (r, c) and (row, col) != (sr, sc):
                return True
    return False


def lines_from_edges(point: int) -> int:
    """On which line from its corner's two edges a point lies: the larger
    of its lines from the nearer side and from the nearer top or bottom
    (the 4-4 point: 4; tengen: 10)."""
    r, c = divmod(point, SIZE)
    return max(min(r, SIZE - 1 - r), min(c, SIZE - 1 - c)) + 1


def corners_of(point: int) -> tuple[int, ...]:
    """Corners (0 upper-left, 1 upper-right, 2 lower-left, 3 lower-right)
    whose quarter of the board holds the point, central lines shared."""
    r, c = divmod(point, SIZE)
    rows = (0,) if r < MID else (1,) if r > MID else (0, 1)
    cols = (0,) if c < MID else (1,) if c > MID else (0, 1)
    return tuple(2 * i + j for i in rows for j in cols)


def handicap_stones(record: GameRecord, params: Phase1Params) -> tuple[int, ...]:
    """The stones that open corner sequences before the first move: a
    handicap game's black setup stones, in board order, where
    ``params.handicap`` asks for them; none otherwise."""
    return tuple(record.setup_black) if params.handicap and record.handicap > 0 else ()


def assign(record: GameRecord, params: Phase1Params) -> list[Sequence]:
    """Replay a game and split its opening into corner sequences.  Handicap
    stones (``handicap_stones``) come first, all on the board at once: each
    opens a sequence of its own at move 0 (within ``start`` lines of its
    corner's edges, as any first move) and joins no other's, so the
    sequences do not depend on the order the stones are listed in."""
    board = Board()
    board.setup(BLACK, record.setup_black)
    board.setup(WHITE, record.setup_white)
    in_corner = [0, 0, 0, 0]
    for p in (*record.setup_black, *record.setup_white):
        for k in corners_of(p):
            in_corner[k] += 1
    sequences: list[Sequence] = []
    for p in handicap_stones(record, params):
        if lines_from_edges(p) <= params.start:
            seq = Sequence(start=0)
            seq.add_stone(BLACK, p)
            seq.scores.append(beam_scores(board.grid, seq.box, params.reach))
            sequences.append(seq)
    for index, move in moves_on(board, record):
        if move.point == PASS:
            continue
        _place(sequences, board, params, move.colour, move.point, index + 1)
        for k in corners_of(move.point):
            in_corner[k] += 1
        if min(in_corner) >= params.corner_stones:
            break
    return sequences


def _place(sequences: list[Sequence], board: Board, params: Phase1Params, colour: int, point: int, start: int) -> None:
    """Play move number ``start`` and give it to its corner sequences (4.1):
    it joins every sequence within b (a tenuki first where that sequence's
    last stone is its own colour) and starts one where none is within a and
    at most one within b.  Distances and a tenuki's influence are read
    before the move is played; the move is near another sequence where two
    or more are within b, whether or not each can take it (``max_length``)."""
    r, c = divmod(point, SIZE)
    a, b, cap = params.certain, params.maybe, params.max_length
    grid = board.grid
    near_b, near_a = [], False
    for seq in sequences:
        d = seq.clear_distance(r, c, grid, b) if params.noise else seq.distance(r, c)
        if d <= b:
            near_b.append(seq)
        if d <= a:
            near_a = True
    near = len(near_b) >= 2
    joining = []
    for seq in near_b:
        tenuki = seq.colours[-1] == colour
        if len(seq.points) + (2 if tenuki else 1) <= cap:
            joining.append(seq)
            if tenuki:  # the influence when play comes back, before the move
                seq.colours.append(-colour)
                seq.points.append(TENUKI)
                seq.scores.append(beam_scores(grid, seq.box, params.reach))
                seq.numbers.append(start)
                seq.near.append(0)
    board.play(colour, point)
    for seq in joining:
        seq.add_stone(colour, point, start, near)
        seq.scores.append(beam_scores(grid, seq.box, params.reach))
    if not near and not near_a and lines_from_edges(point) <= params.start:
        seq = Sequence(start=start)
        seq.add_stone(colour, point, start)
        seq.scores.append(beam_scores(grid, seq.box, params.reach))
        sequences.append(seq)


def extract(record: GameRecord, params: Phase1Params) -> list[NormalSequence]:
    """Phase 1 for one game: its corner sequences in normal form, in the
    order they were started.  A pure function of the record, so games can be
    mined in any order, in any process."""
    out = []
    for seq in assign(record, params):
        t, swapped, keys, scores = normalize(seq.colours, seq.points, seq.scores)  # the entries kept in order
        out.append(NormalSequence(keys, scores, t, swapped, seq.start, tuple(seq.numbers), tuple(seq.near)))
    return out


__all__ = [
    "Phase1Params",
    "Sequence",
    "NormalSequence",
    "assign",
    "extract",
    "corners_of",
    "handicap_stones",
    "in_the_way",
    "lines_from_edges",
]
