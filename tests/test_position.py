"""Search by position (joseki_miner.book.position, ``joseki position``):
the games that reach a corner position by any order of moves, held to a
brute-force replay of every stored sequence; the same answer in all 16
images of the position (8 symmetries, colours swapped); on all of
../shared/data, the small knight's enclosure reached by both its orders."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import joseki_cli as joseki
from helpers import mine_into as mine
from joseki_miner.book.lookup import SequenceError, board_name
from joseki_miner.book.position import Position, position
from joseki_miner.method.board import Board
from joseki_miner.method.points import BLACK, from_sgf
from joseki_miner.method.symmetry import POINT_MAP, TRANSFORMS


@pytest.fixture(scope="module")
def demo(demo_games, tmp_path_factory):
    return mine(
        [demo_games], tmp_path_factory.mktemp("position"), "prune.min_count=1", "prune.min_games=1"
    )  # all stored


def _image(black, white) -> tuple:
    return min(
        (tuple(sorted(POINT_MAP[t][p] for p in black)), tuple(sorted(POINT_MAP[t][p] for p in white)))
        for t in TRANSFORMS
    )


@pytest.fixture(scope="module")
def reached(demo) -> dict:
    """Brute force: every position (least image, player to move; the
    tree's colours) any stored sequence stands on, and the games that do."""
    table = pq.read_table(demo.sequences, columns=["game", "moves"]).to_pylist()
    found: dict[tuple, set[int]] = {}
    for row in table:
        board, black, white = Board(), set(), set()
        moves = row["moves"]
        seen = set()
        for i in range(0, len(moves) + 2, 2):
            depth = i // 2
            here = (_image(black, white), depth % 2)
            if here not in seen:  # a position stood on again (a ko) is the same position
                seen.add(here)
                found.setdefault(here, set()).add(row["game"])
            if i >= len(moves):
                break
            word = moves[i : i + 2]
            if word == "--":
                continue
            point = from_sgf(word)
            mine_, theirs = (black, white) if depth % 2 == 0 else (white, black)
            theirs.discard(point)
            mine_.add(point)
            for p in board.play(BLACK if depth % 2 == 0 else -BLACK, point):
                black.discard(p)
                white.discard(p)
    return found


def _asked(image: tuple, side: int, t: int, swapped: bool) -> Position:
    black, white = (image[1], image[0]) if swapped else image
    turn = lambda points: tuple(POINT_MAP[t][p] for p in points)  # noqa: E731
    return Position(turn(black), turn(white), side ^ swapped)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_position_counts_the_games_any_order_reaches_it_by(demo, reached, data):
    """Any stored position, asked in any of its 16 images: the games are
    those a brute-force replay of every sequence finds standing on it, as
    given or with the colours swapped; the orders' games lie between the
    most of one order and their sum."""
    positions = sorted(k for k in reached if k[0][0] or k[0][1])
    (image, side) = data.draw(st.sampled_from(positions))
    t, swapped = data.draw(st.sampled_from(TRANSFORMS)), data.draw(st.booleans())
    found = position(demo, _asked(image, side, t, swapped))
    want = reached.get((image, side), set()) | reached.get(((image[1], image[0]), 1 - side), set())
    assert found["games"] == len(want)
    if found["orders"]:
        games = [o["games"] for o in found["orders"]]
        assert max(games) <= found["games"] <= sum(games)


def test_the_answer_is_the_same_in_all_16_images(demo, reached):
    image, side = max(reached, key=lambda k: (len(reached[k]) * (len(k[0][0]) + len(k[0][1]) >= 3), k))
    answers = []
    for t in TRANSFORMS:
        for swapped in (False, True):
            found = position(demo, _asked(image, side, t, swapped))
            answers.append(
                (
                    found["games"],
                    found["sequences"],
                    sorted(o["games"] for o in found["orders"]),
                    sorted((m["count"], m["games"]) for m in found["moves"]),
                )
            )
    assert all(a == answers[0] for a in answers) and answers[0][0] > 0


def test_the_command_answers_in_board_points_and_refuses_what_is_no_position(demo, reached):
    image, side = max(reached, key=lambda k: (len(reached[k]) * (len(k[0][0]) + len(k[0][1]) == 2), k))
    black = ",".join(board_name(p) for p in image[0])
    white = ",".join(board_name(p) for p in image[1])
    done = joseki(
        "position",
        "--black",
        black,
        *(["--white", white] if white else []),
        "--to-play",
        "BW"[side],
        "--json",
        "--out",
        demo.out,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["games"] == len(reached[(image, side)] | reached.get(((image[1], image[0]), 1 - side), set()))
    assert {"sequence", "board", "games"} <= set(data["orders"][0]) and {"move", "games", "share"} <= set(
        data["moves"][0]
    )
    text = joseki("position", "--black", black, *(["--white", white] if white else []), "--out", demo.out)
    assert text.returncode == 0 and "games" in text.stdout and "[" not in text.stdout.splitlines()[0]
    for bad in (["--black", "Q16", "--white", "Q16"], [], ["--black", "Z99"], ["--black", "Q16", "--to-play", "X"]):
        refused = joseki("position", *bad, "--out", demo.out)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, (bad, refused.stderr)


def test_the_index_answers_as_keying_every_node_at_the_query_does(demo, reached, tmp_path):
    """The build's index (trie_positions.parquet: every stored node's key,
    sorted) finds the nodes keying the stored trie finds when asked, as a
    work folder built before the index is still answered."""
    import dataclasses
    import shutil

    index = pq.read_table(demo.trie_positions).to_pylist()
    assert len(index) == pq.ParquetFile(demo.trie).metadata.num_rows
    assert [(r["hi"], r["lo"], r["node"]) for r in index] == sorted((r["hi"], r["lo"], r["node"]) for r in index)
    work = tmp_path / "work"
    shutil.copytree(demo.work, work)
    (work / demo.trie_positions.name).unlink()
    without = dataclasses.replace(demo, work=work)
    stones = [k for k in reached if k[0][0] or k[0][1]]  # a position has a stone (the empty corner is none)
    for image, side in sorted(stones, key=lambda k: (-len(reached[k]), k))[:25]:
        asked = Position(image[0], image[1], side)
        assert position(demo, asked) == position(without, asked)


def test_a_position_of_no_stone_is_refused():
    with pytest.raises(SequenceError):
        Position.of("", "")


def _answer(*args, out) -> dict:
    done = joseki("position", *args, "--json", "--out", out)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_games_corner_is_asked_as_the_stones_its_sequence_left(demo, demo_games, tmp_path):
    """--sgf FILE --move N asks the corner of the Nth move as phase 1 reads
    it there, with the player who answers to play: the same answer as its
    stones given by hand."""
    game = sorted(p for p in demo_games.rglob("*.sgf") if not p.name.startswith("bad"))[0]
    for n in (4, 9):
        found = _answer("--sgf", str(game), "--move", str(n), out=demo.out)
        assert found["sgf"] == str(game) and found["move"] == n and found["corner"]
        by_hand = _answer(
            "--black",
            ",".join(found["black"]),
            "--white",
            ",".join(found["white"]),
            "--to-play",
            found["to_play"],
            out=demo.out,
        )
        assert found["games"] == by_hand["games"] >= 1  # the game itself reaches it
        assert found["orders"] == by_hand["orders"] and found["moves"] == by_hand["moves"]
    text = joseki("position", "--sgf", str(game), "--move", "4", "--out", demo.out)
    assert text.stdout.startswith(f"{game}, the ") and "after move 4:" in text.stdout.splitlines()[0]


def test_a_diagrams_corner_and_a_handicap_stones_corner(tmp_path):
    """A diagram (AB/AW, no move) gives the stones of its fullest quarter,
    or of --corner's, either player to play; in a handicap game the stone
    opens its corner, and White's approach answers it."""
    from joseki_miner.book.position import from_game, read_game
    from joseki_miner.method.sequences import Phase1Params

    diagram = tmp_path / "diagram.sgf"
    diagram.write_text("(;GM[1]FF[4]SZ[19]AB[pd][qf][dd]AW[nc])")
    asked, where = from_game(read_game(str(diagram)), Phase1Params())
    assert (asked, where) == (Position.of("Q16,R14", "O17"), {"move": 0, "corner": "upper right"})
    assert from_game(read_game(str(diagram)), Phase1Params(), corner="UL")[0] == Position.of("D16", "")
    handicap = tmp_path / "handicap.sgf"
    handicap.write_text("(;GM[1]FF[4]SZ[19]HA[2]AB[pd][dp];W[qc];B[qd];W[cn])")
    asked, where = from_game(read_game(str(handicap)), Phase1Params(handicap=True), move=2)
    assert (asked, where) == (Position.of("Q16,R16", "R17", "W"), {"move": 2, "corner": "upper right"})
    assert from_game(read_game(str(handicap)), Phase1Params(handicap=True))[0] == Position.of("D4", "C6", "B")


def test_what_is_no_corner_of_a_game_is_refused_in_one_line(demo, demo_games, tmp_path):
    game = sorted(p for p in demo_games.rglob("*.sgf") if not p.name.startswith("bad"))[0]
    empty = tmp_path / "empty.sgf"
    empty.write_text("(;GM[1]FF[4]SZ[19])")
    occupied = tmp_path / "occupied.sgf"  # a game the miner rejects: a move on an occupied point
    occupied.write_text("(;GM[1]FF[4]SZ[19];B[pd];W[pd])")
    for bad in (
        ["--sgf", str(game), "--move", "999"],
        ["--sgf", str(game), "--corner", "middle"],
        ["--sgf", str(game), "--black", "Q16"],
        ["--move", "3"],
        ["--sgf", str(tmp_path / "none.sgf")],
        ["--sgf", str(demo_games / "bad-9x9.sgf")],
        ["--sgf", str(empty)],
        ["--sgf", str(occupied)],
    ):
        refused = joseki("position", *bad, "--out", demo.out)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, (bad, refused.stderr)


@pytest.mark.shared_data
def test_the_small_knights_enclosure_by_both_orders(all_mined):
    """The issue's position on all of ../shared/data: R16 and P17 with White
    to play, reached by 'R16 tenuki P17' and 'P17 tenuki R16'."""
    catalog = all_mined
    found = position(catalog, Position.of("R16,P17", "", "W"))
    orders = {o["board"]: o["games"] for o in found["orders"]}
    assert {"R16 tenuki P17", "P17 tenuki R16"} <= set(orders)
    assert max(orders.values()) <= found["games"] <= sum(orders.values())
    for t in TRANSFORMS:
        turned = Position(tuple(POINT_MAP[t][p] for p in Position.of("R16,P17", "").black), (), 1)
        assert position(catalog, turned, examples=0)["games"] == found["games"]


@pytest.mark.shared_data
def test_handicap_games_bring_the_handicap_joseki_of_the_lone_star_point(shared_data, tmp_path):
    """kgs-6d, the lone 4-4 stone with White to play: with handicap games
    mined (their stones opening their corners) at least 14,000 games more
    than without (Kombilo, on the same files: 35,212 games)."""
    even = mine([shared_data / "kgs-6d"], tmp_path / "even")
    both = mine([shared_data / "kgs-6d"], tmp_path / "both", "include_handicap=true")
    asked = Position.of("Q16", "", "W")
    without, with_ = position(even, asked, examples=0)["games"], position(both, asked, examples=0)["games"]
    assert with_ - without >= 14_000
