"""Kifu lines (Tom, Tygem server dumps) and their index files."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import linux, make_tar, make_zip, resident

from joseki_miner.fast.mapped import PAGE, Arena
from joseki_miner.method.points import BLACK, PASS, WHITE, from_sgf
from joseki_miner.readers import read_paths
from joseki_miner.readers.kifu import IndexStore, index_info, index_meta, parse_moves, read_kifu_bytes
from joseki_miner.method.records import GAME_INFO, GameRecord, Move, Reject

TOM_INDEX = (
    "1001\t2003.09.25 20:21\t白棋手\tBlackMan\t6.5\tB+0.5\t4\t30/3 5m\n"
    "1002\t2003.09.26 14:57\tkanyin111\tsylvanli\t6.5\tW+Resign\t3\t30/3 20m\n"
)
TOM_KIFU = (
    "1001\t;B[pd];W[dd];B[qp];W[dq]\n"
    "1002\t;B[pd];W[];B[tt]\n"
    "\n"
    "1003\t;B[pd];W[zz]\n"
    "1004\t;B[pd];W[d\n"
    "garbage line without a tab\n"
    "1005\t;b[pd] ;w[DD]C[a comment]\n"
    "1006\t\n"
)


def test_parse_moves_plain_and_odd():
    assert parse_moves(b";B[pd];W[]") == (Move(BLACK, from_sgf("pd")), Move(WHITE, PASS))
    assert parse_moves(b"") == ()
    assert parse_moves(b";B[pd]C[x]") is None  # not plain: the SGF reader takes it
    assert parse_moves(b";B[pd];W[zz]") is None


def test_kifu_lines_every_line_accounted(tmp_path):
    (tmp_path / "Kifu.index").write_text(TOM_INDEX, encoding="utf-8")
    (tmp_path / "kifu").mkdir()
    (tmp_path / "kifu" / "2003-09").write_text(TOM_KIFU)
    skipped = []
    items = list(read_paths([tmp_path], on_skip=lambda s, where, w: skipped.append((s, w))))
    assert [i.location for i in items] == [f"line {n}" for n in (1, 2, 4, 5, 6, 7, 8)]
    g1, g2, off, cut, garbage, odd, empty = items
    assert g1.meta == {
        "id": "1001",
        "DT": "2003-09-25",
        "PW": "白棋手",
        "PB": "BlackMan",
        "KM": "6.5",
        "RE": "B+0.5",
        "OT": "30/3 5m",
    }
    assert len(g1.moves) == 4 and g1.moves[1] == Move(WHITE, from_sgf("dd"))
    assert g2.moves[1:] == (Move(WHITE, PASS), Move(BLACK, PASS)) and g2.meta["PB"] == "sylvanli"
    assert isinstance(off, Reject) and off.reason == "move off the board"
    assert isinstance(cut, Reject) and cut.reason == "parse error"
    assert isinstance(garbage, Reject) and garbage.reason == "parse error"
    assert isinstance(odd, GameRecord) and odd.moves == (Move(BLACK, from_sgf("pd")), Move(WHITE, from_sgf("dd")))
    assert odd.meta == {"id": "1005"}  # not in the index
    assert isinstance(empty, GameRecord) and empty.moves == ()
    # the index is metadata: skipped, not a game
    assert [w for _, w in skipped] == ["index file (metadata, not games)"]


def test_kifu_without_index_has_its_id(tmp_path):
    (tmp_path / "2011-01").write_bytes(b"42\t;B[pd];W[dp]\r\n43\t;B[dd]\r\n")
    items = list(read_paths([tmp_path / "2011-01"]))
    assert [i.meta for i in items] == [{"id": "42"}, {"id": "43"}]
    assert [i.location for i in items] == ["line 1", "line 2"]


TYGEM_INDEX = (
    "407331168\tC2011.01.01 00:01\t흑돌이\tsentimenta\t0\t李四(P)\trock(P)\t2\tB+9.5\t3\t20/3 0m\r\n"
    # two records glued together: the newline of the first was lost
    "407331387\tC2011.01.01 00:03\t백돌\tpsg007\t0\t王五\tqqq\t2\tB+Resign\t2\t30/3 10m407331390"
    "\tC2011.01.02 10:00\t갑\tgap\t0\t을\teul\t0\tW+0.5\t2\t30/3 5m\r\n"
)
TYGEM_KIFU = b"407331168\t;B[qd];W[dp];B[dc]\n407331387\t;B[pd];W[dd]\n407331390\t;B[aa];W[bb]\n"


def test_tygem_layout_index_zip_found_by_itself(tmp_path):
    (tmp_path / "index").mkdir()
    (tmp_path / "kifu").mkdir()
    (tmp_path / "index" / "Kifu2011.zip").write_bytes(make_zip({"Kifu2011.index": TYGEM_INDEX.encode()}))
    (tmp_path / "kifu" / "2011-01.zip").write_bytes(make_zip({"2011-01": TYGEM_KIFU}))
    items = list(read_paths([tmp_path]))
    assert len(items) == 3 and all(isinstance(i, GameRecord) for i in items)
    assert items[0].location == "2011-01:line 1"
    assert items[0].source.endswith("2011-01.zip")
    assert items[0].meta == {
        "id": "407331168",
        "DT": "2011-01-01",
        "PW": "흑돌이",
        "PW_id": "sentimenta",
        "PB": "李四(P)",
        "PB_id": "rock(P)",
        "RE": "B+9.5",
        "OT": "20/3 0m",
    }
    assert items[1].meta["OT"] == "30/3 10m" and items[1].meta["PB"] == "王五"
    assert items[2].meta["PW"] == "갑" and items[2].meta["RE"] == "W+0.5"


def test_index_inside_a_tar_after_its_kifu(tmp_path):
    """The index member comes after the kifu member in the tar: it is still
    read first (a pre-pass over the member names)."""
    path = tmp_path / "ai.tar.gz"
    path.write_bytes(
        make_tar(
            {
                "Bot/kifu/2017-07": b"9\t;B[pd];W[dp]\n",
                "Bot/kifu.index": "9\tC2017.07.13 17:10\tBot\tBOT\t0\t사람\tman\t2\tW+0.5\t2\t30/3 10m\n".encode(),
                "Other/kifu/2017-07": b"9\t;B[dd]\n",
            },
            "w:gz",
        )
    )
    items = list(read_paths([path]))
    assert [i.location for i in items] == ["Bot/kifu/2017-07:line 1", "Other/kifu/2017-07:line 1"]
    assert items[0].meta["PB"] == "사람" and items[0].meta["PW"] == "Bot"
    assert items[1].meta == {"id": "9"}  # another folder: that index does not apply


def test_index_scope_is_the_folder(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "Kifu.index").write_text("5\t2003.01.01 10:00\tW\tB\t6.5\tB+R\t1\t-\n")
    (a / "k").write_text("5\t;B[pd]\n")
    (b / "k").write_text("5\t;B[pd]\n")
    items = list(read_paths([tmp_path]))
    assert items[0].meta["PB"] == "B" and items[1].meta == {"id": "5"}


def test_index_meta_layouts():
    assert index_meta("1\t2003.09.25 20:21\tw\tb\t6.5\tB+R\t200\t30/3 5m".split("\t"))["DT"] == "2003-09-25"
    assert index_meta(["1", "C2016.6.9 00:02"]) == {"DT": "2016-06-09"}
    store = IndexStore()
    store.add("/x", TYGEM_INDEX.encode())
    assert len(store) == 3
    assert store.lookup_for("/y/k") is None
    assert store.lookup_for("/x/kifu/k")("407331390")["PB"] == "을"


def test_read_kifu_bytes_with_lookup():
    items = list(read_kifu_bytes(b"1\t;B[pd]\n2\t;W[dd]\n", "s", "m", lambda i: {"PB": "p" + i}))
    assert [i.meta for i in items] == [{"PB": "p1", "id": "1"}, {"PB": "p2", "id": "2"}]
    assert [i.location for i in items] == ["m:line 1", "m:line 2"]


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet="0123456789./- :Cx\u0661", max_size=18))
def test_index_dates_quick_path_reads_as_the_pattern(text):
    """``_date`` reads the index files' usual dates without the regular
    expression; anything it reads must come out as the expression reads it."""
    from joseki_miner.readers.kifu import _DATE_RE, _date

    m = _DATE_RE.search(text)
    expected = f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}" if m else text.strip()
    if len(text) == 10 and re.fullmatch(r"[0-9]{4}-[0-9][0-9]-[0-9][0-9]", text):
        expected = text
    assert _date(text) == expected


@settings(max_examples=500, deadline=None)
@given(
    fields=st.lists(
        st.sampled_from(["", " ", "7", "2003.09.25 20:21", "C2016.6.9", " B+R ", "x y", "6.5"]), max_size=13
    )
)
def test_index_info_reads_what_index_meta_reads(fields):
    """The bulk reader's columns of an index line are index_meta's values
    of the GAME_INFO names, whatever the line's layout."""
    line = "\t".join(fields)
    meta = index_meta(line.split("\t"))
    assert index_info(line) == tuple(meta.get(m, "") for m in GAME_INFO)
    assert index_info(None) == ("",) * len(GAME_INFO)


def lines_of(store: IndexStore, path: str, idents: list[str]) -> list[str | None]:
    """The lines the store finds for ``idents`` all at once, as the bulk
    reader asks (``rows_for``), None for an id it does not hold."""
    from joseki_miner.readers.kifu import _packed

    rows_of = store.rows_for(path)
    if rows_of is None:
        return [None] * len(idents)
    tables, which, rows = rows_of(*_packed(idents))
    return [None if t < 0 else tables[t].line(r) for t, r in zip(which.tolist(), rows.tolist())]


index_field_st = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "7",
            "6.5",
            "B+R",
            "2003.09.25 20:21",
            "C2016.06.09 00:01",
            "C2016.6.9",
            "2016-06-09",
            "\u00e92016.06.09",
            "忧郁的孤影",
            " 흑 ",
            "\u3000x\u3000",
            "\u00a0",
            "a\x1fb\x1f",
            "x\u2003",
        ]
    ),
    st.text(alphabet="0123456789./-: C\u00a0\u3000\u2003\x1f흑é", max_size=14),
)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.lists(index_field_st, min_size=1, max_size=12), max_size=6),
    asked=st.lists(st.sampled_from(["1", "2", "3", "4", "5", "6", "9"]), max_size=8),
)
def test_index_columns_read_what_index_info_reads(lines, asked):
    """The bulk reader's compiled columns of index lines (Tom, Tygem and
    shorter layouts; Unicode blanks, dates of every shape) are index_info's
    values of the lines the store finds, "" for an id it does not hold."""
    from joseki_miner.readers.kifu import _packed, info_columns

    text = "\n".join("\t".join([str(i + 1), *fields]) for i, fields in enumerate(lines))
    store = IndexStore()
    store.add("/a", b"\xef\xbb\xbf" + text.encode("utf-8"))
    store.add("/a/b", b"\xef\xbb\xbf" + "9\t2011.01.01\tw\tb\t1\tR\t2\t3".encode("utf-8"))  # a nearer scope
    for path in ("/a/b/k", "/a/k"):
        columns = info_columns(*store.rows_for(path)(*_packed(asked)))
        found = lines_of(store, path, asked)
        for m in GAME_INFO:
            assert columns[m].to_pylist() == [index_info(line)[GAME_INFO.index(m)] for line in found]


def test_no_blank_past_the_strip_table():
    """The compiled columns strip the blanks of a table up to U+3000:
    Python knows no blank beyond it."""
    from joseki_miner.readers.kifu import STRIP

    assert not any(chr(c).isspace() for c in range(len(STRIP), 0x110000))
    assert all(STRIP[c] == chr(c).isspace() for c in range(len(STRIP)))


index_line_st = st.tuples(
    st.sampled_from(["1", "2", " 3", "10", "407331390", "x", "\u30004\u3000", "\u00a0"]),
    st.text(alphabet="ab\u3131\t.\r\x0b\x1c\x85\u2028 ", max_size=12),
)


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.tuples(st.sampled_from(["/a", "/a/b"]), st.lists(index_line_st, max_size=8)), max_size=4),
    collide=st.booleans(),
    fence=st.sampled_from([1, 2, 3, 512]),
    mapped=st.booleans(),
)
def test_index_store_finds_the_line_a_dict_of_lines_finds(tmp_path_factory, texts, collide, fence, mapped):
    """The compact store, one id or many at a time, against the plain
    reading it replaced: per scope a dict id -> line (str.splitlines'
    lines, ids stripped of Unicode blanks), a later line winning; the
    nearest scope first.  With every id's hash made equal, lines are still
    told apart by their id.  Searched by blocks of any size, in memory or
    mapped with its pages dropped at every search."""
    from joseki_miner.readers import kifu

    with pytest.MonkeyPatch.context() as patch:
        if collide:
            patch.setattr(kifu, "_HASH_MASK", 0)
        patch.setattr(kifu, "_FENCE", fence)
        arena = Arena(tmp_path_factory.mktemp("arena"), budget=0) if mapped else None
        store, plain = IndexStore(arena), {}
        for scope, lines in texts:
            text = "\n".join(f"{ident}\t{rest}" for ident, rest in lines)
            store.add(scope, b"\xef\xbb\xbf" + text.encode("utf-8"))  # a BOM: no guessing at the encoding
            table = plain.setdefault(scope, {})
            for line in text.splitlines():
                if "\t" in line and line.count("\t") + 1 not in (21, 15) and line.split("\t")[0].strip():
                    table[line.split("\t")[0].strip()] = line
        for path in ("/a/k", "/a/b/k", "/c/k"):
            line_of = store.line_for(path)
            scopes = [s for s in sorted(plain, key=len, reverse=True) if path.startswith(s + "/")]
            assert (line_of is None) == (not scopes)
            idents = ["1", "2", "3", "10", "407331390", "x", "4", "1"]
            expected = [next((plain[s][i] for s in scopes if i in plain[s]), None) for i in idents]
            assert [line_of(i) if line_of else None for i in idents] == expected
            assert lines_of(store, path, idents) == expected  # all at once, as the bulk reader asks


@linux
def test_a_large_index_past_its_arena_budget_is_found_within_it(tmp_path):
    """200,000 lines (some ids twice, the later winning): mapped past a small
    budget, every id is found as a dict finds it, and about half the
    budget of the store's pages stays resident."""

    rng = np.random.default_rng(5)
    idents = [str(i) for i in rng.integers(0, 150_000, 200_000)]
    text = "".join(
        f"{ident}\t2003.09.{i % 28 + 1:02d}\tw{i}\tb{i}\t6.5\tB+R\t{i % 300}\t5m\n" for i, ident in enumerate(idents)
    )
    plain = {line.split("\t")[0]: line for line in text.splitlines()}
    budget = 2 * 2**20
    store = IndexStore(Arena(tmp_path, budget=budget))
    store.add("/a", text.encode())
    (lines,) = store._tables("/a/k")
    assert id(lines.text) in store.arena.mapped  # 10 MiB of text: past the budget
    asked = [str(i) for i in range(160_000)]
    for lo in range(0, len(asked), 4096):
        part = asked[lo : lo + 4096]
        assert lines_of(store, "/a/k", part) == [plain.get(i) for i in part]
        mapped = [a for a in (lines.text, lines.starts, lines.hashes, lines.rows) if id(a) in store.arena.mapped]
        assert sum(map(resident, mapped)) <= budget // 2 + 6 * PAGE * 4096
    assert store.arena.drops > 0


def test_index_read_aside_finds_what_read_at_once_finds(monkeypatch):
    """The pre-pass reads index texts in a thread (``add_aside``): asked
    later, the store answers as if they had been read at once, latest text
    first; a text that fails to read is left out, as the pre-pass leaves
    out what it cannot read."""
    from joseki_miner.readers import kifu

    texts = [
        ("/a", "1\t2003.09.25 20:21\tw1\tb1\t6.5\tB+R\t3\t5m\n2\t2003.09.26\tw2\tb2\t6.5\tW+R\t3\t5m\n"),
        ("/a", "1\t2004.01.01\tw3\tb3\t6.5\tB+1\t3\t5m\n"),
        ("/a/b", "2\t2005.01.01\tw4\tb4\t0\tW+1\t3\t5m\n"),
    ]
    at_once, aside = IndexStore(), IndexStore()
    for scope, text in texts:
        at_once.add(scope, text.encode())
        aside.add_aside(scope, text.encode())
    for path in ("/a/k", "/a/b/k"):
        assert lines_of(aside, path, ["1", "2", "3"]) == lines_of(at_once, path, ["1", "2", "3"])
    assert len(aside) == len(at_once) == 4

    real = kifu._read_index
    monkeypatch.setattr(kifu, "_read_index", lambda data, *rest: real(data, *rest) if b"w3" not in data else 1 / 0)
    failing = IndexStore()
    for scope, text in texts:
        failing.add_aside(scope, text.encode())
    assert failing.line_for("/a/k")("1").split("\t")[2] == "w1"  # the text that failed is left out
    assert len(failing) == 3


def test_an_index_zip_is_inflated_once(tmp_path, monkeypatch):
    """A zip the index pre-pass inflated whole (a zip of index files) is kept
    for the main pass, not inflated again; a kifu zip, of which the pre-pass
    inflated nothing, is inflated once by the main pass."""
    from joseki_miner.readers import archives

    (tmp_path / "index").mkdir()
    (tmp_path / "kifu").mkdir()
    (tmp_path / "index" / "Kifu2011.zip").write_bytes(make_zip({"Kifu2011.index": TYGEM_INDEX.encode()}))
    (tmp_path / "kifu" / "2011-01.zip").write_bytes(make_zip({"2011-01": TYGEM_KIFU, "Kifu.index": b""}))
    inflated: list[tuple[str, bool]] = []
    real = archives._inflate_file

    def counted(path, want=None, *limit):
        got = real(path, want, *limit)
        if isinstance(got, list):
            inflated.append((path.rsplit("/", 2)[-2], all(data is not None for _, data, _ in got)))
        return got

    monkeypatch.setattr(archives, "_inflate_file", counted)
    skipped = []
    from joseki_miner.readers.bulk import read_batches
    from joseki_miner.readers.dispatch import Taken

    games = sum(len(b) for b in read_batches([tmp_path], taken=Taken(on_skip=lambda *a: skipped.append(a))))
    assert games == 3 and len(skipped) == 2  # both index files are seen by the main pass
    # the pre-pass inflates both (in threads, in any order), the main pass only the kifu zip
    assert sorted(inflated) == [("index", True), ("kifu", False), ("kifu", True)]


def test_texts_read_aside_go_to_the_arena_in_the_order_they_were_given(tmp_path):
    """Index texts are read by two threads at once; each hands its arrays to
    the arena only after the text given before it did, so which arrays are
    held and which mapped does not depend on which thread finishes first."""
    import threading

    from joseki_miner.readers import kifu

    arena = Arena(tmp_path, budget=0)  # every array mapped: each keep is counted
    turn, done = threading.Event(), threading.Event()
    text = "".join(f"{i}\t2003.09.25\tw\tb\t6.5\tB+R\t3\t5m\n" for i in range(100)).encode()
    reading = threading.Thread(target=kifu._read_index_aside, args=(text, arena, turn, done))
    reading.start()
    assert not done.wait(0.5)  # read, and waiting for its turn
    assert arena.figures()["tables_bytes"] == 0
    turn.set()
    assert done.wait(30)
    reading.join()
    assert arena.figures()["tables_bytes"] > 0


def test_an_index_line_past_the_field_limit_is_ignored(tmp_path):
    """limits.field_kb bounds an index line (a 1 GiB line is no line of
    game information): such a line is left out, so its game has its id
    only; the other lines are joined as ever.  A kifu line whose moves hold
    a value past it is rejected as "field too long"."""
    long_line = "1002\t2003.09.26 14:57\t" + "w" * 3000 + "\tsylvanli\t6.5\tW+Resign\t3\t30/3 20m\n"
    (tmp_path / "Kifu.index").write_text(TOM_INDEX.splitlines(keepends=True)[0] + long_line, encoding="utf-8")
    (tmp_path / "2003-09").write_text(
        "1001\t;B[pd];W[dd]\n1002\t;B[pd];W[dp]\n1003\t;B[pd];W[dp]C[" + "z" * 3000 + "]\n"
    )
    items = list(read_paths([tmp_path], field_bytes=2048))
    assert items[0].meta["PB"] == "BlackMan" and items[1].meta == {"id": "1002"}
    assert (items[2].reason, items[2].detail) == (
        "field too long",
        "C value of 3,000 bytes (limits.field_kb: at most 2,048)",
    )
    assert items[1].meta != list(read_paths([tmp_path]))[1].meta  # within the default limit, joined
