"""What the statistics read of a game's information: who won (SGF ``RE``),
when it was played (``DT``), and how sure a win rate is.

Results (``winner``): a result names a winner when it starts with ``B`` or
``W`` (either case) followed by nothing or by ``+`` and anything: ``B+R``,
``W+12.5``, ``B+T`` (time), ``B+F`` (forfeit), and the kifu dumps' forms
``W+Resign``, ``B+Time``, ``W+Offline`` (the opponent left); a win on time,
by forfeit or by a judge's decision (``B+J``, ``W+AW`` in the UEC Cup
records) is a win.  Results written in Chinese, Japanese or Korean name a
winner when they start with black (黑, 黒, 흑) or white (白, 백) and say
"win" (胜, 勝, 승).  Everything else names no winner: ``0``, ``Draw``,
``Jigo``, ``D+J``, ``Void``, ``?``, an empty result.

Dates (``year_of``, ``day_of``): the first date of ``DT`` (SGF allows a
list, ``2016-03-09,2016-03-10``), read from its start as YYYY, YYYY-MM or
YYYY-MM-DD with ``-``, ``.`` or ``/`` between; a year outside 1000-2999 or
no date at all is unknown (0).

Columns of results or dates are read a distinct value at a time (an Arrow
dictionary), so a million games with a few thousand distinct dates cost a
few thousand calls.

Knows strings; nothing of boards, tries or files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

from joseki_miner.method.points import BLACK, WHITE

_DATE = re.compile(r"\s*(\d{4})(?:[-./](\d{1,2})(?:[-./](\d{1,2}))?)?")
_BLACK_WORDS = ("黑", "黒", "흑")
_WHITE_WORDS = ("白", "백")
_WIN_WORDS = ("胜", "勝", "승")


def winner(result: str) -> int:
    """The winner a result names: BLACK, WHITE, or 0 (none)."""
    text = result.strip()
    if not text:
        return 0
    head, rest = text[0].upper(), text[1:].lstrip()
    if head in "BW" and (not rest or rest.startswith("+")):
        return BLACK if head == "B" else WHITE
    if any(w in text for w in _WIN_WORDS):
        if text.startswith(_BLACK_WORDS):
            return BLACK
        if text.startswith(_WHITE_WORDS):
            return WHITE
    return 0


def day_of(date: str) -> int:
    """The first date of a DT value as YYYYMMDD (a missing month or day is
    00), 0 when unknown."""
    m = _DATE.match(date)
    if not m:
        return 0
    year = int(m.group(1))
    if not 1000 <= year <= 2999:
        return 0
    month = int(m.group(2) or 0)
    day = int(m.group(3) or 0)
    if not 0 <= month <= 12 or not 0 <= day <= 31:
        month = day = 0
    return year * 10000 + month * 100 + day


def date_text(date: str) -> str:
    """A DT value's first date in one form, ISO's: 2017-08-14 (2017-08,
    2017 where the day or month is not given) for "2017.08.14 03:23" and
    "2017-08-14"; the text as it is where it holds no date."""
    day = day_of(date)
    if not day:
        return date.strip()
    year, month, d = day // 10000, day // 100 % 100, day % 100
    return f"{year:04d}" + (f"-{month:02d}" if month else "") + (f"-{d:02d}" if month and d else "")


def year_of(date: str) -> int:
    """The year of the first date of a DT value, 0 when unknown."""
    return day_of(date) // 10000


def _by_value(values: pa.Array | pa.ChunkedArray | Sequence[str], read: Callable[[str], int], dtype) -> np.ndarray:
    """``read`` of every value of a column, called once a distinct value."""
    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        distinct: dict[str, int] = {}
        for v in values:
            if v not in distinct:
                distinct[v] = read(v)
        return np.fromiter((distinct[v] for v in values), dtype=dtype, count=len(values))
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    encoded = values.dictionary_encode()
    table = np.array([read(v or "") for v in encoded.dictionary.to_pylist()], dtype=dtype)
    index = encoded.indices
    rows = np.frombuffer(index.buffers()[1], np.int32, count=len(index), offset=index.offset * 4)
    return table[rows] if len(table) else np.zeros(len(values), dtype)


def winners(results) -> np.ndarray:
    """``winner`` of each result of a column (int8)."""
    return _by_value(results, winner, np.int8)


def years(dates) -> np.ndarray:
    """``year_of`` each date of a column (int16)."""
    return _by_value(dates, year_of, np.int16)


def days(dates) -> np.ndarray:
    """``day_of`` each date of a column (int32)."""
    return _by_value(dates, day_of, np.int32)


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default): it stays
    inside [0, 1] and is honest for few games, where the plain
    ``p ± z·sqrt(p(1-p)/n)`` is not."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def date_span(day: np.ndarray, span: list[int]) -> list[int]:
    """``span`` (the first and last date, YYYYMMDD; 0: none known) widened
    to the games of ``day``: the report names the games' dates from the
    ingest stage's figures, not from every game again."""
    known = day[day > 0]
    if not len(known):
        return list(span)
    first, last = int(known.min()), int(known.max())
    return [min(first, span[0]) if span[0] else first, max(last, span[1])]
