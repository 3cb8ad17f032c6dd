"""The explorer's HTTP face (Starlette): the page, its files, and a JSON
API over one mined run (docs/explorer.md).  A thin face: each endpoint
checks its parameters (``params``), asks the index or the book's query
functions, and returns their answer; a query that cannot be answered is a
400 with a one-line message, an unknown path a 404.

The run is the one the server opened: the index holds what it reads in
memory; what is read from the files at a query (a game's moves, a
position) is refused once a newer run has replaced them (409), and
``/api/run`` says when a newer run exists, so the page can offer a reload.
Never writes into the output or the work folder."""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from joseki_miner.book.compare import LEAST_GAMES
from joseki_miner.book.explore import GAME_COLUMNS, RECORD_COLUMNS, NotMined, sgf_collection
from joseki_miner.book.lookup import SequenceError, board_name, check_playable
from joseki_miner.book.words import share_of
from joseki_miner.explorer import params, practise
from joseki_miner.explorer.index import Index
from joseki_miner.fast.parquet import RowGroups
from joseki_miner.method.gameinfo import date_text, wilson
from joseki_miner.method.points import SIZE
from joseki_miner.method.records import decode_moves, decode_points
from joseki_miner.runs import lineage, store
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.errors import JosekiError
from joseki_miner.runs.stages import TREE

STATIC = Path(__file__).parent / "static"


def run_of(catalog: Catalog) -> dict:
    """What identifies a run: the stages the work folder holds and the tree's own record."""
    prune = store.read_manifest(catalog.manifest(TREE)) or {}
    return {"work": lineage.held(catalog.work), "tree": prune.get("key") or prune.get("made_from")}


@dataclass
class Explorer:
    """The state a server holds: the run it opened, read into an index."""

    catalog: Catalog
    index: Index
    opened: dict
    maybe: int | None  # the tree's distance.maybe (a move farther from the stones no corner holds)
    started: float
    practice: Path | None = None  # the practice file (practice.schedule), opened for each review

    @classmethod
    def open(cls, catalog: Catalog) -> Explorer:
        t0 = time.perf_counter()
        for path in (catalog.trie, catalog.sorted_sequences, catalog.games):
            if not (path.is_file() or (path.is_dir() and any(path.glob("part-*.parquet")))):
                raise NotMined(f"no {path.name} in {path.parent}: mine some games first (joseki mine GAMES --out ...)")
        opened = run_of(catalog)
        index = Index.read(catalog)
        made = lineage.recorded(catalog.out) or {}
        maybe = (made.get("phase1") or {}).get("distance.maybe")
        return cls(catalog, index, opened, maybe, time.perf_counter() - t0)

    def newer(self) -> bool:
        return run_of(self.catalog) != self.opened

    def same_run(self) -> None:
        """Refuse to read the run's files once a newer run has replaced them."""
        if self.newer():
            raise Stale("a newer run has replaced the files this server opened: reload the page to move to it")


class Stale(JosekiError):
    """The files of the run the server opened were replaced by a newer run's."""


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def answered(call):
    """An endpoint whose errors are one line of JSON: 400 for a query that
    cannot be answered, 409 once the run's files were replaced."""

    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        try:
            return await run_in_threadpool(call, request.app.state.explorer, request)
        except Stale as exc:
            return _error(409, exc.line())
        except (params.Asked, JosekiError) as exc:
            return _error(400, exc.line())

    return endpoint


def explore(explorer: Explorer, request: Request) -> Response:
    asked = params.checked(request.query_params, "explore")
    q = params.moves(asked.get("moves", ""))
    a = params.selection(asked, explorer.index)
    found = explorer.index.explore(q, a)
    if not found["stored"]:
        try:
            check_playable(q.colours, q.points, explorer.maybe)
        except SequenceError as exc:
            raise params.Asked(str(exc)) from None
    found["filters"] = {k: v for k, v in asked.items() if k in params.FILTER_KEYS}
    if any(k.startswith("b_") for k in asked):
        b = params.selection(asked, explorer.index, "b_")
        found["b"] = explorer.index.explore(q, b)
        found["compared"] = compared(found, found["b"])
    found["moves"] = [q.board_move(k) for k in q.keys]
    found["transpositions"] = explorer.index.transpositions(found["node"], q) if found["stored"] else []
    return JSONResponse(_clean(found))


def compared(a: dict, b: dict) -> list[dict]:
    """Each continuation of either selection with both shares, and whether
    the difference is real: ``compare``'s test (the two shares' Newcombe
    interval leaves out 0; a position with fewer than ``LEAST_GAMES``
    sequences on a side says too little)."""
    theirs = {c["board"]: c for c in b.get("continuations", [])}
    mine = {c["board"]: c for c in a.get("continuations", [])}
    na, nb = a.get("count", 0), b.get("count", 0)
    out = []
    for board in list(dict.fromkeys([*mine, *theirs])):
        xa = mine.get(board, {}).get("count", 0)
        xb = theirs.get(board, {}).get("count", 0)
        sa, sb = share_of(xa, na) or 0.0, share_of(xb, nb) or 0.0
        (la, ha), (lb, hb) = wilson(xa, na), wilson(xb, nb)
        difference = sb - sa
        low = difference - math.hypot(sb - lb, ha - sa)
        high = difference + math.hypot(hb - sb, sa - la)
        enough = min(na, nb) >= LEAST_GAMES
        out.append(
            {
                "board": board,
                "a": {"count": xa, "of": na, "share": sa},
                "b": {"count": xb, "of": nb, "share": sb},
                "difference": difference,
                "low": low,
                "high": high,
                "real": bool(enough and (low > 0 or high < 0)),
            }
        )
    return out


def games(explorer: Explorer, request: Request) -> Response:
    asked = params.checked(request.query_params, "games")
    q = params.moves(asked.get("moves", ""))
    a = params.selection(asked, explorer.index)
    limit = params.whole(asked.get("limit"), "limit", 20, params.MOST_GAMES)
    offset = params.whole(asked.get("offset"), "offset", 0)
    index = explorer.index
    n, held = index.find(q.keys)
    if held < len(q.keys):
        return JSONResponse({"total": 0, "offset": offset, "games": [], "stored": False})
    found, rows = index.games_at(n, a)
    page = slice(offset, offset + limit)
    table = index.game_rows(found[page], rows[page], q.keys[0] if q.keys else 0)
    listed = [
        {
            "game": r["game"],
            "black": r["PB"],
            "black_rank": r["BR"],
            "white": r["PW"],
            "white_rank": r["WR"],
            "date": date_text(r["DT"] or ""),
            "result": r["RE"],
            "collection": (r["collection"] or "").rsplit("/", 1)[-1],
            "move": r["move"],
            "corner": r["corner"] if q.keys else "",
        }
        for r in table.to_pylist()
    ]
    return JSONResponse({"total": len(found), "offset": offset, "limit": limit, "games": listed, "stored": True})


def _game_table(explorer: Explorer, request: Request):
    """One game's row (information and records), the move and corner where
    the asked sequence starts in it (the game's first sequence, without one)."""
    asked = params.checked(request.query_params, "game")
    text = request.path_params["game"]
    if not re.fullmatch(r"[0-9]{1,12}", text) or int(text) >= len(explorer.index.table):
        raise params.Asked(f"no game {text[:20]!r}: games are numbered 0 to {len(explorer.index.table) - 1:,}")
    game = int(text)
    q = params.moves(asked.get("moves", ""))
    index = explorer.index
    n, held = index.find(q.keys)
    if held < len(q.keys):
        n = 0
    rows = np.flatnonzero(index.seq_game == game)  # the game's sequences, and those at the position
    lo, hi = int(index.first[n]), int(index.first[n] + index.count[n])
    there = rows[(rows >= lo) & (rows < hi)]
    if not len(there):
        n, there = 0, rows
    row = there[np.argmin(index.seq_number[there])][None] if len(there) else None  # its earliest-started
    first_key = q.keys[0] if q.keys and n else (index.first_key_of(int(row[0])) if row is not None else 0)
    info = index.game_rows(np.array([game]), row, first_key)
    explorer.same_run()
    records = RowGroups(explorer.catalog.games).rows_at(np.array([game]), RECORD_COLUMNS)
    explorer.same_run()
    for name in RECORD_COLUMNS:
        info = info.append_column(name, records.column(name))
    return info


def game(explorer: Explorer, request: Request) -> Response:
    table = _game_table(explorer, request)
    r = table.to_pylist()[0]
    moves = [
        ["B" if m.colour < 0 else "W", board_name(m.point) if 0 <= m.point < SIZE * SIZE else "pass"]
        for m in decode_moves(r["moves"])
    ]
    return JSONResponse(
        {
            "game": r["game"],
            **{k: r[k] for k in GAME_COLUMNS if k not in ("source", "location")},
            "date": date_text(r["DT"] or ""),
            "start": r["move"],
            "corner": r["corner"],
            "setup_black": [board_name(p) for p in decode_points(r["setup_black"] or "")],
            "setup_white": [board_name(p) for p in decode_points(r["setup_white"] or "")],
            "moves": moves,
        }
    )


def game_sgf(explorer: Explorer, request: Request) -> Response:
    table = _game_table(explorer, request)
    name = f"game-{table.column('game')[0].as_py()}.sgf"
    return Response(
        sgf_collection(table),
        media_type="application/x-go-sgf",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def trend_of(explorer: Explorer, request: Request) -> Response:
    """The position's share of each year's games (``joseki trend``), of the selected games."""
    asked = params.checked(request.query_params, "trend")
    q = params.moves(asked.get("moves", ""))
    a = params.selection(asked, explorer.index)
    if not q.keys:
        return JSONResponse({"years": []})
    found = explorer.index.explore(q, a)
    if not found["stored"]:
        return JSONResponse({"years": []})
    if not a.active:  # every game: exactly `joseki trend`'s rows, the share within collections too
        from joseki_miner.book.explore import trend

        explorer.same_run()
        rows = trend(explorer.catalog, q.text())[1]
        explorer.same_run()  # read whole from the run the server opened
        return JSONResponse({"years": rows})
    selected = explorer.index.mask(a)[0]
    totals = explorer.index.games_by_year(selected)
    held = explorer.index.held_years(selected)
    years = found["years"]
    span = range(min(totals), max(totals) + 1) if totals else range(0)
    return JSONResponse(
        {
            "years": [
                {
                    "year": y,
                    "games": years.get(y, 0),
                    "mined": totals.get(y, 0),
                    "share": years.get(y, 0) / totals[y] if totals.get(y) else None,
                    "within": None,  # a selection's share within collections is not counted
                    # a year whose games are mostly one collection's: its share is that collection's, not the year's
                    "held_by": held[y][0] if y in held else None,
                    "held_share": held[y][1] if y in held else None,
                }
                for y in span
            ]
        }
    )


def position(explorer: Explorer, request: Request) -> Response:
    """A corner position, as ``joseki position --json`` answers it."""
    from joseki_miner.book.position import Position, position as position_of

    asked = params.checked(request.query_params, "position")
    try:
        stones = Position.of(asked.get("black", ""), asked.get("white", ""), asked.get("to_play") or None)
    except SequenceError as exc:
        words = str(exc).replace("--black Q16,R17 --white ...", "black=Q16,R17&white=...")
        raise params.Asked(words.replace("--to-play", "to_play")) from None
    explorer.same_run()
    found = position_of(explorer.catalog, stones)
    explorer.same_run()
    found = {**found, "moves": found["moves"][:20]}
    recent = [{k: v for k, v in r.items() if k != "day"} for r in found["recent"]]
    return JSONResponse(_clean({**found, "recent": recent}))


def about(explorer: Explorer, request: Request) -> Response:
    """The run: its collections and years (for the page's filters), and whether a newer run exists."""
    params.checked(request.query_params, "none")
    index = explorer.index
    year = index.table.year
    known = year[year > 0]
    return JSONResponse(
        {
            "out": str(explorer.catalog.out),
            "games": len(index.table),
            "nodes": len(index.parent),
            "collections": [c.rsplit("/", 1)[-1] for c in index.table.collections],
            "years": [int(known.min()), int(known.max())] if len(known) else None,
            "newer": explorer.newer(),
            "started_seconds": round(explorer.started, 3),
        }
    )


def _clean(value):
    """JSON of numpy numbers and floats that are not numbers (None)."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(float(value)) else float(value)
    return value


def page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def not_found(request: Request, exc: HTTPException) -> Response:
    if exc.status_code == 404:
        return _error(404, f"no such page: {request.url.path[:80]}")
    return _error(exc.status_code, str(exc.detail)[:200])


async def failed(request: Request, exc: Exception) -> Response:
    return _error(500, f"the explorer failed on this query ({type(exc).__name__}): please report it")


def app(explorer: Explorer) -> Starlette:
    """The explorer's application over an opened run."""
    routes = [
        Route("/", page),
        Route("/api/explore", answered(explore)),
        Route("/api/games", answered(games)),
        Route("/api/games/{game}.sgf", answered(game_sgf)),
        Route("/api/games/{game}", answered(game)),
        Route("/api/trend", answered(trend_of)),
        Route("/api/position", answered(position)),
        Route("/api/run", answered(about)),
        Route("/api/practice/reply", answered(practise.reply)),
        Route("/api/practice/move", answered(practise.move), methods=["POST"]),
        Route("/api/practice/due", answered(practise.due)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    application = Starlette(routes=routes, exception_handlers={HTTPException: not_found, Exception: failed})
    application.state.explorer = explorer
    return application
