"""The Ishi "Standard Format for Go Data Files" (D. Fotland, 17 March 1990).

Line oriented and keyword driven, keywords in any case.  Each event (a game,
a problem, a joseki...) becomes one record:

* ``EVENT [title]`` starts an event (``GAME`` is taken as a synonym); data
  before the first ``EVENT`` belongs to an implicit first event (remarks
  alone do not make one);
* header keywords go into ``meta`` with SGF names: BLACK -> PB, WHITE -> PW,
  DATE -> DT, KOMI -> KM, RESULT -> RE, PLACE -> PC, SOURCE -> SO,
  RULES -> RU, ANALYSIS -> AN, RECORDER -> US, TIMELIMIT -> TM,
  HANDICAP -> HA, the event title -> EV; textual ones (SOURCE, PLACE,
  ANALYSIS, RECORDER, DATE) add up over repeated lines, the others keep the
  last line;
* ``BOARDSIZE n`` (default 19): any other size is rejected as ``not 19x19``;
* ``SETUP [B|W loc...]...`` gives the setup stones (those after a
  ``DIAGRAM`` belong to the diagram and are ignored);
* ``B n loc|PASS`` / ``W n loc|PASS``: locations are a letter (a..t without
  i) and a row counted from the bottom, e.g. ``Q16``;
* ``VAR`` ... ``ENDVAR`` (nested) are variations: skipped, main line kept;
* ``COM``/``ENDCOM`` and ``USER``/``ENDUSER`` blocks are skipped whatever
  their lines hold; a block never closed spoils its event only: reading
  resumes at the next ``EVENT`` line after it;
* ``REMARK``, ``MARK``, ``UNMARK``, ``PRISONER``, ``HIDE``, ``DIAGRAM`` and
  unknown keywords carry nothing a record needs.

A malformed ``B``/``W``/``SETUP``/``BOARDSIZE`` line, a stray ``ENDVAR`` or
the letter I in a location make the event a ``parse error``; a location
outside the board is ``move off the board``; a header (or an ``EVENT``
title) longer than the field limit (limits.field_kb) is ``field too long``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from joseki_miner.method.points import BLACK, PASS, SIZE, WHITE
from joseki_miner.method.records import GameRecord, Move, RecordError, Reject, declared_handicap, game_record
from joseki_miner.readers import encoding
from joseki_miner.readers.sgf import FIELD_BYTES

HEADERS = {
    "BLACK": "PB",
    "WHITE": "PW",
    "DATE": "DT",
    "KOMI": "KM",
    "RESULT": "RE",
    "PLACE": "PC",
    "SOURCE": "SO",
    "RULES": "RU",
    "ANALYSIS": "AN",
    "RECORDER": "US",
    "TIMELIMIT": "TM",
    "HANDICAP": "HA",
}
TEXTUAL = {"SO", "PC", "AN", "US", "DT"}
KEYWORDS = set(HEADERS) | {
    "B",
    "W",
    "BOARDSIZE",
    "COM",
    "ENDCOM",
    "DIAGRAM",
    "ENDUSER",
    "ENDVAR",
    "EVENT",
    "GAME",
    "HIDE",
    "MARK",
    "PRISONER",
    "REMARK",
    "SETUP",
    "UNMARK",
    "USER",
    "VAR",
}
_COLUMNS = "abcdefghjklmnopqrstuvwxyz"  # no i
_LOC_RE = re.compile(r"([a-z])(\d{1,3})")
_MOVE_LINE_RE = re.compile(r"^\s*[bw]\s+\d+\s+([a-z]\d{1,2}|pass)\s*$", re.IGNORECASE)


@dataclass
class _Event:
    number: int
    line: int
    meta: dict[str, str] = field(default_factory=dict)
    size_text: str = ""
    setup: list[tuple[int, str, int]] = field(default_factory=list)  # colour, loc, line
    moves: list[tuple[int, str, int]] = field(default_factory=list)
    late_setup: list[tuple[int, int, str, int]] = field(default_factory=list)  # at, colour, loc, line
    error: str = ""
    too_long: str = ""  # the first header past the field limit

    def fail(self, line: int, what: str) -> None:
        if not self.error:
            self.error = f"line {line}: {what}"


def _location(loc: str, size: int) -> int:
    low = loc.lower()
    if low == "pass":
        return PASS
    m = _LOC_RE.fullmatch(low)
    if not m:
        raise RecordError("parse error", f"bad location {loc!r}")
    letter, row = m.group(1), int(m.group(2))
    if letter == "i":
        raise RecordError("parse error", f"location {loc!r} uses the letter I, which the format skips")
    col = _COLUMNS.index(letter)
    if col >= size or not 1 <= row <= size:
        raise RecordError("move off the board", f"{loc} on {size}x{size}")
    return (size - row) * SIZE + col


def _record(ev: _Event, source: str, location: str) -> GameRecord | Reject:
    if ev.too_long:
        return Reject(source, location, "field too long", ev.too_long)
    size = SIZE
    if ev.size_text:
        try:
            size = int(ev.size_text.split()[0])
        except (ValueError, IndexError):
            return Reject(source, location, "parse error", f"bad BOARDSIZE {ev.size_text!r}")
    if size != SIZE:
        return Reject(source, location, "not 19x19", f"BOARDSIZE {size}")
    if ev.error:
        return Reject(source, location, "parse error", ev.error)
    black: list[int] = []
    white: list[int] = []
    moves: list[Move] = []
    events: list[tuple[int, int, int]] = []
    line = ev.line
    try:
        for colour, loc, line in ev.setup:
            p = _location(loc, size)
            if p == PASS:
                raise RecordError("parse error", "PASS is not a setup stone")
            (black if colour == BLACK else white).append(p)
        for colour, loc, line in ev.moves:
            moves.append(Move(colour, _location(loc, size)))
        for at, colour, loc, line in ev.late_setup:
            p = _location(loc, size)
            if p == PASS:
                raise RecordError("parse error", "PASS is not a setup stone")
            events.append((at, colour, p))
    except RecordError as exc:
        return Reject(source, location, exc.reason, f"line {line}: {exc.detail}")
    words = ev.meta.get("HA", "0").split()
    declared = declared_handicap(words[0]) if words else 0
    return game_record(source, location, size, declared, (black, white), moves, events, dict(ev.meta))


def _longer(text: str, limit: int) -> int:
    """The UTF-8 size of ``text`` when it is more than ``limit`` bytes, else 0."""
    if len(text) <= limit // 4:  # four bytes a character at most
        return 0
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else 0


class _Reader:
    """The events of an Ishi text read line by line: where reading is (the
    line, the event, a COM or USER block, the depth of variations, a
    diagram) and what is skipped (the rest of an event whose block never
    closed).  A keyword's line goes to the method that reads it."""

    def __init__(self, lines: list[str], field_bytes: int) -> None:
        self.lines = lines
        self.field_bytes = field_bytes
        self.events: list[_Event] = []
        self.cur: _Event | None = None
        self.i = 0  # the line read
        self.block = ""  # "COM" or "USER" while inside a block
        self.block_line = 0
        self.broken_blocks: set[int] = set()
        self.skip_to_event = False
        self.depth = 0  # of variations, the main line at 0
        self.in_diagram = False

    def read(self) -> list[_Event]:
        """Every event of the text, in order."""
        while self.i < len(self.lines) or self.block:
            if self.i < len(self.lines):
                self._line(self.lines[self.i])
            else:
                self._resume_after_block()
        return self.events

    def event(self) -> _Event:
        """The event being read; the implicit first one where none began."""
        if self.cur is None:
            self.cur = _Event(number=len(self.events) + 1, line=self.i + 1)
            self.events.append(self.cur)
        return self.cur

    def _resume_after_block(self) -> None:
        """A block never closed: it spoils its event, and reading resumes
        on the line after it, skipping to the next event."""
        self.event().fail(self.block_line + 1, f"{self.block} without END{self.block}")
        self.broken_blocks.add(self.block_line)
        self.i = self.block_line + 1
        self.block = ""
        self.skip_to_event = True

    def _line(self, raw: str) -> None:
        words = raw.split()
        if not words:
            self.i += 1
            return
        kw = words[0].upper()
        if self._passed(kw):
            self.i += 1
            return
        rest = raw.strip()[len(words[0]) :].strip()
        if self._framing(kw, rest):
            self.i += 1
            return
        line_no = self.i + 1
        self.i += 1  # before the line is read: an implicit event it begins notes the next line, as ever
        if kw in ("VAR", "ENDVAR"):
            self._variation(kw, line_no)
        elif kw in HEADERS:
            self._header(kw, rest, line_no)
        elif kw == "BOARDSIZE":
            self._board_size(rest, raw, line_no)
        elif kw == "DIAGRAM":
            self.in_diagram = True
        elif kw == "SETUP":
            self._setup(words, line_no)
        elif kw in ("B", "W"):
            self._move(kw, words, raw, line_no)
        # MARK, UNMARK, PRISONER, HIDE, ENDCOM/ENDUSER strays, unknown words

    def _passed(self, kw: str) -> bool:
        """Is a line of keyword ``kw`` read past: inside a COM or USER block
        (its END closes it), or before the next event after a block never
        closed?"""
        if self.block:
            if kw == "END" + self.block:
                self.block = ""
            return True
        if self.skip_to_event and kw not in ("EVENT", "GAME"):
            return True
        self.skip_to_event = False
        return False

    def _framing(self, kw: str, rest: str) -> bool:
        """Read a line that frames the moves (a block's start, an event's
        start, a remark, any line inside a variation): True if it was one."""
        if kw in ("COM", "USER"):
            if self.i in self.broken_blocks:
                self.skip_to_event = True
            else:
                self.block, self.block_line = kw, self.i
        elif kw in ("EVENT", "GAME"):
            self._begin(kw, rest)
        elif kw == "REMARK":
            pass
        elif self.depth > 0:  # inside a variation: only its nesting matters
            if kw == "VAR":
                self.depth += 1
            elif kw == "ENDVAR":
                self.depth -= 1
        else:
            return False
        return True

    def _begin(self, kw: str, rest: str) -> None:
        """An ``EVENT`` (or ``GAME``) line: a new event, titled by the rest."""
        self.cur = _Event(number=len(self.events) + 1, line=self.i + 1)
        self.events.append(self.cur)
        too_long = self._too_long(kw, rest, self.i + 1)
        if too_long:
            self.cur.too_long = too_long
        elif rest:
            self.cur.meta["EV"] = rest
        self.depth, self.in_diagram = 0, False

    def _too_long(self, kw: str, rest: str, line_no: int) -> str:
        """Why a header (or title) past the field limit spoils its event; "" within it."""
        size = _longer(rest, self.field_bytes)
        if not size:
            return ""
        return f"line {line_no}: {kw} of {size:,} bytes (limits.field_kb: at most {self.field_bytes:,})"

    def _variation(self, kw: str, line_no: int) -> None:
        """A ``VAR`` on the main line begins a variation (after a move only);
        an ``ENDVAR`` there closes none."""
        if kw == "VAR":
            self.depth, self.in_diagram = 1, False
            if self.cur is None or not self.cur.moves:
                self.event().fail(line_no, "VAR before any move")
        else:
            self.event().fail(line_no, "ENDVAR without VAR")

    def _header(self, kw: str, rest: str, line_no: int) -> None:
        """A header line: textual headers add up, the others keep the last."""
        key = HEADERS[kw]
        ev = self.event()
        too_long = self._too_long(kw, rest, line_no)
        if too_long:
            if not ev.too_long:
                ev.too_long = too_long
            return
        if key in TEXTUAL and ev.meta.get(key):
            if rest:
                ev.meta[key] += " " + rest
        elif rest:
            ev.meta[key] = rest

    def _board_size(self, rest: str, raw: str, line_no: int) -> None:
        """A ``BOARDSIZE`` line, kept as written (``_record`` judges the size)."""
        ev = self.event()
        if not re.fullmatch(r"\d+", rest.split()[0] if rest else ""):
            ev.fail(line_no, f"bad BOARDSIZE line {raw.strip()!r}")
        else:
            ev.size_text = rest

    def _setup(self, words: list[str], line_no: int) -> None:
        """A ``SETUP`` line's stones, each after its colour: the game's setup
        before its first move, placed among its moves after one, ignored
        in a diagram."""
        ev = self.event()
        if self.in_diagram:
            return
        colour = None
        for word in words[1:]:
            up = word.upper()
            if up in ("B", "W"):
                colour = BLACK if up == "B" else WHITE
            elif colour is None:
                ev.fail(line_no, f"SETUP location {word!r} before B or W")
                break
            elif ev.moves:
                ev.late_setup.append((len(ev.moves), colour, word, line_no))
            else:
                ev.setup.append((colour, word, line_no))

    def _move(self, kw: str, words: list[str], raw: str, line_no: int) -> None:
        """A ``B n loc`` or ``W n loc`` line: a move of the main line (it ends a diagram)."""
        ev = self.event()
        self.in_diagram = False
        if len(words) != 3:
            ev.fail(line_no, f"a move line is '{kw} <n> <loc|PASS>': {raw.strip()!r}")
        elif not words[1].isdigit() or int(words[1]) <= 0:
            ev.fail(line_no, f"bad move number {words[1]!r}")
        else:
            ev.moves.append((BLACK if kw == "B" else WHITE, words[2], line_no))


def _parse(lines: list[str], field_bytes: int = FIELD_BYTES) -> list[_Event]:
    """The events of an Ishi text's lines (``_Reader``)."""
    return _Reader(lines, field_bytes).read()


def read_ishi_bytes(
    data: bytes, source: str, location: str = "", *, encoding_fallback: bool = True, field_bytes: int = FIELD_BYTES
) -> Iterator[GameRecord | Reject]:
    """Every event of an Ishi Standard Format text (a header longer than
    ``field_bytes`` makes its event ``field too long``)."""
    data, bom = encoding.strip_bom(data)
    dec = encoding.decode(data, None, fallback=encoding_fallback) if bom is None else None
    text = data.decode(bom, "replace") if bom is not None else (dec.text or data.decode("latin-1"))
    try:
        events = _parse(text.splitlines(), field_bytes)
    except Exception as exc:  # noqa: BLE001 - a reader never raises
        yield Reject(source, location, "parse error", f"internal error: {exc!r}")
        return
    if not events:
        yield Reject(source, location, "not a game", "no event in the Ishi file")
        return
    single = len(events) == 1
    for ev in events:
        loc = location if single else (f"{location}:event {ev.number}" if location else f"event {ev.number}")
        try:
            yield _record(ev, source, loc)
        except Exception as exc:  # noqa: BLE001
            yield Reject(source, loc, "parse error", f"internal error: {exc!r}")


def looks_like_ishi(head: bytes) -> bool:
    """Do the first keyword lines of ``head`` read as the Ishi format?"""
    try:
        text = head.decode("latin-1")
    except Exception:  # noqa: BLE001
        return False
    lines = text.splitlines()
    if len(head) >= 4096 and len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut
    known = total = 0
    strong = False
    block = ""
    for line in lines:
        words = line.split()
        if not words:
            continue
        kw = words[0].upper()
        if block:
            if kw == "END" + block:
                block = ""
            continue
        total += 1
        if kw in KEYWORDS:
            known += 1
            if kw in ("COM", "USER"):
                block = kw
            if kw in ("EVENT", "GAME", "SETUP", "BOARDSIZE") or _MOVE_LINE_RE.match(line):
                strong = True
        if total >= 60:
            break
    return strong and known * 5 >= total * 4
