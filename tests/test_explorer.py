"""``joseki explore`` on mined real games: the index answers as
``joseki lookup`` does; with filters, as a lookup on a run mined with the
same ``filter.*`` keys; and the server, over HTTP on a free port of
127.0.0.1, answers its API and refuses hostile queries with a 400."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from joseki_miner.book import explore
from joseki_miner.book.lookup import board_name, query
from joseki_miner.book.position import Position, position as position_of
from joseki_miner.explorer import params
from joseki_miner.explorer.app import Explorer
from joseki_miner.explorer.index import BELOW, STORED, Index, Selection, empty_corner
from joseki_miner.explorer.server import Serving
from joseki_miner.method.points import TENUKI
from joseki_miner.runs.catalog import STAGES, Catalog
from joseki_miner.runs.config import load
from joseki_miner.runs.inputs import Filters
from pipeline.run import Request, run_stages

ROOT = Path(__file__).resolve().parents[1]
SAME = ("count", "games", "black_wins", "white_wins", "first_year", "last_year", "years", "sources", "most_popular")
LOOKUP_MOVE = ("move", "board", "normal", "count", "games", "black_wins", "white_wins", "first_year", "last_year")
LOOKUP_MOVE += ("share", "kind")
# a move's kind is the run's own (its counts name it): the explorer gives the unfiltered run's
SAME_MOVE = ("board", "count", "share", "games", "black_wins", "white_wins", "last_year")


def _mine(real_subset, folder: Path, *sets: str) -> Catalog:
    catalog = Catalog(work=folder / "interim", out=folder)
    run_stages(catalog, load(None, ["prune.min_count=20", *sets]), STAGES, [real_subset], Request(progress=False))
    return catalog


@pytest.fixture(scope="module")
def mined(real_subset, tmp_path_factory) -> Catalog:
    return _mine(real_subset, tmp_path_factory.mktemp("explorer"))


@pytest.fixture(scope="module")
def index(mined) -> Index:
    return Index.read(mined)


def _text(keys: list[int]) -> str:
    """Tree keys as a player writes them on the board (the tree's orientation, Black first)."""
    return " ".join("tenuki" if k == TENUKI else board_name(k) for k in keys)


def _sample(index: Index, n: int, seed: int = 7) -> list[int]:
    """Stored nodes with a move on the board first: the deepest, the most played and a random draw."""
    nodes = [int(x) for x in np.flatnonzero(index.parent > 0)] + [int(x) for x in index.children(0)]
    nodes = [x for x in nodes if index.key[index.path(x)[0]] != TENUKI] if nodes else []
    random.Random(seed).shuffle(nodes)
    top = sorted(nodes, key=lambda x: -int(index.count[x]))[:10]
    return list(dict.fromkeys(top + nodes[:n]))


def _same(found: dict, looked: dict) -> None:
    for k in SAME:
        assert found[k] == looked[k], k
    assert [{k: c[k] for k in SAME_MOVE if k in c} for c in found["continuations"]] == [
        {k: c[k] for k in SAME_MOVE if k in c} for c in looked["continuations"]
    ]


@pytest.mark.shared_data
def test_the_index_answers_as_lookup_does(mined, index):
    for node in _sample(index, 150):
        text = _text(index.path(node))
        looked = explore.lookup(mined, text)
        found = index.explore(query(text, checked=False))
        assert {k: v for k, v in found.items() if k in looked and k != "continuations"} == {
            k: v for k, v in looked.items() if k != "continuations"
        }, text
        assert [{k: c[k] for k in LOOKUP_MOVE} for c in found["continuations"]] == looked["continuations"]
        assert all(c["book"] == (c["kind"] if c["node"] in index.book else BELOW) for c in found["continuations"])
    # the empty corner: every sequence, its first moves shown in the upper right
    root = index.explore(empty_corner())
    assert root["count"] == int(index.count[0]) and root["continuations"][0]["board"][0] in "KLMNOPQRST"


def _filtered_runs(real_subset, tmp_path_factory, mined):
    """Runs mined with a filter each: years, a collection, a player (the
    one of the most games), and the same selection as the explorer asks it."""
    games = pq.read_table(mined.games, columns=["year", "collection", "PB", "PW"]).to_pydict()
    years = sorted(y for y in games["year"] if y)
    middle = years[len(years) // 2]
    collection = Counter(games["collection"]).most_common()[-1][0].rsplit("/", 1)[-1]
    player = Counter([p for p in games["PB"] + games["PW"] if p]).most_common(1)[0][0]
    return [
        (f"filter.years=[{middle},{years[-1]}]", {"years": f"{middle}-{years[-1]}"}),
        (f"filter.sources=[{collection}]", {"collections": collection}),
        (f"filter.players=[{json.dumps(player)}]", {"player": player}),
    ]


@pytest.mark.shared_data
def test_a_filtered_explore_equals_a_run_mined_with_the_filter(real_subset, tmp_path_factory, mined, index):
    for setting, asked in _filtered_runs(real_subset, tmp_path_factory, mined):
        run = _mine(real_subset, tmp_path_factory.mktemp("filtered"), setting)
        other = Index.read(run)
        chosen = params.selection(asked, index)
        assert chosen.active
        compared = 0
        for node in _sample(other, 60):
            text = _text(other.path(node))
            looked = explore.lookup(run, text)
            found = index.explore(query(text, checked=False), chosen)
            _same(found, looked)
            compared += 1
        assert compared >= 10, setting
        # what the filtered run does not store, the explorer does not list either
        root = index.explore(empty_corner(), chosen)
        assert root["count"] == int(other.count[0]) and all(c["count"] >= STORED for c in root["continuations"])


@pytest.mark.shared_data
def test_a_player_as_one_colour_and_the_winner_narrow_the_selection(index):
    top = index.explore(empty_corner())["continuations"][0]["board"]
    q = params.moves(top)
    name = Counter(p for p in index.table.people["PB"] if p.strip()).most_common(1)[0][0]
    either = index.explore(q, params.selection({"player": name}, index))
    black = index.explore(q, params.selection({"player": name, "color": "black"}, index))
    white = index.explore(q, params.selection({"player": name, "color": "white"}, index))
    assert black["games"] + white["games"] >= either["games"] >= max(black["games"], white["games"]) > 0
    won = index.explore(q, params.selection({"result": "black"}, index))
    assert won["games"] > 0 and won["white_wins"] + won["black_wins"] <= won["games"]
    assert index.explore(q, params.selection({"min_rank": "9d"}, index))["games"] <= index.explore(q)["games"]


# -- over HTTP ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(mined):
    with Serving(Explorer.open(mined)) as url:
        yield url


def _get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read(), r.headers.get("content-type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("content-type", "")


def _api(base: str, path: str, **query) -> tuple[int, dict]:
    status, body, kind = _get(f"{base}{path}?{urllib.parse.urlencode(query)}")
    assert kind.startswith("application/json"), (path, query, kind)
    return status, json.loads(body)


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.mark.shared_data
def test_the_api_answers_as_the_commands_do(served, mined, index):
    node = _sample(index, 5)[0]
    keys = index.path(node)
    while len(keys) < 2 or index.children(index.find(tuple(keys))[0]).size == 0:
        node = int(index.children(node)[0]) if index.children(node).size else _sample(index, 30)[3]
        keys = index.path(node)
    text = _text(keys)
    done = _cli("lookup", text, "--out", mined.out, "--json")
    assert done.returncode == 0, done.stderr
    looked = json.loads(done.stdout)
    status, found = _api(served, "/api/explore", moves=",".join(text.split()))
    assert status == 200
    assert {k: found[k] for k in looked if k != "continuations"} == {
        k: v for k, v in looked.items() if k != "continuations"
    }
    assert [{k: c[k] for k in looked["continuations"][0]} for c in found["continuations"]] == looked["continuations"]
    one = found["continuations"][0]
    assert one["win_rate"]["low"] <= one["win_rate"]["black"] <= one["win_rate"]["high"] and "book" in one
    # the games behind it, the most recent first, paged, as `joseki games` lists them
    _, rows, total = explore.games_of(mined, text, limit=7)
    status, page = _api(served, "/api/games", moves=",".join(text.split()), limit=4, offset=3)
    assert status == 200 and page["total"] == total
    assert [g["game"] for g in page["games"]] == rows.column("game").to_pylist()[3:7]
    status, sgf, kind = _get(f"{served}/api/games/{page['games'][0]['game']}.sgf?moves={','.join(text.split())}")
    assert status == 200 and sgf.startswith(b"(;FF[4]GM[1]SZ[19]") and "sgf" in kind
    status, game = _api(served, f"/api/games/{page['games'][0]['game']}", moves=",".join(text.split()))
    assert status == 200 and game["moves"] and game["start"] == page["games"][0]["move"]
    # a position, as `joseki position --json` answers it
    black = ",".join(board_name(k) for k in keys[::2] if k != TENUKI)
    white = ",".join(board_name(k) for k in keys[1::2] if k != TENUKI)
    status, where = _api(served, "/api/position", black=black, white=white)
    wanted = position_of(mined, Position.of(black, white))
    assert status == 200 and where["games"] == wanted["games"] and where["orders"] == wanted["orders"]
    # the trend, as `joseki trend`
    status, trend = _api(served, "/api/trend", moves=",".join(text.split()))
    assert status == 200 and trend["years"] == explore.trend(mined, text)[1]
    # a selection of one collection: every year it has games in is marked as held by it
    one = index.table.collections[int(index.table.collection[0])]
    status, alone = _api(served, "/api/trend", moves=",".join(text.split()), collections=one)
    assert status == 200 and alone["years"]
    assert all((y["held_by"], y["held_share"]) == ((one, 1.0) if y["mined"] else (None, None)) for y in alone["years"])
    # two selections: both shares of each move and whether the difference is real
    years = sorted(y for y in index.table.year.tolist() if y)
    status, both = _api(served, "/api/explore", moves=",".join(text.split()), b_years=f"{years[-1]}-{years[-1]}")
    assert status == 200 and both["compared"] and all("real" in c for c in both["compared"])
    assert both["b"]["count"] <= both["count"]


@pytest.mark.shared_data
def test_hostile_queries_are_a_400_with_one_line_and_an_unknown_path_a_404(served, index):
    top = index.explore(empty_corner())["continuations"][0]["board"]
    for query_ in (
        {"moves": "Z99"},
        {"moves": f"{top},{top}"},
        {"moves": "A1,T19"},
        {"moves": top, "collections": "no-such-collection"},
        {"moves": top, "player": "nobody-plays-here-0x"},
        {"moves": top, "years": "2019-2016"},
        {"moves": top, "years": "recent"},
        {"moves": top, "min_rank": "11d"},
        {"moves": top, "result": "draw"},
        {"moves": top, "color": "black"},
        {"moves": top, "yeras": "2016"},
        {"moves": "Q" * 100_000},
        {"moves": ",".join(["Q16"] * 61)},
    ):
        status, body = _api(served, "/api/explore", **query_)
        assert status == 400 and "\n" not in body["error"] and len(body["error"]) < 300, (query_, body)
    for query_ in ({"moves": top, "limit": -1}, {"moves": top, "limit": 501}, {"moves": top, "offset": "x"}):
        status, body = _api(served, "/api/games", **query_)
        assert status == 400, query_
    assert _api(served, "/api/games/99999999.sgf")[0] == 400
    assert _api(served, "/api/games/abc")[0] == 400 and _api(served, "/api/games/" + "9" * 5000)[0] == 400
    assert (
        _api(served, "/api/games/%C2%B2")[0] == 400 and _api(served, "/api/games/%C2%B2.sgf")[0] == 400
    )  # a digit to str.isdigit
    assert _api(served, "/api/position", black="Q16", white="Q16")[0] == 400
    assert _api(served, "/api/position")[0] == 400
    for path in ("/nope", "/api/nope", "/static/nope.js", "/api/explore/x"):
        status, body = _api(served, path)
        assert status == 404 and body["error"]
    status, page, kind = _get(f"{served}/")
    assert status == 200 and kind.startswith("text/html")


def test_the_selection_is_the_filters_a_run_reads():
    assert not Selection().active and Selection(Filters(years=(2000, 2001))).active
    assert params.moves("").keys == () and params.moves("Q16, R14").keys == params.moves("D16 F17").keys
    with pytest.raises(params.Asked):
        params.checked({"moves": "x" * (params.LONGEST + 1)}, "explore")
    with pytest.raises(params.Asked):
        params.whole("-1", "limit", 20)


@pytest.mark.shared_data
def test_the_command_serves_until_ctrl_c(mined):
    import os
    import signal

    from joseki_miner.explorer.server import free_port

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "explore", "--out", str(mined.out), "--port", str(port), "--no-open"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
    )
    try:
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line, line + proc.stderr.read()
        status, body = _api(f"http://127.0.0.1:{port}", "/api/run")
        assert status == 200 and body["newer"] is False
        busy = _cli("explore", "--out", mined.out, "--port", port, "--no-open")
        assert busy.returncode == 2 and "cannot serve" in busy.stderr
        empty = _cli("explore", "--out", mined.out / "nothing-here", "--port", free_port(), "--no-open")
        assert empty.returncode == 2 and "mine some games first" in empty.stderr and "\n" not in empty.stderr.strip()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err.strip().splitlines() == ["joseki: explore: stopped"]


@pytest.mark.shared_data
def test_a_newer_run_is_said_and_its_files_are_not_read(mined, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(mined.out, copy)
    catalog = Catalog(work=copy / "interim", out=copy)
    explorer = Explorer.open(catalog)
    with Serving(explorer) as url:
        top = explorer.index.explore(empty_corner())["continuations"][0]["board"]
        status, page = _api(url, "/api/games", moves=top, limit=1)
        game = page["games"][0]["game"]
        assert _api(url, f"/api/games/{game}")[0] == 200 and not explorer.newer()
        manifest = catalog.manifest("prune")
        record = json.loads(manifest.read_text())
        record["key"] = "another run"
        manifest.write_text(json.dumps(record))
        status, run = _api(url, "/api/run")
        assert status == 200 and run["newer"] is True
        status, body = _api(url, f"/api/games/{game}")
        assert status == 409 and "newer run" in body["error"]
        # what the server holds in memory still answers, from the run it opened
        assert _api(url, "/api/explore", moves=top)[1]["games"] == explorer.index.explore(params.moves(top))["games"]


@pytest.mark.shared_data
def test_a_large_node_gathered_by_a_pass_counts_as_one_sorted(index, monkeypatch):
    from joseki_miner.explorer import index as module

    years = sorted(y for y in index.table.year.tolist() if y)
    chosen = params.selection({"years": f"{years[len(years) // 2]}-{years[-1]}"}, index)
    asked = [empty_corner(), *(params.moves(_text(index.path(n))) for n in _sample(index, 20))]
    sorted_ = [index.explore(q, chosen) for q in asked]
    monkeypatch.setattr(module, "SCAN", 0)
    index.answers.clear()
    assert [index.explore(q, chosen) for q in asked] == sorted_


def test_a_book_node_says_its_whole_board_as_node_context_does(mined, index):
    """Each node of the pruned book answers with its node_context.parquet
    row (another stone near, its share of the node's games, the median
    move number), at the position and among the continuations; a move
    below the book says none."""
    context = pq.read_table(mined.node_context).to_pylist()
    tree = pq.read_table(mined.joseki, columns=["node", "parent", "move", "games"]).to_pylist()
    at = Index.read(mined)._book_nodes(pq.read_table(mined.joseki, columns=["node", "parent", "move", "kind"]))
    checked = 0
    for row, node in zip(context, tree):
        if row["node"] == 0 or row["node"] not in at:
            continue
        if node["move"] == "":  # a tenuki: nothing is near it
            assert index.context_of(at[row["node"]]) == {}
            checked += 1
            continue
        said = index.context_of(at[row["node"]])["context"]
        assert said["near"] == row["near"] and said["move_number"] == row["move_number"]
        assert index.book[at[row["node"]]] == row["kind"]  # the book's kind: the board's where a rule named it
        assert said["near_share"] == pytest.approx(row["near"] / node["games"])
        checked += 1
    assert checked == len(tree) - 1
    answer = index.explore(empty_corner())
    moves = [c for c in answer["continuations"] if index.key[c["node"]] != TENUKI]
    assert all("context" in c for c in moves if c["book"] != BELOW)
    assert all("context" not in c for c in answer["continuations"] if c["book"] == BELOW)
