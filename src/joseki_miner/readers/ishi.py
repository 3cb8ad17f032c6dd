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


def _parse(lines: list[str], field_bytes: int = FIELD_BYTES) -> list[_Event]:
    events: list[_Event] = []
    cur: _Event | None = None
    block = ""  # "COM" or "USER" while inside a block
    block_line = 0
    broken_blocks: set[int] = set()
    skip_to_event = False
    depth = 0
    in_diagram = False
    i = 0
    n = len(lines)

    def event() -> _Event:
        nonlocal cur
        if cur is None:
            cur = _Event(number=len(events) + 1, line=i + 1)
            events.append(cur)
        return cur

    while True:
        if i >= n:
            if not block:
                break
            # a block never closed: it spoils its event; resume after it
            event().fail(block_line + 1, f"{block} without END{block}")
            broken_blocks.add(block_line)
            i = block_line + 1
            block = ""
            skip_to_event = True
            continue
        raw = lines[i]
        words = raw.split()
        if not words:
            i += 1
            continue
        kw = words[0].upper()
        if block:
            if kw == "END" + block:
                block = ""
            i += 1
            continue
        if skip_to_event and kw not in ("EVENT", "GAME"):
            i += 1
            continue
        skip_to_event = False
        rest = raw.strip()[len(words[0]) :].strip()
        if kw in ("COM", "USER"):
            if i in broken_blocks:
                skip_to_event = True
            else:
                block, block_line = kw, i
            i += 1
            continue
        if kw in ("EVENT", "GAME"):
            cur = _Event(number=len(events) + 1, line=i + 1)
            events.append(cur)
            if _longer(rest, field_bytes):
                cur.too_long = (
                    f"line {i + 1}: {kw} of {_longer(rest, field_bytes):,} bytes "
                    f"(limits.field_kb: at most {field_bytes:,})"
                )
            elif rest:
                cur.meta["EV"] = rest
            depth, in_diagram = 0, False
            i += 1
            continue
        if kw == "REMARK":
            i += 1
            continue
        if depth > 0:  # inside a variation: only its nesting matters
            if kw == "VAR":
                depth += 1
            elif kw == "ENDVAR":
                depth -= 1
            i += 1
            continue
        line_no = i + 1
        i += 1
        if kw == "VAR":
            depth, in_diagram = 1, False
            if cur is None or not cur.moves:
                event().fail(line_no, "VAR before any move")
            continue
        if kw == "ENDVAR":
            event().fail(line_no, "ENDVAR without VAR")
            continue
        if kw in HEADERS:
            key = HEADERS[kw]
            ev = event()
            if _longer(rest, field_bytes):
                if not ev.too_long:
                    ev.too_long = (
                        f"line {line_no}: {kw} of {_longer(rest, field_bytes):,} bytes "
                        f"(limits.field_kb: at most {field_bytes:,})"
                    )
                continue
            if key in TEXTUAL and ev.meta.get(key):
                if rest:
                    ev.meta[key] += " " + rest
            elif rest:
                ev.meta[key] = rest
            continue
        if kw == "BOARDSIZE":
            ev = event()
            if not re.fullmatch(r"\d+", rest.split()[0] if rest else ""):
                ev.fail(line_no, f"bad BOARDSIZE line {raw.strip()!r}")
            else:
                ev.size_text = rest
            continue
        if kw == "DIAGRAM":
            in_diagram = True
            continue
        if kw == "SETUP":
            ev = event()
            if in_diagram:
                continue
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
            continue
        if kw in ("B", "W"):
            ev = event()
            in_diagram = False
            if len(words) != 3:
                ev.fail(line_no, f"a move line is '{kw} <n> <loc|PASS>': {raw.strip()!r}")
                continue
            if not words[1].isdigit() or int(words[1]) <= 0:
                ev.fail(line_no, f"bad move number {words[1]!r}")
                continue
            ev.moves.append((BLACK if kw == "B" else WHITE, words[2], line_no))
            continue
        # MARK, UNMARK, PRISONER, HIDE, ENDCOM/ENDUSER strays, unknown words
    return events


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
