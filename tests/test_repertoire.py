"""A player's repertoire against the tree (joseki_miner.book.repertoire,
``joseki repertoire``, the report's page): every corner sequence of the
player's games counted once, where it leaves the tree, with the player's
results; the same on a real player of ../shared/data."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow.parquet as pq
import pytest

from helpers import joseki_cli as joseki
from helpers import mine_into as mine
from joseki_miner.book.repertoire_page import repertoire_name
from joseki_miner.book.repertoire import repertoire
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.runs.catalog import Catalog


def check(catalog: Catalog, name: str) -> dict:
    """The laws of a repertoire: every sequence of the player's games once;
    each line a path of the tree whose next move (where it left) the tree
    does not hold there; results within the counts; the player's wins
    those of the games."""
    found = repertoire(catalog.joseki, catalog.sequences, catalog.games, name)
    games = pq.read_table(catalog.games, columns=["game", "PB", "PW", "winner"]).to_pylist()
    mine_ = {
        g["game"]: g
        for g in games  # self-play (both colours the player's) left out
        if (g["PB"].strip().casefold() == name.casefold()) != (g["PW"].strip().casefold() == name.casefold())
    }
    sequences = pq.read_table(catalog.sequences, columns=["game", "swapped"]).to_pylist()
    theirs = [s for s in sequences if s["game"] in mine_]
    assert found["games"] == len(mine_) and found["sequences"] == len(theirs) == sum(x["count"] for x in found["lines"])
    firsts = sum(1 for s in theirs if (mine_[s["game"]]["PB"].strip().casefold() == name.casefold()) != s["swapped"])
    assert sum(x["count"] for x in found["lines"] if x["role"] == "first") == firsts
    won = sum(1 for g in mine_.values() if g["winner"] == (-1 if g["PB"].strip().casefold() == name.casefold() else 1))
    assert found["wins"] == won
    tree = pq.read_table(catalog.joseki, columns=["node", "parent", "move"]).to_pylist()
    child = {(r["parent"], TENUKI if r["move"] == "" else from_sgf(r["move"])): r["node"] for r in tree}
    for line in found["lines"]:
        node = 0
        for part in line["sequence"].split(";") if line["sequence"] else []:
            node = child[(node, TENUKI if part[2:-1] == "" else from_sgf(part[2:-1]))]
        assert node == line["node"]
        if line["left_with"] is not None:
            assert (node, TENUKI if line["left_with"] == "" else from_sgf(line["left_with"])) not in child
        assert line["wins"] + line["losses"] <= line["count"]
    return found


@pytest.fixture(scope="module")
def demo(demo_games, tmp_path_factory) -> Catalog:
    return mine([demo_games], tmp_path_factory.mktemp("repertoire"), "report.players=[Demo Black]")


def test_a_repertoire_counts_every_sequence_of_the_players_games_once(demo):
    found = check(demo, "DEMO BLACK")  # names as the games write them, case aside
    assert found["games"] == pq.read_metadata(demo.games).num_rows and found["lines"]
    assert {x["role"] for x in found["lines"]} == {"first", "second"}


def test_a_repertoire_reads_folders_of_parts_as_the_files(demo, tmp_path):
    """The dask engine's games.parquet and sequences.parquet are folders of
    a part a partition: a player's repertoire is the one the files give."""
    import shutil

    from helpers import as_parts

    copy = Catalog(work=tmp_path / "copy" / "interim", out=tmp_path / "copy")
    shutil.copytree(demo.out, copy.out)
    rows = pq.read_metadata(demo.sequences).num_rows
    as_parts(copy.sequences, [1, rows // 2], rows=50)
    as_parts(copy.games, [pq.read_metadata(demo.games).num_rows // 3], rows=20)
    assert check(copy, "Demo Black") == check(demo, "Demo Black")


def test_the_cli_prints_or_says_why_not(demo):
    done = joseki("repertoire", "demo black", "--json", "--limit", "0", "--out", demo.out)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(
        json.dumps(repertoire(demo.joseki, demo.sequences, demo.games, "demo black"))
    )
    text = joseki("repertoire", "demo black", "--out", demo.out)
    assert text.returncode == 0 and "corner sequences; where they leave the tree" in text.stdout
    nobody = joseki("repertoire", "nobody", "--out", demo.out)
    assert nobody.returncode == 2 and nobody.stderr.count("\n") == 1 and "no game of 'nobody'" in nobody.stderr
    close = joseki("repertoire", "demo blak", "--out", demo.out)
    assert close.returncode == 2 and "nearest: demo black" in close.stderr, close.stderr  # as the records write it
    negative = joseki("repertoire", "demo black", "--limit", "-1", "--out", demo.out)
    assert negative.returncode == 2 and "--limit must be 0 (all) or more" in negative.stderr


def test_shares_are_lookups_and_in_board_points(demo):
    """The tree's moves at a line's end: each share is lookup's (its count
    over the count at its position), so they add up to at most 100%; the
    lines and moves are board points in the text, SGF and board in JSON."""
    from joseki_miner.book import explore

    found = repertoire(demo.joseki, demo.sequences, demo.games, "Demo Black")
    checked = 0
    for line in found["lines"]:
        if not line["tree"] or not line["board"]:
            continue
        assert sum(m["share"] for m in line["tree"]) <= 1 + 1e-9
        looked = explore.lookup(demo, line["sequence"])
        shares = {c["normal"][2:-1]: c["share"] for c in looked["continuations"]}
        for m in line["tree"]:
            assert m["share"] == pytest.approx(shares[m["move"]]) and m["board"] != m["move"]
        checked += 1
    assert checked
    text = joseki("repertoire", "demo black", "--out", demo.out).stdout
    assert "[" not in text and "D16" in text, text


def test_the_report_has_a_page_of_each_players_repertoire(demo):
    page = demo.report / repertoire_name("Demo Black")
    html = page.read_text(encoding="utf-8")
    assert "Repertoire of Demo Black" in html
    index = (demo.report / "index.html").read_text(encoding="utf-8")
    assert f'<a href="{page.name}">Demo Black</a>' in index
    found = repertoire(demo.joseki, demo.sequences, demo.games, "Demo Black")
    for line in found["lines"][:40]:
        assert f'data-node="{line["node"]}"><a href="n{line["node"]}.html">' in html
    import re

    cards = re.findall(r'<div class="card [^"]*" data-node="(\d+)">(.*?)</div></div>', html)
    left = [line for line in found["lines"][:40] if line["left_with"]]
    assert left and len(cards) == len(found["lines"][:40])
    for line, (node, card) in zip(found["lines"][:40], cards):  # the move that left the tree, ringed on its board
        assert int(node) == line["node"]
        drawn = re.findall(r'<g class="played [bw]" data-point="(\w\w)">', card)
        assert drawn == ([line["left_with"]] if line["left_with"] else []), card
    assert repertoire_name("金毛测试").startswith("repertoire-") and repertoire_name("金毛测试").isascii()


@pytest.mark.shared_data
def test_a_real_players_repertoire(real_subset, tmp_path):
    """The player with the most games of the real subset."""
    catalog = mine([real_subset], tmp_path / "real", "prune.min_count=20")
    games = pq.read_table(catalog.games, columns=["PB", "PW"]).to_pydict()
    name, _ = Counter(n for n in games["PB"] + games["PW"] if n.strip()).most_common(1)[0]
    found = check(catalog, name)
    assert found["games"] >= 10 and len(found["lines"]) > 1


def test_a_players_own_games_read_as_the_tree_was_mined(demo, demo_games):
    """GAMES given: read and replayed with the config (here the default, as
    the tree was mined), then followed down the mined tree: the demo's own
    games give the repertoire the mined ones give."""
    done = joseki("repertoire", "demo black", demo_games, "--json", "--limit", "0", "--out", demo.out)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(
        json.dumps(repertoire(demo.joseki, demo.sequences, demo.games, "demo black"))
    )
    other = joseki("repertoire", "nobody", demo_games, "--out", demo.out)
    assert other.returncode == 2 and "no game of 'nobody' in the games given" in other.stderr
    # read otherwise than the tree's games were, the player's sequences would not be the tree's
    otherwise = joseki("repertoire", "demo black", demo_games, "--set", "distance.maybe=6", "--out", demo.out)
    assert otherwise.returncode == 2 and "the tree was mined with distance.maybe=5 (not 6)" in otherwise.stderr
    # a key of phase 1 given as the tree read it, or a key outside phase 1, is no other reading
    same = joseki(
        "repertoire",
        "demo black",
        demo_games,
        "--set",
        "distance.maybe=5",
        "--set",
        "include_handicap=true",
        "--json",
        "--out",
        demo.out,
    )
    assert same.returncode == 0, same.stderr


def test_self_play_is_left_out_and_counted(tmp_path):
    """A program's games against itself have no side of the player's: they
    are counted apart, not as the player's Black games."""
    folder = tmp_path / "games"
    folder.mkdir()
    for k, (black, white, result) in enumerate(
        (("Zen", "Zen", "B+R"), ("Zen", "Leela", "W+R"), ("Leela", "Zen", "W+R"))
    ):
        (folder / f"{k}.sgf").write_text(
            f"(;GM[1]SZ[19]PB[{black}]PW[{white}]RE[{result}];B[pd];W[dp];B[pp];W[d{'cde'[k]}];B[fq];W[cf])"
        )
    catalog = mine([folder], tmp_path / "out", "prune.min_count=1", "report.players=[zen, nobody]")
    found = check(catalog, "zen")
    assert (found["games"], found["self_play"], found["wins"], found["losses"]) == (2, 1, 1, 1)
    html = (catalog.report / repertoire_name("nobody")).read_text(encoding="utf-8")
    assert "None of their games is among the games mined." in html
    assert (
        repertoire_name("A.B") != repertoire_name("A B") and repertoire_name("GBPacker") == "repertoire-GBPacker.html"
    )
