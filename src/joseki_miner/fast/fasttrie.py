"""The counted trie of many sequences at once, by sorting (numba): the same
nodes, counts and counters as ``trie.Trie``, for millions of sequences.

Sort the sequences; then a node is a prefix, its count is the length of the
run of sorted sequences that share it, and the order in which prefixes first
appear is the trie's canonical order (depth-first pre-order, children by
key).  So one pass over the sorted sequences (``StreamCounter``) gives
every node without a node table or a hash: a node is closed, and its count
known, when the stream leaves its prefix, and only the nodes counted at
least ``min_count`` times are kept (the 96% of nodes that one sequence
alone reaches are never made when only nodes counted at least twice are
asked for).  What is held is the trie kept and the current path, so the
sorted stream can come a block at a time: ``merge_sorted`` merges sorted
runs (parts sorted as they come, ``sort_sequences``; on disk, for a large
collection) block by block.

Each sequence carries a ``PAYLOAD`` row through the sort: which game it
comes from, and what the per-node statistics count (games, wins in the
tree's colours, years, collections: ``StreamCounter``).  A node's sequences
are a contiguous range of the sorted stream, from its ``first``.

Knows trie keys, influence classes and the payload's numbers; nothing of
boards, game records or files.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from joseki_miner.method.points import DEEP_SHIFT, PREFIX_BITS, PREFIX_KEYS

_KEY_BITS = 9  # keys 0..361 stored as key + 1; 0 marks "sequence ended"
_PER_WORD = 64 // _KEY_BITS

# What travels with each sequence through the sort (24 bytes): its game and
# its number there (in the order the game started them), the move number
# where it starts and its orientation (transform + 8 when colours were
# swapped), so it can be shown in its game; and what the per-node statistics
# read: ``shared``, how many keys it shares with an earlier-started sequence
# of its game (the game is counted at a node by its earliest sequence through
# it; -1 for a game's first sequence, which also counts at the root), the
# winner in the tree's colours (-1 black, +1 white, 0 none), the year (0
# unknown) and the collection's number.
PAYLOAD = np.dtype(
    [
        ("game", "<i8"),
        ("sequence", "<i4"),
        ("start", "<i4"),
        ("shared", "<i2"),
        ("year", "<i2"),
        ("source", "<i2"),
        ("orientation", "i1"),
        ("winner", "i1"),
    ]
)


def plain_payload(n: int) -> np.ndarray:
    """Payload rows of ``n`` sequences each of a game of its own, with no
    winner, year or collection known (for tests and tools)."""
    payload = np.zeros(n, PAYLOAD)
    payload["game"] = np.arange(n)
    payload["shared"] = -1
    return payload


@njit(cache=True, nogil=True)
def _shared(game, offsets, keys, out):
    """Per sequence (a game's sequences together, in the order it started
    them): the most keys it shares from the start with an earlier sequence
    of its game, -1 for a game's first."""
    n = len(offsets) - 1
    first = 0
    for i in range(n):
        if i == 0 or game[i] != game[i - 1]:
            first = i
            out[i] = -1
            continue
        best = 0
        for j in range(first, i):
            m = min(offsets[i + 1] - offsets[i], offsets[j + 1] - offsets[j])
            k = 0
            while k < m and keys[offsets[i] + k] == keys[offsets[j] + k]:
                k += 1
            best = max(best, k)
        out[i] = best


def shared_prefixes(game: np.ndarray, offsets: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``PAYLOAD["shared"]`` of sequences whose games come together, each
    game's in the order it started them."""
    out = np.empty(len(offsets) - 1, np.int16)
    _shared(np.asarray(game, np.int64), np.asarray(offsets, np.int64), np.asarray(keys, np.int16), out)
    return out


@njit(cache=True, nogil=True)
def _pack(offsets, keys, words):
    """Row i of ``words``: sequence i, 7 keys a word, so that comparing rows
    word by word is comparing sequences (a prefix sorts first)."""
    for s in range(len(offsets) - 1):
        for j in range(offsets[s], offsets[s + 1]):
            d = j - offsets[s]
            w = d // _PER_WORD
            shift = 63 - _KEY_BITS * (d % _PER_WORD + 1)
            words[s, w] |= np.uint64(keys[j] + 1) << np.uint64(shift)


@njit(cache=True, inline="always")
def _less(x, a, y, b):
    """Does row a of words ``x`` sort before row b of words ``y``?"""
    for w in range(x.shape[1]):
        if x[a, w] != y[b, w]:
            return x[a, w] < y[b, w]
    return False


@njit(cache=True, nogil=True)
def _merge_runs(words, starts):
    """The sorted order of rows made of sorted runs that begin at ``starts``
    (and end at the next start or the last row): runs merged pairwise, the
    earlier run first among equal rows (as a stable sort)."""
    n = words.shape[0]
    order = np.arange(n)
    spare = np.empty(n, np.int64)
    bounds = np.append(starts, n)
    while len(bounds) > 2:
        merged = np.empty((len(bounds) + 2) // 2, np.int64)
        k = 0
        for i in range(0, len(bounds) - 1, 2):
            lo = bounds[i]
            mid = bounds[i + 1]
            hi = bounds[i + 2] if i + 2 < len(bounds) else mid
            a, b, out = lo, mid, lo
            while a < mid and b < hi:
                if _less(words, order[b], words, order[a]):
                    spare[out] = order[b]
                    b += 1
                else:
                    spare[out] = order[a]
                    a += 1
                out += 1
            while a < mid:
                spare[out] = order[a]
                a += 1
                out += 1
            while b < hi:
                spare[out] = order[b]
                b += 1
                out += 1
            merged[k] = lo
            k += 1
        merged[k] = n
        order, spare = spare, order
        bounds = merged[: k + 1]
    return order


@njit(cache=True, nogil=True)
def _gather(order, offsets, keys, classes):
    """The sequences in ``order``: their offsets, keys and classes."""
    new_offsets = np.zeros(len(order) + 1, np.int64)
    new_keys = np.empty_like(keys)
    new_classes = np.empty_like(classes)
    at = 0
    for r in range(len(order)):
        s = order[r]
        for j in range(offsets[s], offsets[s + 1]):
            new_keys[at] = keys[j]
            new_classes[at] = classes[j]
            at += 1
        new_offsets[r + 1] = at
    return new_offsets, new_keys, new_classes


def _max_depth(offsets: np.ndarray) -> int:
    return int(np.diff(offsets).max()) if len(offsets) > 1 else 0


def _words(offsets: np.ndarray, keys: np.ndarray, width: int, payload: np.ndarray) -> np.ndarray:
    """The rows to sort: a sequence's keys in ``width`` words, then its game
    and number in it, so that equal sequences sort by game: the order is
    total, the same whatever order the sequences come in (a stream's
    batches, or sequences.parquet's rows)."""
    words = np.zeros((len(offsets) - 1, width + 1), dtype=np.uint64)
    _pack(offsets, keys, words)
    words[:, width] = (payload["game"].astype(np.uint64) << np.uint64(16)) | payload["sequence"].astype(np.uint64)
    return words


def _sorted_order(words: np.ndarray) -> np.ndarray:
    """The stable sorted order of the rows of ``words`` (np.lexsort with the
    first word most significant): a merge sort, every row a run of its own,
    compiled; twice as fast as the five passes of lexsort."""
    return _merge_runs(words, np.arange(len(words), dtype=np.int64))


def sort_sequences(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray, payload: np.ndarray):
    """The sequences (offsets, keys, packed classes, ``PAYLOAD`` rows)
    reordered into sorted order, equal ones by game and number: a stream
    sorts each part while it reads the next, and the count merges the sorted
    parts (``merge_sorted``) instead of sorting them all."""
    offsets = np.asarray(offsets, dtype=np.int64)
    keys = np.asarray(keys, dtype=np.int16)
    payload = np.asarray(payload, PAYLOAD)
    order = trie_order(offsets, keys, payload)
    return (*_gather(order, offsets, keys, np.asarray(classes, dtype=np.uint8)), payload[order])


def trie_order(offsets: np.ndarray, keys: np.ndarray, payload: np.ndarray) -> np.ndarray:
    """The order that puts the sequences (``PAYLOAD`` rows: their game and
    number) in sorted order, equal ones by game and number."""
    return _sorted_order(_words(offsets, keys, width_of(_max_depth(offsets)), payload))


def gather(order: np.ndarray, offsets: np.ndarray, keys: np.ndarray, values: np.ndarray):
    """The sequences in ``order``: their offsets, keys, and ``values`` (one
    a key, any number type: classes, or a key's four scores as one uint64)."""
    return _gather(np.asarray(order, np.int64), np.asarray(offsets, np.int64), np.asarray(keys, np.int16), values)


def count_sequences(
    offsets: np.ndarray,
    keys: np.ndarray,
    classes: np.ndarray,
    payload: np.ndarray | None = None,
    min_count: int = 1,
    years: tuple[int, int] = (0, 0),
    sources: int = 1,
    edges: tuple[list[int], list[int]] | None = None,
) -> tuple[dict[str, np.ndarray], int]:
    """The trie of sequences keys[offsets[i]:offsets[i+1]] (``classes``: per
    key, the packed influence classes of ``classes_of``; ``payload``: their
    ``PAYLOAD`` rows, by default a game each), as ``trie.Trie.to_arrays``
    gives it: the root and the nodes counted at least ``min_count`` times,
    in canonical order, with their statistics.  Also returns the number of
    nodes of the whole trie.  One sort, then ``StreamCounter`` (``years``,
    ``sources``, ``edges`` as there); the build merges sorted runs
    into the counter instead."""
    if payload is None:
        payload = plain_payload(len(offsets) - 1)
    block = sort_sequences(offsets, keys, classes, payload)
    counter = StreamCounter(_max_depth(block[0]), min_count, years=years, sources=sources, edges=edges)
    counter.add(*block)
    return counter.finish()


def pack_classes(classes: np.ndarray) -> np.ndarray:
    """Per key, its four direction classes (n, 4) in one byte, 2 bits each
    (up in the lowest): a quarter of the memory for the sequences kept."""
    c = np.asarray(classes, dtype=np.uint8).reshape(-1, 4)
    return c[:, 0] | (c[:, 1] << 2) | (c[:, 2] << 4) | (c[:, 3] << 6)


def classes_of(scores: np.ndarray, neutral: int) -> np.ndarray:
    """Packed influence classes of scores (n, 4): per direction 0 black
    (< -neutral), 1 white (> neutral), 2 neutral (as influence.classify, by
    trie slot), 2 bits each, as ``pack_classes``."""
    scores = np.ascontiguousarray(scores, dtype=np.int16).reshape(-1, 4)
    out = np.empty(len(scores), dtype=np.uint8)
    _classes(scores, neutral, out)
    return out


@njit(cache=True, nogil=True)
def _classes(scores, neutral, out):
    for i in range(len(scores)):
        packed = 0
        for direction in range(4):
            s = scores[i, direction]
            packed |= (0 if s < -neutral else 1 if s > neutral else 2) << (2 * direction)
        out[i] = packed


def width_of(max_depth: int) -> int:
    """Words a packed sequence of up to ``max_depth`` keys takes (``_pack``)."""
    return max(1, -(-max_depth // _PER_WORD))


@njit(cache=True, nogil=True)
def _not_above(words, lo, last, row):
    """The number of sorted rows of ``words`` from ``lo`` on that do not sort
    after row ``row`` of ``last``."""
    a, b = lo, words.shape[0]
    while a < b:
        m = (a + b) // 2
        if _less(last, row, words, m):
            b = m
        else:
            a = m + 1
    return a - lo


def cut(block, lo: int, hi: int):
    """Sequences lo..hi of a block (offsets, keys, classes, payload)."""
    offsets, keys, classes, payload = block
    a, b = offsets[lo], offsets[hi]
    return offsets[lo : hi + 1] - a, keys[a:b], classes[a:b], payload[lo:hi]


def merge_sorted(runs, width: int, step: int = 2048):
    """The blocks of sorted runs (each an iterable of sorted blocks:
    offsets, keys, packed classes, payload), merged into sorted blocks:
    offsets, keys, classes, payload and the order of their sequences (None
    when they are in order); equal sequences by game and number.  Keys
    fit in ``width`` words (``width_of``).  Each round takes, from the
    block at the head of every run, the sequences that sort no later than
    the smallest among the sequences ``step`` rows on in each run that may
    have blocks still unread (or their last): nothing still unread can
    sort before them, and a round is at most about ``step`` sequences of
    such a run (and the rest of a run's last block, in memory already), so
    the count can go on with one round while the next is merged.  A run
    given as a list knows its last block (a run read from a file as it
    goes is not read ahead): once every run is at its last, one round takes
    them all, and a count's many small parts (a partition's each) are
    merged at once, not a round a part."""
    iters = [_blocks_of(r) for r in runs]
    heads = [_next_head(it, width) for it in iters]  # per run: see _next_head; None when done
    live = [i for i, h in enumerate(heads) if h is not None]
    while live:
        more = [i for i in live if heads[i][3]]
        cutoff_run = min(more, key=lambda i: _step_key(heads[i], step)) if more else -1
        if more:
            block, cutoff, at, _ = heads[cutoff_run]
            row = min(at + step, len(cutoff)) - 1  # the cutoff: this row of that run
        pieces, words = [], []
        for i in live:
            block, w, at, _ = heads[i]
            if not more:
                take = len(w) - at
            else:
                take = row + 1 - at if i == cutoff_run else _not_above(w, at, cutoff, row)
            if take:
                pieces.append(cut(block, at, at + take))
                words.append(w[at : at + take])
                heads[i][2] = at + take
        if len(pieces) == 1:
            yield (*pieces[0], None)
        else:
            starts = np.cumsum([0] + [len(w) for w in words[:-1]]).astype(np.int64)
            yield (*_concat(pieces), _merge_runs(np.concatenate(words), starts))
        for i in live:
            if heads[i][2] == len(heads[i][1]):
                heads[i] = _next_head(iters[i], width)
        live = [i for i in live if heads[i] is not None]


def in_order(offsets, keys, classes, payload, order):
    """A block of ``merge_sorted`` with its sequences in order."""
    if order is None:
        return offsets, keys, classes, payload
    return (*_gather(order, offsets, keys, classes), payload[order])


def _step_key(head, step: int) -> tuple:
    """The sequence ``step`` rows on in a run's head block (or its last)."""
    return tuple(head[1][min(head[2] + step, len(head[1])) - 1])


def _blocks_of(run):
    """A run's blocks that hold sequences, each with whether another may
    follow: a list knows its last; an iterator (a file read as it goes)
    is not read ahead."""
    if isinstance(run, list):
        filled = [block for block in run if len(block[0]) > 1]
        return ((block, i + 1 < len(filled)) for i, block in enumerate(filled))
    return ((block, True) for block in run if len(block[0]) > 1)


def _next_head(it, width: int):
    """A run's next head: its block, its packed words, its first unread
    row, and whether another block may follow; None once it is done."""
    for block, more in it:
        return [block, _words(block[0], block[1], width, block[3]), 0, more]
    return None


def _concat(pieces):
    offsets = [np.zeros(1, np.int64)]
    at = 0
    for o, k, _, _ in pieces:
        offsets.append(o[1:] + at)
        at += len(k)
    return (
        np.concatenate(offsets),
        np.concatenate([p[1] for p in pieces]),
        np.concatenate([p[2] for p in pieces]),
        np.concatenate([p[3] for p in pieces]),
    )


@njit(cache=True, nogil=True)
def _count_block(
    offsets,
    keys,
    classes,
    order,
    shared,
    winner,
    year,
    source,
    min_count,
    bounds,
    on,
    rank,
    final,
    start_r,
    segments,
    path_keys,
    path_first,
    counters,
    path_payload,
    stats,
    years,
    sources,
    root,
    state,
    parent,
    depth,
    key,
    count,
    node_counters,
    first,
    games,
    black_wins,
    white_wins,
    first_year,
    last_year,
    base_year,
    y_node,
    y_index,
    y_games,
    s_node,
    s_index,
    s_games,
    n_rows,
):
    """Count a block of sequences, sorted in ``order``, whose first has
    global rank ``rank``, from its ``start_r``-th on, after the path the
    blocks before left; ``final``: then close the whole path.  The nodes it
    closes counted at least ``min_count`` times go to the node arrays at
    their numbers.  Returns where it stopped: the block's length when done
    (its length + 1 when ``final`` and the path is closed too), less when
    the rows of years or collections might not hold a step's (the caller
    grows them and calls again from there).

    The path is held by depth (``path_keys``; ``path_first``, the classes
    of the sequence that opened the node; ``counters``, ``stats``, ``years``
    and ``sources`` of the sequences after that one) and as segments, the
    nodes one sequence opened together (``segments``: first depth, the
    sequence's rank, the nodes kept before it opened them; ``path_payload``:
    its shared, winner, year and collection); ``state``: the path's depth,
    the number of segments, the nodes seen and the nodes kept so far.

    - The nodes of a segment share their count, so a segment that one
      sequence alone reached (most nodes) closes at once.
    - A node's number is known when it opens: before it in pre-order come
      the root, the kept nodes closed by then and its ancestors, which are
      kept if it is (counts fall with depth).  Its sequences are the ranks
      from its opener's on (``first``).
    - Counters and statistics start at the second sequence through a node
      (the opener's are added when it is kept), so nodes of count 1 cost
      none.  A sequence counts as a game of the nodes deeper than the keys
      it shares with an earlier sequence of its game (``shared``): games,
      wins in the tree's colours (``stats``), and by year and collection
      (``years``, ``sources``, emitted as rows when the node is kept:
      ``y_node``, ``y_index``, ``y_games`` and the same ``s_``; ``n_rows``
      counts them)."""
    n = len(order)
    levels = len(path_keys)
    n_years = years.shape[1]
    n_sources = sources.shape[1]
    for r in range(start_r, n + 1):
        if r == n and not final:
            return n
        if n_rows[0] + levels * n_years > len(y_node) or n_rows[1] + levels * n_sources > len(s_node):
            return r  # the rows a step may emit might not fit
        common = 0
        length = 0
        base = 0
        if r < n:
            s = order[r]
            base = offsets[s]
            length = offsets[s + 1] - base
            m = min(length, state[0])
            while common < m and keys[base + common] == path_keys[common + 1]:
                common += 1
        top = state[0]
        while state[1] > 0 and top > common:  # close the path's nodes below the common prefix
            g = state[1] - 1
            start = segments[g, 0]
            low = max(start, common + 1)
            c = rank + r - segments[g, 1]
            if c >= min_count or on[low] != 0:
                for d in range(top, low - 1, -1):
                    if c < min_count and on[d] == 0:  # below a node kept on an edge, whatever its count: cleared
                        counters[d] = 0
                        stats[d] = 0
                        years[d] = 0
                        sources[d] = 0
                        continue
                    i = segments[g, 2] + d
                    if d > start:
                        parent[i] = i - 1
                    else:
                        parent[i] = segments[g - 1, 2] + d - 1 if g > 0 else 0
                    depth[i] = d
                    key[i] = path_keys[d]
                    count[i] = c
                    first[i] = segments[g, 1]
                    opener = path_first[d]
                    for direction in range(4):
                        counters[d, 3 * direction + ((opener >> (2 * direction)) & 3)] += 1
                    node_counters[i] = counters[d]
                    counters[d] = 0
                    if path_payload[g, 0] < d:
                        _add_game(stats, years, sources, d, path_payload[g, 1], path_payload[g, 2], path_payload[g, 3])
                    _close_stats(
                        stats,
                        years,
                        sources,
                        d,
                        i,
                        games,
                        black_wins,
                        white_wins,
                        first_year,
                        last_year,
                        base_year,
                        y_node,
                        y_index,
                        y_games,
                        s_node,
                        s_index,
                        s_games,
                        n_rows,
                    )
                    state[3] += 1
            elif c > 1:
                for d in range(low, top + 1):
                    counters[d] = 0
                    stats[d] = 0
                    years[d] = 0
                    sources[d] = 0
            if low == start:
                state[1] -= 1
            top = low - 1
        if r == n:
            return n + 1
        sh = shared[s]
        if sh < 0:  # a game's first sequence: a game of the root
            _add_game(root, years, sources, 0, winner[s], year[s], source[s])
        for d in range(1, common + 1):
            packed = classes[base + d - 1]
            for direction in range(4):
                counters[d, 3 * direction + ((packed >> (2 * direction)) & 3)] += 1
        for d in range(max(1, sh + 1), common + 1):
            _add_game(stats, years, sources, d, winner[s], year[s], source[s])
        if length > common:
            g = state[1]
            segments[g, 0] = common + 1
            segments[g, 1] = rank + r
            segments[g, 2] = state[3]  # a node's number: the root, the kept nodes closed, its ancestors
            path_payload[g, 0] = sh  # the opener's payload, the same for every node of its segment
            path_payload[g, 1] = winner[s]
            path_payload[g, 2] = year[s]
            path_payload[g, 3] = source[s]
            state[1] += 1
            for d in range(common + 1, length + 1):
                path_keys[d] = keys[base + d - 1]
                path_first[d] = classes[base + d - 1]
                edge = 0
                if bounds[0, d] == path_keys[d]:
                    edge |= 1
                if bounds[1, d] == path_keys[d]:
                    edge |= 2
                on[d] = on[d - 1] & edge
        state[2] += length - common
        state[0] = length
    return n


@njit(cache=True, inline="always")
def _add_game(stats, years, sources, d, winner, year, source):
    """One game more at the node at depth ``d`` (row 0: the root)."""
    stats[d, 0] += 1
    if winner < 0:
        stats[d, 1] += 1
    elif winner > 0:
        stats[d, 2] += 1
    if year >= 0:
        years[d, year] += 1
    sources[d, source] += 1


@njit(cache=True)
def _close_stats(
    stats,
    years,
    sources,
    d,
    i,
    games,
    black_wins,
    white_wins,
    first_year,
    last_year,
    base_year,
    y_node,
    y_index,
    y_games,
    s_node,
    s_index,
    s_games,
    n_rows,
):
    """A kept node's statistics out (games, black wins, white wins, first
    and last year or 0; rows of its years, by index from ``base_year``, and
    of its collections), and its depth's cleared for the next node there."""
    games[i] = stats[d, 0]
    black_wins[i] = stats[d, 1]
    white_wins[i] = stats[d, 2]
    first_year[i] = 0
    last_year[i] = 0
    for y in range(years.shape[1]):
        if years[d, y]:
            if first_year[i] == 0:
                first_year[i] = base_year + y
            last_year[i] = base_year + y
            y_node[n_rows[0]] = i
            y_index[n_rows[0]] = y
            y_games[n_rows[0]] = years[d, y]
            n_rows[0] += 1
            years[d, y] = 0
    for k in range(sources.shape[1]):
        if sources[d, k]:
            s_node[n_rows[1]] = i
            s_index[n_rows[1]] = k
            s_games[n_rows[1]] = sources[d, k]
            n_rows[1] += 1
            sources[d, k] = 0
    stats[d] = 0


class Rows:
    """Rows (node, index, games) as three columns (8, 2 and 4 bytes a row),
    in chunks of ``CHUNK`` rows added as needed (none is ever copied to
    grow): a node's games by year (index from the counter's first year) or
    by collection.  The counter writes into the last chunk."""

    CHUNK = 1 << 20

    def __init__(self, least: int = 0) -> None:
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.used: list[int] = []
        self.grow(least)

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.chunks[-1]

    def grow(self, used: int, least: int = 0) -> None:
        """The last chunk holds ``used`` rows: another, of at least ``least``."""
        if self.used:
            self.used[-1] = used
        size = max(self.CHUNK, least)
        self.chunks.append((np.empty(size, np.int64), np.empty(size, np.int16), np.empty(size, np.int32)))
        self.used.append(0)

    def by_node(self, used: int, offset: int, nodes: int) -> dict[str, np.ndarray]:
        """The rows (the last chunk holding ``used``), ordered by node then
        index, as columns "node", "index" (shifted by ``offset``: a year's)
        and "games"; then no longer held.  A node's rows come together, by
        index, when it closes: each block goes where its node's rows start,
        with no sort, a column at a time (the node column last)."""
        self.used[-1] = used
        parts = [tuple(a[:n] for a in chunk) for chunk, n in zip(self.chunks, self.used)]
        self.chunks = []
        at = np.zeros(nodes + 1, np.int64)  # one array a node: where its rows go next
        for node, _, _ in parts:
            _tally(node, at)
        total = _starts(at)
        out = {}
        dtypes = {"node": np.int64, "index": np.int16, "games": np.int32}
        for k, name in ((2, "games"), (1, "index"), (0, "node")):
            column = np.empty(total, dtypes[name])
            for part in parts:
                _scatter(part[0], part[k], at, column)
            _back(at)  # each node's next place is the next node's start: back to the starts
            out[name] = column
            parts = [tuple(None if j == k else a for j, a in enumerate(part)) for part in parts]  # that column: freed
        out["index"] = (out["index"] + offset).astype(np.int16)
        return {name: out[name] for name in ("node", "index", "games")}


@njit(cache=True, nogil=True)
def _tally(node, at):
    """Count each node's rows into at[node + 1]."""
    for r in range(len(node)):
        at[node[r] + 1] += 1


@njit(cache=True, nogil=True)
def _starts(at):
    """Counts (at[n + 1]) to where each node's rows start (at[n]), in place;
    returns the rows in all."""
    for n in range(1, len(at)):
        at[n] += at[n - 1]
    return at[len(at) - 1]


@njit(cache=True, nogil=True)
def _back(at):
    """After a scatter at[n] is node n + 1's start: shift back, in place."""
    for n in range(len(at) - 1, 0, -1):
        at[n] = at[n - 1]
    at[0] = 0


@njit(cache=True, nogil=True)
def _scatter(node, values, at, out):
    """Each row's value to where its node's rows go next (``at``)."""
    for r in range(len(node)):
        out[at[node[r]]] = values[r]
        at[node[r]] += 1


class StreamCounter:
    """The trie of sequences given in sorted order, block by block (``add``),
    as ``count_sequences`` gives it (``finish``), holding only the nodes
    counted at least ``min_count`` times and the current path, and with
    them their statistics: per node its ``first`` rank in the stream, its
    games, wins in the tree's colours, first and last year, and rows of its
    games by year and by collection."""

    def __init__(
        self,
        max_depth: int,
        min_count: int = 1,
        room: int = 1 << 12,
        most: int | None = None,
        years: tuple[int, int] = (0, 0),
        sources: int = 1,
        edges: tuple[list[int], list[int]] | None = None,
    ) -> None:
        """``room``: nodes the arrays start with, at most; ``most``: the most
        nodes the stream can keep, if known (its keys over ``min_count``),
        so the arrays need not grow past it.  ``years``: the first year and
        the number of years the payloads' year indices count from;
        ``sources``: the number of collections.  ``edges``: two paths of
        keys whose nodes are kept whatever their count (a range of the
        sequences counted apart, ``deep_codes``: the paths of its ends, whose
        nodes the ranges beside it may hold too; ``joining.join_plan`` adds them
        up and applies ``min_count`` to the sum)."""
        self.min_count = max(1, min_count)
        self.levels = max_depth + 1
        self.bounds = np.full((2, self.levels), -2, np.int16)  # the edges' keys by depth
        self.on = np.zeros(self.levels, np.uint8)  # the path's depths on each edge (bits 1, 2)
        if edges is not None:
            self.on[0] = 3
            for j, path in enumerate(edges):
                n = min(len(path), self.levels - 1)
                self.bounds[j, 1 : n + 1] = path[:n]
            if most is not None:
                most += 2 * self.levels  # the edges' nodes, kept below the floor
        self.spare = 2 * self.levels + 1  # room past the kept nodes: a block's path, twice over
        self.most = most
        self.first_year, self.n_years = years
        room = self._capped(room)
        self.segments = np.zeros((self.levels, 3), np.int64)
        self.path_keys = np.zeros(self.levels, np.int16)
        self.path_first = np.zeros(self.levels, np.uint8)
        self.counters = np.zeros((self.levels, 12), np.int64)
        self.path_payload = np.zeros((self.levels, 4), np.int64)
        self.stats = np.zeros((self.levels, 3), np.int64)  # games, black wins, white wins; by depth
        self.years = np.zeros((self.levels, max(1, self.n_years)), np.int64)
        self.sources = np.zeros((self.levels, max(1, sources)), np.int64)
        self.root = np.zeros((1, 3), np.int64)
        self.state = np.zeros(4, np.int64)  # the path's depth; its segments; the nodes seen; the nodes kept
        self.sequences = 0
        self.nodes = _node_arrays(room)  # grown as needed
        # rows of years and collections, in chunks added as needed; a chunk holds a step's rows at least
        self.year_rows = Rows(4 * self.levels * self.years.shape[1])
        self.source_rows = Rows(4 * self.levels * self.sources.shape[1])
        self.n_rows = np.zeros(2, np.int64)

    def _capped(self, room: int) -> int:
        """``room`` nodes, but no more than the stream can keep (and the spare)."""
        return room if self.most is None else min(room, self.most + self.spare)

    def add(
        self,
        offsets: np.ndarray,
        keys: np.ndarray,
        classes: np.ndarray,
        payload: np.ndarray,
        order: np.ndarray | None = None,
    ) -> None:
        """The next block of the sorted stream (in ``order``, when given)."""
        n = len(offsets) - 1
        order = np.arange(n) if order is None else order
        self._count(
            np.asarray(offsets, np.int64),
            np.asarray(keys, np.int16),
            np.asarray(classes, np.uint8),
            order,
            np.asarray(payload, PAYLOAD),
            False,
        )
        self.sequences += n

    def _count(self, offsets, keys, classes, order, payload, final: bool) -> None:
        # the largest number a block can give: a node kept a key, and the spare
        room = self._capped(int(self.state[3]) + len(keys) + self.spare)
        if room > len(self.nodes["count"]):
            grown = _node_arrays(max(room, 2 * len(self.nodes["count"])))
            # the nodes written: the kept ones, and past them a node closed
            # under ancestors still open (numbered after them: at most the
            # depth further)
            written = min(len(self.nodes["count"]), int(self.state[3]) + self.levels + 1)
            for name, a in self.nodes.items():
                grown[name][:written] = a[:written]
            self.nodes = grown
        nodes = self.nodes
        year = payload["year"].astype(np.int64)
        year = np.where(year > 0, year - self.first_year, -1)  # by index; -1 unknown
        if ((year < -1) | (year >= self.n_years)).any():
            raise ValueError(f"a year outside the counter's {self.first_year}..{self.first_year + self.n_years - 1}")
        fields = [
            np.ascontiguousarray(payload["shared"]),
            np.ascontiguousarray(payload["winner"]),
            year,
            np.ascontiguousarray(payload["source"]),
        ]
        r, done = 0, len(order) + (1 if final else 0)
        while True:
            r = _count_block(
                offsets,
                keys,
                classes,
                order,
                *fields,
                self.min_count,
                self.bounds,
                self.on,
                self.sequences,
                final,
                r,
                self.segments,
                self.path_keys,
                self.path_first,
                self.counters,
                self.path_payload,
                self.stats,
                self.years,
                self.sources,
                self.root,
                self.state,
                nodes["parent"],
                nodes["depth"],
                nodes["key"],
                nodes["count"],
                nodes["counters"],
                nodes["first"],
                *(nodes[name] for name in _STATS),
                self.first_year,
                *self.year_rows.columns(),
                *self.source_rows.columns(),
                self.n_rows,
            )
            if r == done:
                break
            self._next_chunks()  # full: a chunk more, and go on from r

    def _next_chunks(self) -> None:
        """New chunks for the rows, wherever the last ones are near full."""
        for k, rows in enumerate((self.year_rows, self.source_rows)):
            least = 4 * self.levels * (self.years if k == 0 else self.sources).shape[1]
            if self.n_rows[k] + least > len(rows.columns()[0]):
                rows.grow(int(self.n_rows[k]), least)
                self.n_rows[k] = 0

    def finish(self) -> tuple[dict[str, np.ndarray], int]:
        """The node arrays (the root, then the kept nodes in canonical order:
        node, parent, depth, key, count, counters, first, games,
        black_wins, white_wins, first_year, last_year; 0 for an unknown
        year), the rows of games by year ("years": columns node, index (the
        year), games) and by collection ("sources": node, index (the
        collection's number), games), each ordered by node; and the number
        of nodes of the whole trie."""
        empty = (
            np.zeros(1, np.int64),
            np.zeros(0, np.int16),
            np.zeros(0, np.uint8),
            np.zeros(0, np.int64),
            np.zeros(0, PAYLOAD),
        )
        self._count(*empty[:3], empty[3], empty[4], True)
        size = int(self.state[3]) + 1
        arrays = {"node": np.arange(size, dtype=np.int64)}
        for name, a in self.nodes.items():
            a.resize((size,) + a.shape[1:], refcheck=False)  # drop the spare room, in place
            arrays[name] = a
        self.nodes = {}
        arrays["parent"][0], arrays["depth"][0], arrays["key"][0] = -1, 0, -1
        arrays["count"][0], arrays["counters"][0], arrays["first"][0] = self.sequences, 0, 0
        self._next_chunks()  # room for the root's rows
        _close_stats(
            self.root,
            self.years,
            self.sources,
            0,
            0,
            *(arrays[name] for name in _STATS),
            self.first_year,
            *self.year_rows.columns(),
            *self.source_rows.columns(),
            self.n_rows,
        )
        arrays["years"] = self.year_rows.by_node(int(self.n_rows[0]), self.first_year, size)
        arrays["sources"] = self.source_rows.by_node(int(self.n_rows[1]), 0, size)
        return arrays, 1 + int(self.state[2])


_STATS = ("games", "black_wins", "white_wins", "first_year", "last_year")


def _node_arrays(room: int) -> dict[str, np.ndarray]:
    return {
        "parent": np.empty(room, np.int64),
        "depth": np.empty(room, np.int64),
        "key": np.empty(room, np.int16),
        "count": np.empty(room, np.int64),
        "counters": np.empty((room, 12), np.int32),
        "first": np.empty(room, np.int64),
        "games": np.empty(room, np.int32),
        "black_wins": np.empty(room, np.int32),
        "white_wins": np.empty(room, np.int32),
        "first_year": np.empty(room, np.int16),
        "last_year": np.empty(room, np.int16),
    }


def prefixes(offsets: np.ndarray, keys: np.ndarray, skip: int = 0) -> np.ndarray:
    """Each sequence's first ``PREFIX_KEYS`` keys as one number, in trie
    order (``points.PREFIX``): the build counts ranges of them apart.
    ``skip``: of its keys from that one on (``PREFIX_KEYS``: the next ones,
    a deep code's second part)."""
    at = np.asarray(offsets[:-1], np.int64) + skip
    lengths = np.diff(offsets) - skip
    code = np.zeros(len(at), np.int64)
    for d in range(PREFIX_KEYS):
        longer = np.flatnonzero(lengths > d)
        code <<= PREFIX_BITS
        code[longer] |= keys[at[longer] + d].astype(np.int64) + 1
    return code


def deep_codes(offsets: np.ndarray, keys: np.ndarray, code: np.ndarray | None = None) -> list[int]:
    """Each sequence's deep code (``points.DEEP_SHIFT``: its first keys'
    ``prefixes`` and the next keys'), as Python ints in trie order;
    ``code``: the first keys', if known."""
    first = prefixes(offsets, keys) if code is None else code
    return [a << DEEP_SHIFT | b for a, b in zip(first.tolist(), prefixes(offsets, keys, PREFIX_KEYS).tolist())]


def deep_rank(code: np.ndarray, deep: np.ndarray, cut: int) -> int:
    """How many sequences of a part in trie order come before the deep code
    ``cut`` (``code`` and ``deep``: their first keys' ``prefixes`` and the
    next keys', as a run stores them)."""
    first, rest = _halves(cut)
    a = int(np.searchsorted(code, first))
    if not rest:
        return a
    b = int(np.searchsorted(code, first, side="right"))
    return a + int(np.searchsorted(deep[a:b], rest))


def in_deep_range(offsets: np.ndarray, keys: np.ndarray, code: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Which sequences (in any order; ``code``: their ``prefixes``) have
    deep codes in lo..hi-1."""
    (lo_first, lo_rest), (hi_first, hi_rest) = _halves(lo), _halves(hi)
    rest = prefixes(offsets, keys, PREFIX_KEYS)
    above = (code > lo_first) | ((code == lo_first) & (rest >= lo_rest))
    return above & ((code < hi_first) | ((code == hi_first) & (rest < hi_rest)))


def deep_path(code: int) -> list[int]:
    """The keys a deep code stands for (``deep_codes``; up to its first 0)."""
    first, rest = _halves(code)
    path = prefix_path(first)
    return path + prefix_path(rest) if len(path) == PREFIX_KEYS else path


def _halves(code: int) -> tuple[int, int]:
    """A deep code's two ``prefixes`` numbers: its first keys' and the next ones'."""
    return code >> DEEP_SHIFT, code & ((1 << DEEP_SHIFT) - 1)


def prefix_path(code: int) -> list[int]:
    """The keys a ``prefixes`` number stands for (up to its first 0)."""
    path = []
    for d in range(PREFIX_KEYS - 1, -1, -1):
        digit = (code >> (PREFIX_BITS * d)) & ((1 << PREFIX_BITS) - 1)
        if digit == 0:
            break
        path.append(digit - 1)
    return path
