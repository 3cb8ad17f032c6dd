"""Practice: replies drawn as the games play them, feedback on a move, the
FSRS schedule in SQLite (kills, two connections, foreign files)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from fsrs import Rating

from joseki_miner.practice import feedback as fb
from joseki_miner.practice import replies
from joseki_miner.practice.schedule import APPLICATION_ID, PracticeError, Schedule, rating_of, repertoire_cards

ROOT = Path(__file__).resolve().parents[1]
MINED = Path()  # all of ../shared/data mined once a session (conftest's all_mined): set by ``_all_mined``


@pytest.fixture(scope="module")
def _all_mined(all_mined):
    global MINED
    MINED = all_mined.out.parent


# the chi-square distribution's upper 0.1% points, by degrees of freedom (tables of the distribution)
CHI2_999 = {
    1: 10.828,
    2: 13.816,
    3: 16.266,
    4: 18.467,
    5: 20.515,
    6: 22.458,
    7: 24.322,
    8: 26.124,
    9: 27.877,
    10: 29.588,
    11: 31.264,
    12: 32.909,
    13: 34.528,
    14: 36.123,
    15: 37.697,
    16: 39.252,
    17: 40.790,
    18: 42.312,
    19: 43.820,
    20: 45.315,
}


def c(board, games, count=None, kind="joseki", share=None, black=0, white=0):
    count = games if count is None else count
    normal = "B[]" if board == "tenuki" else f"B[{board.lower()}]"
    return {
        "move": board,
        "board": board,
        "normal": normal,
        "count": count,
        "games": games,
        "black_wins": black,
        "white_wins": white,
        "share": share if share is not None else 0.1,
        "kind": kind,
    }


# -- replies ----------------------------------------------------------------------------------------------------


def test_a_reply_is_seeded_by_the_seed_and_the_moves_so_far():
    here = [c("O17", 50), c("O16", 30), c("R17", 20)]
    first = [replies.reply(here, seed, ["B[dd]", "W[fc]"]) for seed in range(50)]
    assert first == [replies.reply(list(reversed(here)), seed, ["B[dd]", "W[fc]"]) for seed in range(50)]
    assert len({r.move["move"] for r in first}) == 3  # every move is drawn
    other = [replies.reply(here, seed, ["B[dd]", "W[fd]"]) for seed in range(50)]
    assert first != other  # the moves so far are part of the draw


def test_the_line_ends_where_the_games_run_out_or_the_joseki_ends():
    assert replies.reply([], 1, []) == replies.End(replies.RUN_OUT)
    assert replies.reply([c("O17", 1, count=1)], 1, []) == replies.End(replies.RUN_OUT)  # played once: not stored
    assert replies.reply([c("tenuki", 60, share=0.6), c("O17", 40, share=0.4)], 1, []) == replies.End(
        replies.JOSEKI_ENDS
    )
    assert isinstance(replies.reply([c("tenuki", 40, share=0.4), c("O17", 60, share=0.6)], 1, []), replies.Reply)
    follow = [c("O17", 50, kind="follow-up")]
    assert replies.reply(follow, 1, [], kind_here="joseki") == replies.End(replies.JOSEKI_ENDS)
    assert replies.reply([c("K3", 5, kind="extension")], 1, [], "joseki") == replies.End(replies.JOSEKI_ENDS)
    assert isinstance(replies.reply(follow, 1, [], kind_here="follow-up"), replies.Reply)  # it started there


def _lookup(text):
    from joseki_miner.book import explore
    from joseki_miner.runs.catalog import Catalog

    return explore.lookup(Catalog(work=MINED / "work", out=MINED / "out"), text)


needs_mined = pytest.mark.usefixtures("_all_mined")


def _drawn(continuations, moves) -> Counter:
    return Counter(replies.draw(continuations, seed, moves)["board"] for seed in range(1000))


def _chi_square(drawn: Counter, continuations) -> tuple[float, int]:
    """The chi-square statistic of 1,000 draws against the continuations' games, and its degrees of freedom."""
    kept = replies.playable(continuations)
    total = sum(k["games"] for k in kept)
    expected = {k["board"]: 1000 * k["games"] / total for k in kept}
    assert set(drawn) <= set(expected)
    big = [m for m in expected if expected[m] >= 5]  # the rest pooled into one cell (each cell expects 5 or more)
    cells = [(drawn[m], expected[m]) for m in big]
    rest = [m for m in expected if m not in big]
    if rest:
        cells.append((sum(drawn[m] for m in rest), sum(expected[m] for m in rest)))
    return sum((o - e) ** 2 / e for o, e in cells), len(cells) - 1


@needs_mined
def test_replies_at_a_selection_follow_its_games():
    from joseki_miner.explorer import params
    from joseki_miner.explorer.index import Index
    from joseki_miner.runs.catalog import Catalog

    index = Index.read(Catalog(work=MINED / "work", out=MINED / "out"))
    q = params.moves("Q16,R14")
    recent = index.explore(q, params.selection({"years": "2016-2019"}, index))["continuations"]
    whole = index.explore(q, params.selection({}, index))["continuations"]
    drawn = _drawn(recent, ["Q16", "R14"])
    statistic, df = _chi_square(drawn, recent)
    assert 2 <= df <= 20 and statistic < CHI2_999[df], (statistic, df)
    against_whole, df_whole = _chi_square(drawn, [c for c in whole if c["board"] in {r["board"] for r in recent}])
    assert against_whole > CHI2_999[df_whole]  # the selection's draws are not the whole tree's


@needs_mined
def test_a_thousand_replies_follow_the_games_at_the_4_4_low_approach():
    position = _lookup("Q16 R14")
    drawn = _drawn(position["continuations"], ["Q16", "R14"])
    for seed in range(100):  # a reply is the draw, or the end where the move drawn is no longer the joseki
        got = replies.reply(position["continuations"], seed, ["Q16", "R14"], position["kind"])
        move = replies.draw(position["continuations"], seed, ["Q16", "R14"])
        assert got == (replies.End(replies.JOSEKI_ENDS) if move["kind"] != "joseki" else replies.Reply(move))
    statistic, df = _chi_square(drawn, position["continuations"])
    assert 2 <= df <= 20
    assert statistic < CHI2_999[df], (statistic, df)
    # the same shares as lookup's: the most played move is drawn most
    kept = replies.playable(position["continuations"])
    assert drawn.most_common(1)[0][0] == max(kept, key=lambda k: k["games"])["board"]


@needs_mined
def test_the_same_seed_plays_the_same_line():
    def line(seed):
        moves = ["Q16", "R14"]
        for _ in range(30):
            position = _lookup(" ".join(moves))
            got = replies.reply(position["continuations"], seed, moves, position.get("kind"))
            if isinstance(got, replies.End):
                return moves, got.reason
            moves.append(got.move["board"])
        return moves, None

    a = line(7)
    assert a == line(7)
    assert len(a[0]) > 2 and a[1] in (replies.RUN_OUT, replies.JOSEKI_ENDS)


# -- feedback ---------------------------------------------------------------------------------------------------


def test_feedback_gives_the_share_the_win_rate_and_marks_a_rare_or_unknown_move():
    position = {
        "games": 100,
        "continuations": [
            c("O17", 60, black=30, white=20, share=0.6),
            c("O16", 37, share=0.37),
            c("R17", 3, black=1, white=2, share=0.03),
        ],
    }
    best = fb.feedback(position, "O17", depth=2)
    assert best["mark"] is None and best["most_played"]
    assert best["played"]["share"] == 0.6 and best["played"]["win_rate"] == 30 / 50  # the tree's Black plays at depth 2
    assert [b["board"] for b in best["best"]] == ["O17", "O16", "R17"]
    rare = fb.feedback(position, "r17", depth=3)
    assert rare["mark"] == fb.RARE_MARK and rare["played"]["win_rate"] == 2 / 3  # White's at an odd depth
    unknown = fb.feedback(position, "K10", depth=2)
    assert unknown["mark"] == fb.UNKNOWN_MARK and unknown["played"] is None
    assert [rating_of(f) for f in (best, fb.feedback(position, "O16", 2), rare, unknown)] == [
        Rating.Good,
        Rating.Hard,
        Rating.Again,
        Rating.Again,
    ]


# -- the schedule -----------------------------------------------------------------------------------------------

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_cards_are_due_by_their_games_and_a_wrong_move_comes_back_sooner(tmp_path):
    with Schedule.open(tmp_path / "p.sqlite3") as s:
        assert (
            s.add([("B[dd] W[fc]", "black", 500), ("B[dd];W[fc];B[cf]", "white", 900), ("B[dd]", "white", 2000)], NOW)
            == 3
        )
        assert [card.games for card in s.due(NOW)] == [2000, 900, 500]
        good = s.review("B[dd];W[fc]", "black", Rating.Good, now=NOW)
        wrong = s.review("B[dd];W[fc];B[cf]", "white", Rating.Again, now=NOW)
        assert wrong.due < good.due
        for k in range(1, 4):  # the right answers: due in days; the wrong one again in minutes
            good = s.review("B[dd];W[fc]", "black", Rating.Good, now=good.due)
        assert good.due - NOW > timedelta(days=1) and wrong.due - NOW < timedelta(hours=1)
        assert [card.moves for card in s.due(NOW + timedelta(hours=2), today=False)] == ["B[dd]", "B[dd];W[fc];B[cf]"]
        assert len(s.reviews()) == 5


def test_a_file_not_ours_or_corrupt_is_refused_and_left_as_it_is(tmp_path):
    other = tmp_path / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    text = tmp_path / "notes.txt"
    text.write_text("my notes\n")
    for path in (other, text):
        before = path.read_bytes()
        with pytest.raises(PracticeError, match="not a joseki-miner practice file") as e:
            Schedule.open(path)
        assert "\n" not in str(e.value) and path.read_bytes() == before
    ours = tmp_path / "ours.sqlite3"
    Schedule.open(ours).close()
    assert sqlite3.connect(ours).execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    broken = bytearray(ours.read_bytes())
    broken[100:] = b"\xff" * (len(broken) - 100)  # the pages garbled, the header kept
    ours.write_bytes(bytes(broken))
    with pytest.raises(PracticeError, match="corrupt|not a joseki-miner"):
        s = Schedule.open(ours)
        s.due(NOW)


def test_an_unwritable_file_is_one_line(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(PracticeError, match="cannot open") as e:
        Schedule.open(tmp_path / "a-file" / "p.sqlite3")  # its folder cannot be made
    assert "\n" not in str(e.value)
    if os.geteuid() == 0:
        pytest.skip("root writes a read-only file")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(PracticeError, match="cannot") as e:
            Schedule.open(folder / "sub" / "p.sqlite3")
        assert "\n" not in str(e.value)
    finally:
        folder.chmod(0o700)
    path = tmp_path / "p.sqlite3"
    Schedule.open(path).close()
    path.chmod(0o400)
    with pytest.raises(PracticeError, match="cannot write"):
        with Schedule.open(path) as s:
            s.add([("B[dd]", "black", 1)])


REVIEWER = """
import sys
from fsrs import Rating
from joseki_miner.practice.schedule import Schedule
s = Schedule.open(sys.argv[1])
k = 0
while True:
    card = s.review("B[dd];W[fc]" if k % 2 else "B[dd]", "black", Rating.Again if k % 3 else Rating.Good, games=k)
    print(len(s.reviews()), flush=True)
    k += 1
"""


def _reviewer(path):
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    return subprocess.Popen([sys.executable, "-c", REVIEWER, str(path)], stdout=subprocess.PIPE, text=True, env=env)


def test_a_kill_mid_review_keeps_every_committed_review(tmp_path):
    path = tmp_path / "p.sqlite3"
    process = _reviewer(path)
    seen = 0
    for line in process.stdout:
        seen = int(line)
        if seen >= 150:
            break
    process.send_signal(signal.SIGKILL)
    process.wait()
    with Schedule.open(path) as s:
        kept = s.reviews()
        assert len(kept) >= seen and [r[0] for r in kept] == list(range(1, len(kept) + 1))
        assert s.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_two_connections_reviewing_at_once_lose_no_review(tmp_path):
    path = tmp_path / "p.sqlite3"
    Schedule.open(path).close()
    a, b = _reviewer(path), _reviewer(path)
    counts = {a: 0, b: 0}
    for p in (a, b):
        for _ in range(100):
            p.stdout.readline()
            counts[p] += 1
    for p in (a, b):
        p.send_signal(signal.SIGKILL)
        p.wait()
    with Schedule.open(path) as s:
        assert len(s.reviews()) >= 200
        reviewed = s.db.execute("SELECT count(*) FROM reviews GROUP BY card ORDER BY card").fetchall()
        assert sum(n for (n,) in reviewed) == len(s.reviews())
        # each card's FSRS state is of all its reviews: none was written over by the other connection
        for card in (s.find("B[dd]", "black"), s.find("B[dd];W[fc]", "black")):
            assert (
                card is not None
                and card.reviews == dict(zip(["B[dd]", "B[dd];W[fc]"], [x for (x,) in reviewed]))[card.moves]
            )


def test_a_repertoire_seeds_the_places_the_player_left_the_book():
    found = {
        "lines": [
            {
                "sequence": "B[dd];W[fc]",
                "depth": 2,
                "by": "player",
                "left_with": "cc",
                "tree": [{"games": 40}, {"games": 10}],
            },
            {"sequence": "B[dd];W[fc];B[cf]", "depth": 3, "by": "opponent", "left_with": "dc", "tree": [{"games": 9}]},
            {"sequence": "B[dd]", "depth": 1, "by": None, "left_with": None, "tree": []},
        ]
    }
    assert repertoire_cards(found) == [("B[dd];W[fc]", "black", 50)]


@needs_mined
def test_a_server_killed_mid_review_keeps_every_review_it_answered(tmp_path):
    """``joseki explore --practice FILE`` reviewing as fast as a client
    posts moves, killed (SIGKILL) mid-write: every review it answered is
    in the file, numbered without a gap, and the file passes SQLite's
    integrity check; the next server opens it and reviews on."""
    import json
    import threading
    import urllib.request

    from joseki_miner.explorer.server import free_port

    practice = tmp_path / "p.sqlite3"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "pipeline.cli", "explore", "--out", str(MINED / "out"), "--work"]
    command += [str(MINED / "work"), "--port", str(port), "--no-open", "--practice", str(practice)]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    answered: list[int] = []
    try:
        assert f"http://127.0.0.1:{port}/" in server.stdout.readline()

        def post(moves: str, move: str) -> int:
            url = f"http://127.0.0.1:{port}/api/practice/move?moves={moves}&move={move}"
            with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=30) as r:
                return json.loads(r.read())["card"]["reviews"]

        def client(moves: str, move: str) -> None:
            try:
                while True:
                    post(moves, move)
                    answered.append(1)
            except OSError:  # the server is gone
                pass

        clients = [threading.Thread(target=client, args=a) for a in (("Q16,R14", "O17"), ("Q16", "R14"))]
        for c in clients:
            c.start()
        while len(answered) < 60 and server.poll() is None:
            threading.Event().wait(0.05)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
        for c in clients:
            c.join(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
    with Schedule.open(practice) as s:
        kept = s.reviews()
        assert len(kept) >= len(answered) >= 60
        assert [r[0] for r in kept] == list(range(1, len(kept) + 1))
        assert s.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again = Schedule.open(practice)
    again.review("B[dd]", "black", Rating.Good, games=1)
    assert len(again.reviews()) == len(kept) + 1
    again.close()
