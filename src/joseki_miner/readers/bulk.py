"""Bulk reading: the same games as ``read_paths``, as batches of flat arrays.

``read_batches`` walks paths, archives and index files exactly as
``read_paths`` does, but hands each text unit (a file or an archive member)
to the compiled scanners (``scan``) when it is plain, and turns it into one
``GameBatch``: per game its source, location, metadata and status, and the
moves and setup stones of all games as flat integer arrays.  A unit the
scanners do not fully understand is read by the Python readers and its
records are packed into the same batch form, so the result is the same
games, in the same order, with the same locations, metadata and rejects.

Knows file formats and arrays; nothing of the method.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from ..records import GameRecord, Reject, handicap_of
from . import _Reader, encoding, existing_files
from .kifu import kifu_line_record, line_location
from .scan import OK, _WS, scan_kifu, scan_sgf
from .sgf import _game_location, _text, canonical_identifier, to_utf8

_NONE = np.zeros(0, np.int16)
_PROPERTY_RE = re.compile(rb"([A-Za-z]+)\s*\[([^\\\]]*(?:\\.[^\\\]]*)*)\]", re.DOTALL)
# only what games.parquet keeps (ingest.META) is decoded
_WANTED = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM")


@dataclass
class GameBatch:
    """Games of one text unit (or of a few records), in reading order."""

    source: list[str] = field(default_factory=list)
    location: list[str] = field(default_factory=list)
    meta: list[dict] = field(default_factory=list)
    reject: list[tuple[str, str] | None] = field(default_factory=list)  # reader's (reason, detail)
    size: list[int] = field(default_factory=list)
    handicap: list[int] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)
    colours: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    points: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    move_offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    # setup stones: each game's black ones (sorted) then its white ones (sorted)
    setup_colours: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    setup_points: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    setup_offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))

    def __len__(self) -> int:
        return len(self.source)


def batch_of_items(items: Iterable[GameRecord | Reject]) -> GameBatch:
    """Records and rejects from the Python readers, packed as a batch."""
    b = GameBatch()
    colours, points, moff = [], [], [0]
    scol, spts, soff = [], [], [0]
    for item in items:
        b.source.append(item.source)
        b.location.append(item.location)
        if isinstance(item, Reject):
            b.meta.append({})
            b.reject.append((item.reason, item.detail))
            b.size.append(19)
            b.handicap.append(0)
            b.events.append(())
        else:
            b.meta.append(item.meta)
            b.reject.append(None)
            b.size.append(item.size)
            b.handicap.append(item.handicap)
            b.events.append(item.setup_events)
            for m in item.moves:
                colours.append(m.colour)
                points.append(m.point)
            scol.extend([-1] * len(item.setup_black) + [1] * len(item.setup_white))
            spts.extend(item.setup_black + item.setup_white)
        moff.append(len(points))
        soff.append(len(spts))
    b.colours = np.array(colours, dtype=np.int8)
    b.points = np.array(points, dtype=np.int16)
    b.move_offsets = np.array(moff, dtype=np.int64)
    b.setup_colours = np.array(scol, dtype=np.int8)
    b.setup_points = np.array(spts, dtype=np.int16)
    b.setup_offsets = np.array(soff, dtype=np.int64)
    return b


def _root_meta(root: bytes) -> dict | None:
    """Game-info of a plain root node (None when the Python reader must decide)."""
    props: dict[str, bytes] = {}
    for m in _PROPERTY_RE.finditer(root):
        raw = m.group(1)
        ident = raw.decode("ascii") if len(raw) <= 2 and raw.isupper() else canonical_identifier(raw.decode("ascii"))
        if ident not in props:
            props[ident] = m.group(2)
    gm = props.get("GM")
    if gm is not None and gm.strip() not in (b"1", b""):
        return None
    for key in ("SZ", "HA"):
        value = props.get(key)
        if value is not None and not value.strip().isdigit():
            return None
    meta = {}
    for prop in _WANTED:
        value = props.get(prop)
        if value is not None:
            text = _text(value)
            if text:
                meta[prop] = text
    return meta


class _BulkReader(_Reader):
    def _read_text(self, kind, data, source, location, vpath):  # noqa: D102 - see _Reader
        if kind == "sgf":
            batch = self._sgf_batch(data, source, location)
        elif kind == "kifu":
            batch = self._kifu_batch(data, source, location, vpath)
        else:
            batch = None
        if batch is None:
            batch = batch_of_items(super()._read_text(kind, data, source, location, vpath))
        yield batch

    def _sgf_batch(self, data: bytes, source: str, location: str) -> GameBatch | None:
        """All trees of a clean, plain SGF text, or None (read it in Python)."""
        if data.isascii():  # nothing to decode; the scanner refuses long identifiers
            buf = data
        else:
            buf, bad = to_utf8(data, fallback=self.fallback)
            if bad:
                return None
        arr = np.frombuffer(buf, dtype=np.uint8)
        (unit, start, end, root_end, size, ha, status, moff, soff, mcol, mpt, scol, spt) = scan_sgf(
            arr, np.zeros(1, np.int64), np.array([len(arr)], np.int64), _WS
        )
        n = len(start)
        if n == 0 or (status != OK).any():
            return None
        # only blanks may stand outside the trees
        gaps = [buf[:start[0]]] + [buf[end[k]:start[k + 1]] for k in range(n - 1)] + [buf[end[-1]:]]
        if any(g.strip() for g in gaps):
            return None
        b = GameBatch()
        for k in range(n):
            meta = _root_meta(buf[start[k]:root_end[k]])
            if meta is None:
                return None
            if soff[k] == soff[k + 1]:
                black = white = _NONE
            else:
                black = np.unique(spt[soff[k]:soff[k + 1]][scol[soff[k]:soff[k + 1]] < 0])
                white = np.unique(spt[soff[k]:soff[k + 1]][scol[soff[k]:soff[k + 1]] > 0])
            h = handicap_of(int(ha[k]), len(black), len(white))
            b.source.append(source)
            b.location.append(location if n == 1 else _game_location(location, k + 1))
            b.meta.append(meta)
            b.reject.append(None)
            b.size.append(int(size[k]))
            b.handicap.append(h)
            b.events.append(())
            if len(black) or len(white):
                b.setup_points = np.concatenate([b.setup_points, black, white]).astype(np.int16)
                b.setup_colours = np.concatenate(
                    [b.setup_colours, np.full(len(black), -1, np.int8), np.full(len(white), 1, np.int8)]
                )
        b.colours, b.points, b.move_offsets = mcol, mpt, moff
        b.setup_offsets = _setup_offsets(spt, scol, soff) if len(spt) else np.zeros(n + 1, np.int64)
        return b

    def _kifu_batch(self, data: bytes, source: str, location: str, vpath: str) -> GameBatch:
        data, _ = encoding.strip_bom(data)
        meta_for = self.index.lookup_for(vpath)
        arr = np.frombuffer(data, dtype=np.uint8)
        l_start, l_end, l_number, l_status, l_moff, mcol, mpt = scan_kifu(arr, 0, len(arr), _WS)
        b = GameBatch()
        colours, points, moff = [], [], [0]
        for k in range(len(l_start)):
            where = line_location(location, int(l_number[k]))
            a, e = int(l_start[k]), int(l_end[k])
            if l_status[k] != OK:
                item = kifu_line_record(data[a:e], source, where, meta_for)
                one = batch_of_items([item])
                b.source.append(source)
                b.location.append(where)
                b.meta.append(one.meta[0])
                b.reject.append(one.reject[0])
                b.size.append(one.size[0])
                b.handicap.append(one.handicap[0])
                b.events.append(one.events[0])
                colours.append(one.colours)
                points.append(one.points)
                if len(one.setup_points):
                    return None  # setup stones in a kifu line: read the unit in Python
            else:
                ident = data[a:data.index(b"\t", a, e)].decode("ascii")
                meta = None
                if meta_for is not None:
                    try:
                        meta = meta_for(ident)
                    except Exception:  # noqa: BLE001 - as kifu_line_record
                        meta = None
                meta = dict(meta) if meta else {}
                meta["id"] = ident
                b.source.append(source)
                b.location.append(where)
                b.meta.append(meta)
                b.reject.append(None)
                b.size.append(19)
                b.handicap.append(0)
                b.events.append(())
                colours.append(mcol[l_moff[k]:l_moff[k + 1]])
                points.append(mpt[l_moff[k]:l_moff[k + 1]])
            moff.append(moff[-1] + len(points[-1]))
        b.colours = np.concatenate(colours).astype(np.int8) if colours else np.zeros(0, np.int8)
        b.points = np.concatenate(points).astype(np.int16) if points else np.zeros(0, np.int16)
        b.move_offsets = np.array(moff, dtype=np.int64)
        b.setup_offsets = np.zeros(len(b) + 1, dtype=np.int64)
        return b

    def read_file(self, path):  # noqa: D102 - records outside text units come as batches too
        for item in super().read_file(path):
            yield item if isinstance(item, GameBatch) else batch_of_items([item])


def _setup_offsets(spt, scol, soff) -> np.ndarray:
    """Offsets of each game's setup stones once duplicates are dropped."""
    counts = [len(np.unique(spt[soff[k]:soff[k + 1]][scol[soff[k]:soff[k + 1]] < 0]))
              + len(np.unique(spt[soff[k]:soff[k + 1]][scol[soff[k]:soff[k + 1]] > 0]))
              for k in range(len(soff) - 1)]
    return np.r_[0, np.cumsum(counts)].astype(np.int64)


def concat(batches: list[GameBatch]) -> GameBatch:
    """One batch of several, games in the same order."""
    if len(batches) == 1:
        return batches[0]
    out = GameBatch()
    for name in ("source", "location", "meta", "reject", "size", "handicap", "events"):
        setattr(out, name, [x for b in batches for x in getattr(b, name)])
    for name in ("colours", "points", "setup_colours", "setup_points"):
        setattr(out, name, np.concatenate([getattr(b, name) for b in batches]))
    for name in ("move_offsets", "setup_offsets"):
        parts, base = [np.zeros(1, np.int64)], 0
        for b in batches:
            offsets = getattr(b, name)
            parts.append(offsets[1:] + base)
            base += int(offsets[-1])
        setattr(out, name, np.concatenate(parts).astype(np.int64))
    return out


def read_batches(
    paths: Iterable[str | os.PathLike], *, encoding_fallback: bool = True, games: int = 4096, on_skip=None
) -> Iterator[GameBatch]:
    """Every game under ``paths`` as ``read_paths`` gives them, in batches
    of about ``games`` games (small files are gathered together)."""
    files = existing_files(paths)
    reader = _BulkReader(encoding_fallback, on_skip)
    reader.load_indexes(files)
    pending: list[GameBatch] = []
    count = 0
    for f in files:
        for batch in reader.read_file(f):
            if len(batch) >= games and not pending:
                yield batch
                continue
            pending.append(batch)
            count += len(batch)
            if count >= games:
                yield concat(pending)
                pending, count = [], 0
    if pending:
        yield concat(pending)


def events_json(events: tuple) -> str:
    """games.parquet's setup_events text of a game's setup events."""
    return json.dumps(events) if events else ""
