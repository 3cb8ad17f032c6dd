"""The joseki book in HTML (joseki_miner.book.report, stage report): what it
holds, checked against the Parquet tree, and what a person sees in a real
browser (Debian's chromium through chromedriver; skipped without it)."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from joseki_miner.book import report
from joseki_miner.book.groups import PER_PAGE, group_of_move
from joseki_miner.book.index_page import SHOWN_FIRST
from joseki_miner.book.words import About
from joseki_miner.method.points import from_sgf
from joseki_miner.method.kinds import FUSEKI
from joseki_miner.runs.config import load
from joseki_miner.runs.catalog import Catalog
from helpers import mine_into as mine
from pipeline.run import Request, run_stages

NS = "{http://www.w3.org/2000/svg}"
MAX_PAGE = 300_000  # "no page over a few hundred KB"


@pytest.fixture(scope="module")
def mined(demo_games, tmp_path_factory) -> Catalog:
    return mine([demo_games], tmp_path_factory.mktemp("report-run"))


def tree(catalog: Catalog) -> dict[int, dict]:
    rows = pq.read_table(catalog.joseki).to_pylist()
    return {r["node"]: r for r in rows}


def path_of(nodes: dict[int, dict], n: int) -> list[dict]:
    out = []
    while nodes[n]["parent"] >= 0:
        out.append(nodes[n])
        n = nodes[n]["parent"]
    return out[::-1]


def boards(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg class=\"board\".*?</svg>", html, re.S)]


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.refs += [v for k, v in attrs if k in ("href", "src") and v]


def joseki_and_fuseki(nodes: dict[int, dict], min_length: int = 3) -> tuple[set[int], set[int]]:
    """Where a joseki ends (a joseki move of at least min_length moves that
    no joseki move follows, directly or after a tenuki), and the fuseki
    shapes (the leaves named an approach, an enclosure or an extension)."""
    kids = {n: [c for c, r in nodes.items() if r["parent"] == n] for n in nodes}

    def goes_on(n):
        return any(
            nodes[c]["kind"] == "joseki" and (nodes[c]["move"] or any(nodes[g]["kind"] == "joseki" for g in kids[c]))
            for c in kids[n]
        )

    joseki = {
        n
        for n, r in nodes.items()
        if n and r["kind"] == "joseki" and r["move"] and r["depth"] >= min_length and not goes_on(n)
    }
    return joseki, {n for n, r in nodes.items() if n and not kids[n] and r["kind"] in FUSEKI}


def follow_ups(nodes: dict[int, dict]) -> dict[int, int]:
    """Each follow-up leaf (a line that went on after a tenuki) -> the
    joseki it follows (the last joseki move of its line)."""
    kids = {n: [c for c, r in nodes.items() if r["parent"] == n] for n in nodes}
    out = {}
    for n, r in nodes.items():
        if n and not kids[n] and r["kind"] == "follow-up":
            line = path_of(nodes, n)
            out[n] = [x["node"] for x in line if x["kind"] == "joseki" and x["move"]][-1]
    return out


def test_a_page_for_every_node_and_the_index_lists_the_joseki_by_first_move_then_the_fuseki_shapes(mined):
    """The index opens with a table of the groups (the corner's first
    move), then each group's most played joseki (where a joseki ends: a
    joseki move of at least min_length moves that no joseki move follows,
    directly or after a tenuki), then a section of the fuseki shapes (the
    leaves named an approach, an enclosure or an extension).  Each group's
    page holds all its joseki, the most played first, each with the
    follow-ups played after it; fuseki.html all the fuseki shapes."""
    nodes = tree(mined)
    folder = mined.report
    joseki, fuseki = joseki_and_fuseki(nodes)
    groups = {group_of_move(nodes[path_of(nodes, n)[0]["node"]]["move"]) for n in joseki}
    assert groups == {"4-4", "3-4", "3-3"}
    later_groups = {group_of_move(path_of(nodes, f)[0]["move"]) for f in follow_ups(nodes)}
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["index.html", "style.css", "changed.html", "fuseki.html", "games"]
        + [f"joseki-{g}.html" for g in groups]
        + [f"follow-ups-{g}.html" for g in later_groups]
        + [f"n{n}.html" for n in nodes]
    )
    index = (folder / "index.html").read_text(encoding="utf-8")
    cards = {
        kind: set(map(int, re.findall(rf'class="card {kind}" data-node="(\d+)"', index)))
        for kind in ("joseki", "enclosure", "extension")
    }
    assert cards["joseki"] == joseki and len(joseki) == 6  # at most 6 a group on the index: here all of them
    assert cards["enclosure"] | cards["extension"] == fuseki and all(cards.values())
    assert (
        max(index.index(f'data-node="{n}"') for n in joseki)
        < index.index('id="fuseki"')
        < min(index.index(f'data-node="{n}"') for n in fuseki)
    )
    assert index.index("<table>") < index.index('id="group-4-4"') < index.index('id="group-3-4"')
    shown, later = {}, {}
    for g in groups:
        page = (folder / f"joseki-{g}.html").read_text(encoding="utf-8")
        mine = [int(n) for n in re.findall(r'class="card joseki" data-node="(\d+)"', page)]
        assert [nodes[n]["games"] for n in mine] == sorted((nodes[n]["games"] for n in mine), reverse=True)
        shown.update(dict.fromkeys(mine, g))
        starts = [(m.start(), int(m.group(1))) for m in re.finditer(r'class="card joseki" data-node="(\d+)"', page)]
        for m in re.finditer(r'class="follow-up" data-node="(\d+)"', page):  # under the card it is in
            later[int(m.group(1))] = max(c for c in starts if c[0] < m.start())[1]
    assert set(shown) == joseki and len(shown) == len(joseki)
    assert later == follow_ups(nodes) and len(later) == 1  # the demo plants one, under the joseki it follows
    (group,) = later_groups  # and on its group's page of follow-ups, under the line it follows
    page = (folder / f"follow-ups-{group}.html").read_text(encoding="utf-8")
    followed = [int(n) for n in re.findall(r'class="followed" data-node="(\d+)"', page)]
    assert followed == list(later.values())
    assert set(map(int, re.findall(r'class="card follow-up" data-node="(\d+)"', page))) == set(later)
    fuseki_page = (folder / "fuseki.html").read_text(encoding="utf-8")
    assert (
        set(map(int, re.findall(r'class="card (?:approach|enclosure|extension)" data-node="(\d+)"', fuseki_page)))
        == fuseki
    )
    for page in folder.rglob("*"):
        assert page.stat().st_size < MAX_PAGE, page.name


def test_each_board_shows_the_stones_of_its_parquet_path(mined):
    """Every stone of a node's page is at the point of its move in the
    tree (the tree's orientation), numbered by its move; every candidate is
    a child of the node, linked to its page."""
    nodes = tree(mined)
    for n, row in nodes.items():
        html = (mined.report / f"n{n}.html").read_text(encoding="utf-8")
        board = boards(html)[0]
        stones = {
            g.get("data-point"): (g.get("data-colour"), int(g.get("data-move")))
            for g in board.iter(f"{NS}g")
            if "stone" in g.get("class", "").split()
        }
        expected = {r["move"]: (r["color"], i) for i, r in enumerate(path_of(nodes, n), 1) if r["move"]}
        assert stones == expected, n
        children = {r["node"]: r for r in nodes.values() if r["parent"] == n}
        links = {a.get("href"): a.find(f"{NS}g").get("data-point") for a in board.iter(f"{NS}a")}
        assert links == {f"n{c}.html": r["move"] for c, r in children.items() if r["move"]}
        # the page says the node's games and count
        assert f"{row['games']:,} games" in html and f"<td>{row['count']:,}</td>" in html


def test_every_link_stays_in_the_folder_and_reaches_a_page(mined):
    for page in mined.report.glob("*.html"):
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for ref in parser.refs:
            assert not re.match(r"[a-z]+:", ref), (page.name, ref)  # nothing from the network, no absolute path
            target, _, anchor = ref.partition("#")
            assert (mined.report / (target or page.name)).is_file(), (page.name, ref)
            if anchor:  # a place in a page: it is there
                assert f'id="{anchor}"' in (mined.report / (target or page.name)).read_text(encoding="utf-8")


def test_the_report_is_the_same_bytes_when_built_again(mined, tmp_path):
    again = Catalog(work=mined.work, out=tmp_path)
    shutil.copytree(mined.out, tmp_path, dirs_exist_ok=True)
    shutil.rmtree(tmp_path / "report")
    (tmp_path / "report.manifest.json").unlink()
    run_stages(again, load(None, []), ["report"], [], Request(progress=False), log=lambda s: None)
    for page in (p for p in mined.report.rglob("*") if p.is_file()):
        name = page.relative_to(mined.report)
        assert (tmp_path / "report" / name).read_bytes() == page.read_bytes(), name


def test_the_report_written_in_parts_is_the_report_written_whole(mined, tmp_path):
    """Three parts (the dask engine's tasks, in any order) write every page
    once, the same bytes, and the stage's figures of one writer."""
    import json

    from joseki_miner.stages import report as stage
    from joseki_miner.book.files import BookFiles

    figures = {
        k: v
        for stage_ in ("ingest", "prune")
        for k, v in json.loads(mined.manifest(stage_).read_text())["figures"].items()
    }
    files = BookFiles(mined.joseki, mined.node_years, mined.node_sources, mined.node_examples, mined.games, figures)
    folder = tmp_path / "parts"
    stage.start(folder)
    written = [stage.write(files, folder, share=0.2, min_length=1, part=(i, 3)) for i in (2, 0, 1)]
    whole = stage.pages(files, tmp_path / "whole", share=0.2, min_length=1)
    whole_files = [p.relative_to(tmp_path / "whole") for p in (tmp_path / "whole").rglob("*") if p.is_file()]
    assert sum(len(sizes["pages"]) + len(sizes["games"]) for sizes in written) == len(whole_files)
    assert sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file()) == sorted(whole_files)
    for name in whole_files:
        assert (folder / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert [bool(sizes["games"]) for sizes in written] == [True, False, True]  # part 0 writes the book's own pages
    assert stage.figures(written) == whole


def test_the_books_dates_come_from_the_ingest_figures_as_from_the_games(mined):
    """The report's first and last date, from the ingest stage's figures
    (``games_dates``), are those read from games.parquet, which a run's
    manifest from before the figures still reads."""
    import json

    from joseki_miner.book.files import BookFiles, date_range, load_book

    figures = json.loads(mined.manifest("ingest").read_text())["figures"]
    assert 0 < figures["games_dates"][0] <= figures["games_dates"][1]
    files = BookFiles(mined.joseki, mined.node_years, mined.node_sources, mined.node_examples, mined.games, figures)
    about = load_book(files, share=0.2, min_length=1).about
    assert (about.first_date, about.last_date) == date_range(mined.games) != ("", "")
    older = {k: v for k, v in figures.items() if k != "games_dates"}
    files = BookFiles(mined.joseki, mined.node_years, mined.node_sources, mined.node_examples, mined.games, older)
    assert load_book(files, share=0.2, min_length=1).about == about


def test_the_report_parts_are_bounded_by_pages_not_workers():
    """Part 0 writes the book's own pages alone; the others share the
    node pages, none more than ``PAGES_A_PART`` (a larger book is more
    parts, not larger ones) but where a worker would load the book more
    than ``PARTS_A_WORKER`` times, and at least one a worker where there
    are nodes enough, none empty."""
    from joseki_miner.book.files import PAGES_A_PART, PARTS_A_WORKER, parts

    for nodes, workers in [(0, 1), (1, 1), (50, 64), (771, 2), (800, 64), (1_600, 2), (10_000, 2), (100_000, 8)]:
        k = parts(nodes, workers)
        shares = [report.part_nodes(list(range(nodes)), (i, k)) for i in range(k)]
        assert shares[0] == [] and k - 1 <= PARTS_A_WORKER * workers
        assert k - 1 >= min(workers, nodes) and (nodes == 0 or all(shares[1:]))
        assert sorted(n for share in shares for n in share) == list(range(nodes))
        assert max(map(len, shares)) <= PAGES_A_PART or k - 1 == PARTS_A_WORKER * workers
    assert report.part_nodes([5, 6, 7], (0, 1)) == [5, 6, 7]


def test_names_from_the_games_are_escaped(mined, tmp_path):
    from joseki_miner.book.words import About, make_book
    from joseki_miner.book.node_page import node_page

    examples = pq.read_table(mined.node_examples).to_pylist()[:1]
    examples[0]["black"] = "<script>alert(1)</script>"
    import pyarrow as pa

    book = make_book(pq.read_table(mined.joseki), None, None, pa.Table.from_pylist(examples), About(games=1))
    html = node_page(book, examples[0]["node"])
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_records_are_named_by_their_collection_and_their_place_in_it():
    """An example game's record as a reader finds it in their own copy of
    the collection: its name, the file's path inside its folder, the
    place inside the file; never the path the mining machine read."""
    from joseki_miner.book.words import record_name

    data = "/home/someone/shared/data"
    ai = {"collection": f"{data}/ai", "source": f"{data}/ai/ai-games.tar.gz", "location": "AI/HanDol/G2.sgf"}
    assert record_name(ai, {f"{data}/ai": "ai"}) == "ai: ai-games.tar.gz : AI/HanDol/G2.sgf"
    assert record_name(ai) == "ai: ai-games.tar.gz : AI/HanDol/G2.sgf"  # a collection the book does not list
    tygem = {"collection": "../shared/data/tygem-9d", "source": "../shared/data/tygem-9d/kifu/2011-09.zip"}
    assert record_name({**tygem, "location": "2011-09:line 7"}) == "tygem-9d: kifu/2011-09.zip : 2011-09:line 7"
    loose = {"collection": f"{data}/kgs", "source": f"{data}/kgs/2001/01-01-1.sgf", "location": ""}
    assert record_name(loose, {f"{data}/kgs": "kgs"}) == "kgs: 2001/01-01-1.sgf"
    alone = {"collection": f"{data}/one.sgf", "source": f"{data}/one.sgf", "location": "game 2"}
    assert record_name(alone, {f"{data}/one.sgf": "one.sgf"}) == "one.sgf : game 2"  # a file given as a collection
    outside = {"collection": f"{data}/ai", "source": "/elsewhere/x.sgf", "location": ""}
    assert record_name(outside, {f"{data}/ai": "ai"}) == "ai: x.sgf"


def test_the_published_book_names_no_path_of_the_machine_that_mined_it(mined, demo_games):
    """The report's pages and records, and joseki.sgf, name each example
    game by its collection and its place there (``record_name``): the
    folder the games were mined from (an absolute path here) appears in
    none of them."""
    here = str(demo_games)
    assert here.startswith("/")
    published = [p for p in mined.report.rglob("*") if p.is_file()] + [mined.sgf]
    assert [p for p in published if here in p.read_text(encoding="utf-8")] == []
    from joseki_miner.book.words import record_name, short_names

    rows = pq.read_table(mined.node_examples).to_pylist()
    names = short_names({r["collection"] for r in rows})
    for r in rows:
        page = (mined.report / f"n{r['node']}.html").read_text(encoding="utf-8")
        assert f'<span class="record">{record_name(r, names)}</span>' in page
        assert record_name(r, names).startswith(("club: demo-", "pro: demo-"))
    sgf = mined.sgf.read_text(encoding="utf-8")
    assert f"({record_name(rows[0], names)}, move " in sgf


def test_an_example_game_opens_as_sgf_from_its_node_page(mined):
    """Each example game's row links its record beside the report
    (games/GAME.sgf, one file a game whichever nodes show it): the game as
    games.parquet holds it (information, setup stones, moves), named by
    its collection and its place there."""
    from sgfmill import sgf

    from joseki_miner.book.words import record_name, short_names
    from joseki_miner.method.gameinfo import date_text
    from joseki_miner.method.records import decode_moves
    from joseki_miner.method.points import to_sgf

    rows = pq.read_table(mined.node_examples).to_pylist()
    games = pq.read_table(mined.games).to_pylist()
    names = short_names({g["collection"] for g in games})
    for node in {r["node"] for r in rows}:
        page = (mined.report / f"n{node}.html").read_text(encoding="utf-8")
        linked = re.findall(r'<a class="sgf" href="games/(\d+)\.sgf">SGF</a>', page)
        assert linked == [str(r["game"]) for r in rows if r["node"] == node]
    files = sorted((mined.report / "games").iterdir())
    assert sorted(int(f.stem) for f in files) == sorted({r["game"] for r in rows})  # one file a game
    for f in files:
        game = games[int(f.stem)]
        record = sgf.Sgf_game.from_bytes(f.read_bytes())
        root = record.get_root()
        info = {k: root.get_raw(k).decode() if root.has_property(k) else "" for k in ("PB", "PW", "DT", "RE", "KM")}
        assert info == {**{k: game[k] or "" for k in info}, "DT": date_text(game["DT"] or "")}
        assert root.get("GC") == record_name(game, names)
        played = [node.get_raw_move() for node in record.get_main_sequence()[1:]]
        want = [("b" if m.colour < 0 else "w", to_sgf(m.point)) for m in decode_moves(game["moves"])]
        assert [(c, (raw or b"").decode()) for c, raw in played] == want


def test_the_index_and_the_groups_pages_explain_the_influence_bands(mined):
    """The bands beside a card's board are the influence verdicts: the
    index and the pages of cards say what each colour of band means, with
    the share the run used (influence.share)."""
    from joseki_miner.runs.config import load as config_of

    share = config_of(None, []).influence_share
    for name in ["index.html", "fuseki.html"] + [p.name for p in mined.report.glob("joseki-*.html")]:
        page = (mined.report / name).read_text(encoding="utf-8")
        legend = re.search(r'<p class="notes legend">(.*?)</p>', page)
        assert legend, name
        assert all(f'<span class="band {c}"></span>' in legend.group(1) for c in ("black", "white", "any"))
        assert f"more than {100 * share:g}% of the games" in legend.group(1)


# -- in a real browser ------------------------------------------------------------------


def _browser(phone: int | None = None):
    """Chromium headless; with ``phone``, as a phone of that width (mobile
    emulation: a layout viewport of ``phone`` CSS pixels, as a phone's
    browser lays a page out)."""
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
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,1400",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if phone:
        metrics = {"width": phone, "height": 844, "pixelRatio": 1}
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    return webdriver.Chrome(service=Service(driver), options=options)


PHONE, DESKTOP = 390, 1400  # CSS pixels: a phone's width, a desktop's window


def _pages_fit(report_folder: Path, names: list[str]) -> None:
    """The pages ``names`` fit a phone's width (nothing wider than the
    screen: no sideways scrolling) and a desktop's window, where the
    example games are a table with its headings and each game's record
    opens as SGF."""
    from selenium.webdriver.common.by import By

    for width in (PHONE, DESKTOP):
        browser = _browser(width if width == PHONE else None)
        try:
            if width == DESKTOP:
                browser.set_window_size(DESKTOP, 1000)
            for name in names:
                browser.get(report_folder.joinpath(name).as_uri())
                wide, view = browser.execute_script(
                    "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
                )
                assert view <= width and wide <= view, (width, name, wide, view)
                games = browser.find_elements(By.CSS_SELECTOR, "table.games")
                if games:
                    head = games[0].find_element(By.TAG_NAME, "th")
                    assert head.is_displayed() == (width == DESKTOP), (width, name)  # a phone stacks each game
                    links = games[0].find_elements(By.CSS_SELECTOR, "a.sgf")
                    assert links and all(a.is_displayed() for a in links)
                    for a in links:
                        assert Path(unquote(urlsplit(a.get_attribute("href")).path)).is_file()
        finally:
            browser.quit()


def _node_pages_with_examples(catalog: Catalog, k: int = 3) -> list[str]:
    """The pages of the ``k`` deepest nodes with example games (the
    longest headings and breadcrumbs), and the empty corner's."""
    rows = pq.read_table(catalog.node_examples, columns=["node"]).column("node").to_pylist()
    nodes = tree(catalog)
    deepest = sorted(set(rows), key=lambda n: (-nodes[n]["depth"], n))[:k]
    return ["n0.html"] + [f"n{n}.html" for n in deepest]


def test_in_a_browser_the_pages_fit_a_phone_and_a_desktop(mined):
    groups = sorted(p.name for p in mined.report.glob("joseki-*.html"))
    _pages_fit(mined.report.resolve(), ["index.html", groups[0], *_node_pages_with_examples(mined)])


@pytest.mark.shared_data
def test_in_a_browser_pages_of_real_games_fit_a_phone_and_a_desktop(mined_real):
    """Real names: players in any script, records deep in archives."""
    groups = sorted(p.name for p in mined_real.report.glob("joseki-*.html"))
    _pages_fit(mined_real.report.resolve(), ["index.html", *groups, *_node_pages_with_examples(mined_real, 6)])


def test_in_a_browser_the_index_and_a_candidate_move_lead_to_the_next_page(mined, tmp_path):
    nodes = tree(mined)
    joseki, fuseki = joseki_and_fuseki(nodes)
    folder = mined.report.resolve()
    browser = _browser()
    try:
        from selenium.webdriver.common.by import By

        browser.get(folder.joinpath("index.html").as_uri())
        cards = browser.find_elements(By.CSS_SELECTOR, ".card.joseki")
        assert {int(c.get_attribute("data-node")) for c in cards} == joseki
        assert all(c.is_displayed() for c in cards)
        # the page opens with joseki: the first card a person sees is one, the fuseki shapes come below them all
        first_card = browser.find_element(By.CSS_SELECTOR, ".card")
        assert "joseki" in first_card.get_attribute("class").split()
        shapes = browser.find_elements(By.CSS_SELECTOR, ".card.enclosure, .card.extension")
        assert {int(c.get_attribute("data-node")) for c in shapes} == fuseki
        lowest = max(c.location["y"] for c in cards)
        heading = browser.find_element(By.ID, "fuseki")
        assert lowest < heading.location["y"] < min(c.location["y"] for c in shapes)
        browser.save_screenshot(str(tmp_path / "index.png"))
        # a group's page: the follow-up under the joseki it follows leads to its page, which says what it is
        ((follow_up, followed),) = follow_ups(nodes).items()
        group = group_of_move(path_of(nodes, followed)[0]["move"])
        browser.find_element(By.CSS_SELECTOR, f'a[href="joseki-{group}.html"]').click()
        card = browser.find_element(By.CSS_SELECTOR, f'.card.joseki[data-node="{followed}"]')
        card.find_element(By.CSS_SELECTOR, f'li.follow-up[data-node="{follow_up}"] a').click()
        assert browser.current_url.endswith(f"/n{follow_up}.html")
        assert browser.find_element(By.CSS_SELECTOR, ".kind").text.startswith("Follow-up")
        # the first move of the most played joseki, then its most played candidate, by a click on the board
        first = max((n for n, r in nodes.items() if r["parent"] == 0), key=lambda n: nodes[n]["count"])
        browser.get(folder.joinpath(f"n{first}.html").as_uri())
        child = max(
            (n for n, r in nodes.items() if r["parent"] == first and r["move"]), key=lambda n: nodes[n]["count"]
        )
        mark = browser.find_element(By.CSS_SELECTOR, f'svg.board a[href="n{child}.html"]')
        mark.click()
        assert browser.current_url.endswith(f"/n{child}.html")
        headline = browser.find_element(By.CSS_SELECTOR, ".headline").text
        assert headline.startswith(f"{nodes[child]['games']:,} games")
        stones = browser.find_elements(By.CSS_SELECTOR, "svg.board .stone")
        assert [s.get_attribute("data-point") for s in stones] == [nodes[first]["move"], nodes[child]["move"]]
        browser.save_screenshot(str(tmp_path / "node.png"))
        # what the pages loaded: only files of the report's folder; and no error in the console
        loaded = browser.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".concat(performance.getEntriesByType('navigation').map(e => e.name))"
        )
        assert loaded and all(url.startswith(folder.as_uri() + "/") for url in loaded), loaded
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == []
        # the style sheet applied: stones are drawn black and white
        fill = browser.execute_script(
            "return getComputedStyle(document.querySelector('svg.board .stone.b circle')).fill"
        )
        assert fill.replace(" ", "") == "rgb(27,27,27)"
    finally:
        browser.quit()


def test_tenuki_candidates_are_links_beside_the_board(mined):
    nodes = tree(mined)
    tenuki = [(r["parent"], c, r["color"]) for c, r in nodes.items() if r["parent"] >= 0 and not r["move"]]
    assert tenuki  # the demo plants one
    for parent, c, colour in tenuki:
        html = (mined.report / f"n{parent}.html").read_text(encoding="utf-8")
        assert f'<a href="n{c}.html">{colour} tenuki</a>' in html


def test_the_plot_labels_the_year_the_headline_calls_most_popular(mined):
    """A page says one thing: the plot's label is on the year the headline
    names (a year of few games may have a taller bar), and the pale bars
    are the years with under 1% of the games."""
    from collections import Counter

    from joseki_miner.book.words import YEAR_FLOOR

    totals = Counter(pq.read_table(mined.games, columns=["year"])["year"].to_pylist())
    thin = {y for y, n in totals.items() if n < YEAR_FLOOR * sum(totals.values())}
    plotted = 0
    for page in mined.report.glob("n*.html"):
        html = page.read_text(encoding="utf-8")
        found = re.search(r'<svg xmlns="http://www.w3.org/2000/svg" class="plot".*?</svg>', html, re.S)
        if not found:
            continue
        plotted += 1
        plot = ET.fromstring(found.group(0))
        bars = {int(r.get("data-year")): r.get("class") for r in plot.iter(NS + "rect")}
        assert {y for y, c in bars.items() if "thin" in c.split()} == thin & set(bars)
        headline = re.search(r'<p class="headline">(.*?)</p>', html).group(1)  # the page's own, not its moves'
        popular = re.search(r"most popular in (\d{4})", headline)
        peak = [t.text for t in plot.iter(NS + "text") if t.get("class") == "peak"]
        if popular:
            assert len(peak) == 1 and peak[0].endswith(f" in {popular.group(1)}")
    assert plotted
    root = next(n for n, row in tree(mined).items() if row["parent"] < 0)  # every game, every year: no year above
    page = (mined.report / f"n{root}.html").read_text(encoding="utf-8")
    assert "most popular" not in re.search(r'<p class="headline">(.*?)</p>', page).group(1)


@pytest.fixture(scope="module")
def mined_real(real_subset, tmp_path_factory) -> Catalog:
    return mine([real_subset], tmp_path_factory.mktemp("report-real"), "prune.min_count=20")


@pytest.mark.shared_data
def test_the_page_of_what_changed_shows_the_real_changes_between_the_eras(mined_real):
    """changed.html: the moves played more, then less, from the earlier
    half of the games' years to the later, each card a node of the tree
    with both eras' figures as ``compare`` finds them; the index links to
    it; report.changed: false writes no page."""
    from joseki_miner.book.compare import compare_files, eras, game_years
    from joseki_miner.book.words import percent

    mined = mined_real
    a, b, before, after = eras(game_years(mined.games))
    found = compare_files(mined.joseki, mined.sorted_sequences, mined.games, a, b)
    assert found["risers"] and found["fallers"]
    html = (mined.report / "changed.html").read_text(encoding="utf-8")
    assert f"What changed: {before} and {after}" in html
    found_in_page = re.findall(r'class="card [\w-]+" data-node="(\d+)"|<a href="n\d+.html" data-node="(\d+)"', html)
    shown = [int(card or row) for card, row in found_in_page]
    assert shown == [c["node"] for c in found["risers"] + found["fallers"]]  # every real change, once
    assert html.index('id="risers"') < html.index('id="fallers"')
    for c in found["risers"][:20]:
        assert f"{before}: {percent(c['a']['share'])} of {c['a']['of']:,} sequences" in html
    index = (mined.report / "index.html").read_text(encoding="utf-8")
    assert f'<a href="changed.html">What changed</a> from {before} to {after}' in index


def test_without_the_page_of_what_changed(mined, demo_games, tmp_path):
    """On the demo (its lines are played alike in every year) the page says
    that no change is sure enough; report.changed: false writes none."""
    assert (mined.report / "changed.html").read_text(encoding="utf-8").count("None: no change is sure enough") == 2
    catalog = mine([demo_games], tmp_path / "off", "report.changed=false")
    assert not (catalog.report / "changed.html").exists()
    assert "What changed" not in (catalog.report / "index.html").read_text(encoding="utf-8")


@pytest.mark.shared_data
def test_in_a_browser_a_change_leads_to_its_move(mined_real, tmp_path):
    folder = mined_real.report.resolve()
    browser = _browser()
    try:
        from selenium.webdriver.common.by import By

        browser.get(folder.joinpath("changed.html").as_uri())
        cards = browser.find_elements(By.CSS_SELECTOR, ".card")
        assert cards and all(c.is_displayed() for c in cards[:5])
        assert (
            browser.find_element(By.ID, "risers").location["y"] < browser.find_element(By.ID, "fallers").location["y"]
        )
        node = cards[0].get_attribute("data-node")
        browser.save_screenshot(str(tmp_path / "changed.png"))
        cards[0].find_element(By.TAG_NAME, "a").click()
        assert browser.current_url.endswith(f"/n{node}.html")
        assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
    finally:
        browser.quit()


def test_a_page_weighs_at_most_2_mb_at_any_tree_size():
    """A group of 250 joseki, each with 20 follow-ups: its cards are on
    pages of at most PER_PAGE, each joseki on one of them, each page
    far below 2 MB, the index showing the first few of each group."""
    from joseki_miner.book.words import make_book
    from joseki_miner.method.points import to_sgf as sgf

    rows = [
        (0, -1, 0, "", "", "joseki", 100_000),
        (1, 0, 1, "B", "dd", "joseki", 100_000),
        (2, 1, 2, "W", "fc", "joseki", 90_000),
    ]
    third = [p for p in range(19 * 19) if p not in (from_sgf("dd"), from_sgf("fc"))][:250]
    for i, p in enumerate(third):  # "dd fc X": a joseki; "dd fc X -- Y": its follow-ups
        leaf = len(rows)
        rows.append((leaf, 2, 3, "B", sgf(p), "joseki", 300 - i))
        rows.append((leaf + 1, leaf, 4, "W", "", "follow-up", 40))
        for j, q in enumerate([q for q in third if q != p][:20]):
            rows.append((len(rows), leaf + 1, 5, "B", sgf(q), "follow-up", 20 - j % 20))
    cols = ["node", "parent", "depth", "color", "move", "kind", "count"]
    book = make_book(
        pa.table({c: [r[i] for r in rows] for i, c in enumerate(cols)}), about=About(games=100_000, min_length=3)
    )
    files = report.pages(book)
    group = sorted(n for n in files if n.startswith("joseki-4-4"))
    assert group == ["joseki-4-4-2.html", "joseki-4-4-3.html", "joseki-4-4.html"]
    shown = [int(n) for name in group for n in re.findall(r'class="card joseki" data-node="(\d+)"', files[name])]
    assert sorted(shown) == sorted(r[0] for r in rows if r[2] == 3) and len(shown) == 250
    assert all(len(re.findall(r'class="card joseki"', files[name])) <= PER_PAGE for name in group)
    assert len(re.findall(r'class="card joseki"', files["index.html"])) == SHOWN_FIRST
    later = sorted(n for n in files if n.startswith("follow-ups-4-4"))
    assert len(later) == 50  # 5,000 follow-ups, 100 a page
    assert sum(len(re.findall(r'class="card follow-up"', files[name])) for name in later) == 5000
    assert max(len(text.encode("utf-8")) for text in files.values()) < 2_000_000


def test_a_group_of_follow_ups_alone_is_listed_and_has_its_page():
    """A first move whose lines are all follow-ups (no joseki ends there):
    the index's table lists its follow-ups, their page is written, and no
    page of joseki is linked."""
    from joseki_miner.book.words import make_book

    rows = [
        (0, -1, 0, "", "", "joseki", 100),
        (1, 0, 1, "B", "fd", "joseki", 100),
        (2, 1, 2, "W", "dc", "joseki", 90),
        (3, 2, 3, "B", "", "joseki", 80),
        (4, 3, 4, "W", "cd", "follow-up", 60),
    ]
    cols = ["node", "parent", "depth", "color", "move", "kind", "count"]
    book = make_book(
        pa.table({c: [r[i] for r in rows] for i, c in enumerate(cols)}), about=About(games=100, min_length=3)
    )
    files = report.pages(book)
    assert "follow-ups-other.html" in files and not any(n.startswith("joseki-") for n in files)
    assert (
        'href="follow-ups-other.html">1</a>' in files["index.html"] and 'href="joseki-other' not in files["index.html"]
    )


def test_a_node_names_the_other_orders_that_reach_its_position(tmp_path):
    """kinds.transpositions: 'R16 tenuki P17' (three games) and 'P17 tenuki
    R16' (two) are one enclosure; each node's page says it is also reached
    by the other order, with its games and a link to its page, and so does
    its SGF comment, in ASCII; the thesis' config writes none of it."""
    from helpers import mine_into

    folder = tmp_path / "games"
    folder.mkdir()
    for i, moves in enumerate(["B[qd];W[dd];B[oc];W[dp]"] * 3 + ["B[oc];W[dd];B[qd];W[dp]"] * 2):
        last = ["pp", "qp", "pq", "oq", "qo"][i]  # each game its own (no duplicates)
        (folder / f"g{i}.sgf").write_text(f"(;GM[1]FF[4]SZ[19]DT[201{i}-01-01];{moves};B[{last}])")
    catalog = mine_into([folder], tmp_path / "out", "prune.min_count=1", "prune.min_games=1")
    rows = pq.read_table(catalog.node_transpositions).to_pylist()
    joseki = {r["node"]: r for r in pq.read_table(catalog.joseki).to_pylist()}
    pairs = {(joseki[r["node"]]["games"], r["games"]) for r in rows}
    assert pairs == {(3, 2), (2, 3)}
    for r in rows:
        assert joseki[r["at"]]["games"] == r["games"] and len(r["moves"]) == 6 and r["moves"][2:4] == "--"
        page = (catalog.report / f"n{r['node']}.html").read_text()
        assert f'Also reached by <a href="n{r["at"]}.html">' in page
        assert f"({r['games']} games): the same stones, another order of moves" in page
    sgf = catalog.sgf.read_text()
    assert sgf.count("Also reached by ") == 2 and sgf.isascii()
    assert "Also reached by C15 tenuki D17 (2 games)" in sgf  # the tree's form: the corner upper left
    thesis = mine_into([folder], tmp_path / "thesis", "kinds=false", "prune.min_count=1")
    assert not thesis.node_transpositions.exists() and "Also reached by" not in thesis.sgf.read_text()


# -- the README's samples ----------------------------------------------------------------


def test_the_readmes_demo_samples_are_what_a_run_of_the_demo_gives(tmp_path, monkeypatch, capsys):
    """scripts/readme-samples.py --check: the README's summary of the demo
    is what `joseki mine` prints on it now (its seconds aside); a README
    whose sample drifted fails the check, naming it, and is rewritten."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("readme_samples", root / "scripts" / "readme-samples.py")
    samples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(samples)
    made = samples.demo_summary()  # a real run of the demo, as `make mine` makes it
    assert made.startswith("games read ") and "outputs in data/processed (" in made
    monkeypatch.setattr(samples, "demo_summary", lambda: made)
    assert samples.main(["--check"]) == 0, capsys.readouterr().out
    drifted = tmp_path / "README.md"
    text = (root / "README.md").read_text(encoding="utf-8")
    written = samples.block(text, "demo-summary").group(2)
    drifted.write_text(text.replace(written, written.replace("games read", "games read 1", 1)), encoding="utf-8")
    assert samples.main(["--check", "--readme", str(drifted)]) == 1
    assert "sample 'demo-summary' is not what a run gives" in capsys.readouterr().out
    assert samples.main(["--readme", str(drifted)]) == 0
    assert samples.main(["--check", "--readme", str(drifted)]) == 0
