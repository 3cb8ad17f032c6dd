"""`joseki practice export`: an Anki deck of a subtree, read back; and the
practice command's one-line refusals."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MINED = Path()  # all of ../shared/data mined once a session (conftest's all_mined): set by ``_all_mined``


@pytest.fixture(scope="module", autouse=True)
def _all_mined(all_mined):
    global MINED
    MINED = all_mined.out.parent


START = "Q16,R14,O17"  # the 4-4 point, the low approach, the one-space low pincer... (a small subtree)


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def _export(path, *more):
    done = _cli("practice", "export", path, "--out", MINED / "out", "--work", MINED / "work", *more)
    assert done.returncode == 0, done.stderr
    return done


def _notes(apkg: Path) -> tuple[list[tuple[str, list[str]]], dict[str, bytes]]:
    with zipfile.ZipFile(apkg) as z:
        names = z.namelist()
        assert "collection.anki2" in names and "media" in names
        media = {name: z.read(number) for number, name in json.loads(z.read("media")).items()}
        folder = apkg.parent / (apkg.stem + "-read")
        z.extract("collection.anki2", folder)
    db = sqlite3.connect(folder / "collection.anki2")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    notes = [(guid, fields.split("\x1f")) for guid, fields in db.execute("SELECT guid, flds FROM notes ORDER BY id")]
    assert db.execute("SELECT count(*) FROM cards").fetchone()[0] == len(notes)  # one card a note
    db.close()
    return notes, media


def test_the_deck_reads_back_as_lookup_answers(tmp_path):
    deck = tmp_path / "deck.apkg"
    done = _export(deck, "--moves", START, "--min-share", "0.2")
    notes, media = _notes(deck)
    assert done.stdout.startswith(f"{len(notes):,} notes written") and len(notes) >= 3
    for guid, (position, board, to_play, back) in notes:
        moves, colour = position.split()
        assert to_play == f"{colour.title()} to play"
        # the front's image: our diagram, a stone for each move of the position (a tenuki has none)
        image = re.fullmatch(r'<img src="([^"]+)">', board).group(1)
        svg = media[image].decode()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "<style>" in svg
        points = re.findall(r'data-point="([a-s]{2})" data-colour="([BW])"', svg)
        played = [(m[2:-1], m[0]) for m in moves.split(";") if m[2:-1]]
        assert sorted(set(points)) == sorted(set(played))
        # the back's shares and games: lookup's at the position
        found = json.loads(_cli("lookup", moves, "--out", MINED / "out", "--work", MINED / "work", "--json").stdout)
        assert f"{found['games']:,} games reach this position" in back
        theirs = {c["normal"]: c for c in found["continuations"]}
        rows = re.findall(r'<tr data-normal="([^"]+)"><td>[^<]+</td><td class="n">([\d.]+)%</td>', back)
        assert rows and all(f"{100 * theirs[normal]['share']:.1f}" == share for normal, share in rows)
        best = max(theirs.values(), key=lambda c: c["count"])
        assert rows[0][0] == best["normal"] and best["share"] >= 0.2


def test_exporting_twice_gives_the_same_note_ids(tmp_path):
    _export(tmp_path / "a.apkg", "--moves", START, "--min-share", "0.2", "--colour", "white")
    _export(tmp_path / "b.apkg", "--moves", START, "--min-share", "0.2", "--colour", "white")
    a, _ = _notes(tmp_path / "a.apkg")
    b, _ = _notes(tmp_path / "b.apkg")
    assert [guid for guid, _ in a] == [guid for guid, _ in b] and a
    assert all(fields[2] == "White to play" for _, fields in a)


def test_bad_input_is_one_line(tmp_path):
    where = ("--out", MINED / "out", "--work", MINED / "work")
    not_held = _cli("practice", "export", tmp_path / "x.apkg", *where, "--moves", "Q16,R14,S16,S17,T17,T16")
    assert not_held.returncode == 1 and "does not hold" in not_held.stderr
    nothing = _cli("practice", "export", tmp_path / "x.apkg", *where, "--moves", START, "--min-share", "1")
    assert nothing.returncode == 2 and "no position to export" in nothing.stderr
    unwritable = _cli("practice", "export", tmp_path / "no" / "x.apkg", *where, "--moves", START)
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr
    colour = _cli("practice", "export", tmp_path / "x.apkg", *where, "--moves", START, "--colour", "red")
    assert colour.returncode == 2
    foreign = tmp_path / "notes.sqlite3"
    sqlite3.connect(foreign).execute("CREATE TABLE mine (x)").connection.commit()
    before = foreign.read_bytes()
    refused = _cli("practice", "--practice", foreign)
    assert refused.returncode == 2 and "not a joseki-miner practice file" in refused.stderr
    assert foreign.read_bytes() == before
    from joseki_miner.explorer.server import free_port

    served = _cli("explore", *where, "--practice", foreign, "--no-open", "--port", free_port())
    assert served.returncode == 2 and "not a joseki-miner practice file" in served.stderr
    (tmp_path / "a-file").write_text("")
    served = _cli(
        "explore", *where, "--practice", tmp_path / "a-file" / "p.sqlite3", "--no-open", "--port", free_port()
    )
    assert served.returncode == 2 and "cannot open the practice file" in served.stderr
    for done in (not_held, nothing, unwritable, colour, refused, served):
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "x.apkg").exists()


def test_a_players_repertoire_seeds_the_deck(tmp_path):
    practice = tmp_path / "p.sqlite3"
    done = _cli(
        "practice", "--practice", practice, "--player", "Lee Sedol", "--out", MINED / "out", "--work", MINED / "work"
    )
    assert done.returncode == 0, done.stderr
    added = int(re.search(r"([\d,]+) new cards", done.stdout).group(1).replace(",", ""))
    assert added > 0 and f"{added:,} cards due today" in done.stdout
    again = _cli(
        "practice", "--practice", practice, "--player", "Lee Sedol", "--out", MINED / "out", "--work", MINED / "work"
    )
    assert " 0 new cards" in again.stdout  # seeded once: the same places are the same cards


def test_a_deck_of_a_selection_has_the_explorers_shares_there(tmp_path):
    from joseki_miner.explorer import params
    from joseki_miner.explorer.index import Index
    from joseki_miner.runs.catalog import Catalog

    deck = tmp_path / "recent.apkg"
    _export(deck, "--moves", START, "--min-share", "0.2", "--selection", "years=2016-2019")
    notes, _ = _notes(deck)
    whole, _ = _notes(_export_to(tmp_path / "all.apkg"))
    assert notes and [f for _, f in notes] != [f for _, f in whole]  # the selection's figures, not the whole tree's
    assert not {g for g, _ in notes} & {g for g, _ in whole}  # a deck of its own in Anki, beside the whole tree's
    index = Index.read(Catalog(work=MINED / "work", out=MINED / "out"))
    recent = params.selection({"years": "2016-2019"}, index)
    for _, (position, _, _, back) in notes:
        moves = position.split()[0]
        found = index.explore(params.query(moves.replace(";", " "), checked=False), recent)
        assert f"{found['games']:,} games reach this position" in back
        theirs = {c["normal"]: c for c in found["continuations"]}
        rows = re.findall(r'<tr data-normal="([^"]+)"><td>[^<]+</td><td class="n">([\d.]+)%</td>', back)
        assert rows and all(f"{100 * theirs[normal]['share']:.1f}" == share for normal, share in rows)


def _export_to(path):
    _export(path, "--moves", START, "--min-share", "0.2")
    return path
