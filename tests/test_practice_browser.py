"""Practice on the explorer's page in a real browser (Debian's chromium;
skipped without it): start at the 4-4 low approach as White, play three
moves by clicking, read the feedback, end the line; reload: the cards due
are those FSRS schedules.  The API's replies and reviews too."""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler

from joseki_miner.explorer.app import Explorer
from joseki_miner.explorer.server import Serving
from joseki_miner.practice.schedule import Schedule
from test_explorer_browser import _browser

ROOT = Path(__file__).resolve().parents[1]
MINED = Path()  # all of ../shared/data mined once a session (conftest's all_mined): set by ``_all_mined``


@pytest.fixture(scope="module", autouse=True)
def _all_mined(all_mined):
    global MINED
    MINED = all_mined.out.parent


@pytest.fixture(scope="module")
def explorer(all_mined) -> Explorer:
    return Explorer.open(all_mined)


def _get(base: str, path: str, method: str = "GET", **query) -> tuple[int, dict]:
    request = urllib.request.Request(f"{base}{path}?{urllib.parse.urlencode(query)}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_reply_api(explorer, tmp_path):
    explorer.practice = tmp_path / "p.sqlite3"
    Schedule.open(explorer.practice).close()
    with Serving(explorer) as url:
        first = [_get(url, "/api/practice/reply", moves="Q16,R14", seed=s)[1] for s in range(20)]
        assert first == [_get(url, "/api/practice/reply", moves="Q16,R14", seed=s)[1] for s in range(20)]
        shown = {c["board"] for c in _get(url, "/api/explore", moves="Q16,R14")[1]["continuations"]}
        assert {r["move"] for r in first if r["move"]} <= shown and len({r["move"] for r in first}) > 2
        status, bad = _get(url, "/api/practice/reply", moves="Q16,R14", seed=1, years="1800")
        assert status == 400 and "no games" in bad["error"]
        assert _get(url, "/api/practice/reply", moves="Q16,R14,S16,S17,T17,T16", seed=1)[1] == {
            "move": None,
            "end": "the games run out",
        }
        status, told = _get(url, "/api/practice/move", "POST", moves="Q16,R14", move="K10")
        assert status == 200 and told["feedback"]["mark"] == "unknown" and told["rating"] == "Again"
        assert told["card"]["moves"] == "B[dd];W[fc]" and told["card"]["reviews"] == 1


def _best(url: str, moves: list[str]) -> str:
    found = _get(url, "/api/explore", moves=",".join(moves))[1]
    return max(found["continuations"], key=lambda c: c["games"])["board"]


def _unknown(url: str, moves: list[str]) -> str:
    """A point near the corner's stones, empty, that no game of the tree played here."""
    found = {c["board"] for c in _get(url, "/api/explore", moves=",".join(moves))[1]["continuations"]}
    return next(
        p for p in ("S19", "T19", "T18", "S18", "P19", "T15", "T14", "N19") if p not in found and p not in moves
    )


def _line(url: str, seed: int) -> bool:
    """Whether, White playing the most played moves, the opponent answers twice before the line ends."""
    moves = ["Q16", "R14"]
    for _ in range(2):
        got = _get(url, "/api/practice/reply", moves=",".join(moves), seed=seed)[1]
        if got["move"] is None:
            return False
        moves += [got["move"], _best(url, moves + [got["move"]])]
    return _get(url, "/api/practice/reply", moves=",".join(moves), seed=seed)[1]["move"] is not None


def test_a_person_practises_as_white_at_the_4_4_low_approach(explorer, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    practice = tmp_path / "practice.sqlite3"
    explorer.practice = practice
    Schedule.open(practice).close()
    with Serving(explorer) as url:
        seed = next(s for s in range(1, 40) if _line(url, s))
        browser = _browser(1400, 1100)
        wait = WebDriverWait(browser, 60)
        try:
            browser.get(f"{url}/?moves=Q16,R14")
            wait.until(lambda b: b.execute_script("return document.body.dataset.shown") == "moves=Q16%2CR14")
            Select(browser.find_element(By.ID, "practice-colour")).select_by_value("white")
            seed_box = browser.find_element(By.ID, "practice-seed")
            seed_box.clear()
            seed_box.send_keys(str(seed))
            browser.find_element(By.ID, "practice-start").click()
            played = []
            for turn in range(3):
                wait.until(lambda b: b.execute_script("return document.body.dataset.practice") == "yours")
                line = browser.execute_script("return state.line.slice(0, state.at)")
                assert len(line) == 3 + 2 * turn  # the opponent (Black) replied each time
                shown = urllib.parse.urlencode({"moves": ",".join(line)})
                wait.until(lambda b: b.execute_script("return document.body.dataset.shown") == shown)  # drawn
                # the answers are hidden while practising
                assert not browser.find_elements(By.CSS_SELECTOR, "#board circle.mark")
                move = _best(url, line) if turn < 2 else _unknown(url, line)  # the third: one the tree does not know
                browser.find_element(By.CSS_SELECTOR, f'[data-point="{move}"]').click()
                wait.until(lambda b: b.find_element(By.ID, "practice-feedback").text.startswith(move + ":"))
                told = browser.find_element(By.ID, "practice-feedback").text
                played.append((line, move, told))
                if turn < 2:
                    assert "(rare)" not in told and "wins" in told and "most played" in told
                else:
                    assert "not in the tree here (unknown)" in told
            wait.until(lambda b: b.execute_script("return document.body.dataset.practice") == "ended")
            assert browser.find_element(By.ID, "practice-status").text.startswith("End of the line")
            browser.save_screenshot(str(tmp_path / "practice.png"))  # docs/practice.png is one of these
            # reload: the cards due are FSRS's
            browser.get(f"{url}/?moves=Q16,R14")
            wait.until(lambda b: b.execute_script("return document.body.dataset.due") is not None)
            with Schedule.open(practice) as s:
                due = s.due()
                kept = s.db.execute("SELECT card, rating, at FROM reviews ORDER BY id").fetchall()
                cards = {c.id: c for c in [s.card(n) for n, _, _ in kept]}
            assert [r for _, r, _ in kept] == [Rating.Good, Rating.Good, Rating.Again]
            scheduler = Scheduler(enable_fuzzing=False)
            for number, rating, at in kept:  # each card reviewed once, from new: FSRS's due
                when = datetime.fromtimestamp(at, timezone.utc)
                expected, _ = scheduler.review_card(Card(due=when), Rating(rating), review_datetime=when)
                assert abs((cards[number].due - expected.due).total_seconds()) < 1e-3
            assert browser.execute_script("return document.body.dataset.due") == str(len(due))
            shown = [a.get_attribute("data-moves") for a in browser.find_elements(By.CSS_SELECTOR, "#due-cards a")]
            assert len(shown) == min(10, len(due))
            assert [c.games for c in due] == sorted((c.games for c in due), reverse=True)
            browser.save_screenshot(str(tmp_path / "due.png"))
            assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        finally:
            browser.quit()
    con = sqlite3.connect(practice)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
