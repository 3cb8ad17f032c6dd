"""Points, colours and SGF coordinates: the one convention of the package.

Knows nothing of games, rules or the method; every other module builds on it.
"""

from __future__ import annotations

import functools

SIZE = 19
NPOINTS = SIZE * SIZE
PASS = -1
TENUKI = NPOINTS  # trie key of a tenuki; never a board point
# A sequence's first PREFIX_KEYS trie keys as one number, in the trie's
# order (``fast.fasttrie.prefixes``): each key + 1 in PREFIX_BITS bits, the
# first the most significant, 0 past the sequence's end (a sequence comes
# before its extensions).  PREFIX: how many numbers one first key spans
# (key k: (k + 1) * PREFIX up to (k + 2) * PREFIX); PREFIX_END: more than any.
PREFIX_KEYS, PREFIX_BITS = 7, 9
PREFIX = 1 << (PREFIX_BITS * (PREFIX_KEYS - 1))
PREFIX_END = (TENUKI + 2) * PREFIX
# A range of the build's counts is cut on two such numbers, the first keys' and
# the next PREFIX_KEYS keys' (a "deep" code, a Python int: first << DEEP_SHIFT
# | next), so a line that crowds past its first keys is cut below them too.
DEEP_SHIFT = PREFIX_BITS * PREFIX_KEYS
DEEP_END = PREFIX_END << DEEP_SHIFT

BLACK = -1
WHITE = 1
EMPTY = 0

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
DIRECTIONS = ("up", "right", "down", "left")

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def point(row: int, col: int) -> int:
    """The point at (row, col), both counted from 0 at the top-left."""
    return row * SIZE + col


def row_col(p: int) -> tuple[int, int]:
    """(row, col) of point p."""
    return divmod(p, SIZE)


def colour_name(colour: int) -> str:
    """'B' or 'W'."""
    return "B" if colour == BLACK else "W"


def colour_of(name: str) -> int:
    """BLACK for 'B'/'b', WHITE for 'W'/'w'."""
    return BLACK if name.upper() == "B" else WHITE


def to_sgf(p: int) -> str:
    """SGF coordinates of a point ("" for a pass or a tenuki)."""
    if p < 0 or p >= NPOINTS:
        return ""
    r, c = divmod(p, SIZE)
    return _LETTERS[c] + _LETTERS[r]


def from_sgf(s: str, size: int = SIZE) -> int:
    """The point of SGF coordinates ``s``; PASS for "" and for "tt" on 19x19.

    Raises ValueError("move off the board: ...") for anything else outside
    the board.
    """
    if s == "" or (size <= 19 and s == "tt"):
        return PASS
    if len(s) != 2 or s[0] not in _LETTERS or s[1] not in _LETTERS:
        raise ValueError(f"move off the board: {s!r} on {size}x{size}")
    c, r = _LETTERS.index(s[0]), _LETTERS.index(s[1])
    if c >= size or r >= size:
        raise ValueError(f"move off the board: {s} on {size}x{size}")
    return r * SIZE + c


def neighbours(p: int) -> tuple[int, ...]:
    """The points orthogonally adjacent to p on the 19x19 board."""
    return _NEIGHBOURS[p]


def _neighbours(p: int) -> tuple[int, ...]:
    r, c = divmod(p, SIZE)
    out = []
    if r > 0:
        out.append(p - SIZE)
    if c < SIZE - 1:
        out.append(p + 1)
    if r < SIZE - 1:
        out.append(p + SIZE)
    if c > 0:
        out.append(p - 1)
    return tuple(out)


_NEIGHBOURS = tuple(_neighbours(p) for p in range(NPOINTS))


# -- vectorized SGF codecs for columns of many points -----------------------


def sgf_bytes_to_points(data, size: int = SIZE):
    """Points of 2-byte SGF coordinates (uint8 array of even length); "tt"
    on a 19x19 board is PASS.  Assumes the letters are on the board."""
    import numpy as np

    pairs = np.frombuffer(data, dtype=np.uint8).reshape(-1, 2).astype(np.int16) - ord("a")
    points = pairs[:, 1] * SIZE + pairs[:, 0]
    points[(pairs[:, 0] == 19) & (pairs[:, 1] == 19)] = PASS
    return points


@functools.cache
def _sgf_pairs():
    """Each key's 2 SGF bytes as one uint16, indexed by key."""
    import numpy as np

    return np.frombuffer(b"".join(to_sgf(p).encode() for p in range(NPOINTS)) + b"--", dtype=np.uint16)


def keys_to_sgf_bytes(keys):
    """2 bytes a key: SGF letters of a point, "--" for a tenuki."""
    import numpy as np

    return _sgf_pairs()[np.asarray(keys, dtype=np.intp)].view(np.uint8)
