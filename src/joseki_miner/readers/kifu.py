"""Server dumps: one game a line, ``id<TAB>;B[pd];W[dp];...`` (Tom, Tygem).

The move list is a bare SGF node sequence; the common case (only ``B``/``W``
with two-letter or empty values) is parsed directly with one regular
expression; anything else goes through the SGF reader (sgfmill) and is
rejected there if it does not parse.

Index files give the metadata of those games, one tab-separated line a game,
joined by id.  Layouts (../shared/data/README.md):

* Tom (8 fields): id, date time, white, black, komi, result, move count,
  time settings;
* Tygem (11 fields): id, date time (``C`` prefixed), white local name,
  white id, white nation, black local name, black id, black nation,
  result, move count, time settings.

Metadata uses SGF property names: ``id``, ``DT`` (YYYY-MM-DD), ``PW``,
``PB``, ``KM``, ``RE``, ``OT`` (time settings as written), and for Tygem
``PW_id``/``PB_id`` (the players' English ids).  An index holds no ranks.

An index line longer than the field limit (limits.field_kb) is ignored: no
game information is that long, so its game gets its id only.  A kifu id
that long rejects its line as ``field too long``, as a move list holding a
value that long does (the SGF reader's rule).
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future

import numpy as np
import pyarrow as pa

from joseki_miner.runs import threads
from joseki_miner.fast.arrow import column
from joseki_miner.fast.mapped import PAGE, Arena
from joseki_miner.method.points import BLACK, PASS, SIZE, WHITE
from joseki_miner.method.records import GAME_INFO, GameRecord, Move, Reject
from joseki_miner.readers import encoding
from joseki_miner.readers.sgf import FIELD_BYTES, read_sgf_bytes

_LETTERS = b"abcdefghijklmnopqrstuvwxyz"
_BLACK_MOVE: dict[bytes, Move] = {}
_WHITE_MOVE: dict[bytes, Move] = {}
for _c in range(SIZE):
    for _r in range(SIZE):
        _key = bytes((_LETTERS[_c], _LETTERS[_r]))
        _BLACK_MOVE[_key] = Move(BLACK, _r * SIZE + _c)
        _WHITE_MOVE[_key] = Move(WHITE, _r * SIZE + _c)
for _key in (b"", b"tt"):
    _BLACK_MOVE[_key] = Move(BLACK, PASS)
    _WHITE_MOVE[_key] = Move(WHITE, PASS)

# the whole move list in the plain form
_PLAIN_RE = re.compile(rb"(?:;[BW]\[(?:[a-s][a-s]|tt|)\])*")
_MOVE_RE = re.compile(rb"([BW])\[([a-t]*)\]")
# a kifu line: an id (printable ASCII, no blanks), a tab, then a node
KIFU_LINE_RE = re.compile(rb"^[^\x00-\x20\x7f-\xff;()\[\]]+\t\s*;")


def parse_moves(text: bytes) -> tuple[Move, ...] | None:
    """The moves of a plain ``;B[pd];W[dp]...`` list, or None if the text is
    anything else (the caller falls back to the SGF reader)."""
    if _PLAIN_RE.fullmatch(text) is None:
        return None
    black, white = _BLACK_MOVE, _WHITE_MOVE
    return tuple((black if colour == b"B" else white)[value] for colour, value in _MOVE_RE.findall(text))


def game_meta(ident: str, meta_for: Callable[[str], dict | None] | None) -> dict:
    """The metadata of the game ``ident``: its index line's, if any, and
    its id."""
    meta = None
    if meta_for is not None:
        try:
            meta = meta_for(ident)
        except Exception:  # noqa: BLE001 - a bad index line never loses the game
            meta = None
    meta = dict(meta) if meta else {}
    meta["id"] = ident
    return meta


def kifu_line_record(
    line: bytes,
    source: str,
    location: str,
    meta_for: Callable[[str], dict | None] | None = None,
    field_bytes: int = FIELD_BYTES,
) -> GameRecord | Reject:
    """One kifu line as a record (metadata joined by id), or a reject."""
    game_id, tab, body = line.partition(b"\t")
    if len(game_id) > field_bytes:
        return Reject(
            source,
            location,
            "field too long",
            f"kifu id of {len(game_id):,} bytes (limits.field_kb: at most {field_bytes:,})",
        )
    ident = game_id.strip().decode("utf-8", "replace")
    if not tab or not ident or any(ch in ident for ch in " ;[]()"):
        return Reject(source, location, "parse error", "not a kifu line 'id<TAB>;B[..];W[..]...'")
    body = body.strip()
    moves = parse_moves(body)
    meta = game_meta(ident, meta_for)
    if moves is not None:
        return GameRecord(source=source, location=location, moves=moves, meta=meta)
    # anything unusual: lower case, blanks, comments, setup... via sgfmill
    items = list(read_sgf_bytes(b"(" + body + b")", source, location, field_bytes=field_bytes))
    if len(items) != 1:
        return Reject(source, location, "parse error", "the move list holds more than one game tree")
    item = items[0]
    if isinstance(item, Reject):
        if item.reason == "not a game":
            return Reject(source, location, "parse error", f"bad move list: {item.detail}")
        return item
    if item.meta:
        meta = {**item.meta, **meta}
    return dataclasses.replace(item, source=source, location=location, meta=meta)


def line_location(location: str, number: int) -> str:
    return f"{location}:line {number}" if location else f"line {number}"


def read_kifu_bytes(
    data: bytes,
    source: str,
    location: str = "",
    meta_for: Callable[[str], dict | None] | None = None,
    field_bytes: int = FIELD_BYTES,
) -> Iterator[GameRecord | Reject]:
    """Every game line of a kifu file; blank lines are not games, every other
    line is one (a broken one is a ``parse error`` at its line number)."""
    data, _ = encoding.strip_bom(data)
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        yield kifu_line_record(line.rstrip(b"\r"), source, line_location(location, number), meta_for, field_bytes)


def looks_like_kifu(head: bytes) -> bool:
    """Do the first lines of ``head`` look like kifu lines?"""
    lines = [ln for ln in head.split(b"\n")[:20] if ln.strip()]
    if not lines:
        return False
    hits = sum(1 for ln in lines[:-1] or lines if KIFU_LINE_RE.match(ln))
    return hits * 2 >= len(lines[:-1] or lines) and hits > 0


# -- index files -------------------------------------------------------------

_DATE_RE = re.compile(r"(\d{4})[./-](\d{1,2})[./-](\d{1,2})")
_INDEX_LINE_RE = re.compile(rb"^\d+\t[^\t\n]*\d{4}[./-]\d{1,2}[./-]\d{1,2}[^\t\n]*\t")
_GLUED_RE = re.compile(r"^(.*\D)(\d{5,})$")


def looks_like_index(head: bytes) -> bool:
    """Do the first lines of ``head`` look like an index (id, date, ...)?"""
    lines = [ln for ln in head.split(b"\n")[:10] if ln.strip()]
    if not lines:
        return False
    return all(_INDEX_LINE_RE.match(ln) and ln.count(b"\t") >= 5 for ln in lines[:-1] or lines)


_ISO_DATE_RE = re.compile(r"[0-9]{4}-[0-9][0-9]-[0-9][0-9]")


def _date(text: str) -> str:
    if len(text) == 10 and _ISO_DATE_RE.fullmatch(text):
        return text  # already as wanted
    # the index files' own "2003.09.25 20:21" and "C2011.01.01 00:01", quickly
    day = text[1:11] if text[:1].isalpha() else text[:10]
    if (
        len(day) == 10
        and day[4] in "./-"
        and day[7] in "./-"
        and day.isascii()
        and day[:4].isdigit()
        and day[5:7].isdigit()
        and day[8:].isdigit()
    ):
        return f"{day[:4]}-{day[5:7]}-{day[8:]}"
    m = _DATE_RE.search(text)
    if not m:
        return text.strip()
    y, mo, d = m.groups()
    return f"{y}-{int(mo):02d}-{int(d):02d}"


_TYGEM_FIELDS = ((1, "DT"), (2, "PW"), (3, "PW_id"), (5, "PB"), (6, "PB_id"), (8, "RE"), (10, "OT"))
_TOM_FIELDS = ((1, "DT"), (2, "PW"), (3, "PB"), (4, "KM"), (5, "RE"), (7, "OT"))


def index_meta(fields: list[str]) -> dict[str, str]:
    """Metadata of one index line (already split on tabs)."""
    n = len(fields)
    wanted = _TYGEM_FIELDS if n >= 11 else _TOM_FIELDS if n >= 8 else ((1, "DT"),)
    meta: dict[str, str] = {}
    for i, key in wanted:
        if i < n:
            value = fields[i].strip()
            if value:
                meta[key] = _date(value) if key == "DT" else value
    return meta


def _slots(wanted: tuple[tuple[int, str], ...]) -> tuple[tuple[int, int], ...]:
    """(slot in GAME_INFO, field) of a layout's fields games.parquet keeps."""
    return tuple((GAME_INFO.index(key), i) for i, key in wanted if key in GAME_INFO)


_TYGEM_SLOTS, _TOM_SLOTS, _DATE_SLOTS = _slots(_TYGEM_FIELDS), _slots(_TOM_FIELDS), _slots(((1, "DT"),))
_DT = GAME_INFO.index("DT")
_NO_INFO = ("",) * len(GAME_INFO)


def index_info(line: str | None) -> tuple[str, ...]:
    """The GAME_INFO values ("" where missing) of one raw index line, as
    ``index_meta`` reads them: the bulk reader's columns, without a dict a
    game."""
    if line is None:
        return _NO_INFO
    fields = line.split("\t")
    n = len(fields)
    row = list(_NO_INFO)
    for slot, i in _TYGEM_SLOTS if n >= 11 else _TOM_SLOTS if n >= 8 else _DATE_SLOTS:
        if i < n:
            value = fields[i].strip()
            if value:
                row[slot] = _date(value) if slot == _DT else value
    return tuple(row)


_LINE_WIDTHS = (11, 8)  # fields of a Tygem and of a Tom index line
_GLUED_WIDTHS = tuple(2 * w - 1 for w in _LINE_WIDTHS)  # two lines run together


def _split_glued(fields: list[str]) -> list[list[str]]:
    """An index line that swallowed the next one (its newline lost): the last
    field of the first record ends with the next record's id."""
    for width in _LINE_WIDTHS:
        if len(fields) == 2 * width - 1:
            m = _GLUED_RE.match(fields[width - 1])
            if m:
                first = fields[: width - 1] + [m.group(1)]
                second = [m.group(2)] + fields[width:]
                return [first, second]
    return [fields]


_HASH_MASK = -1  # ids' hashes are and'ed with it: tests set 0 to make every id collide
_FENCE = PAGE // 8  # hashes a block of the search: a page of them
ASIDE = 2  # index texts read at once in threads of their own (the reading releases the GIL)


class _Lines:
    """The lines one index text gave a scope, compact: their UTF-8 text, each
    ended by a newline, where each starts, and their ids' hashes sorted,
    with the line of each (about 110 bytes a line, where a dict of str took
    300: a kifu dump's index is held from the pre-pass to the end of the
    run).  Built and searched compiled (``scan``); a line's id is its text
    before the first tab, stripped.

    The arrays come from an ``Arena``: past its budget they are mapped
    files, so an index as large as the games' own dump does not stay in
    memory.  A search reads a page or two of each array: a block of the
    sorted hashes (found by ``fences``, every ``_FENCE``-th hash, in memory),
    the row, its start and its text."""

    __slots__ = ("arena", "fences", "hashes", "mask", "rows", "starts", "text")

    def __init__(
        self, buf: bytes, arena: Arena | None = None, turn: threading.Event | None = None, line_bytes: int = FIELD_BYTES
    ) -> None:
        """The lines of an index's UTF-8 text ``buf``, as ``str.splitlines``
        cuts them: kept when an id and a tab begin them; two lines run
        together are split, and a line of no id or no tab is dropped
        (``_odd_line``, in Python: they are rare), as is a line longer than
        ``line_bytes`` (before it is decoded).  Given ``turn``, the arrays
        go to the arena once it is set."""
        # compiled: loaded once an index is read
        from joseki_miner.fast.scan import ident_hashes, joined_lines, text_lines

        self.arena = arena = arena if arena is not None else Arena()
        data = np.frombuffer(buf, np.uint8)
        starts, ends, odd = text_lines(data, STRIP, *_GLUED_WIDTHS)
        short = ends - starts <= line_bytes
        if not short.all():
            starts, ends, odd = starts[short], ends[short], odd[short]
        spans = np.stack([np.zeros(len(starts), np.int64), starts, ends], axis=1)
        extra = b""
        if odd.any():
            parts, pieces, at = [], [], 0
            done = 0
            for i in np.flatnonzero(odd).tolist():
                parts.append(spans[done:i])
                done = i + 1
                for line in _odd_line(buf[starts[i] : ends[i]].decode("utf-8", "surrogatepass")):
                    piece = line.encode("utf-8", "surrogatepass")
                    parts.append(np.array([[1, at, at + len(piece)]], np.int64))
                    pieces.append(piece)
                    at += len(piece)
            parts.append(spans[done:])
            spans = np.concatenate(parts)
            extra = b"".join(pieces)
        text, starts = joined_lines(data, np.frombuffer(extra, np.uint8), spans)
        del spans
        self.mask = _HASH_MASK
        hashes = ident_hashes(text, starts, STRIP, self.mask)
        rows = np.argsort(hashes, kind="stable").astype(np.int32)
        hashes = hashes[rows]
        self.fences = hashes[::_FENCE].copy()
        if turn is not None:
            turn.wait()
        self.text, self.starts = arena.keep(text), arena.keep(starts)
        self.hashes, self.rows = arena.keep(hashes), arena.keep(rows)

    def __len__(self) -> int:
        return len(self.hashes)

    def line(self, row: int) -> str:
        """The text of line ``row`` (in reading order)."""
        return self.text[self.starts[row] : self.starts[row + 1] - 1].tobytes().decode("utf-8", "surrogatepass")

    def rows_at(self, buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The row of the last line read whose id is ``buf[start[i]:end[i]]``
        (UTF-8), or -1, for each i."""
        from joseki_miner.fast.scan import find_rows

        found = find_rows(
            self.hashes, self.fences, _FENCE, self.rows, self.text, self.starts, STRIP, self.mask, buf, start, end
        )
        self.arena.touched(6 * PAGE * len(start))  # hashes, row, start, text: a page or two each
        return found

    def get(self, ident: str) -> str | None:
        """The last line read with id ``ident``, or None."""
        row = int(self.rows_at(*_packed([ident]))[0])
        return None if row < 0 else self.line(row)


def _read_index(
    data: bytes, arena: Arena | None = None, turn: threading.Event | None = None, line_bytes: int = FIELD_BYTES
) -> _Lines:
    """The lines of one index file's bytes, decoded as game files are (lines
    longer than ``line_bytes`` left out)."""
    data, bom = encoding.strip_bom(data)
    if bom is not None:
        buf = data.decode(bom, "replace").encode("utf-8", "surrogatepass")
    elif data.isascii():
        buf = data  # nothing to decode (decode would make the whole text a str to say so)
    else:
        dec = encoding.decode(data)
        if dec.text is not None and dec.encoding in ("ascii", "utf_8"):
            buf = data  # read strictly as UTF-8: the bytes are the text's already
        else:
            text = dec.text if dec.text is not None else data.decode("utf-8", "replace")
            buf = text.encode("utf-8", "surrogatepass")
    return _Lines(buf, arena, turn, line_bytes)


def _read_index_aside(
    data: bytes, arena: Arena | None, turn: threading.Event | None, done: threading.Event, line_bytes: int = FIELD_BYTES
) -> _Lines | None:
    """``_read_index``, or None for a text it cannot read; its arrays go to
    the arena after ``turn`` (the text read before it) is set, and then it
    sets ``done``: which arrays are mapped does not depend on which of the
    threads reading aside finishes first."""
    try:
        return _read_index(data, arena, turn, line_bytes)
    except Exception:  # noqa: BLE001 - as the pre-pass leaves an index it cannot read
        return None
    finally:
        done.set()


def _packed(idents: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids as one UTF-8 buffer and where each starts and ends."""
    pieces = [ident.encode("utf-8", "surrogatepass") for ident in idents]
    sizes = np.fromiter(map(len, pieces), np.int64, len(pieces))
    end = np.cumsum(sizes)
    return np.frombuffer(b"".join(pieces), np.uint8), end - sizes, end


def _odd_line(line: str) -> list[str]:
    """The lines an index keeps of a line that is not simply an id, a tab
    and the rest: none of a line of no tab or no id, and two of two lines
    run together (``_split_glued``)."""
    tabs = line.count("\t")
    if tabs and tabs + 1 not in _GLUED_WIDTHS:  # a common line of no id
        return []
    kept = []
    for fields in _split_glued(line.split("\t")):
        if fields[0].strip() and len(fields) >= 2:
            kept.append("\t".join(fields))
    return kept


class IndexStore:
    """Index lines by scope (a folder, real or inside an archive) and id.

    Lines are kept raw, compactly (``_Lines``), and turned into metadata
    only when a game asks, so a large index costs little more than its
    text.  A line read later wins over one read earlier with the same id.
    The lines' arrays come from ``arena`` (in memory if none); a line longer
    than ``line_bytes`` (limits.field_kb) is left out."""

    def __init__(self, arena: Arena | None = None, line_bytes: int = FIELD_BYTES) -> None:
        self.arena = arena
        self.line_bytes = line_bytes
        self._scopes: dict[str, list[_Lines | Future]] = {}
        self._pool: Executor | None = None
        self._turn: threading.Event | None = None  # set once the last text read aside is in the arena

    def __len__(self) -> int:
        self._settle()
        return sum(len(lines) for chunks in self._scopes.values() for lines in chunks)

    @property
    def scopes(self) -> list[str]:
        return sorted(self._scopes)

    def add(self, scope: str, data: bytes) -> int:
        """Read one index text into ``scope``; returns the lines kept."""
        lines = _read_index(data, self.arena, line_bytes=self.line_bytes)
        self._scopes.setdefault(scope, []).insert(0, lines)  # the latest first
        return len(lines)

    def add_aside(self, scope: str, data: bytes) -> None:
        """``add``, in a thread of its own (the compiled reading releases the
        GIL) while the caller goes on: the texts are waited for when first
        asked.  A text that cannot be read is left out, as the index
        pre-pass leaves out what fails (the main pass reports it)."""
        if self._pool is None:
            self._pool = threads.pool(ASIDE, "index")
        turn, self._turn = self._turn, threading.Event()
        self._scopes.setdefault(scope, []).insert(
            0, self._pool.submit(_read_index_aside, data, self.arena, turn, self._turn, self.line_bytes)
        )

    def _settle(self) -> None:
        """Wait for the texts read aside."""
        if self._pool is None:
            return
        for scope, chunks in self._scopes.items():
            done = [c.result() if isinstance(c, Future) else c for c in chunks]
            self._scopes[scope] = [c for c in done if c is not None]
        self._pool.shutdown()
        self._pool = None

    def _tables(self, path: str) -> list[_Lines]:
        """The texts whose scope holds ``path``: nearest scope first, each
        scope's latest text first."""
        self._settle()
        return [
            lines
            for s in sorted(self._scopes, key=len, reverse=True)
            if path.startswith(s.rstrip("/") + "/")
            for lines in self._scopes[s]
        ]

    def line_for(self, path: str) -> Callable[[str], str | None] | None:
        """The id -> raw index line function for games at ``path`` (virtual
        path): the indexes whose scope holds ``path`` (``_tables``)."""
        tables = self._tables(path)
        if not tables:
            return None
        if len(tables) == 1:
            return tables[0].get

        def line(ident: str) -> str | None:
            for table in tables:
                found = table.get(ident)
                if found is not None:
                    return found
            return None

        return line

    def rows_for(self, path: str) -> Callable[..., tuple[list[_Lines], np.ndarray, np.ndarray]] | None:
        """``line_for`` of many ids at once, the ids given as spans of a
        UTF-8 buffer (``_Lines.rows_at``), as places: the texts
        (``_tables``) and, per id, which of them holds its line (-1: none)
        and the line's row there."""
        tables = self._tables(path)
        if not tables:
            return None

        def rows(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[list[_Lines], np.ndarray, np.ndarray]:
            which = np.full(len(start), -1, np.int64)
            found = np.full(len(start), -1, np.int64)
            missing = np.arange(len(start))
            for t, table in enumerate(tables):
                got = table.rows_at(buf, start[missing], end[missing])
                hit = got >= 0
                which[missing[hit]] = t
                found[missing[hit]] = got[hit]
                missing = missing[~hit]
                if not len(missing):
                    break
            return tables, which, found

        return rows

    def lookup_for(self, path: str) -> Callable[[str], dict | None] | None:
        """The id -> metadata function for games at ``path`` (see ``line_for``)."""
        line_of = self.line_for(path)
        if line_of is None:
            return None

        def meta_for(ident: str) -> dict | None:
            line = line_of(ident)
            return None if line is None else index_meta(line.split("\t"))

        return meta_for


# the field of each GAME_INFO slot in a Tygem, a Tom and a date-only line (-1: none)
_INFO_LAYOUTS = np.full((3, len(GAME_INFO)), -1, np.int64)
for _layout, _slots_of in enumerate((_TYGEM_SLOTS, _TOM_SLOTS, _DATE_SLOTS)):
    for _slot, _field in _slots_of:
        _INFO_LAYOUTS[_layout, _slot] = _field
# the code points str.strip takes off; none lies beyond U+3000 (a test checks)
STRIP = np.array([chr(i).isspace() for i in range(0x3001)], dtype=np.bool_)


def info_columns(tables: list[_Lines], which: np.ndarray, rows: np.ndarray) -> dict[str, pa.StringArray]:
    """``index_info`` of the lines ``rows_for`` found ("" where none), as
    one Arrow column a GAME_INFO name, read from the texts' bytes without
    a string a game: the bulk reader's columns of a kifu unit."""
    n = len(rows)
    per_table = [
        _table_info(table, np.where(which == t, rows, -1)) for t, table in enumerate(tables) if (which == t).any()
    ] or [_table_info(None, np.full(n, -1, np.int64))]
    if len(per_table) == 1:
        return per_table[0]
    # several texts: each game's values from the text that holds its line
    used = [t for t in range(len(tables)) if (which == t).any()]
    pick = column(np.searchsorted(used, np.maximum(which, used[0])) * n + np.arange(n))
    return {m: pa.concat_arrays([c[m] for c in per_table]).take(pick) for m in GAME_INFO}


def _table_info(table: _Lines | None, rows: np.ndarray) -> dict[str, pa.StringArray]:
    """``info_columns`` of lines of one text; lines the compiled reading
    leaves to Python (``scan.index_info_spans``) are read by ``index_info``."""
    from joseki_miner.fast.scan import index_info_spans, info_arrays

    n = len(rows)
    text = table.text if table is not None else np.zeros(0, np.uint8)
    starts = table.starts if table is not None else np.zeros(1, np.int64)
    spans = np.empty((n, len(GAME_INFO), 3), np.int64)
    python = index_info_spans(text, starts, rows, _INFO_LAYOUTS, _DT, STRIP, spans)
    if table is not None:
        table.arena.touched(3 * PAGE * n)  # a line's start and text
    return info_arrays(
        text, spans, GAME_INFO, ((g, index_info(table.line(int(rows[g])))) for g in np.flatnonzero(python).tolist())
    )
