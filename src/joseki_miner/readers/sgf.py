"""SGF game records (FF[1]-FF[4]) through sgfmill: main line only, setup kept.

What this reader copes with, before and around sgfmill's parser:

* collections: several game trees in one file, split where the grammar
  splits them (a tree ends at the ')' matching its '(', so a variation whose
  node holds game information stays in its game); a tree that does not
  parse, or that runs into the next game (an unclosed ``[`` or a missing
  ``)``), is rejected alone and reading resumes at the next game;
* variations: the main line (first child at every branch) is taken, with
  the game information found on it (the root's first);
* a root node written without its ``;`` (as Sabaki reads it), in a
  collection too (a game start where a game may start: after a ')');
* long FF[1]/FF[3] property names: lower-case letters inside identifiers are
  ignored (``AddBlack`` -> ``AB``), a few names that the rule gets wrong are
  mapped (``Size`` -> ``SZ``, ``Komi`` -> ``KM``...), identifiers written
  all in lower case are upper-cased (``b[pd]`` -> ``B[pd]``);
* coordinates in upper case (on boards up to 26 lines, where upper case
  cannot be meant), stray whitespace, passes written ``tt`` or empty;
* text encodings: BOM, the ``CA`` property, legacy CJK encodings with a
  fallback guess (see ``encoding``), each game of a collection by its own
  (cut on bytes where the games start); legacy text is transcoded to UTF-8
  before parsing, so a Shift_JIS/Big5 trail byte 0x5C/0x5D reads as part of
  its character; where that does not parse, the game is parsed on bytes and
  its values decoded after (a writer that escaped those bytes);
* a property value longer than ``field_bytes`` (limits.field_kb: a 200 MB
  player name) rejects its game as ``field too long``, found before the
  tree is parsed, so the value is never copied or decoded.

Points are the package's (row from the top) * 19 + col.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from sgfmill import sgf_grammar

from joseki_miner.method.points import BLACK, EMPTY, PASS, SIZE, WHITE
from joseki_miner.method.records import GameRecord, Move, RecordError, Reject, declared_handicap, game_record
from joseki_miner.readers import encoding

FIELD_BYTES = 1 << 20  # limits.field_kb's default
META_PROPERTIES = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "RU", "PC", "GN", "RO")
_META_SET = frozenset(META_PROPERTIES)

try:  # sgfmill's parser for one game tree at a position, with its end
    _parse_tree = sgf_grammar._parse_sgf_game
except AttributeError:  # pragma: no cover - other sgfmill versions

    def _parse_tree(data: bytes, start: int):
        tokens, end = sgf_grammar.tokenise(data, start)
        if not tokens:
            return None, None
        return sgf_grammar.parse_sgf_game(data[start:end]), end


_LETTERS = b"abcdefghijklmnopqrstuvwxyz"

# SGF coordinates (as bytes) -> point, for the 19x19 board
_POINT: dict[bytes, int] = {b"": PASS, b"tt": PASS}
for _c in range(SIZE):
    for _r in range(SIZE):
        _POINT[bytes((_LETTERS[_c], _LETTERS[_r]))] = _r * SIZE + _c

# -- identifiers -----------------------------------------------------------

# whole long names that the "ignore lower case" rule gets wrong
_LONG_NAMES = {
    "SIZE": "SZ",
    "KOMI": "KM",
    "HANDICAP": "HA",
    "RESULT": "RE",
    "DATE": "DT",
    "EVENT": "EV",
    "PLACE": "PC",
    "ROUND": "RO",
    "RULES": "RU",
    "GAME": "GM",
    "COMMENT": "C",
    "BLACK": "B",
    "WHITE": "W",
    "ADDBLACK": "AB",
    "ADDWHITE": "AW",
    "ADDEMPTY": "AE",
    "PLAYERBLACK": "PB",
    "PLAYERWHITE": "PW",
    "BLACKRANK": "BR",
    "WHITERANK": "WR",
    "CHARSET": "CA",
    "FILEFORMAT": "FF",
    "GAMENAME": "GN",
    "SOURCE": "SO",
    "USER": "US",
    "COPYRIGHT": "CP",
    "GAMECOMMENT": "GC",
    "TIMELIMIT": "TM",
    "BLACKNAME": "PB",
    "WHITENAME": "PW",
    "NAME": "N",
}


def canonical_identifier(ident: str) -> str:
    """The FF[4] identifier of an identifier as written in any FF version."""
    if ident.isupper():
        return _LONG_NAMES.get(ident, ident) if len(ident) > 2 else ident
    mapped = _LONG_NAMES.get(ident.upper())
    if mapped is not None:
        return mapped
    if ident.islower():
        return ident.upper()
    return "".join(ch for ch in ident if ch.isupper())


_VALUE = rb"\[[^\\\]]*(?:\\.[^\\\]]*)*\]"
_IDENT_OR_VALUE_RE = re.compile(rb"(" + _VALUE + rb")|([A-Za-z]+)(?=\s*\[)", re.DOTALL)
_NEEDS_FIX_RE = re.compile(rb"[a-z]\s*\[|(?<![A-Za-z])[A-Z]{3,}\s*\[")
# the two halves, quicker apart (the look-behind slows every position); the
# second without it finds a superset, which the whole pattern then confirms
_LOWER_RE = re.compile(rb"[a-z]\s*\[")
_LONG_RE = re.compile(rb"[A-Z]{3,}\s*\[")


def _fix_identifier(m: re.Match) -> bytes:
    if m.group(1) is not None:
        return m.group(1)
    ident = m.group(2).decode("ascii")
    return canonical_identifier(ident).encode("ascii")


def normalise_identifiers(data: bytes) -> bytes:
    """Rewrite long and lower-case property identifiers to FF[4] ones, leaving
    property values untouched.  Cheap when there is nothing to do."""
    if not (_LOWER_RE.search(data) or (_LONG_RE.search(data) and _NEEDS_FIX_RE.search(data))):
        return data
    return _IDENT_OR_VALUE_RE.sub(_fix_identifier, data)


# -- splitting a collection ------------------------------------------------

# a game tree's start: "(;", or "(" then a property (a root node written without its ';', as Sabaki reads it)
_START_RE = re.compile(rb"\(\s*(?:;|(?=[A-Za-z]+\s*\[))")
_FULL_START_RE = re.compile(rb"\(\s*;")  # one written with its ';'
# the start of what looks like a new game: "(;" (or a bare "(" where a game may
# start) then a game-info property and its value's '[' (the value must close
# before any escape: ``root_candidates``)
_CANDIDATE_HEAD_RE = re.compile(rb"\((?:\s*(;))?\s*([A-Za-z]+)\s*\[")  # no two free runs of blanks: linear
_BLANKS = frozenset(b" \t\r\n\f\v")
_VALUE_STOP_RE = re.compile(rb"[\\\]]")
_ROOT_PROPERTIES = frozenset(
    "GM FF CA SZ AP ST PB PW BR WR BT WT DT EV RE KM HA RU GN PC SO US CP ON OT TM GC RO AN".split()
)


def root_candidates(data: bytes, start: int, end: int) -> Iterator[int]:
    """Where a game might start in data[start:end]: each "(;" followed by a
    game-information property whose first value closes before any escape.
    A game start, or a variation whose node holds game information (as the
    SGF specification allows).  A root written without its ';' (``(`` then
    ``GM[1]``...) is one too where a game may start: first in the text, or
    after a ')' and blanks only (where a tree ends; not after a comment's
    words or a node, where a '(' and a property are no game).  The
    first '\\' or ']' after a value's '[' is looked for once and kept while
    later values start before it, so a text of unclosed values is read
    once, not once a '('."""
    stop = -1  # the first '\\' or ']' at or after the last value's start (``end``: none before it)
    for m in _CANDIDATE_HEAD_RE.finditer(data, start, end):
        if m.group(1) is None and not _after_a_tree(data, m.start()):
            continue
        value = m.end()
        if stop < value:
            found = _VALUE_STOP_RE.search(data, value, end)
            stop = found.start() if found is not None else end
        if stop == end or data[stop] != 0x5D:  # unclosed, or an escape first
            continue
        if canonical_identifier(m.group(2).decode("ascii")) in _ROOT_PROPERTIES:
            yield m.start()


def _after_a_tree(data: bytes, at: int) -> bool:
    """Is data[at] first in the text, or after a ')' and blanks only?"""
    k = at - 1
    while k >= 0 and data[k] in _BLANKS:
        k -= 1
    return k < 0 or data[k] == 0x29


def _next_root(data: bytes, start: int, end: int) -> int | None:
    return next(root_candidates(data, start, end), None)


# what decides where a tree ends: a value (escapes skipped; to the end of the text when unclosed), a parenthesis
_PAREN_OR_VALUE_RE = re.compile(rb"\[[^\\\]]*(?:\\.[^\\\]]*)*\]?|[()]", re.DOTALL)


class TreeEnds:
    """Where the game trees of a text end by the grammar: at the ')' that
    matches their '('.  A tree whose values swallow a game start (an
    unclosed '[' that runs into the next game) has no end, nor has one that
    never closes: each is then cut at the next game start.  One walk from a
    tree's '(' finds the ends of every '(' it meets, kept for the trees that
    start there, so a text of unclosed trees is walked once, not once a tree."""

    def __init__(self, data: bytes):
        self.data = data
        self.candidates = list(root_candidates(data, 0, len(data)))
        self.ends: dict[int, int | None] = {}

    def end(self, start: int) -> int | None:
        """The end of the tree whose '(' is at ``start``, or None."""
        if start in self.ends:
            return self.ends[start]
        data, candidates = self.data, self.candidates
        k = bisect.bisect_right(candidates, start)
        opened: list[int] = []
        for m in _PAREN_OR_VALUE_RE.finditer(data, start):
            a = m.start()
            c = data[a]
            if c == 0x28:  # '('
                opened.append(a)
            elif c == 0x29:  # ')'
                if not opened:  # ``start`` was not a '(' (no caller does that)
                    break
                self.ends[opened.pop()] = m.end()
                if not opened:
                    break
            else:  # a value: does it hold a game start?
                while k < len(candidates) and candidates[k] < a:
                    k += 1
                if k < len(candidates) and candidates[k] < m.end():
                    break
        for a in opened:
            self.ends[a] = None
        return self.ends.get(start)


def game_starts(data: bytes) -> list[int]:
    """Where the game trees of a collection start, by the grammar (as
    ``split_trees`` cuts it, without parsing): a game's variations, game
    information in them or not, are inside it."""
    ends = TreeEnds(data)
    starts = []
    pos = 0
    while (m := _START_RE.search(data, pos)) is not None:
        start = m.start()
        starts.append(start)
        end = ends.end(start)
        if end is None:  # cut at the next game start (the candidates TreeEnds has found)
            k = bisect.bisect_right(ends.candidates, start)
            if k == len(ends.candidates):
                break
            end = ends.candidates[k]
        pos = end
    return starts


class FieldTooLong(str):
    """The error detail of a tree that holds a value past the field limit."""


# a game tree's tokens: a value (its closing bracket a group, absent when the value runs to the
# end), a parenthesis, an identifier
_TREE_TOKEN_RE = re.compile(rb"\[[^\\\]]*(?:\\.[^\\\]]*)*(\])?|[()]|[A-Za-z]+", re.DOTALL)


def _long_value(data: bytes, start: int, stop: int, limit: int) -> tuple[int, FieldTooLong] | None:
    """Where the game tree at data[start:stop] ends, and its first property
    value longer than ``limit`` bytes (named in the detail); None when it
    has none.  Read by tokens, as the scanner reads values: so long a value
    is measured, never copied or parsed."""
    depth = 0
    ident = b""
    found = None
    for m in _TREE_TOKEN_RE.finditer(data, start, stop):
        a, b = m.span()
        c = data[a]
        if c == 0x5B:  # '['
            size = (m.start(1) if m.start(1) >= 0 else b) - a - 1
            if size > limit and found is None:
                found = FieldTooLong(
                    f"{ident.decode('ascii')} value of {size:,} bytes (limits.field_kb: at most {limit:,})"
                )
        elif c == 0x28:  # '('
            depth += 1
        elif c == 0x29:  # ')'
            depth -= 1
            if depth == 0:
                return None if found is None else (b, found)
        else:
            ident = data[a : min(b, a + 16)]
    return None if found is None else (stop, found)


def split_trees(data: bytes, field_bytes: int = FIELD_BYTES) -> Iterator[tuple[int, int, object, str]]:
    """The game trees of a collection: (start, end, coarse tree or None,
    error detail).

    A tree ends at the ')' that matches its '(' (``TreeEnds``): a variation
    that opens with game information (``(;PW[..]W[dp])``) is a node of its
    game, as the specification says.  A broken tree (it does not parse, or
    it would swallow the next game through an unclosed ``[`` or a missing
    ``)``) is cut at the next game start (``(;`` then a game-info property)
    and comes out alone with tree None, so its neighbours parse.  A tree
    that holds a value longer than ``field_bytes`` is not parsed: it comes
    out with tree None and a ``FieldTooLong`` detail."""
    pos = 0
    n = len(data)
    ends: TreeEnds | None = None  # walked only for a tree that runs past a game start
    while True:
        m = _START_RE.search(data, pos)
        if m is None:
            return
        start = m.start()
        nxt = _next_root(data, start + 1, n)
        stop = n if nxt is None else nxt
        tree, end, error = _parse_between(data, start, stop, field_bytes)
        if tree is None and nxt is not None and "end of SGF data" in error:
            # past a game start: a variation with game information, or damage
            ends = ends or TreeEnds(data)
            grammar_end = ends.end(start)
            if grammar_end is not None:
                stop = grammar_end
                tree, end, error = _parse_between(data, start, stop, field_bytes)
            elif not isinstance(error, FieldTooLong):
                error += " (the tree runs into the next game: an unclosed '[' or a missing ')')"
        yield start, end, tree, error
        pos = end


def _parse_between(data: bytes, start: int, stop: int, field_bytes: int) -> tuple[object, int, str]:
    """The tree at data[start:stop]: (coarse tree or None, its end, error
    detail); the end is ``stop`` when it does not parse."""
    if stop - start > field_bytes:  # only then can it hold so long a value
        long = _long_value(data, start, stop, field_bytes)
        if long is not None:
            return None, long[0], long[1]
    text = data[start:stop]
    bare = not _FULL_START_RE.match(text)
    if bare:  # a root node without its ';': read as if it had it
        text = b"(;" + text[1:]
    try:
        tree, end = _parse_tree(text, 0)
    except ValueError as exc:
        return None, stop, str(exc)
    except Exception as exc:  # noqa: BLE001 - a reader never raises
        return None, stop, f"internal parser error: {exc!r}"
    if tree is None:
        return None, stop, "no game tree"
    return tree, start + end - bare, ""


# -- from a coarse tree to a record ------------------------------------------


def _point(value: bytes) -> int:
    p = _POINT.get(value)
    if p is not None:
        return p
    v = value.strip().lower()
    p = _POINT.get(v)
    if p is not None:
        return p
    if len(v) == 2 and v.isalpha():
        raise RecordError("move off the board", f"{value.decode('latin-1')!r} on 19x19")
    raise RecordError("parse error", f"bad point value {value.decode('latin-1')!r}")


def _points(values: list[bytes]) -> list[int]:
    """A point list, with FF[4] compressed rectangles (``aa:cc``)."""
    out: list[int] = []
    for value in values:
        if b":" in value:
            a, _, b = value.partition(b":")
            pa, pb = _point(a), _point(b)
            if pa == PASS or pb == PASS:
                raise RecordError("parse error", f"bad rectangle {value.decode('latin-1')!r}")
            (r1, c1), (r2, c2) = divmod(pa, SIZE), divmod(pb, SIZE)
            for r in range(min(r1, r2), max(r1, r2) + 1):
                for c in range(min(c1, c2), max(c1, c2) + 1):
                    out.append(r * SIZE + c)
        else:
            p = _point(value)
            if p != PASS:  # "tt" or [] in a setup list: nothing
                out.append(p)
    return out


def simple_text(value: bytes) -> str:
    return sgf_grammar.simpletext_value(value).decode("utf-8", "replace").strip()


def _size(root: dict) -> int | None:
    """The board size; None when SZ is unreadable."""
    values = root.get("SZ")
    if not values:
        return SIZE
    raw = values[0].strip()
    try:
        dims = [int(x) for x in raw.split(b":")]
    except ValueError:
        return None
    if len(dims) == 2 and dims[0] != dims[1]:
        return -1  # not square
    if len(dims) > 2:
        return None
    return dims[0]


def _gather_meta(props: dict, meta: dict[str, str], text: Callable[[bytes], str]) -> None:
    """The game information of a node that ``meta`` does not hold yet."""
    for prop in META_PROPERTIES:
        values = props.get(prop)
        if values and prop not in meta:
            value = text(values[0])
            if value:
                meta[prop] = value


def tree_to_record(
    tree, source: str, location: str = "", text: Callable[[bytes], str] = simple_text
) -> GameRecord | Reject:
    """One coarse sgfmill game tree as a record or a reject; ``text`` reads
    a simple-text value (UTF-8 by default)."""
    root = tree.sequence[0]
    gm = root.get("GM")
    if gm and gm[0].strip() not in (b"1", b""):
        return Reject(source, location, "not a game", f"GM[{simple_text(gm[0])}]: not a game of Go")
    size = _size(root)
    if size is None:
        return Reject(source, location, "parse error", f"bad SZ value {simple_text(root['SZ'][0])!r}")
    if size != SIZE:
        what = simple_text(root["SZ"][0])
        return Reject(source, location, "not 19x19", f"board size {what}")
    black: list[int] = []
    white: list[int] = []
    moves: list[Move] = []
    events: list[tuple[int, int, int]] = []
    meta: dict[str, str] = {}  # the main line's game information: at the root, or where a variation names its game
    try:
        node_tree = tree
        while True:
            for props in node_tree.sequence:
                if "AB" in props or "AW" in props or "AE" in props:
                    ae = _points(props.get("AE", ()))
                    ab = _points(props.get("AB", ()))
                    aw = _points(props.get("AW", ()))
                    if not moves:  # setup before the first move: the position
                        if ae:
                            gone = set(ae)
                            black = [p for p in black if p not in gone]
                            white = [p for p in white if p not in gone]
                        black.extend(ab)
                        white.extend(aw)
                    else:
                        at = len(moves)
                        events.extend((at, EMPTY, p) for p in ae)
                        events.extend((at, BLACK, p) for p in ab)
                        events.extend((at, WHITE, p) for p in aw)
                if not _META_SET.isdisjoint(props):
                    _gather_meta(props, meta, text)
                b = props.get("B")
                if b is not None:
                    moves.append(Move(BLACK, _point(b[0])))
                w = props.get("W")
                if w is not None:
                    moves.append(Move(WHITE, _point(w[0])))
            if not node_tree.children:
                break
            node_tree = node_tree.children[0]
    except RecordError as exc:
        return Reject(source, location, exc.reason, exc.detail)
    declared = declared_handicap(root["HA"][0]) if "HA" in root else 0
    return game_record(source, location, size, declared, (black, white), moves, events, meta)


# -- text ------------------------------------------------------------------

# codecs whose two-byte characters may end in the bytes of '\\' or ']' (a
# Shift_JIS, GBK or Big5 name): a raw parse would read them as an escape or a value's end
ASCII_TRAIL_CODECS = frozenset(
    "shift_jis cp932 shift_jis_2004 shift_jisx0213 gbk gb18030 cp936 big5 cp950 big5hkscs johab".split()
)


class Piece(NamedTuple):
    """A stretch of a text decoded as one: where it lies in the UTF-8
    buffer and in the bytes read, its codec, and why it could not be
    decoded ("" when it could)."""

    start: int
    end: int
    raw_start: int
    raw_end: int
    codec: str
    undecodable: str = ""


def _declared(data: bytes) -> bytes | None:
    """The charset ``data`` declares (CA), unless a wide one (UTF-16 or
    UTF-32): text split on bytes is not in it, whatever a value holds."""
    declared = encoding.declared_charset(data)
    name = encoding.normalise_name(declared)
    return None if name is not None and name.startswith(("utf_16", "utf_32")) else declared


def decoded(data: bytes, *, fallback: bool = True) -> tuple[bytes, list[Piece]]:
    """``data`` as UTF-8 with normalised identifiers, and the pieces it was
    decoded in.

    ASCII and valid UTF-8 are kept as they are.  A text of one game is
    transcoded whole when it is clean in its declared charset; a collection
    is cut on bytes where its games start (``game_starts``, by the grammar)
    and each game decoded by its own CA, so a game in another encoding
    neither decides nor spoils its neighbours'."""
    data, bom = encoding.strip_bom(data)
    if bom is not None:
        text = normalise_identifiers(data.decode(bom, "replace").encode("utf-8"))
        return text, [Piece(0, len(text), 0, len(data), bom)]
    if data.isascii():
        text = normalise_identifiers(data)
        return text, [Piece(0, len(text), 0, len(data), "ascii")]
    candidates = list(itertools.islice(root_candidates(data, 0, len(data)), 2))
    if len(candidates) <= 1:  # one game (nearly every file): whole, if its charset reads it cleanly
        if len(set(encoding.CA_RE.findall(data))) <= 1:
            whole = encoding.decode(data, _declared(data), fallback=fallback)
            if whole.how in ("utf-8", "declared", "superset"):
                text = normalise_identifiers(data if whole.how == "utf-8" else whole.text.encode("utf-8"))
                return text, [Piece(0, len(text), 0, len(data), whole.encoding)]
        cuts = [c for c in candidates if c > 0]
    elif _all_utf8(data):  # a collection in UTF-8 throughout (no legacy text is): nothing to cut
        text = normalise_identifiers(data)
        return text, [Piece(0, len(text), 0, len(data), "utf_8")]
    else:
        cuts = [s for s in game_starts(data) if s > 0]
    cuts = [0, *cuts, len(data)]
    out: list[bytes] = []
    pieces: list[Piece] = []
    offset = 0
    declared = None  # a game that declares no charset is read in the one declared before it, if any
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        chunk = data[a:b]
        declared = _declared(chunk) or declared
        dec = encoding.decode(chunk, declared, fallback=fallback)
        if dec.text is None:
            piece = chunk.decode("utf-8", "replace").encode("utf-8")
            detail = f"the text is not valid {dec.encoding} and no other encoding fits"
        else:
            piece = chunk if dec.how in ("ascii", "utf-8") else dec.text.encode("utf-8")
            detail = ""
        piece = normalise_identifiers(piece)
        pieces.append(Piece(offset, offset + len(piece), a, b, dec.encoding, detail))
        out.append(piece)
        offset += len(piece)
    return b"".join(out), pieces


def _all_utf8(data: bytes) -> bool:
    """Valid UTF-8, declaring no other charset."""
    if any(encoding.normalise_name(ca) != "utf_8" for ca in set(encoding.CA_RE.findall(data))):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def to_utf8(data: bytes, *, fallback: bool = True) -> tuple[bytes, list[tuple[int, int, str]]]:
    """``decoded``: the UTF-8 text, and the byte ranges of it that could not
    be decoded: (start, end, detail)."""
    text, pieces = decoded(data, fallback=fallback)
    return text, [(p.start, p.end, p.undecodable) for p in pieces if p.undecodable]


def game_location(location: str, index: int) -> str:
    return f"{location}:game {index}" if location else f"game {index}"


def read_sgf_bytes(
    data: bytes, source: str, location: str = "", *, encoding_fallback: bool = True, field_bytes: int = FIELD_BYTES
) -> Iterator[GameRecord | Reject]:
    """Every game tree in one SGF text (a file or an archive member).

    A text with a single tree gives its game the given ``location``; in a
    collection each game is located as ``game N`` (1-based, counting broken
    trees too).  A text with no game tree at all gives one ``not a game``.
    A tree holding a value longer than ``field_bytes`` is ``field too long``."""
    try:
        buf, pieces = decoded(data, fallback=encoding_fallback)
    except Exception as exc:  # noqa: BLE001 - a reader never raises
        yield Reject(source, location, "undecodable text", f"internal decoding error: {exc!r}")
        return
    raw = encoding.strip_bom(data)[0]
    starts = [p.start for p in pieces]
    trees = split_trees(buf, field_bytes)
    first = next(trees, None)
    if first is None:
        what = "empty file" if not data.strip() else "no SGF game tree '(;' found"
        yield Reject(source, location, "not a game", what)
        return
    second = next(trees, None)
    if second is None:
        yield _one(buf, first, pieces, starts, raw, source, location)
        return
    yield _one(buf, first, pieces, starts, raw, source, game_location(location, 1))
    yield _one(buf, second, pieces, starts, raw, source, game_location(location, 2))
    for index, item in enumerate(trees, start=3):
        yield _one(buf, item, pieces, starts, raw, source, game_location(location, index))


def _one(
    buf: bytes, item, pieces: list[Piece], starts: list[int], raw: bytes, source: str, location: str
) -> GameRecord | Reject:
    """One tree's record or reject; ``starts``: the pieces' starts (the piece
    that holds the tree is found by bisection: a collection has a piece a game)."""
    start, end, tree, error = item
    piece = pieces[max(0, bisect.bisect_right(starts, start) - 1)]
    if piece.undecodable:
        return Reject(source, location, "undecodable text", piece.undecodable)
    if isinstance(error, FieldTooLong):
        return Reject(source, location, "field too long", error)
    if tree is None and piece.codec in ASCII_TRAIL_CODECS and _START_RE.search(buf, piece.start, start) is None:
        # the writer escaped a trail byte '\\' or ']' on bytes: parse the bytes, decode the values
        tree = _raw_tree(raw[piece.raw_start : piece.raw_end])
        if tree is not None:
            return _record(tree, source, location, lambda value: _coded_text(value, piece.codec))
    if tree is None:
        return Reject(source, location, "parse error", error or "unparsable game tree")
    return _record(tree, source, location, simple_text)


def _record(tree, source: str, location: str, text) -> GameRecord | Reject:
    try:
        return tree_to_record(tree, source, location, text)
    except Exception as exc:  # noqa: BLE001 - a reader never raises
        return Reject(source, location, "parse error", f"internal error: {exc!r}")


def _raw_tree(chunk: bytes):
    """The first game tree of undecoded bytes, parsed as bytes (as sgfmill
    and SGFC parse), or None."""
    chunk = normalise_identifiers(chunk)
    m = _START_RE.search(chunk)
    if m is None:
        return None
    tree, _, _ = _parse_between(chunk, m.start(), len(chunk), len(chunk))
    return tree


def _coded_text(value: bytes, codec: str) -> str:
    """A simple-text value of bytes in ``codec``: unescaped, then decoded."""
    return sgf_grammar.simpletext_value(value).decode(codec, "replace").strip()
