"""``joseki lookup``, ``games`` and ``trend`` on mined real games: the same
answers for a sequence in each of its 16 orientations and colourings, in
either notation; what the tree does not hold says so."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from joseki_miner.runs.config import load
from joseki_miner.book.lookup import SequenceError, board_name, query
from joseki_miner.method.points import TENUKI, from_sgf, to_sgf
from joseki_miner.method.symmetry import POINT_MAP
from joseki_miner.book import explore
from joseki_miner.method.kinds import KINDS
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.catalog import STAGES
from pipeline.run import Request, run_stages

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mined(real_subset, tmp_path_factory) -> Catalog:
    out = tmp_path_factory.mktemp("explore")
    catalog = Catalog(work=out / "interim", out=out)
    run_stages(catalog, load(None, ["prune.min_count=20"]), STAGES, [real_subset], Request(progress=False))
    return catalog


def _deep_node(catalog: Catalog, depth: int) -> tuple[int, ...]:
    """The keys of the most played stored node of ``depth`` moves that has
    a continuation and is not on a symmetry axis all along."""
    table = pq.read_table(catalog.joseki).to_pandas()
    keys: dict[int, tuple[int, ...]] = {}
    for node, parent, move in zip(table["node"], table["parent"], table["move"]):
        keys[node] = () if parent < 0 else keys[parent] + (TENUKI if move == "" else from_sgf(move),)
    deep = table[(table["depth"] == depth) & table["node"].isin(table["parent"])]
    return keys[int(deep.sort_values(["count", "node"], ascending=[False, True]).iloc[0]["node"])]


def _written(keys: tuple[int, ...], t: int, swap: bool, notation: str) -> str:
    """A sequence of tree keys turned by ``t``, colours swapped if asked, as a player writes it."""
    moves = []
    for depth, key in enumerate(keys, 1):
        black = (depth % 2 == 1) != swap
        point = POINT_MAP[t][key] if key != TENUKI else TENUKI
        if notation == "sgf":
            moves.append(f"{'B' if black else 'W'}[{to_sgf(point) if point != TENUKI else ''}]")
        else:
            moves.append("tenuki" if point == TENUKI else board_name(point))
    text = ";".join(moves) if notation == "sgf" else " ".join(moves)
    return f"W {text}" if notation == "board" and swap else text


def _sixteen(keys):
    return [(t, swap, notation) for t in range(8) for swap in (False, True) for notation in ("sgf", "board")]


@pytest.mark.shared_data
def test_lookup_answers_alike_in_every_orientation_and_colour(mined):
    keys = _deep_node(mined, 3)
    answers = []
    for t, swap, notation in _sixteen(keys):
        text = _written(keys, t, swap, notation)
        found = explore.lookup(mined, text)
        assert query(text).keys == keys
        # the continuations' moves, written as the player writes, lead back to the tree's keys
        for c in found["continuations"]:
            extended = f"{text};{c['move']}" if notation == "sgf" else f"{text} {c['move']}"
            tree_move = c["normal"][2:-1]
            assert query(extended).keys == keys + (from_sgf(tree_move) if tree_move else TENUKI,)
        answers.append(
            {k: v for k, v in found.items() if k not in ("sequence", "board", "first_player")}
            | {
                "continuations": [
                    {k: v for k, v in c.items() if k not in ("move", "board")} for c in found["continuations"]
                ]
            }
        )
    assert all(a == answers[0] for a in answers)
    first = answers[0]
    assert first["count"] >= 20 and first["games"] <= first["count"]
    assert first["black_wins"] + first["white_wins"] <= first["games"]
    assert sum(first["years"].values()) <= first["games"] == sum(first["sources"].values())
    assert first["continuations"] and sum(c["count"] for c in first["continuations"]) <= first["count"]


@pytest.mark.shared_data
def test_games_and_trend_answer_alike_in_every_orientation_and_colour(mined):
    keys = _deep_node(mined, 3)
    lists, trends = [], []
    for t, swap, notation in _sixteen(keys):
        text = _written(keys, t, swap, notation)
        _, rows, total = explore.games_of(mined, text)
        lists.append(
            (total, rows.column("game").to_pylist(), rows.column("move").to_pylist(), rows.column("corner").to_pylist())
        )
        trends.append(explore.trend(mined, text)[1])
    assert all(x == lists[0] for x in lists) and all(x == trends[0] for x in trends)
    total, games, _, _ = lists[0]
    node = explore.lookup(mined, _written(keys, 0, False, "sgf"))
    assert total == len(games) == node["games"]
    assert sum(r["games"] for r in trends[0]) == sum(node["years"].values())
    assert all(r["share"] is None or 0 <= r["share"] <= 1 for r in trends[0])


@pytest.mark.shared_data
def test_games_lists_each_game_once_the_most_recent_first(mined):
    keys = _deep_node(mined, 2)
    _, rows, total = explore.games_of(mined, _written(keys, 3, True, "board"))
    games = rows.column("game").to_pylist()
    assert len(games) == len(set(games)) == total
    from joseki_miner.method.gameinfo import days

    day = days(rows.column("DT")).tolist()
    assert day == sorted(day, reverse=True)
    _, limited, again = explore.games_of(mined, _written(keys, 3, True, "board"), limit=7)
    assert again == total and limited.column("game").to_pylist() == games[:7]


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.mark.shared_data
def test_the_commands(mined, tmp_path):
    keys = _deep_node(mined, 3)
    text = _written(keys, 5, False, "board")
    done = _cli("lookup", text, "--out", mined.out, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) >= {"count", "games", "black_wins", "white_wins", "first_year", "last_year", "continuations"}
    assert set(data["continuations"][0]) == {
        "move",
        "board",
        "normal",
        "count",
        "share",
        "games",
        "black_wins",
        "white_wins",
        "last_year",
        "kind",
    }
    # SGF's form for programs, and the board's (the player's orientation, and the tree's)
    assert (
        data["board"] == text
        and data["normal"].startswith("B[")
        and re.fullmatch(r"[A-T]\d+( [A-T]\d+)*", data["normal_board"])
    )
    # what the node and each continuation is, as the tree names it
    table = pq.read_table(mined.trie, columns=["kind"]).column("kind").to_pylist()
    assert data["kind"] in KINDS and data["kind"] in set(table)
    assert {c["kind"] for c in data["continuations"]} <= set(KINDS)
    shown = _cli("lookup", text, "--out", mined.out)
    assert shown.returncode == 0 and f"{data['count']:,} sequences in {data['games']:,} games" in shown.stdout
    assert "% (" in shown.stdout  # a win rate with its interval
    taken = {c["board"] for c in data["continuations"]} | set(text.split())
    last = next(w for w in reversed(text.split()) if w != "tenuki")
    column, row = "ABCDEFGHJKLMNOPQRST".index(last[0]), int(last[1:])
    near = next(
        f"{'ABCDEFGHJKLMNOPQRST'[c]}{r}"
        for c, r in ((column - 1, row), (column + 1, row), (column, row - 1), (column, row + 1))
        if 0 <= c < 19 and 1 <= r <= 19 and f"{'ABCDEFGHJKLMNOPQRST'[c]}{r}" not in taken
    )
    rare = _cli("lookup", f"{text} {near}", "--out", mined.out)
    assert rare.returncode == 1, rare.stderr
    assert rare.stderr.startswith("joseki: the tree does not hold ") and f"it holds {len(keys)} of" in rare.stderr
    # no corner holds moves in the four corners, or a move on a stone
    far = _cli("lookup", f"{text} A1 T19 A19", "--out", mined.out)
    assert far.returncode == 2 and "points from the sequence's stones" in far.stderr, far.stderr
    again = _cli("lookup", f"{text} {text.split()[0]}", "--out", mined.out)
    assert again.returncode == 2 and "is played on a stone" in again.stderr, again.stderr
    bad = _cli("lookup", "Q16 Z42", "--out", mined.out)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "joseki: not a point of the board: 'Z42' (write Q16, R17 ... or SGF B[pd];W[qc])"
    ]
    sgf = tmp_path / "games.sgf"
    written = _cli("games", text, "--out", mined.out, "--sgf", sgf, "--limit", "5")
    assert written.returncode == 0, written.stderr
    from sgfmill import sgf as sgfmill

    collection = sgf.read_text(encoding="utf-8")
    assert collection.count("(;FF[4]") == 5
    for game in collection.strip().split("\n"):
        sgfmill.Sgf_game.from_string(game)  # each game parses
    # each game's record named by its collection and its place there, as the book names it: no machine's path
    notes = re.findall(r"GC\[([^\]]*)\]", collection)
    assert len(notes) == 5 and all(re.match(r"[\w.-]+: \S", note) for note in notes), notes
    assert "/" + mined.work.parts[1] not in collection and str(mined.work.parent) not in collection
    listed = _cli("games", text, "--out", mined.out, "--limit", "3")
    assert listed.returncode == 0 and len(listed.stdout.strip().splitlines()) == 4
    trend = _cli("trend", text, "--out", mined.out)
    assert trend.returncode == 0 and "share" in trend.stdout
    # the query commands agree: a line no game plays is an answer that found nothing (1), for games too
    unplayed = None
    for c, r in ((column + dc, row + dr) for dc in range(-3, 4) for dr in range(-3, 4)):
        point = f"{'ABCDEFGHJKLMNOPQRST'[c]}{r}" if 0 <= c < 19 and 1 <= r <= 19 else None
        if point and point not in taken:
            try:
                explore.games_of(mined, f"{text} {point}", 1)
            except explore.NoGames:
                unplayed = point
                break
            except SequenceError:  # too far from the stones, or on one: no corner holds it
                continue
    assert unplayed is not None
    nothing = _cli("games", f"{text} {unplayed}", "--out", mined.out)
    assert nothing.returncode == 1 and nothing.stderr.startswith("joseki: no game mined starts "), nothing.stderr
    games_json = json.loads(_cli("games", text, "--out", mined.out, "--limit", "2", "--json").stdout)
    assert games_json["games"] == data["games"] and len(games_json["listed"]) == 2
    assert {"PB", "PW", "DT", "RE", "move", "corner"} <= set(games_json["listed"][0])
    missing = _cli("lookup", text, "--out", tmp_path / "nothing")
    assert missing.returncode == 2 and "mine some games first" in missing.stderr


@pytest.mark.shared_data
def test_games_of_lines_played_once_past_the_stored_nodes(mined):
    """A line no stored node holds (played in one game): the deepest stored
    node's range, narrowed by a binary search of its sequences' moves,
    finds exactly the games that start with it."""
    sequences = pq.read_table(mined.sequences, columns=["game", "moves"]).to_pandas()
    long = sequences[sequences["moves"].str.len() >= 24].sample(12, random_state=1)
    for game, moves in zip(long["game"], long["moves"]):
        keys = tuple(
            TENUKI if moves[i : i + 2] == "--" else from_sgf(moves[i : i + 2]) for i in range(0, len(moves), 2)
        )
        want = set(sequences["game"][sequences["moves"].str.startswith(moves)])
        _, rows, total = explore.games_of(mined, _written(keys, 2, True, "sgf"))
        assert game in want and set(rows.column("game").to_pylist()) == want and total == len(want)


@pytest.mark.shared_data
def test_games_read_folders_of_parts_as_the_files(mined, tmp_path):
    """The dask engine's games.parquet and sequences.parquet are folders of
    a part a partition: the games of lines past the stored nodes (found by
    their sequences' moves), with their information, are those the files
    give, and so are the trends."""
    import shutil

    from helpers import as_parts

    copy = Catalog(work=tmp_path / "copy" / "interim", out=tmp_path / "copy")
    shutil.copytree(mined.out, copy.out)
    rows = pq.read_metadata(mined.sequences).num_rows
    as_parts(copy.sequences, [rows // 3, rows // 3, rows - 7])
    games = pq.read_metadata(mined.games).num_rows
    as_parts(copy.games, [games // 4, games // 2, games // 2 + 1], rows=100)
    assert copy.sequences.is_dir() and len(list(copy.sequences.iterdir())) == 4 and copy.games.is_dir()
    sequences = pq.read_table(mined.sequences, columns=["moves"]).to_pandas()
    for moves in sequences[sequences["moves"].str.len() >= 24].sample(6, random_state=2)["moves"]:
        keys = tuple(
            TENUKI if moves[i : i + 2] == "--" else from_sgf(moves[i : i + 2]) for i in range(0, len(moves), 2)
        )
        text = _written(keys, 5, False, "sgf")
        _, rows_here, total_here = explore.games_of(mined, text, records=True)
        _, rows_there, total_there = explore.games_of(copy, text, records=True)
        assert total_here == total_there > 0 and rows_here.equals(rows_there)
    opening = _written(_deep_node(mined, 3), 5, False, "sgf")  # a stored node's (trend answers for those alone)
    assert explore.trend(mined, opening, by_collection=True) == explore.trend(copy, opening, by_collection=True)


def test_lookup_says_the_year_most_popular_as_the_report_does(mined):
    """lookup named the year of most games ("most in 2011", the year with
    the most games mined); the report's "most popular" is the year of the
    highest share of that year's games: lookup now says the report's."""
    table = pq.read_table(mined.joseki, columns=["node", "parent", "move"]).to_pylist()
    keys: dict[int, tuple[int, ...]] = {}
    checked = 0
    for row in table:
        if row["parent"] < 0:
            keys[row["node"]] = ()
            continue
        keys[row["node"]] = keys[row["parent"]] + (TENUKI if row["move"] == "" else from_sgf(row["move"]),)
        if row["move"] == "" or len(keys[row["node"]]) > 3:
            continue
        found = explore.lookup(mined, _written(keys[row["node"]], 0, False, "sgf"))
        headline = re.search(
            r'<p class="headline">(.*?)</p>', (mined.report / f"n{row['node']}.html").read_text(encoding="utf-8")
        ).group(1)
        said = re.search(r"most popular in (\d{4})", headline)
        assert (int(said.group(1)) if said else None) == found["most_popular"], (row, headline)
        checked += 1
    assert checked > 10
