"""Looking a sequence up in the mined tree: a player's moves, in any
orientation and colour, to the tree's normal form and back.

A sequence is written as SGF (``B[pd];W[qc];B[qd]``, ``;`` and blanks
optional) or as board coordinates (``Q16 R17 R16``: columns A-T without I,
rows from 1 at the bottom, as GTP and most boards write them; the first move
is Black's unless the text starts with ``W``, and a ``B`` or ``W`` before any
move gives its colour: ``B Q16 W R17``).  ``tenuki`` (or ``pass``,
``--``, ``tt``, ``B[]``) is a move elsewhere; two moves of one colour in a
row imply the other colour's tenuki between them, as in phase 1.

``Query`` holds the normal form (section 5.1: the transform and colour swap
that make the first move Black's in the canonical eighth) and maps the
tree's moves back into the player's orientation and notation.  A node's
sequences are a range of sorted_sequences.parquet; ``sorted_range`` finds the
range of every sequence that starts with given keys by binary search.

Knows points, symmetries and trie keys; nothing of files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from joseki_miner.method.board import Board
from joseki_miner.method.points import BLACK, SIZE, TENUKI, WHITE, from_sgf, to_sgf
from joseki_miner.runs.errors import JosekiError
from joseki_miner.method.symmetry import POINT_MAP, canonical_transforms, inverse

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRST"  # no I
_SGF_MOVE = re.compile(r"\s*;?\s*([BW])\s*\[([a-s]{2}|tt|)\]", re.IGNORECASE)
_TENUKI_WORDS = {"tenuki", "pass", "--", "tt"}


class SequenceError(JosekiError, ValueError):
    """Text that is not a sequence of moves; the message says where."""

    exit_code = 2


@dataclass(frozen=True)
class Query:
    """A player's sequence: its moves as given (colours, points; TENUKI for
    a tenuki) and notation, and its normal form."""

    colours: tuple[int, ...]
    points: tuple[int, ...]
    notation: str  # "sgf" or "board"
    transform: int
    swapped: bool
    keys: tuple[int, ...]

    def move_text(self, key: int, depth: int) -> str:
        """A tree key at ``depth`` (1 = the first move) written as the player
        would: in their orientation, colours and notation."""
        colour = BLACK if depth % 2 else WHITE
        if self.swapped:
            colour = -colour
        if key == TENUKI:
            return "tenuki"
        point = POINT_MAP[inverse(self.transform)][key]
        if self.notation == "sgf":
            return f"{'B' if colour == BLACK else 'W'}[{to_sgf(point)}]"
        return board_name(point)

    def text(self) -> str:
        """The sequence as the player wrote it, tenuki filled in."""
        moves = " ".join(self.move_text(k, d) for d, k in enumerate(self.keys, 1))
        return f"W {moves}" if self.swapped and self.notation == "board" else moves

    def board_move(self, key: int) -> str:
        """A tree key in the player's orientation, as a board names it: Q16, tenuki."""
        return "tenuki" if key == TENUKI else board_name(POINT_MAP[inverse(self.transform)][key])

    def board_text(self) -> str:
        """The sequence in the player's orientation, as a board names it
        ("W Q16 ..." where White starts)."""
        moves = " ".join(self.board_move(k) for k in self.keys)
        return f"W {moves}" if self.swapped else moves


def board_name(point: int) -> str:
    """Board coordinates of a point: Q16 is SGF ``pd``."""
    r, c = divmod(point, SIZE)
    return f"{GTP_COLUMNS[c]}{SIZE - r}"


def board_point(word: str) -> int:
    m = re.fullmatch(r"([A-HJ-Ta-hj-t])(\d{1,2})", word)
    if not m or not 1 <= int(m.group(2)) <= SIZE:
        raise SequenceError(f"not a point of the board: {word!r} (write Q16, R17 ... or SGF B[pd];W[qc])")
    return (SIZE - int(m.group(2))) * SIZE + GTP_COLUMNS.index(m.group(1).upper())


def parse(text: str) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """The moves of a written sequence: colours, points (TENUKI for a
    tenuki), and its notation ("sgf" or "board")."""
    text = text.strip()
    if not text:
        raise SequenceError("no moves given")
    moves: list[tuple[int, int]] = []
    if re.match(r"\(?\s*;?\s*[BW]\s*\[", text, re.IGNORECASE):
        rest = text.lstrip("(").rstrip(")").strip()
        at = 0
        while at < len(rest):
            word = re.match(r"\s*;?\s*(tenuki|pass)\b", rest[at:], re.IGNORECASE)
            if word:  # a written tenuki amid SGF moves: the other colour's
                moves.append((-moves[-1][0] if moves else WHITE, TENUKI))
                at += word.end()
                continue
            m = _SGF_MOVE.match(rest, at)
            if not m:
                if rest[at:].strip(" ;"):
                    raise SequenceError(f"not an SGF move at {rest[at : at + 12]!r}")
                break
            colour = BLACK if m.group(1).upper() == "B" else WHITE
            where = m.group(2).lower()
            moves.append((colour, TENUKI if where in ("", "tt") else from_sgf(where)))
            at = m.end()
        notation = "sgf"
    else:
        colour = BLACK
        for word in (w for w in re.split(r"[\s,;]+", text) if w):
            if word.upper() in ("B", "W"):  # the colour of the next move ("B Q16 W R17", or "W Q16 ..." alone)
                colour = BLACK if word.upper() == "B" else WHITE
                continue
            point = TENUKI if word.lower() in _TENUKI_WORDS else board_point(word)
            moves.append((colour, point))
            colour = -colour
        notation = "board"
    if not moves:
        raise SequenceError("no moves given")
    if all(p == TENUKI for _, p in moves):
        raise SequenceError("a sequence needs at least one move on the board")
    return tuple(c for c, _ in moves), tuple(p for _, p in moves), notation


def check_playable(colours: tuple[int, ...], points: tuple[int, ...], maybe: int | None = None) -> None:
    """A sequence one corner of a game can hold, or a SequenceError that
    says why not: no move on a stone (a point is played again only once a
    capture has emptied it), and, given ``maybe`` (the tree's
    distance.maybe, 4.1), each move within that distance of a stone played
    before it in the sequence."""
    board = Board()
    stones: list[tuple[int, int]] = []
    for n, (colour, point) in enumerate(zip(colours, points), 1):
        if point == TENUKI:
            continue
        if board.is_occupied(point):
            raise SequenceError(
                f"{board_name(point)} (move {n}) is played on a stone: a point is played again "
                "only once a capture has emptied it"
            )
        r, c = divmod(point, SIZE)
        if maybe is not None and stones:
            far = min(abs(r - sr) + abs(c - sc) for sr, sc in stones)
            if far > maybe:
                raise SequenceError(
                    f"{board_name(point)} (move {n}) is {far} points from the sequence's stones: "
                    f"a corner sequence's moves are within {maybe} of one (the tree's "
                    "distance.maybe), so no sequence of the tree holds it"
                )
        board.play(colour, point)
        stones.append((r, c))


def query(text: str, maybe: int | None = None, checked: bool = True) -> Query:
    """A written sequence in normal form: the first stone the first move's
    (a leading tenuki dropped), colours swapped when White starts, a tenuki
    between two moves of one colour, then the transform of section 5.1 (the
    smallest, where several give the same points).  ``checked``: a sequence
    no corner can hold is a SequenceError (``check_playable``); a caller
    that finds it in the tree first checks only what the tree does not
    hold (a capture by stones outside the corner may empty a point)."""
    colours, points, notation = parse(text)
    if checked:
        check_playable(colours, points, maybe)
    while points[0] == TENUKI:
        colours, points = colours[1:], points[1:]
    swapped = colours[0] == WHITE
    filled: list[int] = []
    previous = None
    for colour, point in zip(colours, points):
        if previous is not None and colour == previous:
            filled.append(TENUKI)
        filled.append(point)
        previous = colour
    t = canonical_transforms(filled)[0]
    keys = tuple(POINT_MAP[t][p] for p in filled)
    return Query(colours, points, notation, t, swapped, keys)


def find(parent: np.ndarray, key: np.ndarray, keys: tuple[int, ...]) -> tuple[int, int]:
    """The node of the trie table (``parent`` and ``key`` by node number,
    the root 0) at the end of ``keys``, and how many of the keys the table
    holds: (node, len(keys)) when it holds them all, else the deepest node
    it holds and its depth."""
    node = 0
    for depth, k in enumerate(keys):
        children = np.flatnonzero((parent == node) & (key == k))
        if not len(children):
            return node, depth
        node = int(children[0])
    return node, len(keys)


def children(parent: np.ndarray, node: int) -> np.ndarray:
    """The nodes whose parent is ``node``, in the table's order."""
    return np.flatnonzero(parent == node)


def _keys_at(offsets: np.ndarray, data: np.ndarray, row: int) -> list[int]:
    """The trie keys of row ``row`` of SGF moves ("--": a tenuki)."""
    pairs = data[offsets[row] : offsets[row + 1]].reshape(-1, 2).astype(np.int64)
    return [TENUKI if c == 45 else (r - 97) * SIZE + (c - 97) for c, r in pairs.tolist()]


def _side(offsets: np.ndarray, data: np.ndarray, row: int, keys: tuple[int, ...]) -> int:
    """-1, 0 or 1: row ``row`` sorts before the sequences that start with
    ``keys``, is one of them, or sorts after them."""
    have = _keys_at(offsets, data, row)
    head = tuple(have[: len(keys)])
    if head == keys:
        return 0
    return -1 if head < keys else 1  # a prefix of keys is shorter, so it sorts first


def sorted_range(offsets: np.ndarray, data: np.ndarray, keys: tuple[int, ...]) -> tuple[int, int]:
    """The rows of sequences in trie order (SGF moves: string ``offsets``
    into bytes ``data``) that start with ``keys``: [first, last), by binary
    search (a few dozen rows read, whatever their number)."""
    keys = tuple(keys)
    lo, hi = 0, len(offsets) - 1
    while lo < hi:  # the first row not before them
        m = (lo + hi) // 2
        if _side(offsets, data, m, keys) < 0:
            lo = m + 1
        else:
            hi = m
    first, hi = lo, len(offsets) - 1
    while lo < hi:  # the first row after them
        m = (lo + hi) // 2
        if _side(offsets, data, m, keys) <= 0:
            lo = m + 1
        else:
            hi = m
    return first, lo


def corner_of(orientation: int, first_key: int) -> str:
    """Where a sequence started in its game's board: the corner of its
    first stone (the tree's first key, in the game's orientation)."""
    point = POINT_MAP[inverse(orientation % 8)][first_key]
    r, c = divmod(point, SIZE)
    vertical = "upper" if r < SIZE // 2 else "lower" if r > SIZE // 2 else "middle"
    horizontal = "left" if c < SIZE // 2 else "right" if c > SIZE // 2 else "middle"
    return "centre" if vertical == horizontal == "middle" else f"{vertical} {horizontal}".replace("middle ", "")
