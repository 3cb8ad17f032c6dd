"""The explorer's page in a real browser (Debian's chromium through
chromedriver; skipped without it), as a person uses it: click Q16 then
R14 on the board, read the continuations, set a filter, open a game and
step it, open a permalink, go back; no error in the console."""

from __future__ import annotations

import json
import shutil
import urllib.parse
import urllib.request

import pytest

from joseki_miner.book import explore
from joseki_miner.explorer.app import Explorer
from joseki_miner.explorer.server import Serving
from joseki_miner.runs.catalog import STAGES, Catalog
from joseki_miner.runs.config import load
from pipeline.run import Request, run_stages


def _browser(width: int = 1400, height: int = 1000):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip(
            "no chromium and chromedriver here (Debian: apt-get install chromium chromium-driver; "
            "`make setup` does it where apt-get is available)"
        )
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is not installed (make setup installs it, or pip install -e '.[dev]')"
    )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


@pytest.fixture(scope="module")
def mined(real_subset, tmp_path_factory) -> Catalog:
    out = tmp_path_factory.mktemp("page")
    catalog = Catalog(work=out / "interim", out=out)
    run_stages(catalog, load(None, ["prune.min_count=20"]), STAGES, [real_subset], Request(progress=False))
    return catalog


def _api(base: str, path: str, **query) -> dict:
    with urllib.request.urlopen(f"{base}{path}?{urllib.parse.urlencode(query)}", timeout=60) as r:
        return json.loads(r.read())


def _shown(browser, wanted: dict) -> None:
    """Wait until the page shows the query ``wanted`` (its moves and filters) and its games."""
    from selenium.webdriver.support.ui import WebDriverWait

    wanted = {"moves": "", **wanted}
    text = urllib.parse.urlencode(wanted)
    games = urllib.parse.urlencode({k: v for k, v in wanted.items() if not k.startswith("b_")})  # one selection's
    WebDriverWait(browser, 30).until(lambda b: b.execute_script("return document.body.dataset.shown") == text)
    WebDriverWait(browser, 30).until(
        lambda b: (b.execute_script("return document.body.dataset.games") or "").startswith(games)
    )


def _table(browser) -> list[tuple[str, int]]:
    from selenium.webdriver.common.by import By

    rows = browser.find_elements(By.CSS_SELECTOR, "#continuations tbody tr[data-move]")
    return [
        (
            r.get_attribute("data-move"),
            int(r.find_element(By.CSS_SELECTOR, "td[data-games]").get_attribute("data-games")),
        )
        for r in rows
    ]


@pytest.mark.shared_data
def test_a_person_explores_the_page(mined, tmp_path):
    from selenium.webdriver.common.by import By

    with Serving(Explorer.open(mined)) as url:
        browser = _browser()
        try:
            browser.get(f"{url}/")
            _shown(browser, {})
            browser.find_element(By.CSS_SELECTOR, '[data-point="Q16"]').click()
            _shown(browser, {"moves": "Q16"})
            browser.find_element(By.CSS_SELECTOR, '[data-point="R14"]').click()
            _shown(browser, {"moves": "Q16,R14"})
            api = _api(url, "/api/explore", moves="Q16,R14")
            looked = explore.lookup(mined, "Q16 R14")
            by_games = sorted(((c["board"], c["games"]) for c in api["continuations"]), key=lambda c: -c[1])
            assert _table(browser) and sorted(_table(browser)) == sorted(by_games)
            assert sorted(_table(browser)) == sorted((c["board"], c["games"]) for c in looked["continuations"])
            assert [g for _, g in _table(browser)] == sorted((g for _, g in _table(browser)), reverse=True)
            # each continuation on the board, its share as a label
            marks = browser.find_elements(By.CSS_SELECTOR, "#board circle.mark")
            assert {m.get_attribute("data-move") for m in marks} <= {c["board"] for c in api["continuations"]}
            browser.save_screenshot(str(tmp_path / "explorer.png"))
            # a filter, applied at the click: the numbers move as the API says
            years = sorted(set(looked["years"]))
            chosen = f"{years[len(years) // 2]}-{years[-1]}"
            field = browser.find_element(By.NAME, "years")
            field.clear()
            field.send_keys(chosen)
            browser.find_element(By.ID, "apply").click()
            _shown(browser, {"moves": "Q16,R14", "years": chosen})
            filtered = _api(url, "/api/explore", moves="Q16,R14", years=chosen)
            assert sorted(_table(browser)) == sorted((c["board"], c["games"]) for c in filtered["continuations"])
            assert filtered["games"] < api["games"] and f"years={chosen}" in browser.current_url
            # a game: replayed on the board from the start of its corner, and stepped
            first = browser.find_element(By.CSS_SELECTOR, "#games tbody tr")
            first.click()
            bar = browser.find_element(By.ID, "replay-bar")
            from selenium.webdriver.support.ui import WebDriverWait

            WebDriverWait(browser, 30).until(lambda b: bar.is_displayed())
            before = browser.find_element(By.ID, "replay-at").text
            stones = len(browser.find_elements(By.CSS_SELECTOR, "#board .stone-B, #board .stone-W"))
            browser.find_element(By.ID, "replay-forward").click()
            assert browser.find_element(By.ID, "replay-at").text != before
            assert len(browser.find_elements(By.CSS_SELECTOR, "#board .stone-B, #board .stone-W")) >= stones
            assert browser.find_element(By.ID, "replay-sgf").get_attribute("href").endswith(".sgf?moves=Q16%2CR14")
            # the back button steps back: the filter off, then R14 off
            browser.back()
            _shown(browser, {"moves": "Q16,R14"})
            browser.back()
            _shown(browser, {"moves": "Q16"})
            # a permalink opens the same view
            browser.get(f"{url}/?moves=Q16,R14&years={chosen}")
            _shown(browser, {"moves": "Q16,R14", "years": chosen})
            assert sorted(_table(browser)) == sorted((c["board"], c["games"]) for c in filtered["continuations"])
            assert browser.find_element(By.NAME, "years").get_attribute("value") == chosen
            # two selections: B's share beside each move, as the API compares them
            browser.get(f"{url}/?moves=Q16,R14&b_years={chosen}")
            _shown(browser, {"moves": "Q16,R14", "b_years": chosen})
            both = _api(url, "/api/explore", moves="Q16,R14", b_years=chosen)
            cells = browser.find_elements(By.CSS_SELECTOR, "#continuations tbody tr[data-move] td.b-col")
            assert cells and all(c.is_displayed() for c in cells) and len(both["compared"]) >= len(cells)
            # position search: stones set up in the edit mode, answered as /api/position
            browser.get(f"{url}/")
            _shown(browser, {})
            browser.find_element(By.ID, "edit").click()
            for point in ("Q16", "R14"):
                browser.find_element(By.CSS_SELECTOR, f'[data-point="{point}"]').click()
            browser.find_element(By.CSS_SELECTOR, "input[name=stone][value=W]").click()
            browser.find_element(By.CSS_SELECTOR, '[data-point="R14"]').click()
            browser.find_element(By.ID, "search").click()
            where = _api(url, "/api/position", black="Q16", white="R14")
            from selenium.webdriver.support.ui import WebDriverWait

            WebDriverWait(browser, 30).until(lambda b: "This position" in b.find_element(By.ID, "summary").text)
            assert f"{where['games']:,} games" in browser.find_element(By.ID, "summary").text
            # one's own game, opened as an SGF file and stepped: what is played in its last move's corner
            game = tmp_path / "mine.sgf"
            game.write_text("(;GM[1]SZ[19];B[pd];W[qf];B[nc];W[dd])", encoding="ascii")
            picker = browser.find_element(By.ID, "sgf-file")
            browser.execute_script("arguments[0].style.display = 'inline'", picker)
            picker.send_keys(str(game))
            WebDriverWait(browser, 30).until(lambda b: b.find_element(By.ID, "sgf-of").text == "4")
            browser.find_element(By.ID, "sgf-back").click()
            assert browser.find_element(By.ID, "sgf-at").text == "3"
            browser.find_element(By.ID, "sgf-search").click()
            corner = _api(url, "/api/position", black="Q16,O17", white="R14")
            WebDriverWait(browser, 30).until(
                lambda b: f"{corner['games']:,} games" in b.find_element(By.ID, "summary").text
            )
            errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, errors
        finally:
            browser.quit()
