"""The built-in demo collection: games with joseki planted at known
frequencies, so a run can be checked against the truth.

Every game has four corners.  A corner either plays one of the PLANTED
lines (dealt from a deck, so each is played exactly its planted number of
times), sometimes followed by a short random tail, or a random junk
sequence.  Each corner is turned to a random corner orientation (8 board
symmetries) and a random colour.  Corner sequences stay within a 7x7 box
(rows and columns 0..6 of their corner), so neighbouring corners are more
than 5 lines apart and never join; the one planted line that leaves it, a
side extension to the central line, is played in a game whose corner
across that line stays empty.  Besides joseki, the planted lines hold
what a tree of corner sequences must tell apart from them (``kind``): an
enclosure (the corner's first player plays there again, unanswered) and
an extension on the side.  The junk and the tails are random but
never repeat (their first three normalized moves, or the first tail move
after a joseki, are unique), so pruning must remove them all; the mined tree
is then exactly the trie of the planted joseki with their planted counts.
A few bad records (a 9x9 game, a handicap game, a broken file) show the
reject ledger; the handicap game, mined with ``include_handicap``, shows
its stones opening the corners' sequences.

Each game also gets a date (2005-2019) and a result (a win of either colour
by resignation, points, time or forfeit, or a result naming no winner: jigo,
void, unknown), and the games are split between two collections, ``club``
and ``pro`` (sub-folders).  ``planted_stats`` gives what every node of the
mined tree must then hold: its games, the wins of the tree's Black (the
colour that starts the corner: a corner dealt with swapped colours makes the
game's White the tree's Black) and White, and its games by year and by
collection, a game counting once at a node, by its corner that started
first.

Writes the SGF files and ``planted.json`` (the truth) to the folder it is
given; knows nothing of the pipeline.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from joseki_miner.method.points import BLACK, SIZE, TENUKI, WHITE, from_sgf, to_sgf
from joseki_miner.method.symmetry import POINT_MAP, canonical_transforms

BOX = 7  # corner sequences use rows and columns 0..BOX-1 of their corner

# Planted lines in normal form (section 5.1), SGF points, "--" a tenuki;
# colours alternate from black; what each is (a joseki, or the fuseki
# shapes the tree names apart).  Names are descriptive, not textbook.
PLANTED = (
    ("4-4 low approach, knight's move, press", "dd fc cf db", 60, "joseki"),
    ("4-4 low approach, knight's move, 3-3 block", "dd fc cf db cc dc", 40, "joseki"),
    ("4-4 low approach, attach and extend", "dd fc fd gc ge", 35, "joseki"),
    ("3-4 high approach", "dc ce ed", 30, "joseki"),
    ("3-4 high approach, 3-3 slide", "dc ce ed cc bc", 15, "joseki"),
    ("3-4 attach, then a follow-up after White's tenuki", "dc ec db -- eb", 25, "follow-up"),
    ("3-3 point shoulder hit", "cc dc cd de", 20, "joseki"),
    ("4-4 one-space approach", "dd ed ec fd", 12, "joseki"),
    ("3-4 point, small knight's enclosure", "dc -- ce", 20, "enclosure"),
    ("4-4 low approach, knight's move, extension to the central line", "dd fc cf jd", 15, "extension"),
)

# results and how often (weights): the winner each names, as gameinfo reads it
RESULTS = (
    ("B+R", BLACK, 5),
    ("W+R", WHITE, 5),
    ("B+3.5", BLACK, 3),
    ("W+0.5", WHITE, 3),
    ("B+T", BLACK, 1),
    ("W+F", WHITE, 1),
    ("0", 0, 1),
    ("Void", 0, 1),
    ("", 0, 1),
)
FIRST_YEAR, LAST_YEAR = 2005, 2019
COLLECTIONS = ("club", "pro")

_BAD_RECORDS = {
    "bad-9x9.sgf": "(;FF[4]GM[1]SZ[9]KM[6.5];B[ee];W[cc];B[gg];W[cg])\n",
    # a handicap game, rejected unless include_handicap: White invades the upper right handicap stone at the 3-3
    # point, and approaches the lower left one low (the handicap joseki, with include_handicap.starts)
    "bad-handicap.sgf": "(;FF[4]GM[1]SZ[19]HA[2]AB[dp][pd];W[qc];B[qd];W[pc];B[od];W[ob];B[nc];W[nb];B[mc]"
    ";W[fq];B[dn];W[cq])\n",
    "bad-truncated.sgf": "(;FF[4]GM[1]SZ[19];B[pd];W[dp];B[q",
}


def keys_of(text: str) -> tuple[int, ...]:
    """Trie keys of a planted joseki written as SGF points."""
    return tuple(TENUKI if k == "--" else from_sgf(k) for k in text.split())


def _box_points(box: int = BOX) -> list[int]:
    return [r * SIZE + c for r in range(box) for c in range(box)]


def leaves_box(keys: tuple[int, ...]) -> bool:
    """Whether a planted line plays outside its corner's box (and so
    reaches the corner across the central line)."""
    return any(k != TENUKI and max(divmod(k, SIZE)) >= BOX for k in keys)


def _near(p: int, stones: list[int], d: int) -> bool:
    r, c = divmod(p, SIZE)
    return any(abs(r - s // SIZE) + abs(c - s % SIZE) <= d for s in stones)


def _moves_of(keys: tuple[int, ...]) -> list[tuple[int, int]]:
    """(colour, point) of the real moves of a key sequence (tenuki skipped)."""
    return [(BLACK if i % 2 == 0 else WHITE, k) for i, k in enumerate(keys) if k != TENUKI]


class _Dealer:
    """Draws the junk sequences and tails, never repeating one."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[tuple[int, ...]] = set()
        planted = [keys_of(text) for _, text, _, _ in PLANTED]
        self.first_points = {k[0] for k in planted}
        # a tail must not continue into another planted joseki
        self.taken = {k[: i + 1] for k in planted for i in range(len(k))}

    def junk(self) -> tuple[int, ...]:
        """3 to 5 alternating moves whose normal-form first three are new;
        the first within 5 lines of the corner, where any start region
        lets a sequence start (``corner.start``)."""
        starts = [p for p in _box_points(5) if p // SIZE <= p % SIZE and p not in self.first_points]
        while True:
            pts = [self.rng.choice(starts)]
            for _ in range(self.rng.randint(2, 4)):
                options = [p for p in _box_points() if p not in pts and _near(p, pts, 4)]
                pts.append(self.rng.choice(options))
            t = canonical_transforms(pts)[0]
            key = ("junk",) + tuple(POINT_MAP[t][p] for p in pts[:3])
            if key not in self.used:
                self.used.add(key)
                return tuple(pts)

    def tail(self, joseki: tuple[int, ...]) -> tuple[int, ...]:
        """1 or 2 moves continuing a joseki, the first never seen before."""
        stones = [k for k in joseki if k != TENUKI]
        while True:
            options = [p for p in _box_points() if p not in stones and _near(p, stones, 4)]
            first = self.rng.choice(options)
            key = joseki + (first,)
            if key in self.used or key in self.taken:
                continue
            self.used.add(key)
            more = [p for p in options if p != first]
            return (first,) if self.rng.random() < 0.5 else (first, self.rng.choice(more))


def _game_moves(corners: list[list[tuple[int, int]]], rng: random.Random) -> tuple[list[tuple[int, int]], list[int]]:
    """Interleave the corners' moves with colours alternating from black; a
    player with no corner to play in passes.  Also returns where each
    corner's first move was played."""
    pending = [list(c) for c in corners]
    moves, turn = [], BLACK
    first = [-1] * len(corners)
    while any(pending):
        ready = [c for c in pending if c and c[0][0] == turn]
        if ready:
            corner = rng.choice(ready)
            k = next(i for i, c in enumerate(pending) if c is corner)
            if first[k] < 0:
                first[k] = len(moves)
            moves.append(corner.pop(0))
        else:
            moves.append((turn, -1))
        turn = -turn
    return moves, first


def _sgf(moves: list[tuple[int, int]], number: int, date: str = "", result: str = "") -> str:
    body = "".join(f";{'B' if c == BLACK else 'W'}[{to_sgf(p)}]" for c, p in moves)
    info = (f"DT[{date}]" if date else "") + (f"RE[{result}]" if result else "")
    return (
        f"(;FF[4]GM[1]SZ[19]CA[UTF-8]KM[6.5]PB[demo black]PW[demo white]{info}"
        f"GN[joseki-miner demo {number:04d}]{body})\n"
    )


def generate(games: int = 400, seed: int = 2007) -> tuple[list[str], dict]:
    """The demo games as SGF texts and the truth about them (``truth["games"]``
    holds each game's corners: their normal-form keys, whether their colours
    were swapped, the move where each started (-1: a corner left empty);
    and the game's winner, year and collection)."""
    rng = random.Random(seed)
    info_rng = random.Random(seed + 1)  # dates and results: the games' moves stay those of earlier demos
    dealer = _Dealer(rng)
    wide = [i for i, (_, text, _, _) in enumerate(PLANTED) if leaves_box(keys_of(text))]
    deck: list[int] = [i for i, (_, _, n, _) in enumerate(PLANTED) for _ in range(n) if i not in wide]
    # a line leaving its box takes a game of its own: it and two corners dealt, the corner across it empty
    apart = [i for i in wide for _ in range(PLANTED[i][2])]
    if len(deck) + 4 * len(apart) > 4 * games:
        raise ValueError(f"the demo needs at least {(len(deck) + 4 * len(apart)) // 4 + 1} games")
    deck += [-1] * (4 * games - 4 * len(apart) - len(deck) + 2 * len(apart))
    rng.shuffle(deck)
    wide_games = dict(zip(sorted(rng.sample(range(games), len(apart))), apart))
    texts, records = [], []
    cards = iter(deck)
    for g in range(games):
        corners, dealt = [], []
        turns = [((corner // 2) * 2 + (corner % 2) + 4 * rng.randint(0, 1), rng.random() < 0.5) for corner in range(4)]
        if g in wide_games:  # the wide line in a random corner; the corner it reaches across the central line is empty
            corner = rng.randrange(4)
            t = turns[corner][0]
            reached = {k for p in keys_of(PLANTED[wide_games[g]][1]) if p != TENUKI for k in _corners(POINT_MAP[t][p])}
            picks = [wide_games[g] if k == corner else None if k in reached else next(cards) for k in range(4)]
        else:
            picks = [next(cards) for _ in range(4)]
        for corner, ((t, swap), pick) in enumerate(zip(turns, picks)):
            if pick is None:
                corners.append([])
                dealt.append(((), swap))
                continue
            if pick < 0:
                keys = dealer.junk()
            else:
                keys = keys_of(PLANTED[pick][1])
                if pick not in wide and rng.random() < 0.4:
                    # the tail goes on in colour from the joseki's last move
                    keys = keys + dealer.tail(keys)
            corners.append([(-c if swap else c, POINT_MAP[t][p]) for c, p in _moves_of(keys)])
            dealt.append((keys if pick >= 0 else (), swap))
        moves, first = _game_moves(corners, rng)
        result, winner, _ = info_rng.choices(RESULTS, weights=[w for _, _, w in RESULTS])[0]
        year = info_rng.randint(FIRST_YEAR, LAST_YEAR)
        date = f"{year}-{info_rng.randint(1, 12):02d}-{info_rng.randint(1, 28):02d}"
        texts.append(_sgf(moves, g + 1, date, result))
        records.append(
            {
                "corners": [{"keys": list(k), "swapped": sw, "first_move": f} for (k, sw), f in zip(dealt, first)],
                "winner": winner,
                "year": year,
                "date": date,
                "result": result,
                "collection": COLLECTIONS[g * len(COLLECTIONS) // games],
            }
        )
    if next(cards, None) is not None:
        raise RuntimeError("the demo dealt fewer corners than its deck holds")
    truth = {
        "games": games,
        "seed": seed,
        "planted": [{"name": n, "moves": m, "count": c, "kind": k} for n, m, c, k in PLANTED],
        "bad_records": sorted(_BAD_RECORDS),
        "game_records": records,
    }
    return texts, truth


def _corners(p: int) -> set[int]:
    """The corners (0 upper left, 1 upper right, 2 lower left, 3 lower
    right) whose quarter holds point p, central lines shared."""
    r, c = divmod(p, SIZE)
    rows = {0} if r < SIZE // 2 else {1} if r > SIZE // 2 else {0, 1}
    cols = {0} if c < SIZE // 2 else {1} if c > SIZE // 2 else {0, 1}
    return {2 * i + j for i in rows for j in cols}


def write_collection(folder: str | Path, games: int = 400, seed: int = 2007) -> int:
    """Write the demo collection (and planted.json) into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    texts, truth = generate(games, seed)
    for i, text in enumerate(texts):
        collection = folder / truth["game_records"][i]["collection"]
        collection.mkdir(exist_ok=True)
        (collection / f"demo-{i + 1:04d}.sgf").write_text(text, encoding="utf-8")
    for name, text in _BAD_RECORDS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "planted.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    return len(texts) + len(_BAD_RECORDS)


def planted_paths() -> dict[tuple[int, ...], int]:
    """Every prefix of the planted joseki -> how often it is played: the
    tree a correct run must mine from the demo (all counts are above the
    default threshold and every joseki has at least 3 moves)."""
    out: dict[tuple[int, ...], int] = {(): 0}
    for _, text, n, _ in PLANTED:
        keys = keys_of(text)
        out[()] += n
        for i in range(1, len(keys) + 1):
            out[keys[:i]] = out.get(keys[:i], 0) + n
    return out


def planted_stats(games: int = 400, seed: int = 2007) -> dict[tuple[int, ...], dict]:
    """What every node of the tree mined from the demo holds besides its
    count: per planted prefix (and the root, ()), its games, the wins of the
    tree's Black and White, and its games by year and by collection.  A game
    counts once at a node, with the colours of its corner that started
    first among those that reach it."""
    _, truth = generate(games, seed)
    nodes = planted_paths()
    out: dict[tuple[int, ...], dict] = {}
    for game in truth["game_records"]:
        corners = sorted(
            (c for c in game["corners"] if c["first_move"] >= 0), key=lambda c: c["first_move"]
        )  # in the order they started (an empty corner never did)
        reach: dict[tuple[int, ...], bool] = {(): corners[0]["swapped"]}  # node -> its earliest corner's swap
        for corner in corners:
            keys = tuple(corner["keys"])
            for i in range(1, len(keys) + 1):
                if keys[:i] in nodes:
                    reach.setdefault(keys[:i], corner["swapped"])
        for node, swapped in reach.items():
            stats = out.setdefault(
                node, {"games": 0, "black_wins": 0, "white_wins": 0, "years": Counter(), "sources": Counter()}
            )
            stats["games"] += 1
            winner = -game["winner"] if swapped else game["winner"]
            if winner == BLACK:
                stats["black_wins"] += 1
            elif winner == WHITE:
                stats["white_wins"] += 1
            stats["years"][game["year"]] += 1
            stats["sources"][game["collection"]] += 1
    return out
