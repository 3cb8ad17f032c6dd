"""Move orders merged where the position is the same (method.orders,
stages.orders; prune.merge_orders): one node a position, under the parent
of its most played order, counting the games of every order."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from joseki_miner.book.lookup import query
from joseki_miner.method import orders
from joseki_miner.method.influence import INF_NEUTRAL
from joseki_miner.method.points import TENUKI, from_sgf, to_sgf
from joseki_miner.method.positions import position_keys, position_of
from joseki_miner.method.prune import parent_rows
from joseki_miner.method.symmetry import DIRECTION_MAP
from joseki_miner.method.trie import GameStats, Trie

N4 = (INF_NEUTRAL,) * 4


def _trie(weighted, classes=None):
    """A trie of (games, line) pairs, a game each time a line is played."""
    t, g = Trie(), 0
    for times, text in weighted:
        keys = list(query(text).keys)
        for _ in range(times):
            g += 1
            t.insert(keys, [classes or N4] * len(keys), game=GameStats(g))
    return t.to_arrays()


def _merged(a):
    prow = parent_rows(a["node"], a["parent"])
    key = np.where(a["depth"] == 0, TENUKI, a["key"].astype(np.int64))
    return orders.merge(prow, a["count"], key, *position_keys(prow, a["depth"], key)), key


def _lines(m):
    line = {}
    for i, (p, k) in enumerate(zip(m.parent.tolist(), m.key.tolist())):
        line[i] = () if p < 0 else line[p] + (k,)
    return line


def test_two_orders_of_the_small_knights_enclosure_are_one_node_under_the_more_played():
    a = _trie([(8, "R16 tenuki P17"), (3, "P17 tenuki R16"), (4, "R16 tenuki P17 tenuki C3")])
    m, key = _merged(a)
    line = _lines(m)
    enclosure = query("R16 tenuki P17").keys
    node = next(n for n, p in line.items() if p == enclosure)
    assert int(np.asarray(a["count"])[m.group == node].sum()) == 15  # every order's sequences
    # the other order's first moves stay positions of their own; its last one is the enclosure's node
    other = query("P17 tenuki R16").keys
    assert position_of(other)[0] == position_of(enclosure)[0] and other not in line.values()
    assert other[:1] in line.values() and other[:2] in line.values()
    assert len(line) == len(set(map(int, m.group)))  # one node a position


def test_a_node_under_a_merged_one_is_written_in_its_display_frame():
    """The enclosure's follow-up played after either order is one node,
    its move written where it lies in the line shown (the most played)."""
    a = _trie([(8, "R16 tenuki P17 tenuki R14"), (3, "P17 tenuki R16 tenuki R14")])
    m, _ = _merged(a)
    line = _lines(m)
    deepest = [n for n, p in line.items() if len(p) == 5]
    assert len(deepest) == 1 and line[deepest[0]] == query("R16 tenuki P17 tenuki R14").keys
    assert position_of(line[deepest[0]])[0] == position_of(query("P17 tenuki R16 tenuki R14").keys)[0]


def test_counters_turn_with_the_frame():
    counters = np.arange(24, dtype=np.int64).reshape(2, 12)
    for t in range(8):
        turned = orders.turn_counters(counters, np.array([t, 0]))
        assert (turned[1] == counters[1]).all()
        for d in range(4):
            to = DIRECTION_MAP[t][d]
            assert (turned[0, 3 * to : 3 * to + 3] == counters[0, 3 * d : 3 * d + 3]).all()


def test_a_game_that_plays_one_position_in_two_orders_counts_once(tmp_path):
    """stages.orders counts a merged node's games again from its members'
    sequences: a game with the enclosure in two corners, one an order,
    is one game there (the counts of the members would say two)."""
    from helpers import mine_into

    games = tmp_path / "games"
    games.mkdir()
    # Black's R16, White elsewhere, Black's P17 (upper right); in the lower left the other order: E3, then C4;
    # each game ends with a move of its own in the centre (a game met twice would be a duplicate)
    both = "(;GM[1]FF[4]SZ[19];B[qd];W[dd];B[oc];W[pp];B[eq];W[pq];B[cp];W[{}])"
    one = "(;GM[1]FF[4]SZ[19];B[qd];W[dd];B[oc];W[pp];B[{}])"
    centre = [to_sgf(r * 19 + c) for r in range(7, 12) for c in range(7, 12)]
    for i in range(12):
        (games / f"both-{i}.sgf").write_text(both.format(centre[i]))
        (games / f"one-{i}.sgf").write_text(one.format(centre[i]))
    catalog = mine_into(
        [games],
        tmp_path / "out",
        "prune.merge_orders=true",
        "prune.min_games=1",
        "prune.confidence=null",
        "prune.min_count=2",
        "min_length=2",
        "kinds.approach=null",
    )
    table = pq.read_table(catalog.joseki).to_pydict()
    line = {}
    for n, p, mv in zip(table["node"], table["parent"], table["move"]):
        line[n] = () if p < 0 else line[p] + ((from_sgf(mv) if mv else TENUKI),)
    position = position_of(query("R16 tenuki P17").keys)[0]
    node = next(n for n, p in line.items() if p and position_of(p)[0] == position and len(p) == 3)
    assert table["count"][node] == 36 and table["games"][node] == 24  # 12 games play it twice
    ranges = pq.read_table(catalog.node_orders).to_pydict()
    assert sorted(c for n, c in zip(ranges["node"], ranges["count"]) if n == node) == [12, 24]


@pytest.mark.shared_data
def test_merged_orders_on_real_games_count_every_order_and_read_the_same_from_files(real_subset, tmp_path):
    """Every node of the merged tree: its sequences are its orders'
    (node_orders.parquet), all reaching its position; its games the
    distinct games among them; and pruning from the files gives the bytes
    mining gave from memory."""
    from helpers import mine_into
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.config import load
    from pipeline.run import Request, run_stages

    catalog = mine_into([real_subset], tmp_path / "mined", "prune.merge_orders=true")
    table = pq.read_table(catalog.joseki).to_pydict()
    ranges = pq.read_table(catalog.node_orders).to_pydict()
    game = pq.read_table(catalog.sorted_sequences, columns=["game"]).column("game").to_numpy()
    parts: dict[int, list[tuple[int, int]]] = {}
    for n, f, c in zip(ranges["node"], ranges["first"], ranges["count"]):
        parts.setdefault(n, []).append((f, c))
    several = 0
    for n, count, games in zip(table["node"], table["count"], table["games"]):
        assert sum(c for _, c in parts[n]) == count
        assert len(np.unique(np.concatenate([game[f : f + c] for f, c in parts[n]]))) == games
        several += len(parts[n]) > 1
    assert several > 10  # real games play transpositions
    again = tmp_path / "again"
    shutil.copytree(tmp_path / "mined", again, ignore=shutil.ignore_patterns(".joseki.lock"))
    run_stages(
        Catalog(work=again / "interim", out=again),
        load(None, ["prune.merge_orders=true"]),
        ("prune",),
        (),
        Request(progress=False, force=True),
    )
    for name in (
        "joseki.parquet",
        "node_orders.parquet",
        "node_examples.parquet",
        "node_years.parquet",
        "node_sources.parquet",
    ):
        assert (again / name).read_bytes() == (tmp_path / "mined" / name).read_bytes(), name
    # joseki compare reads each node's orders as the report's page of what changed does
    from joseki_miner.book.compare import compare, compare_files, eras, game_years

    a, b, _, _ = eras(game_years(catalog.games))
    assert compare(catalog, a, b) == compare_files(
        catalog.joseki, catalog.sorted_sequences, catalog.games, a, b, orders=catalog.node_orders
    )
    summary = json.loads((again / "summary.json").read_text())
    assert summary["nodes_after_prune"] == len(table["node"])
    # without the option the orders' file goes
    run_stages(Catalog(work=again / "interim", out=again), load(None), ("prune",), (), Request(progress=False))
    assert not (again / "node_orders.parquet").exists()
