"""Fuzzing the readers: damaged records never raise, never hang, and every
input is accounted for.

Real-looking records (SGF games and collections in several encodings, FF[3]
long names, kifu lines with an index, the Ishi sample, zip and tar.gz
archives of them) are mutated: truncation, byte flips, bracket and escape
damage, inserted and deleted bytes, duplicated slices, re-encoding in a
random codec.  Properties:

* reading never raises and ends within a time limit (hypothesis deadline
  plus an alarm against a true hang);
* every item is a GameRecord (19x19, points on the board) or a Reject with
  a documented reason and a detail;
* every input is accounted for: it yields at least one item, or (a file
  that no longer looks like a game file) it is reported as skipped; a file
  named ``.sgf`` always yields at least one item;
* in an SGF collection, damage inside one game (bytes flipped, inserted,
  deleted, the game cut short) never loses another game.

FUZZ_EXAMPLES cases for each of the first two tests and a fifth of that for
the third (880 in all by default, the same ones every run); set
JOSEKI_FUZZ_EXAMPLES for more and JOSEKI_FUZZ_RANDOM=1 for new ones.
"""

from __future__ import annotations

import os
import signal
import tempfile
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import make_tar, make_zip
from joseki_miner.method.points import NPOINTS, PASS
from joseki_miner.readers import read_bytes, read_paths
from joseki_miner.method.records import REJECT_REASONS, GameRecord, Reject

FUZZ_EXAMPLES = int(os.environ.get("JOSEKI_FUZZ_EXAMPLES", "400"))
SAMPLE = (Path(__file__).parent / "fixtures" / "readers" / "testspec.go").read_bytes()

KGS_LIKE = (
    "(;GM[1]FF[4]CA[UTF-8]SZ[19]PW[白棋]WR[7d]PB[miura8]DT[2001-01-02]"
    "PC[The Kiseido Go Server (KGS)]KM[5.50]RU[Japanese]RE[W+Resign]TM[4800]OT[5x90 byo-yomi]\n"
    ";B[pd]BL[4791.5];W[ed]WL[4790];B[cd]C[a comment with \\] and \\\\ escapes];W[df]\n"
    ";B[pq](;W[nc];B[ld];W[ne])(;W[qf];B[tt];W[])\n)\n"
)
FF3 = "(;GaMe[1]FileFormat[3]Size[19]PlayerBlack[Honinbo]AddBlack[dd][pp]\n;White[qd];Black[dc];White[tt])\n"
SEEDS: dict[str, bytes] = {
    "game.sgf": KGS_LIKE.encode("utf-8"),
    "ff3.sgf": FF3.encode("ascii"),
    "gb.sgf": "(;GM[1]CA[GB2312]PB[柯洁]PW[古力];B[pd];W[dp];B[pp])".encode("gb2312"),
    "sjis.sgf": "(;GM[1]PB[井山裕太]PW[代表];B[pd];W[dp])".encode("shift_jis"),
    "coll.sgf": b"\n".join(
        [
            KGS_LIKE.encode("utf-8"),
            "(;GM[1]CA[EUC-KR]PB[이세돌];AB[dd][pp];W[dp])".encode("euc-kr"),
            "(;GM[1]CA[Big5]PB[周俊勳];B[pd])".encode("big5"),
            b"(;GM[1]SZ[9];B[cc])",
        ]
    ),
    "2011-01": b"1\t;B[pd];W[dp];B[pp];W[dd]\n2\t;B[qd];W[];B[tt]\n3\t;B[aa];W[ss]\n",
    "testspec.go": SAMPLE,
}


CODECS = ["utf-8", "utf-16", "utf-16-le", "gb18030", "euc_kr", "shift_jis", "big5", "latin-1", "cp1252"]
DAMAGE = [
    b"[",
    b"]",
    b"(",
    b")",
    b";",
    b"\\",
    b"\\]",
    b"]]",
    b"((;",
    b"\x00",
    b"\xff",
    b"\x81",
    b"\n",
    b"\t",
    b"B[",
    b"EVENT\n",
    b"COM\n",
]


@st.composite
def mutate(draw, data: bytes, allow_dup: bool = True, local: bool = False) -> bytes:
    """Damage ``data``; ``local`` keeps to damage that stays inside the bytes
    (no re-encoding of the whole text, no copied slices)."""
    ops = ["truncate", "flip", "insert", "delete"]
    if not local:
        ops.append("encode")
        if allow_dup:
            ops.append("dup")
    for op in draw(st.lists(st.sampled_from(ops), min_size=1, max_size=4)):
        n = len(data)
        pos = draw(st.integers(0, max(n, 1) - 1)) if n else 0
        if op == "truncate":
            data = data[:pos]
        elif op == "flip" and n:
            data = data[:pos] + bytes([draw(st.integers(0, 255))]) + data[pos + 1 :]
        elif op == "insert":
            data = data[:pos] + draw(st.sampled_from(DAMAGE)) + data[pos:]
        elif op == "delete":
            data = data[:pos] + data[pos + draw(st.integers(1, 8)) :]
        elif op == "dup" and n:
            end = draw(st.integers(pos, n))
            at = draw(st.integers(0, n))
            data = data[:at] + data[pos:end] + data[at:]
        elif op == "encode":
            text = data.decode("utf-8", "replace")
            data = text.encode(draw(st.sampled_from(CODECS)), "replace")
    return data


@st.composite
def cases(draw) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["file", "file", "file", "zip", "tgz", "archive-bytes"]))
    if kind == "file":
        name = draw(st.sampled_from(sorted(SEEDS)))
        return name, draw(mutate(SEEDS[name]))
    names = draw(st.lists(st.sampled_from(sorted(SEEDS)), min_size=1, max_size=3, unique=True))
    members = {f"d/{n}": draw(mutate(SEEDS[n])) if draw(st.booleans()) else SEEDS[n] for n in names}
    if kind == "zip":
        return "games.zip", make_zip(members)
    if kind == "tgz":
        return "games.tar.gz", make_tar(members, "w:gz")
    packed = make_zip(members) if draw(st.booleans()) else make_tar(members, "w:gz")
    return draw(st.sampled_from(["games.zip", "games.tar.gz", "blob"])), draw(mutate(packed, allow_dup=False))


@contextmanager
def time_limit(seconds: int):
    def boom(signum, frame):  # pragma: no cover - only on a hang
        raise TimeoutError(f"reader still running after {seconds}s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def check_items(items: list) -> None:
    for item in items:
        assert isinstance(item, (GameRecord, Reject)), item
        if isinstance(item, Reject):
            assert item.reason in REJECT_REASONS and item.detail, item
        else:
            assert item.size == 19
            for m in item.moves:
                assert m.point == PASS or 0 <= m.point < NPOINTS
            for p in item.setup_black + item.setup_white:
                assert 0 <= p < NPOINTS
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in item.meta.items())


FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not os.environ.get("JOSEKI_FUZZ_RANDOM"),
)


@FUZZ
@given(case=cases())
def test_fuzz_bytes_never_raise_and_account_for_every_input(case):
    name, data = case
    skipped = []
    with time_limit(30):
        items = list(read_bytes(data, name, on_skip=lambda s, where, w: skipped.append(where)))
    check_items(items)
    assert items or skipped, "an input vanished"
    if name.endswith(".sgf"):
        assert items


NAMES = ["alpha", "bravo", "charlie", "delta", "echo"]


@st.composite
def damaged_collections(draw):
    games = [f"(;GM[1]FF[4]SZ[19]PB[{name}];B[pd];W[dp];B[pq]C[note \\] {name}];W[dd])".encode() for name in NAMES]
    k = draw(st.integers(0, len(games) - 1))
    games[k] = draw(mutate(games[k], local=True))
    sep = draw(st.sampled_from([b"\n", b"", b"\r\n\r\n", b" junk "]))
    return k, sep.join(games)


@FUZZ
@given(case=damaged_collections())
def test_fuzz_one_damaged_game_never_loses_another(case):
    k, data = case
    with time_limit(30):
        items = list(read_bytes(data, "coll.sgf"))
    check_items(items)
    intact = [
        i.meta.get("PB") for i in items if isinstance(i, GameRecord) and len(i.moves) == 4 and i.meta.get("PB") in NAMES
    ]
    wanted = iter(intact)  # the other games, whole and in order (a subsequence)
    missing = [name for j, name in enumerate(NAMES) if j != k and name not in wanted]
    assert not missing, (missing, items)


@settings(FUZZ, max_examples=max(10, FUZZ_EXAMPLES // 5))
@given(files=st.lists(cases(), min_size=1, max_size=4))
def test_fuzz_read_paths_on_disk(files):
    with tempfile.TemporaryDirectory() as tmp, time_limit(60):
        paths = []
        for i, (name, data) in enumerate(files):
            path = Path(tmp) / f"{i:02d}_{name}"
            path.write_bytes(data)
            paths.append(str(path))
        seen: set[str] = set()
        items = list(read_paths([tmp], on_skip=lambda s, where, w: seen.add(s)))
        check_items(items)
        seen |= {i.source for i in items}
        assert seen == set(paths)


@pytest.mark.parametrize(
    "unit",
    [
        b"(;A[",
        b"(;GM[1]",
        b"(;GM[1]C[",
        b"(;GM[1]C[\\]",
        b"(",
        b"[",
        b"\xff(;GM[1]",
        b"(" + b" " * 16383,
        b")\n(GM[1]\xff",
    ],
    ids=[
        "unclosed-values",
        "unclosed-trees",
        "game-in-value",
        "escaped-bracket",
        "parentheses",
        "brackets",
        "legacy",
        "blanks-after-parentheses",
        "bare-roots",
    ],
)
def test_a_megabyte_of_one_hostile_pattern_is_read_without_a_hang(unit):
    """Patterns that made a step of the SGF reader quadratic (a lookahead
    running to the text's end from every '(', a tree walked from every
    start, a piece looked for from the first): a megabyte of one is read
    well within the alarm (hours, were any step quadratic), every item a
    record or a documented reject."""
    data = unit * ((1 << 20) // len(unit))
    with time_limit(120):
        items = list(read_bytes(data, "hostile.sgf"))
    check_items(items)
    assert items
