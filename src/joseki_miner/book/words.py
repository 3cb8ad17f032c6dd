"""The pruned tree as a player reads it: each node's numbers in words.

A ``Book`` holds the tree of joseki.parquet (the thesis' counts and
influence counters, and the statistics of "What happened after each move")
with each node's games by year and collection and its example games, and
``About``, what was mined.  The SGF (``emit.to_sgf``) and the HTML report
(``report``) say the same things with the same functions here:

* ``headline``: one line a player reads at a glance: "1,578 games (12% of
  the moves here) · Black wins 52% (49-55%) · 2004-2017, most popular in
  2011" (in the SGF its parts are joined by "; ": its own words are ASCII,
  for viewers that read comments as Latin-1 whatever CA says);
* ``influence_words``: the thesis' verdicts (section 8) in words, only the
  directions that say something ("White's influence to the right, Black's
  below");
* ``example_text``: an example game in one line; ``record_name``: where
  its record is, by its collection and its place inside it (never the
  mining machine's path).

Colours are the tree's: its Black plays the corner's first move (a colour
swap, section 5.1, makes a game's White the tree's Black).  Board names
are the tree's orientation: every joseki starts in the upper left corner.

Knows tables of nodes and words; nothing of files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pyarrow as pa

import numpy as np

from joseki_miner.method.gameinfo import date_text, wilson
from joseki_miner.method.influence import verdict
from joseki_miner.method.kinds import FUSEKI, KINDS
from joseki_miner.method.kinds import ends as kind_ends
from joseki_miner.book.lookup import board_name
from joseki_miner.book.strata import Cells, collection_totals, held_years, one_collection, within_peak
from joseki_miner.method.points import DIRECTIONS, TENUKI, from_sgf
from joseki_miner.method.trie import COLUMNS, COUNTER_COLUMNS, STAT_COLUMNS

STATS = STAT_COLUMNS[1:]  # all but "first", a row number of the work folder
BOARD = ("situational", "doubtful")  # the board's kinds of a joseki move
COUNTERS = COUNTER_COLUMNS
BASE = COLUMNS[:6]  # node, parent, depth, color, move, count
# where a direction points, as a player says it (the tree's orientation: the corner is the upper left)
SIDES = {"up": "above", "right": "to the right", "down": "below", "left": "to the left"}
COLOUR_NAMES = {"B": "Black", "W": "White"}
# a year is "most popular" by its share of the year's games, among years with
# at least this share of all games (a year of 43 games says little)
YEAR_FLOOR = 0.01


def peak_year(node: Cells, mined: Cells) -> int | None:
    """The year a line was most popular, within collections
    (``strata.within_peak``): its highest share of a year's games, each
    collection's share that year combined with the collections' weights
    fixed over the years (``node``: its games by year and collection;
    ``mined``: all games so), among years with at least ``YEAR_FLOOR`` of
    all games; None where no year stands above another (the empty corner:
    every game, every year) and where the line was played in one year
    alone.  Within one collection: the raw share."""
    if sum(1 for y, by in node.items() if y > 0 and any(by.values())) < 2:
        return None
    return within_peak(node, mined, YEAR_FLOOR)


@dataclass(frozen=True)
class About:
    """What was mined: the games, their collections and dates, and how the
    tree was pruned."""

    games: int = 0
    games_by_year: Mapping[int, int] = field(default_factory=dict)
    games_by_collection: Mapping[str, int] = field(default_factory=dict)
    first_date: str = ""  # YYYY-MM-DD (or YYYY-MM, YYYY) of the earliest game with a date
    last_date: str = ""
    threshold: int = 0  # prune.min_count, or the fraction's count (4.2)
    threshold_on: str = "count"  # what the threshold counts: sequences ("count", the thesis) or "games"
    min_length: int = 0
    share: float = 0.30  # influence.share: the verdicts' threshold (8)
    # the games of each year by collection (strata.year_collections; empty: not known, the years alone)
    cells: Mapping[int, Mapping[str, int]] = field(default_factory=dict)

    def collection_names(self) -> dict[str, str]:
        return short_names(self.games_by_collection)

    def years(self) -> tuple[int, int] | None:
        known = [y for y in self.games_by_year if y > 0]
        return (min(known), max(known)) if known else None


@dataclass
class Book:
    """The pruned tree: columns of joseki.parquet as lists, each node's
    children in ``emit.children_order``, and what the statistics tables say
    of each node."""

    cols: dict[str, list]
    order: dict[int, list[int]]
    index: dict[int, int]
    root: int
    years: dict[int, dict[int, int]] = field(default_factory=dict)  # node -> year -> games
    sources: dict[int, dict[str, int]] = field(default_factory=dict)  # node -> collection -> games
    examples: dict[int, list[dict]] = field(default_factory=dict)  # node -> rows of node_examples.parquet
    about: About = field(default_factory=About)
    transpositions: dict[int, list[dict]] = field(default_factory=dict)  # node -> rows of node_transpositions
    cells: dict[int, dict[int, dict[str, int]]] = field(default_factory=dict)  # node -> year -> collection -> games
    _ends: set[int] | None = field(default=None, repr=False)
    _peaks: dict[int, int | None] = field(default_factory=dict, repr=False)  # node -> peak_year, once asked
    _within: bool | None = field(default=None, repr=False)

    # -- one node ------------------------------------------------------------------
    def get(self, node: int, name: str, default=None):
        column = self.cols.get(name)
        return default if column is None else column[self.index[node]]

    def row(self, node: int) -> dict:
        i = self.index[node]
        return {k: v[i] for k, v in self.cols.items()}

    def parent(self, node: int) -> int:
        return self.get(node, "parent")

    def is_tenuki(self, node: int) -> bool:
        return node != self.root and not self.get(node, "move")

    def path(self, node: int) -> list[int]:
        """The nodes from the root's first child down to ``node``."""
        out = []
        while node != self.root:
            out.append(node)
            node = self.parent(node)
        return out[::-1]

    def move_name(self, node: int) -> str:
        """ "B D17", "W tenuki", as a player writes it (board coordinates)."""
        if node == self.root:
            return "empty corner"
        colour = COLOUR_NAMES.get(self.get(node, "color"), "?")[0]
        move = self.get(node, "move")
        return f"{colour} {board_name(from_sgf(move)) if move else 'tenuki'}"

    def point_name(self, node: int) -> str:
        return point_text(self.get(node, "move"))

    def share(self, node: int) -> float | None:
        """The node's count over its parent's (``share_of``); where move
        orders are merged, what of its count came from there (``through``)."""
        if node == self.root:
            return None
        return share_of(self.get(node, "through", self.get(node, "count")), self.get(self.parent(node), "count"))

    def games(self, node: int) -> int:
        return int(self.get(node, "games", self.get(node, "count")))

    def win_rate(self, node: int) -> tuple[float, float, float, int] | None:
        """The tree's Black's share of the node's games with a winner, its
        95% Wilson interval, and how many games had a winner."""
        black, white = self.get(node, "black_wins"), self.get(node, "white_wins")
        if black is None or white is None or black + white == 0:
            return None
        decided = int(black + white)
        low, high = wilson(int(black), decided)
        return black / decided, low, high, decided

    def year_shares(self, node: int) -> dict[int, float]:
        """The node's games of each year over all games of that year."""
        totals = self.about.games_by_year
        return {y: g / totals[y] for y, g in sorted(self.years.get(node, {}).items()) if totals.get(y)}

    def thin_years(self) -> set[int]:
        """The years with too few games for a share of them to say much
        (under ``YEAR_FLOOR`` of all games)."""
        totals = self.about.games_by_year
        floor = YEAR_FLOOR * sum(totals.values())
        return {y for y, n in totals.items() if n < floor}

    def within(self) -> bool:
        """Whether the most popular year is read within collections: the
        book knows its nodes' games by year and collection, of more than
        one collection (within one, the raw share)."""
        if self._within is None:
            self._within = bool(self.cells) and len(collection_totals(self.about.cells)) > 1
        return self._within

    def peak_year(self, node: int) -> int | None:
        """The year the node was most popular (``peak_year``): within
        collections where the book knows its games so (``within``)."""
        if node not in self._peaks:
            if self.within():
                self._peaks[node] = peak_year(self.cells.get(node, {}), self.about.cells)
            else:
                years = one_collection(self.years.get(node, {}))
                self._peaks[node] = peak_year(years, one_collection(self.about.games_by_year))
        return self._peaks[node]

    def held_years(self) -> dict[int, str]:
        """The years whose games are mostly (``strata.HELD``) one
        collection's, each with its collection's name as shown."""
        names = self.about.collection_names()
        return {y: names.get(c, c) for y, (c, _) in held_years(self.about.cells).items()}

    def children(self, node: int) -> list[int]:
        return self.order.get(node, [])

    def leaves(self) -> list[int]:
        """The pruned tree's leaves, in the order of a walk of the tree
        (children in ``children_order``)."""
        return [n for n in self.walk() if n != self.root and not self.order.get(n)]

    def walk(self) -> list[int]:
        """Every node in the order of a walk of the tree, the root first."""
        out, stack = [], [self.root]
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(reversed(self.order.get(n, [])))
        return out

    # -- kinds (``kinds``): joseki, or fuseki shapes named apart ----------------------
    @property
    def labelled(self) -> bool:
        """Whether the tree was mined with kinds (the thesis' config: not)."""
        return "kind" in self.cols

    def kind(self, node: int) -> str:
        return self.get(node, "kind") if self.labelled else "joseki"

    def joseki(self) -> list[int]:
        """The joseki: where a joseki ends (``kinds.ends``), in walk order;
        a tree without kinds calls every leaf one, as the thesis does."""
        if not self.labelled:
            return self.leaves()
        ends = self.ends()
        return [n for n in self.walk() if n in ends]

    def ends(self) -> set[int]:
        """The nodes where a joseki ends (a tree with kinds)."""
        if self._ends is None:
            nodes = self.cols["node"]
            rows = [self.index[self.parent(n)] if n != self.root else 0 for n in nodes]
            keys = [from_sgf(m) if m else TENUKI for m in self.cols["move"]]
            code = [KINDS.index(k) for k in self.cols["kind"]]
            ends = kind_ends(
                np.array(rows, np.int64),
                np.array(self.cols["depth"], np.int64),
                np.array(keys, np.int64),
                np.array(code, np.int8),
                self.about.min_length,
            )
            self._ends = {n for n, e in zip(nodes, ends.tolist()) if e}
        return self._ends

    def fuseki(self) -> list[int]:
        """The fuseki shapes: the leaves named an approach from the side, an
        enclosure or an extension."""
        return [n for n in self.leaves() if self.kind(n) in FUSEKI] if self.labelled else []

    def board_moves(self) -> list[int]:
        """The leaves of lines that turned to the whole board: situational
        or doubtful moves (``method.context.board_kinds``), in walk order."""
        return [n for n in self.leaves() if self.kind(n) in BOARD] if self.labelled else []

    def follow_ups(self) -> list[int]:
        """The follow-ups: the leaves of lines that went on after a tenuki
        (the corner's later life), in walk order."""
        return [n for n in self.leaves() if self.kind(n) == "follow-up"] if self.labelled else []

    def followed(self, node: int) -> int:
        """The joseki a follow-up follows: the last move of its line that
        is a joseki's (the root where none is)."""
        for n in reversed(self.path(node)):
            if self.kind(n) == "joseki" and not self.is_tenuki(n):
                return n
        return self.root

    def turns(self, node: int) -> bool:
        """Whether the line turns into another kind at this node (a fuseki
        shape, a follow-up: its parent's kind is another)."""
        return node != self.root and self.kind(node) != self.kind(self.parent(node))

    def handicap_share(self, node: int) -> float | None:
        """The share of the node's sequences that a handicap stone opened
        (joseki.parquet's handicap column, written where the tree mixes
        handicap joseki with even games'; None where it has none)."""
        opened = self.get(node, "handicap")
        count = self.get(node, "count")
        return opened / count if opened and count else None

    def handicap_joseki(self) -> list[int]:
        """The joseki that handicap stones opened in most of their
        sequences: the joseki of handicap Go, shown apart."""
        return [n for n in self.joseki() if (self.handicap_share(n) or 0) >= 0.5] if "handicap" in self.cols else []

    def tenuki_share(self, node: int) -> float | None:
        """The share of the node's sequences whose next entry is a tenuki
        (its stored tenuki child's count: joseki.parquet's tenuki column,
        written where tenuki are folded; None where there is none)."""
        folded = self.get(node, "tenuki")
        count = self.get(node, "count")
        return folded / count if folded and count else None


# -- building ---------------------------------------------------------------------


def columns(table) -> dict[str, list]:
    """The node columns a book reads, as lists (an Arrow table or a pandas
    DataFrame; statistics and counters where the table has them)."""
    arrow = isinstance(table, pa.Table)
    names = table.column_names if arrow else list(table.columns)
    missing = [c for c in BASE if c not in names]
    if missing:
        raise ValueError(f"joseki table lacks columns: {', '.join(missing)}")
    cols: dict[str, list] = {}
    for c in BASE + COUNTERS + STATS + ("tenuki", "through", "handicap", "near", "move_number"):
        if c in names:
            values = table[c].to_pylist() if arrow else table[c].tolist()
            cols[c] = values if c in ("color", "move") else [int(v) for v in values]
    if "kind" in names:
        cols["kind"] = [str(v) for v in (table["kind"].to_pylist() if arrow else table["kind"].tolist())]
    cols["color"] = [v if isinstance(v, str) else "" for v in cols["color"]]
    cols["move"] = [v if isinstance(v, str) else "" for v in cols["move"]]
    return cols


def order_of(cols: dict[str, list]) -> dict[int, list[int]]:
    """Each node's children: count descending, then move ascending (a
    tenuki "" first among equals), then node id."""
    nodes, parents, counts, moves = cols["node"], cols["parent"], cols["count"], cols["move"]
    order: dict[int, list[int]] = {n: [] for n in nodes}
    for parent, _, _, node in sorted(
        (parents[i], -counts[i], moves[i], nodes[i]) for i in range(len(nodes)) if parents[i] >= 0
    ):
        if parent not in order:
            raise ValueError(f"node {node} has unknown parent {parent}")
        order[parent].append(node)
    return order


def _by_node(table: pa.Table | None, key: str) -> dict[int, dict]:
    out: dict[int, dict] = {}
    if table is None:
        return out
    for node, k, games in zip(table["node"].to_pylist(), table[key].to_pylist(), table["games"].to_pylist()):
        out.setdefault(int(node), {})[k] = int(games)
    return out


def make_book(
    table,
    years: pa.Table | None = None,
    sources: pa.Table | None = None,
    examples: pa.Table | None = None,
    about: About | None = None,
    transpositions: pa.Table | None = None,
    cells: list[dict[int, dict[str, int]]] | None = None,
) -> Book:
    """A book of joseki.parquet's ``table``, with node_years, node_sources,
    node_examples and node_transpositions.parquet where given, and each
    node's games by year and collection (``cells``: a node of ``table``
    each, in its order; ``strata.node_cells``)."""
    cols = columns(table)
    roots = [n for n, p in zip(cols["node"], cols["parent"]) if p < 0]
    if len(roots) != 1:
        raise ValueError(f"joseki table must have exactly one root, found {len(roots)}")
    shown: dict[int, list[dict]] = {}
    if examples is not None:
        for row in examples.to_pylist():
            shown.setdefault(int(row["node"]), []).append(row)
    others: dict[int, list[dict]] = {}
    if transpositions is not None:
        for row in transpositions.to_pylist():
            others.setdefault(int(row["node"]), []).append(row)
    return Book(
        cols,
        order_of(cols),
        {n: i for i, n in enumerate(cols["node"])},
        roots[0],
        _by_node(years, "year"),
        _by_node(sources, "source"),
        shown,
        about or About(),
        others,
        dict(zip(cols["node"], cells)) if cells is not None else {},
    )


# -- words -------------------------------------------------------------------------


def short_names(names) -> dict[str, str]:
    """Each collection's name as shown: the last part of its path, or as
    many last parts as make it unique ("/data/ai" -> "ai")."""
    parts = {n: [p for p in str(n).replace("\\", "/").split("/") if p] or [str(n)] for n in names}
    out = {}
    for n, p in parts.items():
        for k in range(1, len(p) + 1):
            tail = "/".join(p[-k:])
            if sum(1 for q in parts.values() if "/".join(q[-k:]) == tail) == 1 or k == len(p):
                out[n] = tail
                break
    return out


def record_name(row: Mapping, names: Mapping[str, str] | None = None) -> str:
    """Where a game's record is, as a reader of the book finds it in their
    copy of the collection: the collection's name (``names``, else the last
    part of its path), then the file's path inside the collection's folder,
    then the place inside that file (an archive's member, a line): "ai:
    ai-games.tar.gz : AI/HanDol/G2.sgf".  Never the path the mining machine
    read it from: a source outside its collection is named by its file's
    name."""
    collection = str(row.get("collection") or "").replace("\\", "/")
    source = str(row.get("source") or "").replace("\\", "/")
    location = str(row.get("location") or "")
    shown = (names or {}).get(row.get("collection") or "") or (
        short_names([collection])[collection] if collection else ""
    )
    if source == collection:
        inside = ""  # the collection is the file itself: its name says it
    elif collection and source.startswith(collection.rstrip("/") + "/"):
        inside = source[len(collection.rstrip("/")) + 1 :]
    else:
        inside = source.rsplit("/", 1)[-1]
    name = f"{shown}: {inside}" if shown and inside else shown or inside
    return f"{name} : {location}" if location else name


def number(n: int) -> str:
    return f"{n:,}"


def share_of(count: int, at: int) -> float | None:
    """A move's share (4.2's percentages): its sequences over those at its
    position (its parent's count), as every command and page gives it;
    the shares of a position's moves add up to at most 100%."""
    return count / at if at else None


def point_text(move: str) -> str:
    """A move of the tree (SGF, "" a tenuki) as a player writes it: D16 or tenuki."""
    return board_name(from_sgf(move)) if move else "tenuki"


def order_text(moves: str) -> str:
    """Another order's moves (node_transpositions' SGF points, "--" a
    tenuki) as a player writes them: "R16 tenuki P17"."""
    return " ".join(point_text("" if moves[i : i + 2] == "--" else moves[i : i + 2]) for i in range(0, len(moves), 2))


def order_games(order: Mapping) -> str:
    """An other order's games, as the page and the SGF say them: "1,581 games"."""
    return f"{number(order['games'])} game{'s' * (order['games'] != 1)}"


def transpositions_text(book: Book, node: int) -> str:
    """ "Also reached by R16 tenuki P17 (1,250 games); ...": the other move
    orders to the node's position, the most played first ("" for none)."""
    others = book.transpositions.get(node, [])
    if not others:
        return ""
    return "Also reached by " + "; ".join(f"{order_text(o['moves'])} ({order_games(o)})" for o in others)


def board_line(moves: list[str]) -> str:
    """A line of the tree's moves (SGF points) as a player writes it:
    "D16 C17 tenuki" (the tree's orientation: the corner upper left)."""
    return " ".join(point_text(m) for m in moves)


def percent(x: float) -> str:
    """A share as a player reads it: whole percent, "<1%" for a trace."""
    if 0 < x < 0.005:
        return "<1%"
    return f"{100 * x:.0f}%"


def win_text(book: Book, node: int) -> str:
    rate = book.win_rate(node)
    if rate is None:
        return ""
    p, low, high, _ = rate
    return f"Black wins {100 * p:.0f}% ({100 * low:.0f}-{100 * high:.0f}%)"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count as a person writes it: "1 game", "2,045 games"."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def year_span(first: int | None, last: int | None) -> str:
    """Years as a person writes them: "2016", "2001-2018" ("" unknown)."""
    if not first or not last:
        return ""
    return str(first) if first == last else f"{first}-{last}"


def years_text(book: Book, node: int) -> str:
    first, last = book.get(node, "first_year"), book.get(node, "last_year")
    if not first or not last:
        return ""
    span = year_span(first, last)
    peak = book.peak_year(node)
    if not peak or first == last:
        return span
    return f"{span}, most popular in {peak}" + (", within collections" if book.within() else "")


def handicap_text(book: Book, node: int) -> str:
    """ "from a handicap stone 62%": the share of the node's sequences that
    a handicap stone opened ("" for none, and at the root)."""
    share = book.handicap_share(node)
    return f"from a handicap stone {percent(share)}" if share and node != book.root else ""


def headline(book: Book, node: int, sep: str = " \u00b7 ") -> str:
    """The node's first line: its games and share of the moves at its
    parent, the tree's Black's win rate with its interval, its years,
    joined by ``sep``."""
    games = book.games(node)
    unit = "games" if "games" in book.cols else "times"
    head = f"{number(games)} {unit if games != 1 else unit[:-1]}"
    share = book.share(node)
    if share is not None:
        head += f" ({percent(share)} of the moves here)"
    said = (win_text(book, node), years_text(book, node), handicap_text(book, node), context_text(book, node))
    parts = [head] + [t for t in said if t]
    if book.is_tenuki(node):
        parts.insert(0, f"{COLOUR_NAMES.get(book.get(node, 'color'), '?')} tenuki: plays elsewhere")
    return sep.join(parts)


def context_text(book: Book, node: int) -> str:
    """The node's games on their whole board: "another stone near in 78%
    of its games, played around move 38" ("" where the run has no
    context, in the thesis' tree without kinds, which reads a corner
    alone, at the root and for a tenuki)."""
    near, move = book.get(node, "near"), book.get(node, "move_number")
    games = book.games(node)
    if near is None or not book.labelled or node == book.root or book.is_tenuki(node) or not games:
        return ""
    if not near:
        return f"no other stone near, played around move {move}"
    return f"another stone near in {percent(near / games)} of its games, played around move {move}"


def situational_text(book: Book, node: int) -> str:
    """Why a move answers the whole board: "another stone near in 61% of
    its games, 18% for the other moves here" (or how late it is played)."""
    near, move = book.get(node, "near"), book.get(node, "move_number")
    if near is None:
        return "an answer to the whole board"
    others = [c for c in book.children(book.parent(node)) if c != node and not book.is_tenuki(c)]
    games = sum(book.games(c) for c in others)
    share = near / book.games(node) if book.games(node) else 0.0
    other = sum(book.get(c, "near", 0) for c in others) / games if games else 0.0
    if games and share >= 2 * other:
        return f"another stone near in {percent(share)} of its games, {percent(other)} for the other moves here"
    return f"played around move {move}, later than most games answer here"


def mover_rate(book: Book, node: int) -> tuple[float, int] | None:
    """The share of a move's decided games its player won, and how many
    were decided (None where none was)."""
    black, white = book.get(node, "black_wins", 0), book.get(node, "white_wins", 0)
    decided = black + white
    if not decided:
        return None
    return (black if book.get(node, "color") == "B" else white) / decided, decided


def doubtful_text(book: Book, node: int) -> str:
    """ "its players won 41% of 120 games, 48% after the most played move
    here (B R14)": a doubtful move's figures."""
    mine = mover_rate(book, node)
    moves = [c for c in book.children(book.parent(node)) if not book.is_tenuki(c)]
    top = max(moves, key=lambda c: (book.games(c), -c)) if moves else None
    theirs = mover_rate(book, top) if top is not None else None
    if mine is None or theirs is None or top == node:
        return "its player wins less often than with the most played move here"
    return (
        f"its players won {percent(mine[0])} of {number(mine[1])} games, {percent(theirs[0])} after the most "
        f"played move here ({book.move_name(top)})"
    )


def kind_text(book: Book, node: int) -> str:
    """What the node is, in a few ASCII words ("" for a tree without
    kinds, and at the root): "Joseki", "Joseki ends here; then tenuki 25%",
    "Follow-up: the joseki ended, and a player came back to the corner
    later (after a tenuki)", "Enclosure (fuseki): Black plays in the
    corner again before White answers", "Extension (fuseki): this move
    leaves the corner for the side", "Approach from the side (fuseki): ..."
    (the reason where the line turns, the name alone below)."""
    if not book.labelled or node == book.root:
        return ""
    kind = book.kind(node)
    if kind == "joseki":
        if book.is_tenuki(node) and book.parent(node) in book.ends():
            return "Tenuki: the joseki ended at the move before; what follows is its follow-ups"
        if node not in book.ends():
            return "Joseki"
        share = book.tenuki_share(node)
        return "Joseki ends here" + (f"; then tenuki {percent(share)}" if share else "")
    if kind == "situational":
        if not book.turns(node):
            return "Situational"
        return "Situational: " + situational_text(book, node)
    if kind == "doubtful":
        if not book.turns(node):
            return "Doubtful"
        return "Doubtful: " + doubtful_text(book, node) + "; strong programs seldom play it"
    if kind == "follow-up":
        if not book.turns(node):
            return "Follow-up"
        return "Follow-up: the joseki ended, and a player came back to the corner later (after a tenuki)"
    name = {
        "enclosure": "Enclosure (fuseki)",
        "extension": "Extension (fuseki)",
        "approach": "Approach from the side (fuseki)",
    }[kind]
    if not book.turns(node):
        return name
    if kind == "enclosure":
        return f"{name}: Black plays in the corner again before White answers"
    if kind == "approach":
        return f"{name}: most games answer it on the side, for the whole board's opening"
    if book.get(node, "depth") == 1:
        return f"{name}: the first move is far from the corner"
    return f"{name}: this move leaves the corner for the side"


def verdicts(book: Book, node: int) -> dict[str, str]:
    """The thesis' verdict of each direction (black, white, any, none)."""
    if not all(c in book.cols for c in COUNTERS):
        return {}
    row = book.row(node)
    return {d: verdict(row[f"{d}_black"], row[f"{d}_white"], row[f"{d}_neutral"], book.about.share) for d in DIRECTIONS}


def influence_words(book: Book, node: int) -> str:
    """The verdicts that say something, in words: "White's influence to the
    right, Black's below"; "" when no direction has one."""
    words = []
    for d, v in verdicts(book, node).items():
        if v == "black" or v == "white":
            words.append(f"{v.capitalize()}'s influence {SIDES[d]}")
        elif v == "any":
            words.append(f"both colours' influence {SIDES[d]}")
    if not words:
        return ""
    text = ", ".join(words)
    return text[0].upper() + text[1:]


def counters_text(book: Book, node: int) -> str:
    """The raw counters (``emit.counters``): the count and, per direction,
    black/white/neutral cases and verdict."""
    row = book.row(node)
    parts = [
        f"{d} {row[f'{d}_black']}/{row[f'{d}_white']}/{row[f'{d}_neutral']} {v}"
        for d, v in verdicts(book, node).items()
    ]
    return f"Count {row['count']} sequences; influence (black/white/neutral, verdict): " + ", ".join(parts)


def player(row: Mapping, colour: str) -> str:
    """A player of an example game (``colour``: "black" or "white", the
    game's own): "Lee Sedol 9p", "?" when the record names nobody."""
    name = (row.get(colour) or "").strip() or "?"
    rank = (row.get(f"{colour}_rank") or "").strip()
    return f"{name} {rank}" if rank else name


def start_text(move: int | None) -> str:
    """Where a corner's sequence starts: "move 12", or "a handicap stone"
    (move 0: include_handicap.starts); "" where it is not known."""
    if move is None:
        return ""
    return "a handicap stone" if move == 0 else f"move {move}"


def example_text(row: Mapping, names: Mapping[str, str] | None = None) -> str:
    """An example game in one line: players (as the game has them), date,
    result, its record (``record_name``, the collection's name in
    ``names``), and where the sequence starts."""
    bits = [f"{player(row, 'black')} (B) - {player(row, 'white')} (W)"]
    bits += [t for t in (date_text(row.get("date") or ""), (row.get("result") or "").strip()) if t]
    where = [t for t in (record_name(row, names), start_text(row.get("move")), row.get("corner") or "") if t]
    return ", ".join(bits) + (f" ({', '.join(where)})" if where else "")


def next_moves_text(book: Book, node: int) -> str:
    """The continuations in words: "D17 64%, tenuki 25%, C14 2%"."""
    return ", ".join(f"{book.point_name(c)} {percent(book.share(c) or 0)}" for c in book.children(node))
