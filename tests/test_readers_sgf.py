"""SGF reader: FF[1]-FF[4], collections, variations, encodings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.method.points import BLACK, EMPTY, PASS, WHITE, from_sgf, to_sgf
from joseki_miner.readers import read_paths
from joseki_miner.readers.encoding import decode
from joseki_miner.readers.sgf import canonical_identifier, read_sgf_bytes, simple_text
from joseki_miner.method.records import REJECT_REASONS, GameRecord, Move, Reject


def read(data: bytes | str, location: str = "", **kw) -> list:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return list(read_sgf_bytes(data, "test.sgf", location, **kw))


def one(data: bytes | str, **kw):
    items = read(data, **kw)
    assert len(items) == 1, items
    return items[0]


def seq(record: GameRecord) -> str:
    return ";".join(("B" if m.colour == BLACK else "W") + (to_sgf(m.point) or "tt") for m in record.moves)


GAME = "(;GM[1]FF[4]SZ[19]PB[Black Player]PW[White]BR[5d]WR[6d]DT[2001-01-02]KM[6.5]RE[W+R]EV[Cup];B[pd];W[dp];B[pq];W[dd])"


def test_plain_game():
    g = one(GAME)
    assert isinstance(g, GameRecord)
    assert seq(g) == "Bpd;Wdp;Bpq;Wdd"
    assert g.moves[0] == Move(BLACK, 3 * 19 + 15)
    assert g.size == 19 and g.handicap == 0 and g.location == "" and g.source == "test.sgf"
    assert g.meta == {
        "PB": "Black Player",
        "PW": "White",
        "BR": "5d",
        "WR": "6d",
        "DT": "2001-01-02",
        "KM": "6.5",
        "RE": "W+R",
        "EV": "Cup",
    }


def test_passes_tt_and_empty_and_case_and_whitespace():
    g = one("(;FF[4]\n ;B[tt] ; W[]\r\n;B [ PD ];\tW\n[dp])")
    assert g.moves == (Move(BLACK, PASS), Move(WHITE, PASS), Move(BLACK, from_sgf("pd")), Move(WHITE, from_sgf("dp")))


def test_variations_main_line_taken():
    g = one("(;GM[1];B[pd](;W[dp];B[pp](;W[dd])(;W[cc]))(;W[dd];B[aa]))")
    assert seq(g) == "Bpd;Wdp;Bpp;Wdd"


def test_long_ff3_property_names():
    text = (
        "(;GaMe[1]FileFormat[3]SiZe[19]PlayerBlack[Honinbo]PlayerWhite[Yasui]"
        "Komi[0]Result[B+2]Date[1850]AddBlack[dd][pp]\n;Black[qd];White[dc];Comment[hi]Black[tt])"
    )
    g = one(text)
    assert isinstance(g, GameRecord), g
    assert seq(g) == "Bqd;Wdc;Btt"
    assert g.setup_black == tuple(sorted([from_sgf("dd"), from_sgf("pp")]))
    assert g.handicap == 2
    assert g.meta["PB"] == "Honinbo" and g.meta["PW"] == "Yasui" and g.meta["KM"] == "0"
    assert g.meta["RE"] == "B+2" and g.meta["DT"] == "1850"


def test_size_long_name_not_19():
    r = one("(;Size[9]Black[cc])")
    assert isinstance(r, Reject) and r.reason == "not 19x19"


@pytest.mark.parametrize(
    "ident, canonical",
    [
        ("AddBlack", "AB"),
        ("AB", "AB"),
        ("b", "B"),
        ("White", "W"),
        ("Size", "SZ"),
        ("SiZe", "SZ"),
        ("PlayerBlack", "PB"),
        ("KOMI", "KM"),
        ("MULTIGOGM", "MULTIGOGM"),
        ("gm", "GM"),
    ],
)
def test_canonical_identifier(ident, canonical):
    assert canonical_identifier(ident) == canonical


def test_lower_case_identifiers_and_upper_case_points():
    g = one("(;gm[1]sz[19]pb[x];b[PD];w[Dp])")
    assert isinstance(g, GameRecord)
    assert seq(g) == "Bpd;Wdp" and g.meta["PB"] == "x"


def test_values_keep_their_letters():
    # a comment with "word[" inside must not be rewritten
    g = one(r"(;GM[1]PB[a b[c\]];C[see b[1\] here];B[pd])")
    assert g.meta["PB"] == "a b[c]" and seq(g) == "Bpd"


def test_handicap_from_ha_and_from_setup():
    assert one("(;HA[3]AB[dd][pp][dp];W[pd])").handicap == 3
    assert one("(;AB[dd][pp];W[pd])").handicap == 2
    assert one("(;AB[dd:ee];W[pd])").setup_black == tuple(sorted(from_sgf(s) for s in ("dd", "de", "ed", "ee")))
    g = one("(;AB[dd][pp]AW[dp];B[pd])")  # a position, not a handicap
    assert g.handicap == 0 and g.setup_white == (from_sgf("dp"),)
    assert one("(;HA[0];B[pd])").handicap == 0


def test_setup_before_first_move_is_the_position_after_is_an_event():
    g = one("(;GM[1];AB[dd][pp];W[dp];AE[dd]AW[cc];B[pd])")
    assert g.setup_black == tuple(sorted((from_sgf("dd"), from_sgf("pp"))))
    assert g.handicap == 2
    assert g.setup_events == ((1, EMPTY, from_sgf("dd")), (1, WHITE, from_sgf("cc")))
    assert seq(g) == "Wdp;Bpd"


@pytest.mark.parametrize("sz", ["9", "13", "19:13", "21"])
def test_not_19x19(sz):
    r = one(f"(;SZ[{sz}];B[cc])")
    assert isinstance(r, Reject) and r.reason == "not 19x19" and sz in r.detail


def test_bad_size_is_a_parse_error():
    r = one("(;SZ[big];B[cc])")
    assert r.reason == "parse error" and "SZ" in r.detail


@pytest.mark.parametrize("move", ["ta", "zz", "az"])
def test_move_off_the_board(move):
    r = one(f"(;SZ[19];B[pd];W[{move}])")
    assert isinstance(r, Reject) and r.reason == "move off the board" and move in r.detail


def test_setup_off_the_board():
    assert one("(;AB[dd][zz];B[pd])").reason == "move off the board"


def test_bad_point_value_is_a_parse_error():
    assert one("(;B[p1])").reason == "parse error"


def test_other_game_is_not_a_game():
    r = one("(;GM[2]FF[4];B[dd])")
    assert r.reason == "not a game" and "GM[2]" in r.detail


@pytest.mark.parametrize("data, what", [(b"", "empty"), (b"   \n", "empty"), (b"hello world", "no SGF")])
def test_no_game_tree_is_not_a_game(data, what):
    r = one(data)
    assert isinstance(r, Reject) and r.reason == "not a game" and what in r.detail


def test_unparsable_tree_is_a_parse_error():
    r = one("(;GM[1];B[pd];W[dp]")
    assert r.reason == "parse error" and "end of SGF" in r.detail


# -- collections ------------------------------------------------------------


def _game(i: int, body: str = ";B[pd];W[dp]") -> str:
    return f"(;GM[1]FF[4]SZ[19]PB[p{i}]{body})"


@pytest.mark.parametrize(
    "broken",
    [
        "(;GM[1]FF[4]SZ[19]PB[broken;B[pd];W[dp])",  # unclosed '['
        "(;GM[1]FF[4]SZ[19]PB[broken];B[pd];W[dp]",  # missing ')'
        "(;GM[1]FF[4]SZ[19]PB[broken];B[pd];W[dp]))",  # extra ')'
        "(;GM[1]FF[4]SZ[19]PB[broken];B[pd];;W[dp](;)",  # garbage nodes
        "(;GM[1]FF[4]SZ[19]PB[broken] @@@ ;B[pd])",  # junk inside
        "(;GM[1]FF[4]SZ[19]PB[broken];B[pd]W[dp]C[unclosed\\])",  # escaped closing bracket
        "(;\x00M[1]FF[4]SZ[19]P((;B[\n",  # found by the fuzz test: "(;B[" hid the next start
    ],
)
def test_collection_broken_tree_in_the_middle_loses_only_that_tree(broken):
    text = "\n".join([_game(1), _game(2), broken, _game(4), _game(5)])
    items = read(text, location="coll.sgf")
    names = [i.meta.get("PB") if isinstance(i, GameRecord) else i.reason for i in items]
    good = [i for i in items if isinstance(i, GameRecord) and i.meta.get("PB", "").startswith("p")]
    assert [g.meta["PB"] for g in good] == ["p1", "p2", "p4", "p5"], names
    assert all(seq(g) == "Bpd;Wdp" for g in good)
    # everything the broken tree became is at its place, and locations count trees
    assert items[0].location == "coll.sgf:game 1" and items[1].location == "coll.sgf:game 2"
    assert good[-1].location == f"coll.sgf:game {len(items)}"
    assert len(items) <= 6


def test_collection_broken_tree_unclosed_bracket_is_rejected():
    # the value of PB never closes: it would run into game 3 and swallow it
    text = "\n".join([_game(1), "(;GM[1]FF[4]PB[broken)", _game(3)])
    items = read(text)
    assert [type(i).__name__ for i in items] == ["GameRecord", "Reject", "GameRecord"]
    assert items[1].reason == "parse error" and items[1].location == "game 2"
    assert items[2].location == "game 3" and items[2].meta["PB"] == "p3"


def test_collection_of_many_games_with_junk_between():
    text = "header junk\n" + "\n; junk ;\n".join(_game(i) for i in range(1, 21)) + "\ntrailer"
    items = read(text)
    assert len(items) == 20 and all(isinstance(i, GameRecord) for i in items)
    assert [i.location for i in items] == [f"game {k}" for k in range(1, 21)]


def test_single_tree_keeps_the_given_location():
    assert one(GAME).location == ""
    assert read(GAME, location="member.sgf")[0].location == "member.sgf"


# -- encodings --------------------------------------------------------------

NAMES = {
    "gb2312": ("柯洁", "古力"),
    "gbk": ("聂卫平", "陈耀烨"),
    "euc-kr": ("이세돌", "박정환"),
    "shift_jis": ("井山裕太", "代表"),  # 表 ends in byte 0x5C, before ']'
    "big5": ("周俊勳", "許"),  # 許 ends in byte 0x5C, before ']'
}


def _encoded_game(enc: str, with_ca: bool, comment: str = "") -> bytes:
    pb, pw = NAMES[enc]
    ca = f"CA[{enc.upper()}]" if with_ca else ""
    c = f"C[{comment}]" if comment else ""
    return f"(;GM[1]FF[4]{ca}SZ[19]PB[{pb}]PW[{pw}]{c};B[pd];W[dp])".encode(enc)


@pytest.mark.parametrize("enc", sorted(NAMES))
@pytest.mark.parametrize("with_ca", [True, False], ids=["CA", "guess"])
def test_legacy_encodings(enc, with_ca):
    g = one(_encoded_game(enc, with_ca))
    assert isinstance(g, GameRecord), g
    assert (g.meta["PB"], g.meta["PW"]) == NAMES[enc]
    assert seq(g) == "Bpd;Wdp"


def test_shift_jis_0x5c_byte_would_break_a_raw_parse():
    data = _encoded_game("shift_jis", True)
    assert b"\x5c]" in data  # the trap: a trail byte that reads as an escape
    assert one(data).meta["PW"] == "代表"


@pytest.mark.parametrize(
    "data, codec",
    [
        ("PB[柯洁]".encode("gb2312"), "gb2312"),
        ("PB[이세돌]".encode("euc-kr"), "euc_kr"),
        ("PB[井山裕太]".encode("shift_jis"), "shift_jis"),
        ("PB[周俊勳]".encode("big5"), "big5"),
        ("PB[Müller]".encode("latin-1"), "cp1252"),
        ("PB[柯洁]".encode("utf-8"), "utf_8"),
    ],
)
def test_guess_names_the_codec(data, codec):
    d = decode(data)
    assert d.encoding == codec and d.text.startswith("PB[")


def test_guess_accuracy_on_names():
    """The fallback guess on a single short name (the hardest case)."""
    zh = "古力 常昊 柯洁 聂卫平 马晓春 陈耀烨 时越 芈昱廷 唐韦星 范廷钰 周睿羊 江维杰 檀啸 连笑 辜梓豪 谢尔豪 杨鼎新 王檄 李钦诚 党毅飞"
    ko = "이세돌 박정환 신진서 김지석 최철한 강동윤 조훈현 이창호 유창혁 원성진 박영훈 안성준 신민준 변상일 나현 이동훈"
    ja = "井山裕太 張栩 高尾紳路 山下敬吾 羽根直樹 趙治勲 小林光一 依田紀基 一力遼 芝野虎丸 河野臨 村川大介"
    tw = "周俊勳 林海峰 王立誠 王銘琬 張栩 謝依旻 陳詩淵 林至涵 蕭正浩 簡靖庭 王元均 許皓鋐"
    total = right = 0
    for enc, names in (("gb2312", zh), ("euc-kr", ko), ("shift_jis", ja), ("big5", tw)):
        for name in names.split():
            total += 1
            right += decode(name.encode(enc)).text == name
    assert right / total >= 0.95, (right, total)


def test_wrong_ca_but_valid_utf8_reads_as_utf8():
    g = one("(;CA[GB2312]PB[柯洁]PW[이세돌];B[pd])".encode("utf-8"))
    assert g.meta["PB"] == "柯洁" and g.meta["PW"] == "이세돌"


def test_latin1_default_without_ca():
    g = one("(;PB[René Müller];B[pd])".encode("latin-1"))
    assert g.meta["PB"] == "René Müller"


def test_bom_utf8_and_utf16():
    text = "(;CA[UTF-8]PB[柯洁];B[pd])"
    assert one(b"\xef\xbb\xbf" + text.encode("utf-8")).meta["PB"] == "柯洁"
    assert one(text.encode("utf-16")).meta["PB"] == "柯洁"  # with its BOM
    assert one(text.encode("utf-16-le")).meta["PB"] == "柯洁"  # without


def test_truncated_utf8_name_keeps_the_game():
    data = "(;CA[UTF-8]PB[你若有".encode("utf-8")[:-1] + "];PW[好人];B[pd])".encode("utf-8")
    g = one(data)
    assert isinstance(g, GameRecord) and g.meta["PB"].startswith("你若") and seq(g) == "Bpd"


def test_undecodable_text():
    data = b"(;CA[UTF-8]PB[\xff\xfe\xfd\xfc\xff\xfe\xfd\xfc]PW[\xfe\xff\xfe\xff];B[pd])"
    r = one(data)
    assert isinstance(r, Reject) and r.reason == "undecodable text" and "utf_8" in r.detail


def test_undecodable_without_fallback():
    data = "(;CA[UTF-8]PB[柯洁];B[pd])".encode("gb2312")
    assert one(data, encoding_fallback=False).reason == "undecodable text"
    assert one(data, encoding_fallback=True).meta["PB"] == "柯洁"


def test_collection_of_games_in_different_encodings():
    data = b"\n".join(
        [
            "(;GM[1]CA[GB2312]PB[柯洁];B[pd])".encode("gb2312"),
            "(;GM[1]CA[EUC-KR]PB[이세돌];B[pd])".encode("euc-kr"),
            "(;GM[1]CA[Shift_JIS]PB[井山裕太];B[pd])".encode("shift_jis"),
            "(;GM[1]CA[UTF-8]PB[周俊勳];B[pd])".encode("utf-8"),
        ]
    )
    items = read(data)
    assert [i.meta["PB"] for i in items] == ["柯洁", "이세돌", "井山裕太", "周俊勳"]


def test_reject_reasons_are_documented():
    for data in (b"", b"(;SZ[9])", b"(;B[zz])", b"(;B[pd]", b"(;GM[3])"):
        for item in read(data):
            if isinstance(item, Reject):
                assert item.reason in REJECT_REASONS and item.detail


def test_read_paths_on_sgf_names(tmp_path):
    for name in ("a.sgf", "b.SGF", "c.mgt", "d"):
        (tmp_path / name).write_text(GAME)
    items = list(read_paths([tmp_path]))
    assert [i.source.rsplit("/", 1)[-1] for i in items] == ["a.sgf", "b.SGF", "c.mgt", "d"]
    assert all(isinstance(i, GameRecord) for i in items)


def test_a_value_past_the_field_limit_rejects_its_game_only():
    """limits.field_kb: a property value longer than it (a 200 MB player
    name) rejects its game as "field too long", naming the property, before
    the tree is parsed; the other games of the collection are read."""
    long_name = b"(;GM[1]PB[" + b"x" * 5000 + b"];B[pd];W[dp])"
    long_comment = b"(;GM[1]PB[b];B[pd](;W[dp]C[" + b"y\\]" * 2000 + b"])(;W[dd]))"
    data = GAME.encode() + b"\n" + long_name + b"\n" + long_comment + b"\n" + GAME.encode()
    items = read(data, field_bytes=4096)
    assert [i.reason if isinstance(i, Reject) else "game" for i in items] == [
        "game",
        "field too long",
        "field too long",
        "game",
    ]
    assert items[1].detail == "PB value of 5,000 bytes (limits.field_kb: at most 4,096)"
    assert items[2].detail == "C value of 6,000 bytes (limits.field_kb: at most 4,096)"
    assert [i.location for i in items] == [f"game {n}" for n in range(1, 5)]
    assert all(isinstance(i, GameRecord) for i in read(data, field_bytes=6000))  # within a larger limit


# -- as other readers read it: trees split by the grammar, each game in its own encoding --

FIXTURES = Path(__file__).parent / "fixtures" / "readers"


def test_a_variation_that_opens_with_game_information_is_a_node_of_its_game():
    """The smallest case: game-information properties in a variation's
    first node belong to that node (FF[4]: "the node where the game first
    becomes distinguishable"), not to a new game."""
    (g,) = read("(;GM[1]FF[4]SZ[19];B[pd](;PW[X]W[dp];B[pp])(;PW[Y]W[cp]))")
    assert isinstance(g, GameRecord) and seq(g) == "Bpd;Wdp;Bpp"
    assert g.meta == {"PW": "X"}  # the main line's game information, where its variation names it


def _ff4_ex() -> bytes:
    """A collection with the structure of the SGF specification's example
    file ff4_ex.sgf (red-bean.com/sgf): the same game trees, variations,
    moves and game-information properties, in words of our own.  Tree 1
    shows properties in five variations of its root; tree 2 holds four
    games merged into one tree, their game information in the variation
    nodes where they part."""
    info = "WR[{wr}]RO[{ro}]RE[{re}]\nPB[B. Lack]BR[5d]PC[London]EV[Go Congress]"
    tree1 = (
        "(;FF[4]AP[Primiview:3.1]GM[1]SZ[19]GN[Gametree 1: properties]US[Arno Hollosi]\n"
        "(;B[pd]N[Moves, comments, annotations]C[a node name];W[dp]GW[1];B[pp]GB[2];W[dc]GW[2];B[pj]DM[1]\n"
        ";W[ci]UC[1];B[jd]TE[1];W[jp]BM[2];B[gd]DO[];W[de]IT[];B[jj];C[White passes]W[];C[Black passes]B[tt])\n"
        "(;AB[dd][de][df][dg][do:gq]AW[jd][je][jf][jg][kn:lq][pn:pq]N[Setup]\n"
        ";AE[ep][fp][kn][lo][lq][pn:pq]C[erased in FF[3\\] way];AB[pd]AW[pp]PL[B];PL[W])\n"
        "(;AB[dd][de][df][dg]AW[pd][pe][pf][pg]N[Markup];TR[dd][de]MA[dh:fj]CR[nd]SQ[nh]SL[ih]TW[pq:ss]TB[aq:cs]\n"
        ";LB[dc:1][fc:2][gs:ABCDEFGH];DD[kq:os]AR[aa:sc]LN[pj:pd]C[Arrows, lines and dimmed points.])\n"
        "(;B[qd]N[Style & text type]C[soft line breaks: >o\\\nk<]\n"
        "(;W[dd]N[W d16](;B[pp]N[B q4])(;B[dp]N[B d4])(;B[pq]N[B q3])(;B[oq]N[B p3]))\n"
        "(;W[dp]N[W d4])(;W[pp]N[W q4])(;W[cc]N[W c17])(;W[cq]N[W c3])(;W[qq]N[W r3]))\n"
        "(;B[qr]N[Time limits, captures & move numbers]BL[120.0];W[rr]WL[300];B[rq]BL[105.6]OB[10];W[qq]WL[200]OW[2]\n"
        ";B[sr]BL[87.00]OB[9];W[qs]WL[13.20]OW[1];B[rs];W[ps];B[pr];W[or]MN[2];B[os]\n"
        ";MN[112]W[pq];B[sq];W[rp];B[ps];W[ns];B[ss];W[nr];B[rr];W[sp];B[qs]C[Suicide move]))\n"
    )
    tree2 = (
        "(;FF[4]AP[Primiview:3.1]GM[1]SZ[19]C[Gametree 2: game-info]\n;B[pd]\n"
        f"(;PW[W. Hite]{info.format(wr='6d', ro=2, re='W+3.5')}W[dp]C[Game-info: Round 2])\n"
        f"(;PW[T. Suji]{info.format(wr='7d', ro=1, re='W+Resign')}W[cp]C[Game-info: Round 1])\n"
        "(;W[ep];B[pp]\n"
        f"(;PW[S. Abaki]{info.format(wr='1d', ro=3, re='B+63.5')}W[ed]C[Game-info: Round 3])\n"
        f"(;PW[A. Tari]{info.format(wr='12k', ro=4, re='B+R')}KM[-59.5]W[cd]C[Game-info: Round 4])\n"
        "))\n"
    )
    return (tree1 + "\n" + tree2).encode("ascii")


def test_the_specifications_example_file_reads_as_its_two_game_trees():
    from sgfmill import sgf_grammar

    data = _ff4_ex()
    assert len(sgf_grammar.parse_sgf_collection(data)) == 2  # as sgfmill reads it
    first, second = read(data)
    assert isinstance(first, GameRecord) and first.location == "game 1"
    assert seq(first).startswith("Bpd;Wdp;Bpp;Wdc") and seq(first).endswith("Wtt;Btt")
    assert isinstance(second, GameRecord) and second.location == "game 2"
    assert seq(second) == "Bpd;Wdp"
    assert second.meta == dict(
        PB="B. Lack", PW="W. Hite", BR="5d", WR="6d", RE="W+3.5", EV="Go Congress", PC="London", RO="2"
    )


def test_sgfc_test_result_reads_as_its_22_game_trees():
    """SGFC's reading of its own test file: 22 trees; tree 22 holds a
    variation whose first node is ``(;\\n\\nKM[5.5]`` (once cut off as a 23rd game)."""
    items = read((FIXTURES / "sgfc" / "test-result.sgf").read_bytes())
    assert [i.location for i in items] == [f"game {k}" for k in range(1, 23)]
    assert all(i.reason != "parse error" for i in items if isinstance(i, Reject)), items


def test_sgfc_mixed_encodings_read_as_five_games_each_in_its_own_encoding():
    """SGFC's mixed-encoding.sgf: five games, five encodings; the one that
    declares UTF-16LE while only its comment is UTF-16 is read (the text
    split on bytes is not UTF-16), the GB18030 one whose writer escaped the
    '\\' and ']' bytes inside two-byte characters is parsed on bytes."""
    items = read((FIXTURES / "sgfc" / "mixed-encoding.sgf").read_bytes())
    assert [(type(i).__name__, i.location) for i in items] == [("GameRecord", f"game {k}") for k in range(1, 6)]


def test_escaped_trail_bytes_of_gb18030_are_read_as_their_writer_meant():
    """A writer working on bytes escapes a two-byte character's trail byte
    '\\' or ']' (as SGFC does): decoded first, the escape would be eaten by
    the character before it; parsed on bytes and decoded after, the names
    come back whole.  A writer working on characters leaves them bare:
    that is read first (the Shift_JIS case above)."""
    names = ("交通運輸", "指揮權")
    raw = [n.encode("gb18030") for n in names]
    assert b"\\" in raw[0] and b"]" in raw[1]
    escaped = [r.replace(b"\\", b"\\\\").replace(b"]", b"\\]") for r in raw]
    data = b"(;GM[1]FF[4]CA[GB18030]SZ[19]PB[" + escaped[0] + b"]PW[" + escaped[1] + b"];B[pd];W[dp])"
    (g,) = read(data)
    assert isinstance(g, GameRecord) and (g.meta["PB"], g.meta["PW"]) == names and seq(g) == "Bpd;Wdp"


@pytest.mark.parametrize(
    "edit",
    [
        lambda data: data,  # the fixture: no CA, its root written "(" then a newline and GM[1]...
        lambda data: data.replace(b"FF[3]", b"FF[3]CA[SJIS]"),  # its own CA
        lambda data: data.replace(b"(\nGM[1]", b"(\n;GM[1]"),  # its root with its ';'
    ],
    ids=["bare-root", "declared", "full-root"],
)
def test_a_concatenated_collection_reads_each_game_in_its_own_encoding(edit):
    """concatenated.sgf: a UTF-8 game (CA[UTF-8], Chinese and Japanese
    names, variations) then a Shift_JIS game whose root has no ';', as
    SabakiHQ/sgf's complex.sgf followed by its encoding/nihon-kiin.sgf.
    The bare root is a game start where a game may start (after a ')'),
    so the text is cut there and each game decoded alone; both games were
    "undecodable text"."""
    items = read(edit((FIXTURES / "concatenated.sgf").read_bytes()))
    assert [(type(i).__name__, i.location) for i in items] == [("GameRecord", "game 1"), ("GameRecord", "game 2")]
    assert [(i.meta["PB"], i.meta["PW"], i.meta["EV"]) for i in items] == [
        ("井山裕太", "柯洁", "第1回 囲碁大会"),
        ("張栩", "山下敬吾", "第33期 棋聖戦"),
    ]
    assert [seq(i) for i in items] == ["Bpd;Wdp;Bqp;Wdd;Bfq", "Bqd;Wdc;Bpq;Woc"]


def test_a_bare_root_inside_a_value_is_no_game_start():
    """A '(' then a game-information property is a game start only first
    in the text or after a ')' and blanks: a comment that writes one stays
    a comment of its game (a game start there would cut the game)."""
    utf8 = "(;GM[1]SZ[19]PB[井山裕太]C[a note (RE[W+R) here];B[pd];W[dp])\n".encode("utf-8")
    sjis = "(\nGM[1]CA[SJIS]PB[張栩];B[qd])".encode("shift_jis")
    items = read(utf8 + sjis)
    assert [(i.location, i.meta["PB"], seq(i)) for i in items] == [
        ("game 1", "井山裕太", "Bpd;Wdp"),
        ("game 2", "張栩", "Bqd"),
    ]


def test_a_collection_of_a_utf8_game_and_a_shift_jis_game_keeps_both():
    utf8 = "(;GM[1]FF[4]SZ[19]PB[井山裕太]PW[張栩];B[pd];W[dp])\n".encode("utf-8")
    sjis = "(;GM[1]FF[4]CA[Shift_JIS]SZ[19]PB[井山裕太]PW[代表];B[pd];W[dp])\n".encode("shift_jis")
    for data, order in ((utf8 + sjis, ("張栩", "代表")), (sjis + utf8, ("代表", "張栩"))):
        items = read(data)
        assert [i.meta["PW"] for i in items] == list(order)


def test_a_game_that_declares_no_charset_is_read_in_the_one_declared_before_it():
    """A collection whose first game alone declares CA (one writer, one
    encoding): the others are read in it, not guessed one by one."""
    for enc, pair in (("euc-kr", ["이세돌", "山田"]), ("big5", ["周俊勳", "表"]), ("shift_jis", ["井山裕太", "山田"])):
        data = b"\n".join(
            [
                f"(;GM[1]CA[{enc}]PB[{pair[0]}];B[pd])".encode(enc),
                f"(;GM[1]PB[{pair[1]}];B[dd])".encode(enc),
                f"(;GM[1]PB[{pair[0]}{pair[1]}];B[dp])".encode(enc),
            ]
        )
        assert [i.meta["PB"] for i in read(data)] == [pair[0], pair[1], pair[0] + pair[1]], enc


def test_a_game_in_an_undecodable_encoding_is_rejected_with_its_reason_and_its_neighbours_read():
    bad = b"(;GM[1]CA[UTF-8]PB[\xff\xfe\xfd\xfc\xff\xfe\xfd\xfc]PW[\xfe\xff\xfe\xff];B[pd])"
    items = read(GAME.encode() + b"\n" + bad + b"\n" + "(;GM[1]PB[柯洁];B[pd])".encode("gb2312"))
    assert [i.reason if isinstance(i, Reject) else i.meta["PB"] for i in items] == [
        "Black Player",
        "undecodable text",
        "柯洁",
    ]


def test_a_root_node_without_its_semicolon_is_read_as_sabaki_reads_it():
    (g,) = read("(\r\nTE[1]GM[1]FF[4]SZ[19]PB[x];B[pd];W[dp])")
    assert isinstance(g, GameRecord) and seq(g) == "Bpd;Wdp" and g.meta == {"PB": "x"}


def test_a_node_after_closed_variations_is_a_parse_error():
    """gogui reads ``(;B[pd](;W[dp])(;W[dd]);B[qq])`` and puts B[qq]
    somewhere; the grammar has no place for it, and no line is sure: rejected."""
    (r,) = read("(;GM[1]SZ[19];B[pd](;W[dp])(;W[dd]);B[qq])")
    assert isinstance(r, Reject) and r.reason == "parse error" and r.detail == "unexpected node"


def test_a_text_of_unclosed_trees_is_walked_once(monkeypatch):
    """Thousands of trees that never close (a hostile file): each is cut at
    the next game start, found by one walk of the text, not one a tree
    (which would take hours)."""
    from joseki_miner.readers import sgf

    walks = []

    class Counted:
        def finditer(self, data, start):
            walks.append(start)
            return pattern.finditer(data, start)

    pattern = sgf._PAREN_OR_VALUE_RE
    monkeypatch.setattr(sgf, "_PAREN_OR_VALUE_RE", Counted())
    data = b"(;GM[1]FF[4]SZ[19];B[pd];W[dp]\n" * 20000
    items = read(data)
    assert len(items) == 20000 and all(i.reason == "parse error" for i in items)
    assert walks == [0]


_INFO = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "GN", "PC")
# values with the characters that matter to a split: parentheses, brackets, escapes (no ';', so no
# value holds a game start: a "(;PW[" inside a comment is taken for a damaged game, see docs/inputs.md)
_VALUE = st.text(alphabet="ab Z()[]\\:\n", max_size=6).map(lambda v: v.replace("\\", "\\\\").replace("]", "\\]"))


@st.composite
def sgf_trees(draw, depth: int = 0) -> str:
    """A game tree (no root node of its own): nodes with moves and game
    information anywhere, and variations."""
    nodes = []
    for _ in range(draw(st.integers(1, 4))):
        props = ""
        if draw(st.booleans()):
            props += "".join(
                f"{p}[{draw(_VALUE)}]" for p in draw(st.lists(st.sampled_from(_INFO), max_size=3, unique=True))
            )
        if draw(st.integers(0, 3)):
            colour = draw(st.sampled_from("BW"))
            props += f"{colour}[{draw(st.sampled_from(_POINTS))}]"
        nodes.append(";" + props)
    children = draw(st.lists(sgf_trees(depth + 1), max_size=3 if depth < 3 else 0))
    return "(" + "".join(nodes) + "".join(children) + ")"


_POINTS = [a + b for a in "abcdefghijklmnopqrs" for b in "abcdefghijklmnopqrs"]


@st.composite
def sgf_collections(draw) -> str:
    games = []
    for _ in range(draw(st.integers(1, 4))):
        tree = draw(sgf_trees())
        games.append("(;GM[1]FF[4]SZ[19]" + tree[1:])  # the tree's first node is its root
    return draw(st.sampled_from(["\n", "", " \r\n"])).join(games)


def _sgfmill_main_lines(data: bytes) -> list[tuple[str, str]]:
    """(main line, first PW on it) of each game tree, as sgfmill reads them."""
    from sgfmill import sgf_grammar

    out = []
    for tree in sgf_grammar.parse_sgf_collection(data):
        moves, pw = [], None
        while True:
            for props in tree.sequence:
                for colour in "BW":
                    if colour in props:
                        moves.append(colour + props[colour][0].decode())
                if pw is None and "PW" in props and simple_text(props["PW"][0]):
                    pw = simple_text(props["PW"][0])
            if not tree.children:
                break
            tree = tree.children[0]
        out.append((";".join(moves), pw))
    return out


@settings(max_examples=300, deadline=None)
@given(sgf_collections())
def test_collections_read_as_sgfmill_reads_them(text):
    """Random game trees with variations and game information anywhere,
    written as one collection, come back as sgfmill's games with its main
    lines (a game whose main line repeats a point is rejected by the
    rules, after the split: its place still counts)."""
    data = text.encode("ascii")
    expected = _sgfmill_main_lines(data)
    items = read(data)
    assert len(items) == len(expected)
    for item, (line, pw) in zip(items, expected):
        if isinstance(item, Reject):
            assert item.reason == "move on an occupied point", item
            continue
        assert seq(item) == line and item.meta.get("PW") == pw
