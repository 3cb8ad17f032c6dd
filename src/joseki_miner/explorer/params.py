"""The explorer's query parameters, checked once, here: the moves, the
filters of a selection (and of a second one, the same keys prefixed
``b_``), a page of games, a position's stones.  Each failure is an
``Asked`` error, one line that says what would do (the server answers it
with a 400).

Knows the index's names (collections, players); nothing of HTTP."""

from __future__ import annotations

import re
from collections.abc import Mapping

from joseki_miner.book.lookup import Query, SequenceError, board_point, query
from joseki_miner.explorer.index import Index, Selection, empty_corner
from joseki_miner.runs.asked import check_sources, nearest
from joseki_miner.runs.errors import JosekiError, UsageError
from joseki_miner.runs.inputs import Filters
from joseki_miner.runs.ranks import rank_value

LONGEST = 2_000  # characters of one parameter
MOST_MOVES = 60  # moves of a corner sequence asked for
MOST_GAMES = 500  # games of one page
FILTER_KEYS = ("years", "collections", "player", "color", "min_rank", "result")
KNOWN = {
    "explore": ("moves", *FILTER_KEYS, *(f"b_{k}" for k in FILTER_KEYS)),
    "games": ("moves", *FILTER_KEYS, "limit", "offset"),
    "game": ("moves",),
    "trend": ("moves", *FILTER_KEYS),
    "position": ("black", "white", "to_play", *FILTER_KEYS),
    "practice_reply": ("moves", "seed", *FILTER_KEYS),
    "practice_move": ("moves", "move", *FILTER_KEYS),
    "none": (),
}
_YEARS = re.compile(r"(\d{4})(?:\s*-\s*(\d{4}))?")


class Asked(JosekiError):
    """A query the explorer cannot answer as asked; the message says why."""


def checked(params: Mapping[str, str], endpoint: str) -> dict[str, str]:
    """The parameters, each known to the endpoint, given once and of a sane length."""
    known = KNOWN[endpoint]
    out: dict[str, str] = {}
    for name, value in params.items():
        if len(name) > 40 or name not in known:
            shown = name[:40] + ("..." if len(name) > 40 else "")
            raise Asked(f"unknown parameter {shown!r}" + (f" (known: {', '.join(known)})" if known else ""))
        if len(value) > LONGEST:
            raise Asked(f"{name} is {len(value):,} characters long: at most {LONGEST:,}")
        out[name] = value
    return out


def moves(text: str) -> Query:
    """``moves=Q16,R14,tenuki``: a sequence in board points, Black first; empty, the empty corner."""
    words = [w for w in re.split(r"[,\s]+", text.strip()) if w]
    if not words:
        return empty_corner()
    if len(words) > MOST_MOVES:
        raise Asked(f"{len(words)} moves: a corner sequence here has at most {MOST_MOVES}")
    for w in words:
        if w.lower() not in ("tenuki", "pass"):
            try:
                board_point(w)
            except SequenceError as exc:
                raise Asked(str(exc).replace(" or SGF B[pd];W[qc]", "")) from None
    try:
        return query(" ".join(w.lower() if w.lower() in ("tenuki", "pass") else w for w in words), checked=False)
    except SequenceError as exc:
        raise Asked(str(exc)) from None


def selection(params: Mapping[str, str], index: Index, prefix: str = "") -> Selection:
    """The games the filters (``years``, ``collections``, ``player`` with
    ``color``, ``min_rank``, ``result``; each ``prefix``ed) select."""

    def get(name: str) -> str | None:
        value = params.get(prefix + name)
        return value.strip() if value is not None and value.strip() else None

    years = None
    if (text := get("years")) is not None:
        m = _YEARS.fullmatch(text)
        if not m:
            raise Asked(f"{prefix}years is a year or two, as 2016 or 2016-2019, not {text!r}")
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        if low > high:
            raise Asked(f"{prefix}years goes from the earlier year: {high}-{low}, not {text!r}")
        years = (low, high)
    sources = None
    if (text := get("collections")) is not None:
        sources = tuple(w.strip() for w in text.split(",") if w.strip())
        try:
            check_sources(sources, index.table.collections, f"{prefix}collections")
        except UsageError as exc:
            raise Asked(str(exc)) from None
    least = get("min_rank")
    if least is not None and rank_value(least) is None:
        raise Asked(f"{prefix}min_rank is a rank, as 7d, 1k or 9p, not {least!r}")
    result = get("result")
    if result is not None and result not in ("black", "white"):
        raise Asked(f"{prefix}result is black or white (the winner), not {result!r}")
    color = get("color") or "either"
    if color not in ("either", "black", "white"):
        raise Asked(f"{prefix}color is either, black or white, not {color!r}")
    player = get("player")
    if player is None and get("color") is not None:
        raise Asked(f"{prefix}color goes with {prefix}player (the player's colour)")
    if player is not None:
        players = index.players()
        if player.casefold() not in players:
            near = nearest(player, sorted(players.values()))
            raise Asked(
                f"no game of {player!r} (names as the games write them)"
                + (f"; nearest: {', '.join(near)}" if near else "")
            )
    either = player if player is not None and color == "either" else None
    filters = Filters(years=years, sources=sources, players=(either,) if either else None, min_rank=least)
    return Selection(filters, player if color != "either" else None, color, result)


def whole(text: str | None, name: str, default: int, most: int | None = None) -> int:
    """A count parameter (``limit``, ``offset``): a whole number from 0 (to ``most``)."""
    if text is None or not text.strip():
        return default
    if not re.fullmatch(r"\d{1,9}", text.strip()):
        raise Asked(f"{name} is a whole number from 0, not {text[:20]!r}")
    value = int(text)
    if most is not None and value > most:
        raise Asked(f"{name} is at most {most}, not {value}")
    return value
