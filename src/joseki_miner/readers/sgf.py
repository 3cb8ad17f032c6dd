"""SGF game records (FF[1]-FF[4]) through sgfmill: main line only, setup kept.

What this reader copes with, before and around sgfmill's parser:

* collections: several game trees in one file, split robustly: a tree that
  does not parse, or that runs into the next game (an unclosed ``[`` or a
  missing ``)``), is rejected alone and reading resumes at the next game;
* variations: the main line (first child at every branch) is taken;
* long FF[1]/FF[3] property names: lower-case letters inside identifiers are
  ignored (``AddBlack`` -> ``AB``), a few names that the rule gets wrong are
  mapped (``Size`` -> ``SZ``, ``Komi`` -> ``KM``...), identifiers written
  all in lower case are upper-cased (``b[pd]`` -> ``B[pd]``);
* coordinates in upper case (on boards up to 26 lines, where upper case
  cannot be meant), stray whitespace, passes written ``tt`` or empty;
* text encodings: BOM, the ``CA`` property, legacy CJK encodings with a
  fallback guess (see ``encoding``); legacy text is transcoded to UTF-8
  before parsing, so Shift_JIS/Big5 bytes 0x5C/0x5D cannot break values;
* a property value longer than ``field_bytes`` (limits.field_kb: a 200 MB
  player name) rejects its game as ``field too long``, found before the
  tree is parsed, so the value is never copied or decoded.

Points are the package's (row from the top) * 19 + col.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sgfmill import sgf_grammar

from joseki_miner.method.points import BLACK, EMPTY, PASS, SIZE, WHITE
from joseki_miner.method.records import GameRecord, Move, RecordError, Reject, declared_handicap, game_record
from joseki_miner.readers import encoding

FIELD_BYTES = 1 << 20  # limits.field_kb's default
META_PROPERTIES = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "RU", "PC", "GN", "RO")

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

_START_RE = re.compile(rb"\(\s*;")
# the start of what looks like a new game: "(;" then a game-info property
# (a lookahead, so that a broken "(;B[..." cannot hide a game start inside it)
_ROOT_CANDIDATE_RE = re.compile(rb"\((?=\s*;\s*([A-Za-z]+)\s*\[[^\\\]]*\])")
_ROOT_PROPERTIES = frozenset(
    "GM FF CA SZ AP ST PB PW BR WR BT WT DT EV RE KM HA RU GN PC SO US CP ON OT TM GC RO AN".split()
)


def root_candidates(data: bytes, start: int, end: int) -> Iterator[int]:
    for m in _ROOT_CANDIDATE_RE.finditer(data, start, end):
        ident = m.group(1).decode("ascii")
        if canonical_identifier(ident) in _ROOT_PROPERTIES:
            yield m.start()


def _next_root(data: bytes, start: int, end: int) -> int | None:
    return next(root_candidates(data, start, end), None)


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

    Each tree is parsed on its own, up to the next place where a new game
    starts (``(;`` then a game-info property), so a broken tree (it does not
    parse, or it would swallow the next game through an unclosed ``[`` or a
    missing ``)``) comes out alone with tree None, and its neighbours parse.
    A tree that holds a value longer than ``field_bytes`` is not parsed: it
    comes out with tree None and a ``FieldTooLong`` detail."""
    pos = 0
    n = len(data)
    while True:
        m = _START_RE.search(data, pos)
        if m is None:
            return
        start = m.start()
        nxt = _next_root(data, start + 1, n)
        stop = n if nxt is None else nxt
        if stop - start > field_bytes:  # only then can it hold so long a value
            long = _long_value(data, start, stop, field_bytes)
            if long is not None:
                yield start, long[0], None, long[1]
                pos = long[0]
                continue
        try:
            tree, end = _parse_tree(data[start:stop], 0)
            error = "" if tree is not None else "no game tree"
        except ValueError as exc:
            tree, end, error = None, None, str(exc)
        except Exception as exc:  # noqa: BLE001 - a reader never raises
            tree, end, error = None, None, f"internal parser error: {exc!r}"
        if tree is not None:
            yield start, start + end, tree, ""
            pos = start + end
            continue
        if nxt is not None and "end of SGF data" in error:
            error += " (the tree runs into the next game: an unclosed '[' or a missing ')')"
        yield start, stop, None, error
        pos = stop


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


def tree_to_record(tree, source: str, location: str = "") -> GameRecord | Reject:
    """One coarse sgfmill game tree (UTF-8 values) as a record or a reject."""
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
    meta = {}
    for prop in META_PROPERTIES:
        values = root.get(prop)
        if values:
            text = simple_text(values[0])
            if text:
                meta[prop] = text
    declared = declared_handicap(root["HA"][0]) if "HA" in root else 0
    return game_record(source, location, size, declared, (black, white), moves, events, meta)


# -- text ------------------------------------------------------------------


def to_utf8(data: bytes, *, fallback: bool = True) -> tuple[bytes, list[tuple[int, int, str]]]:
    """``data`` as UTF-8 with normalised identifiers, and the byte ranges of
    the result that could not be decoded: (start, end, detail).

    ASCII and valid UTF-8 are kept as they are; text valid in its declared
    charset is transcoded whole; anything else (several charsets, guesses,
    damaged bytes) is decoded game by game, each stretch between game starts
    on its own, so one bad game neither decides nor spoils the others'."""
    data, bom = encoding.strip_bom(data)
    if bom is not None:
        text = data.decode(bom, "replace")
        return normalise_identifiers(text.encode("utf-8")), []
    if data.isascii():
        return normalise_identifiers(data), []
    charsets = set(encoding.CA_RE.findall(data))
    if len(charsets) <= 1:
        whole = encoding.decode(data, encoding.declared_charset(data), fallback=fallback)
        if whole.how in ("utf-8", "declared", "superset"):
            body = data if whole.how == "utf-8" else whole.text.encode("utf-8")
            return normalise_identifiers(body), []
    # several charsets, or text that is not clean as a whole: each game on
    # its own, so one bad game does not decide (or spoil) the others
    cuts = [0] + list(root_candidates(data, 1, len(data))) + [len(data)]
    out: list[bytes] = []
    bad: list[tuple[int, int, str]] = []
    offset = 0
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        chunk = data[a:b]
        dec = encoding.decode(chunk, encoding.declared_charset(chunk), fallback=fallback)
        if dec.text is None:
            piece = chunk.decode("utf-8", "replace").encode("utf-8")
            detail = f"the text is not valid {dec.encoding} and no other encoding fits"
        else:
            piece = chunk if dec.how in ("ascii", "utf-8") else dec.text.encode("utf-8")
            detail = ""
        piece = normalise_identifiers(piece)
        if detail:
            bad.append((offset, offset + len(piece), detail))
        out.append(piece)
        offset += len(piece)
    return b"".join(out), bad


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
        buf, bad = to_utf8(data, fallback=encoding_fallback)
    except Exception as exc:  # noqa: BLE001 - a reader never raises
        yield Reject(source, location, "undecodable text", f"internal decoding error: {exc!r}")
        return
    trees = split_trees(buf, field_bytes)
    first = next(trees, None)
    if first is None:
        what = "empty file" if not data.strip() else "no SGF game tree '(;' found"
        yield Reject(source, location, "not a game", what)
        return
    second = next(trees, None)
    if second is None:
        yield _one(buf, first, bad, source, location)
        return
    yield _one(buf, first, bad, source, game_location(location, 1))
    yield _one(buf, second, bad, source, game_location(location, 2))
    for index, item in enumerate(trees, start=3):
        yield _one(buf, item, bad, source, game_location(location, index))


def _one(buf: bytes, item, bad, source: str, location: str) -> GameRecord | Reject:
    start, end, tree, error = item
    for a, b, detail in bad:
        if a <= start < b:
            return Reject(source, location, "undecodable text", detail)
    if isinstance(error, FieldTooLong):
        return Reject(source, location, "field too long", error)
    if tree is None:
        return Reject(source, location, "parse error", error or "unparsable game tree")
    try:
        return tree_to_record(tree, source, location)
    except Exception as exc:  # noqa: BLE001 - a reader never raises
        return Reject(source, location, "parse error", f"internal error: {exc!r}")
