"""A mined run in memory, to answer a position with filters chosen at the
click: the stored trie (every node counted at least twice), its sequences
in trie order (a node's are the rows [first, first + count)) and the
games' table, read once when the server starts.

Without a filter a position's figures are the stored trie's, as
``book.explore.lookup`` gives them.  With one, they are counted from the
sequences of the selected games alone, by the build's rules: a node's
count is its selected sequences; a game counts once at a node, by its
first sequence there (the least sequence number), and its winner in the
tree's colours (the other colour where that sequence's colours were
swapped); a continuation is shown where it is counted at least twice, as
a run mined with the same ``filter.*`` keys would store it.  The games a
filter selects are those ``runs.inputs.Filters`` selects as a run reads
them (``compare``'s sides), with two more keys a run does not have: a
player as one colour, and the winner.

Pure functions over arrays and the run's files; knows nothing of HTTP."""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from joseki_miner.book.explore import GAME_COLUMNS, move_keys, names_of, sgf_key, win_rate
from joseki_miner.book.lookup import Query, board_name, corner_of
from joseki_miner.book.words import peak_year, share_of
from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.fast.parquet import RowGroups, read_columns
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.method.symmetry import POINT_MAP, inverse
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.inputs import Collections, Filters

STORED = 2  # the build stores a node counted at least this many times
BELOW = "below the book's threshold"  # a stored node the pruned book does not hold
MASKS = 64  # the selections kept, the most recently asked
COUNTED = 4096  # the filtered positions kept, the most recently asked
SCAN = 20_000  # a node of more sequences is gathered by a pass over them all in game order, not sorted


@dataclass(frozen=True)
class Selection:
    """The games a query selects: ``filters`` as a run reads them (years,
    collections, a player of either colour, the least rank), and a
    player as one colour (``color``: black or white) and the winner
    (``result``: black or white)."""

    filters: Filters = Filters()
    player: str | None = None
    color: str = "either"
    result: str | None = None

    @property
    def active(self) -> bool:
        return self.filters.active or self.player is not None or self.result is not None


@dataclass
class Games:
    """The games' table: the columns a filter reads, each game's day, and
    the information and records a list of games and an SGF show (the
    players' names and ranks as lists only once a filter reads them)."""

    year: np.ndarray
    winner: np.ndarray
    handicap: np.ndarray
    day: np.ndarray
    collection: np.ndarray  # a number of ``collections`` a game
    collections: list[str]
    info: pa.Table
    _people: dict[str, list[str]] | None = None

    @classmethod
    def read(cls, path: Path) -> Games:
        wanted = ["game", "year", "winner", "handicap", "day", "EV", *GAME_COLUMNS]
        table = read_columns(path, list(dict.fromkeys(wanted)), dictionary=["collection"])
        return cls(
            numpy(table.column("year")),
            numpy(table.column("winner")),
            numpy(table.column("handicap")),
            numpy(table.column("day")),
            *codes(table.column("collection")),
            table.select(["game", "EV", *GAME_COLUMNS]),
        )

    @property
    def people(self) -> dict[str, list[str]]:
        """The games' ``Filters.PEOPLE`` values, as lists (read once asked)."""
        if self._people is None:
            self._people = {k: [v or "" for v in self.info.column(k).to_pylist()] for k in Filters.PEOPLE}
        return self._people

    def __len__(self) -> int:
        return len(self.year)

    def selected(self, selection: Selection) -> np.ndarray:
        """Which games ``selection`` holds (a bool a game)."""
        f = selection.filters
        keep = np.ones(len(self), dtype=bool)
        if f.active:
            people = self.people if f.by_people else None
            collection = [self.collections[i] for i in self.collection.tolist()]
            why = f.reasons(self.year, self.winner, collection, Collections([]), people, self.handicap)
            keep = np.array([w is None for w in why], dtype=bool)
        if selection.player is not None:
            name = selection.player.strip().casefold()
            column_name = "PB" if selection.color == "black" else "PW"
            keep &= np.array([v.strip().casefold() == name for v in self.people[column_name]], dtype=bool)
        if selection.result is not None:
            keep &= self.winner == (-1 if selection.result == "black" else 1)
        return keep


@dataclass
class Index:
    """A run's stored trie, sequences in trie order and games, in memory."""

    parent: np.ndarray
    key: np.ndarray
    count: np.ndarray
    first: np.ndarray
    games: np.ndarray
    black_wins: np.ndarray
    white_wins: np.ndarray
    first_year: np.ndarray
    last_year: np.ndarray
    kind: tuple[np.ndarray, list[str]] | None  # the trie's kind of each node (a number of a name), where it has them
    kids: np.ndarray  # every node but the root, by parent, then by count (most first), then by key
    kid_start: np.ndarray  # node n's children: kids[kid_start[n] : kid_start[n + 1]]
    years: tuple[np.ndarray, np.ndarray, np.ndarray]  # trie_years: node, year, games (by node)
    sources: tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]  # trie_sources: node, name's number, games, names
    seq_game: np.ndarray  # sorted_sequences: each row's game,
    seq_number: np.ndarray  # its sequence number in the game,
    seq_swapped: np.ndarray  # its colours swapped (orientation 8 or more),
    seq_start: np.ndarray  # the move it starts at,
    seq_orientation: np.ndarray  # and its orientation
    table: Games
    book: dict[int, str]  # trie node -> its kind in the pruned book
    orders: dict[int, list[dict]] = field(default_factory=dict)  # trie node -> the book's other orders to it
    context: dict[int, dict] = field(default_factory=dict)  # trie node -> the book's node_context row (its board)
    masks: OrderedDict = field(default_factory=OrderedDict)
    answers: OrderedDict = field(default_factory=OrderedDict)  # (selection, node) -> ``counted``
    lock: threading.Lock = field(default_factory=threading.Lock)  # the server answers in threads
    _players: dict[str, str] | None = None
    _mined: dict | None = None  # every game by year and collection, once asked

    @classmethod
    def read(cls, catalog: Catalog) -> Index:
        """The run of ``catalog``, read once."""
        names = RowGroups(catalog.trie).schema.names
        wanted = ["parent", "move", "count", "first", "games", "black_wins", "white_wins", "first_year", "last_year"]
        with ThreadPoolExecutor(4, thread_name_prefix="read") as pool:  # the files read at once: Arrow frees the GIL
            reading = [
                pool.submit(read_columns, path, columns, dictionary=dictionary)
                for path, columns, dictionary in (
                    (catalog.trie, wanted + (["kind"] if "kind" in names else []), ["move", "kind"]),
                    (catalog.trie_years, ["node", "year", "games"], None),
                    (catalog.trie_sources, ["node", "source", "games"], ["source"]),
                    (catalog.sorted_sequences, ["game", "sequence", "start", "orientation"], None),
                )
            ]
            read_games = pool.submit(Games.read, catalog.games)
            trie, years, source_table, order = (r.result() for r in reading)
            games = read_games.result()
        parent = numpy(trie.column("parent"))
        key = np.where(parent < 0, -1, move_keys(trie.column("move"))) if len(parent) else np.zeros(0, np.int64)
        count = numpy(trie.column("count"))
        kids = np.flatnonzero(parent >= 0)
        kids = kids[np.lexsort((key[kids], -count[kids], parent[kids]))]
        kid_start = np.searchsorted(parent[kids], np.arange(len(parent) + 1))
        orientation = numpy(order.column("orientation")) if len(order) else np.zeros(0, np.int8)
        index = cls(
            parent=parent,
            key=key,
            count=count,
            first=numpy(trie.column("first")),
            games=numpy(trie.column("games")),
            black_wins=numpy(trie.column("black_wins")),
            white_wins=numpy(trie.column("white_wins")),
            first_year=numpy(trie.column("first_year")).astype(np.int64),
            last_year=numpy(trie.column("last_year")).astype(np.int64),
            kind=codes(trie.column("kind")) if "kind" in names else None,
            kids=kids,
            kid_start=kid_start,
            years=tuple(numpy(years.column(c)) for c in ("node", "year", "games")),  # type: ignore[arg-type]
            sources=(
                numpy(source_table.column("node")),
                (named := codes(source_table.column("source")))[0],
                numpy(source_table.column("games")),
                named[1],
            ),
            seq_game=numpy(order.column("game")) if len(order) else np.zeros(0, np.int64),
            seq_number=numpy(order.column("sequence")) if len(order) else np.zeros(0, np.int32),
            seq_swapped=orientation >= 8,
            seq_start=numpy(order.column("start")) if len(order) else np.zeros(0, np.int32),
            seq_orientation=orientation,
            table=games,
            book={},
        )
        if catalog.joseki.exists():
            at = index._book_nodes(read_columns(catalog.joseki, ["node", "parent", "move", "kind"]))
            if catalog.node_context.exists():
                rows = read_columns(catalog.node_context, ["node", "near", "move_number", "kind"]).to_pylist()
                index.context = {at[r["node"]]: r for r in rows if r["node"] in at and r["node"] != 0}
                for r in rows:  # the book's kinds: the board's where a rule named a joseki move
                    if r["node"] in at and r["kind"]:
                        index.book[at[r["node"]]] = r["kind"]
            if catalog.node_transpositions.exists():
                rows = read_columns(catalog.node_transpositions, ["node", "moves", "games", "count"]).to_pylist()
                for r in rows:
                    if r["node"] in at:
                        index.orders.setdefault(at[r["node"]], []).append(r)
        return index

    def transpositions(self, n: int, q: Query) -> list[dict]:
        """The book's other move orders to node ``n``'s position (``Also
        reached by``): their moves as the player's board shows them, games
        and sequences."""
        out = []
        for r in self.orders.get(n, []):
            text = r["moves"]
            keys = [TENUKI if text[i : i + 2] == "--" else from_sgf(text[i : i + 2]) for i in range(0, len(text), 2)]
            out.append({"moves": [q.board_move(k) for k in keys], "games": r["games"], "count": r["count"]})
        return out

    def first_key_of(self, row: int) -> int:
        """The first key of the sequence at ``row`` of the sequences in trie order."""
        kids = self.children(0)
        kids = kids[np.argsort(self.first[kids])]
        at = int(np.searchsorted(self.first[kids], row, side="right")) - 1
        return int(self.key[kids[at]]) if at >= 0 else 0

    def _book_nodes(self, book: pa.Table) -> dict[int, int]:
        """The pruned book's nodes found in the trie by their moves (book
        node -> trie node); each one's kind kept in ``book``."""
        at: dict[int, int] = {}
        for node, parent, move, kind in zip(*(book.column(c).to_pylist() for c in ("node", "parent", "move", "kind"))):
            if parent < 0:
                at[node] = 0
            elif parent in at:
                child = self.child(at[parent], TENUKI if not move else from_sgf(move))
                if child is None:
                    continue
                at[node] = child
            else:
                continue
            self.book[at[node]] = kind
        return at

    def context_of(self, n: int) -> dict:
        """``{"context": ...}`` of a book's node: its games with another
        sequence's stone near its move (and their share) and its median
        move number, of the whole run (no filter); {} elsewhere."""
        row = self.context.get(n)
        if row is None or self.key[n] == TENUKI:  # a tenuki is no move: nothing is near it
            return {}
        games = int(self.games[n])
        share = row["near"] / games if games else 0.0
        return {"context": {"near": row["near"], "near_share": share, "move_number": row["move_number"]}}

    def kind_of(self, n: int) -> dict:
        """``{"kind": the trie's kind of node n}``, where the trie has kinds."""
        return {"kind": self.kind[1][int(self.kind[0][n])]} if self.kind is not None else {}

    # -- the tree --------------------------------------------------------------------------------------------

    def children(self, n: int) -> np.ndarray:
        """A node's stored children, by count (most first), then by key (as lookup lists them)."""
        return self.kids[self.kid_start[n] : self.kid_start[n + 1]]

    def child(self, n: int, key: int) -> int | None:
        kids = self.children(n)
        found = kids[self.key[kids] == key]
        return int(found[0]) if len(found) else None

    def find(self, keys: tuple[int, ...]) -> tuple[int, int]:
        """The node of ``keys``, and how many of them the tree holds."""
        node = 0
        for depth, k in enumerate(keys):
            found = self.child(node, k)
            if found is None:
                return node, depth
            node = found
        return node, len(keys)

    def path(self, n: int) -> list[int]:
        """The keys from the root to node ``n``."""
        keys = []
        while n > 0:
            keys.append(int(self.key[n]))
            n = int(self.parent[n])
        return keys[::-1]

    # -- the selection ----------------------------------------------------------------------------------------

    def mask(self, selection: Selection) -> tuple[np.ndarray, np.ndarray]:
        """The games ``selection`` holds (a bool a game) and its sequences
        (a bool a row of the sequences in trie order), kept for the most
        recent selections."""
        with self.lock:
            if selection in self.masks:
                self.masks.move_to_end(selection)
                return self.masks[selection]
        games = self.table.selected(selection)
        found = (games, games[self.seq_game])
        with self.lock:
            self.masks[selection] = found
            while len(self.masks) > MASKS:
                self.masks.popitem(last=False)
        return found

    def players(self) -> dict[str, str]:
        """The players' names the games hold (either colour), by their case-folded form."""
        with self.lock:
            if self._players is None:
                people = self.table.people
                self._players = {n.strip().casefold(): n.strip() for k in ("PB", "PW") for n in people[k] if n.strip()}
            return self._players

    def games_by_year(self, selected: np.ndarray | None = None) -> dict[int, int]:
        """The games (those selected) by year, 0 (unknown) left out."""
        year = self.table.year if selected is None else self.table.year[selected]
        counts = np.bincount(year[year > 0]) if (year > 0).any() else np.zeros(0, np.int64)
        return {y: int(c) for y, c in enumerate(counts.tolist()) if c}

    def cells_at(self, n: int, selected: np.ndarray | None = None) -> tuple[dict, dict]:
        """Node ``n``'s games (of those selected) by year and collection,
        each once, and all the games (selected) so: what ``peak_year``
        reads (``book.strata.node_cells``)."""
        from joseki_miner.book.strata import coded_year_collections, node_cells

        year, code, names = self.table.year, self.table.collection, self.table.collections
        lo, hi = int(self.first[n]), int(self.first[n] + self.count[n])
        games = self.seq_game[lo:hi]
        if selected is not None:
            games = games[selected[games]]
            mined = coded_year_collections(year[selected], code[selected], names)
        else:
            mined = self.mined_cells()
        return node_cells([[(0, len(games))]], games, year, code, names)[0], mined

    def mined_cells(self) -> dict:
        """Every game by year and collection (``cells_at``), counted once."""
        if self._mined is None:
            from joseki_miner.book.strata import coded_year_collections

            self._mined = coded_year_collections(self.table.year, self.table.collection, self.table.collections)
        return self._mined

    def held_years(self, selected: np.ndarray | None = None) -> dict[int, tuple[str, float]]:
        """The years whose games (those selected) are mostly one
        collection's (``book.strata.held_years``): year -> (that
        collection, its share of the year's games)."""
        from joseki_miner.book.strata import coded_year_collections, held_years

        year, code = self.table.year, self.table.collection
        if selected is not None:
            year, code = year[selected], code[selected]
        return held_years(coded_year_collections(year, code, self.table.collections))

    # -- a position's figures ---------------------------------------------------------------------------------

    def stored(self, n: int, whole: bool = True) -> dict:
        """Node ``n``'s figures as the build stored them (its years and
        collections too, with ``whole``)."""
        figures = {
            "count": int(self.count[n]),
            "games": int(self.games[n]),
            "black_wins": int(self.black_wins[n]),
            "white_wins": int(self.white_wins[n]),
            "first_year": int(self.first_year[n]) or None,
            "last_year": int(self.last_year[n]) or None,
        }
        if not whole:
            return figures
        lo, hi = np.searchsorted(self.years[0], [n, n + 1])
        slo, shi = np.searchsorted(self.sources[0], [n, n + 1])
        names = self.sources[3]
        return {
            **figures,
            "years": {int(y): int(g) for y, g in zip(self.years[1][lo:hi], self.years[2][lo:hi])},
            "sources": {
                names[int(s)]: int(g) for s, g in sorted(zip(self.sources[1][slo:shi], self.sources[2][slo:shi]))
            },
        }

    @functools.cached_property
    def by_game(self) -> np.ndarray:
        """The rows of the sequences in trie order, sorted by game and sequence number."""
        return np.argsort((self.seq_game.astype(np.int64) << 10) | self.seq_number, kind="stable")

    def _by_node(self, nodes: list[int], in_selection: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The selected rows of a node (``nodes[0]``) and of its children
        (the rest: their ranges lie within the node's, apart), each with its
        owner (its place in ``nodes``), by owner, game and sequence number: a
        game's first sequence at a node comes first among its rows there.
        A node of many rows is gathered from ``by_game`` by a pass, not sorted."""
        lo, hi = int(self.first[nodes[0]]), int(self.first[nodes[0]] + self.count[nodes[0]])
        if hi - lo > SCAN:
            order = self.by_game
            rows = order[(order >= lo) & (order < hi) & in_selection[order]]
        else:
            rows = np.flatnonzero(in_selection[lo:hi]) + lo
            rows = rows[np.argsort((self.seq_game[rows].astype(np.int64) << 10) | self.seq_number[rows], kind="stable")]
        kids = np.asarray(nodes[1:], np.int64)
        if not len(kids):
            return rows, np.zeros(len(rows), np.int64)
        by_first = np.argsort(self.first[kids], kind="stable")
        starts, ends = self.first[kids][by_first], (self.first[kids] + self.count[kids])[by_first]
        at = np.searchsorted(starts, rows, side="right") - 1
        inside = (at >= 0) & (rows < ends[np.maximum(at, 0)])
        theirs = rows[inside]
        owner = (by_first[at[inside]] + 1).astype(np.int16 if len(nodes) < 2**15 else np.int64)
        o = np.argsort(owner, kind="stable")  # a radix sort of small numbers: the (game, number) order kept
        return np.concatenate([rows, theirs[o]]), np.r_[np.zeros(len(rows), np.int64), owner[o].astype(np.int64)]

    def counted_at(self, n: int, selection: Selection, in_selection: np.ndarray) -> list[dict]:
        """``counted`` of node ``n`` and its children, kept for the
        ``COUNTED`` most recently asked (every walk from the empty corner
        asks the first moves again)."""
        with self.lock:
            found = self.answers.get((selection, n))
            if found is not None:
                self.answers.move_to_end((selection, n))
                return found
        found = self.counted([n, *self.children(n).tolist()], in_selection)
        with self.lock:
            self.answers[(selection, n)] = found
            while len(self.answers) > COUNTED:
                self.answers.popitem(last=False)
        return found

    def counted(self, nodes: list[int], in_selection: np.ndarray, first_only: bool = True) -> list[dict]:
        """The figures of some nodes counted from the selected sequences
        (``in_selection``: a bool a row of the sequences in trie order), by
        the build's rules (module docstring); their years and collections
        too (the first node's alone, with ``first_only``)."""
        rows, owner = self._by_node(nodes, in_selection)
        game = self.seq_game[rows]
        head = np.r_[True, (owner[1:] != owner[:-1]) | (game[1:] != game[:-1])] if len(rows) else np.zeros(0, bool)
        chosen = np.flatnonzero(head)
        g, who = game[chosen], owner[chosen]
        won = self.table.winner[g].astype(np.int64)
        won = np.where(self.seq_swapped[rows[chosen]], -won, won)  # the tree's colours
        year = self.table.year[g].astype(np.int64)
        k = len(nodes)
        sequences = np.bincount(owner, minlength=k)
        games = np.bincount(who, minlength=k)
        black = np.bincount(who[won < 0], minlength=k)
        white = np.bincount(who[won > 0], minlength=k)
        # the heads come by owner (the sort's first key): each owner's a slice
        bounds = np.searchsorted(who, np.arange(k + 1))
        out = []
        for i in range(k):
            lo, hi = int(bounds[i]), int(bounds[i + 1])
            y = year[lo:hi]
            known = y[y > 0]
            figures = {
                "count": int(sequences[i]),
                "games": int(games[i]),
                "black_wins": int(black[i]),
                "white_wins": int(white[i]),
                "first_year": int(known.min()) if len(known) else None,
                "last_year": int(known.max()) if len(known) else None,
            }
            if i == 0 or not first_only:  # the years and collections of the position itself
                by_year = np.unique(known, return_counts=True)
                by_source = np.unique(self.table.collection[g[lo:hi]], return_counts=True)
                figures["years"] = {int(a): int(b) for a, b in zip(*by_year)}
                figures["sources"] = dict(sorted((self.table.collections[int(a)], int(b)) for a, b in zip(*by_source)))
            out.append(figures)
        return out

    def explore(self, q: Query, selection: Selection = Selection()) -> dict:
        """A position's figures and continuations, as ``book.explore.lookup``
        gives them (its keys, and each figure equal to it without a
        filter), with the win rates, the book's kinds and the selection's
        games; ``stored`` False (and ``held``, the moves the tree holds)
        where the tree does not hold the sequence."""
        n, held = self.find(q.keys)
        depth = len(q.keys)
        if held < depth:
            return {**names_of(q), "stored": False, "held": held, "count": 0, "games": 0, "continuations": []}
        if selection.active:
            selected, in_selection = self.mask(selection)
            kids = self.children(n)
            here, *theirs = self.counted_at(n, selection, in_selection)
            kept = [(int(c), f) for c, f in zip(kids.tolist(), theirs) if f["count"] >= STORED]
            kept.sort(key=lambda cf: (-cf[1]["count"], int(self.key[cf[0]])))
            selected_games = int(selected.sum())
        else:
            here = self.stored(n)
            kept = [(int(c), self.stored(int(c), whole=False)) for c in self.children(n).tolist()]
            selected_games = len(self.table)
        continuations = []
        for c, f in kept:
            k = int(self.key[c])
            continuations.append(
                {
                    "move": q.move_text(k, depth + 1),
                    "board": q.board_move(k),
                    "normal": sgf_key(k, depth + 1),
                    **{name: f[name] for name in STATS},
                    "share": share_of(f["count"], here["count"]) or 0.0,
                    **self.kind_of(c),
                    "book": self.book.get(c, BELOW),
                    **self.context_of(c),
                    "win_rate": win_rate(f["black_wins"], f["white_wins"]),
                    "node": c,
                }
            )
        return {
            **names_of(q),
            "stored": True,
            "node": n,
            **{name: here[name] for name in STATS},
            **self.kind_of(n),
            "book": self.book.get(n, BELOW),
            **self.context_of(n),
            "years": here["years"],
            "most_popular": peak_year(*self.cells_at(n, selected if selection.active else None)),
            "most_popular_within_collections": len(self.table.collections) > 1,
            "sources": here["sources"],
            "win_rate": win_rate(here["black_wins"], here["white_wins"]),
            "ended_or_rarer": here["count"] - sum(c["count"] for c in continuations),
            "selected_games": selected_games,
            "continuations": continuations,
        }

    def games_at(self, n: int, selection: Selection = Selection()) -> tuple[np.ndarray, np.ndarray]:
        """Node ``n``'s games (those selected), each once at its
        earliest-started sequence there, the most recent first (as
        ``book.explore.games_of`` lists them): their numbers and the rows
        of those sequences in trie order."""
        lo, hi = int(self.first[n]), int(self.first[n] + self.count[n])
        rows = np.arange(lo, hi)
        if selection.active:
            rows = rows[self.mask(selection)[1][lo:hi]]
        game, number = self.seq_game[rows], self.seq_number[rows]
        earliest = np.lexsort((number, game))
        first = earliest[np.r_[True, np.diff(game[earliest]) != 0]] if len(game) else earliest
        day = self.table.day[game[first]].astype(np.int64)
        recent = first[np.lexsort((game[first], -day))]
        return game[recent], rows[recent]

    def game_rows(self, games: np.ndarray, rows: np.ndarray | None, first_key: int) -> pa.Table:
        """The information of some games (``GAME_COLUMNS`` and the game's
        number), with the move and corner where their sequence starts
        (``rows``: its row in trie order)."""
        table = self.table.info.take(column(games.astype(np.int64), np.int64))
        start = self.seq_start[rows] if rows is not None else np.zeros(len(games), np.int32)
        corner = [corner_of(int(o), first_key) for o in self.seq_orientation[rows].tolist()] if rows is not None else []
        return table.append_column("move", column(start.astype(np.int32), np.int32)).append_column(
            "corner", strings(corner if rows is not None else [""] * len(games))
        )


def codes(values: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """A column of strings (read as a dictionary, or not) as a number a row and the names."""
    if not pa.types.is_dictionary(values.type):
        values = values.dictionary_encode()
    whole = values.unify_dictionaries().combine_chunks()
    return numpy(whole.indices).astype(np.int64), whole.dictionary.to_pylist()


STATS = ("count", "games", "black_wins", "white_wins", "first_year", "last_year")


UPPER_RIGHT = 1  # the empty corner is shown in the upper right: the tree's upper left mirrored


def empty_corner() -> Query:
    """The empty corner as a query: the first moves, shown in the upper right."""
    return Query((), (), "board", UPPER_RIGHT, False, ())


def shown_point(q: Query, key: int) -> str:
    """A tree key in the player's orientation, as a board names it."""
    return "tenuki" if key == TENUKI else board_name(POINT_MAP[inverse(q.transform)][key])
