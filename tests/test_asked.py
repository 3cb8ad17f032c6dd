"""What a user asks for, checked once (joseki_miner.runs.asked): limits,
compare's sides, collections, players and events; and the commands that
use it, each refusing with one line and exit 2 where a name, key or limit
cannot be."""

from __future__ import annotations

import pytest

from helpers import joseki_cli as joseki
from helpers import mine_into as mine
from joseki_miner.runs import asked
from joseki_miner.runs.errors import UsageError
from joseki_miner.runs.inputs import Filters


def test_a_limit_is_zero_for_all_everywhere():
    assert asked.limit(None, 20) == 20 and asked.limit(None) is None
    assert asked.limit(0, 20) is None and asked.limit(3, 20) == 3
    with pytest.raises(UsageError, match="0 \\(all\\) or more"):
        asked.limit(-1, 20)


def test_a_side_takes_each_key_once():
    filters, text = asked.side(["years=[2003,2008]", "filter.sources=[ai]"], "a")
    assert filters.years == (2003, 2008) and filters.sources == ("ai",) and "years" in text
    with pytest.raises(UsageError, match="gives filter.years twice"):
        asked.side(["filter.years=[2003,2008]", "years=[2016,2019]"], "a")
    with pytest.raises(UsageError, match="KEY=VALUE"):
        asked.side(["filter.years"], "b")


def test_the_nearest_names_ignore_case_and_hold_the_name_first():
    names = ["GBPacker", "gbpacker2", "Lee Sedol", "Lee Changho", "AlphaGo"]
    assert asked.nearest("gbpacker", names)[:2] == ["GBPacker", "gbpacker2"]
    assert "Lee Sedol" in asked.nearest("lee sedo", names)
    assert asked.nearest("zzzz", names) == []


def test_an_unknown_source_lists_the_collections_by_their_short_names():
    known = ["data/ai", "data/kgs-6d", "data/tom-9d"]
    asked.check_sources(("AI", "kgs-6d"), known)  # as players match: case aside
    asked.check_sources(None, known)
    with pytest.raises(UsageError, match="no collection 'tygem' among the games \\(collections: ai, kgs-6d, tom-9d\\)"):
        asked.check_sources(("tygem",), known)


def test_known_names_check_a_sides_players_and_events():
    known = asked.Known(["data/ai"], ["GBPacker", "Lee Sedol"], ["Ing Cup"])
    known.check(Filters(players=("gbpacker",), events=("ing",)), "--a")
    with pytest.raises(UsageError, match="--a: no game of 'GBPackr'.*nearest: GBPacker"):
        known.check(Filters(players=("GBPackr",)), "--a")
    with pytest.raises(UsageError, match="no event holds 'Nongshim'"):
        known.check(Filters(events=("Nongshim",)), "--b")
    with pytest.raises(UsageError, match="nearest: Lee Sedol"):
        known.player("lee sedl", "the games")


@pytest.fixture(scope="module")
def demo(demo_games, tmp_path_factory):
    return mine([demo_games], tmp_path_factory.mktemp("asked"), "report.players=[" + "x" * 300 + "]")


def test_a_name_too_long_for_a_file_name_gets_its_page(demo):
    """report.players with a 300-character name ended in OSError: File name
    too long; its page's name now keeps a part and a digest."""
    pages = [p.name for p in demo.report.glob("repertoire-*.html")]
    assert len(pages) == 1 and len(pages[0]) <= 80


def test_the_commands_refuse_what_cannot_be_asked(demo):
    for args in (
        ["compare", "--a", "filter.years=[2003,2008]", "--a", "filter.years=[2016,2019]"],
        ["compare", "--a", "filter.sources=[nowhere]"],
        ["compare", "--a", "filter.players=[nobody]"],
        ["games", "Q16", "--limit", "-2"],
        ["compare", "--limit", "-1"],
        ["repertoire", "demo black", "--limit", "-5"],
    ):
        done = joseki(*args, "--out", demo.out)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (args, done.stderr)
    unknown = joseki("compare", "--a", "filter.sources=[nowhere]", "--out", demo.out)
    assert "collections: club, pro" in unknown.stderr, unknown.stderr


def test_zero_is_all_in_every_command(demo):
    games = joseki("games", "Q16", "--limit", "0", "--out", demo.out)
    first = games.stdout.splitlines()[0]
    total = int(first.split()[0].replace(",", ""))
    assert games.returncode == 0 and len(games.stdout.strip().splitlines()) == total + 1, first
    listed = joseki("games", "Q16", "--out", demo.out).stdout.strip().splitlines()
    assert len(listed) == 21  # 20 by default, and the line that counts them
    import json

    from joseki_miner.book.compare import compare
    from joseki_miner.book.repertoire import repertoire

    sides = ["--a", "filter.sources=[club]", "--b", "filter.sources=[pro]"]
    every = json.loads(joseki("compare", *sides, "--limit", "0", "--json", "--out", demo.out).stdout)
    found = compare(demo, Filters(sources=("club",)), Filters(sources=("pro",)))
    assert [len(every[k]) for k in ("risers", "fallers")] == [len(found[k]) for k in ("risers", "fallers")]
    lines = repertoire(demo.joseki, demo.sequences, demo.games, "demo black")["lines"]
    every = json.loads(joseki("repertoire", "demo black", "--limit", "0", "--json", "--out", demo.out).stdout)
    one = json.loads(joseki("repertoire", "demo black", "--limit", "1", "--json", "--out", demo.out).stdout)
    assert len(every["lines"]) == len(lines) > 20 and len(one["lines"]) == 1


def test_games_names_black_and_white_with_iso_dates(demo):
    import re

    lines = joseki("games", "Q16", "--limit", "5", "--out", demo.out).stdout.strip().splitlines()[1:]
    assert len(lines) == 5
    for line in lines:
        assert re.match(r"  \d{4}(-\d\d){0,2}  Black .+, White .+", line), line


def test_the_help_reads_as_text(demo):
    """No RST backticks in --help, each argument's help shown, and compare's
    --a example with a value."""
    top = joseki("--help")
    assert top.returncode == 0 and "``" not in top.stdout
    compare = joseki("compare", "--help")
    assert "filter.sources=[ai]" in compare.stdout.replace(" ", "").replace("\n", "") or "[ai]" in compare.stdout
    lookup = joseki("lookup", "--help")
    assert "SEQUENCE" in lookup.stdout and "Q16" in lookup.stdout
