"""The explorer's practice endpoints (docs/explorer.md, "Practise"): the
opponent's reply drawn from the selected games (``practice.replies``), the
feedback on a player's move and its review on the FSRS schedule
(``practice.feedback``, ``practice.schedule``), and the cards due today.

A review opens the practice file for the request alone (one connection a
request, one transaction a review), so two tabs reviewing at once each
commit theirs.  Moves are board points in the player's orientation, as
``/api/explore`` takes them; a card's moves are the tree's normal form."""

from __future__ import annotations

import numpy as np
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from joseki_miner.book.words import point_text
from joseki_miner.explorer import params
from joseki_miner.explorer.index import STORED, Index, Selection
from joseki_miner.practice import replies
from joseki_miner.practice.anki import colour_at
from joseki_miner.practice.feedback import feedback
from joseki_miner.practice.schedule import Schedule, rating_of


def _position(explorer, asked: dict) -> tuple:
    """The position asked for at the selection, its Query, and the selection."""
    q = params.moves(asked.get("moves", ""))
    selection = params.selection(asked, explorer.index)
    found = explorer.index.explore(q, selection)
    if selection.active and not found.get("selected_games"):
        raise params.Asked("the selection has no games: widen the filters")
    return q, found


def _seed(text: str | None) -> int:
    return params.whole(text, "seed", 0)


def reply(explorer, request: Request) -> Response:
    """``{"move": "O17"}`` (board points, "tenuki"), or ``{"move": null, "end": why}``."""
    asked = params.checked(request.query_params, "practice_reply")
    q, found = _position(explorer, asked)
    if not found["stored"]:
        return JSONResponse({"move": None, "end": replies.RUN_OUT})
    index = explorer.index
    n = found["node"]
    here = index.kind_of(n).get("kind")
    if n and replies.turns(index.kind_of(int(index.parent[n])).get("kind"), {"kind": here}):
        return JSONResponse({"move": None, "end": replies.JOSEKI_ENDS})  # the player's own move ended the joseki
    got = replies.reply(found["continuations"], _seed(asked.get("seed")), found["normal"].split(), here)
    if isinstance(got, replies.End):
        return JSONResponse({"move": None, "end": got.reason})
    return JSONResponse({"move": got.move["board"]})


def move(explorer, request: Request) -> Response:
    """The feedback on ``move`` played at ``moves``, its rating, and the
    card reviewed (where the server has a practice file)."""
    asked = params.checked(request.query_params, "practice_move")
    played = asked.get("move", "").strip()
    if not played:
        raise params.Asked("move is the move played, as O17 or tenuki")
    q, found = _position(explorer, asked)
    if not found["stored"]:
        raise params.Asked(f"the tree does not hold {found['board'] or 'the position'}: practise from a stored one")
    told = feedback(found, played, len(q.keys))
    rating = rating_of(told)
    colour = colour_at(len(q.keys), q.swapped)
    card = None
    if explorer.practice is not None:
        with Schedule.open(explorer.practice) as schedule:
            card = schedule.review(found["normal"], colour, rating, games=found["games"]).as_dict()
    return JSONResponse({"feedback": told, "rating": rating.name, "colour": colour, "card": card})


def due(explorer, request: Request) -> Response:
    """The cards due today, the positions most games reach first (their
    moves as the board names them in the tree's orientation)."""
    params.checked(request.query_params, "none")
    if explorer.practice is None:
        return JSONResponse({"practice": None, "cards": []})
    if not explorer.practice.exists():  # a look at what is due makes no file (a review does)
        return JSONResponse({"practice": str(explorer.practice), "due": 0, "cards": []})
    with Schedule.open(explorer.practice) as schedule:
        cards = schedule.due()
    shown = [{**c.as_dict(), "line": [point_text(m[2:-1]) for m in c.moves.split(";") if m]} for c in cards[:100]]
    return JSONResponse({"practice": str(explorer.practice), "due": len(cards), "cards": shown})


class Selected:
    """A walk's source (``practice.anki.Source``) of a selection's figures:
    each node's counted from the selected games by the index, a child kept
    where it is counted at least ``STORED`` times, as ``/api/explore``."""

    def __init__(self, index: Index, selection: Selection) -> None:
        self.index, self.selection = index, selection
        self.key: np.ndarray = index.key
        self.games, self.rows = index.mask(selection)

    def _figures(self, n: int, counted: dict) -> dict:
        kind = self.index.kind_of(n).get("kind")
        return {k: counted[k] for k in ("count", "games", "black_wins", "white_wins")} | {"kind": kind}

    def figures(self, n: int) -> dict:
        return self._figures(n, self.index.counted_at(n, self.selection, self.rows)[0])

    def children(self, n: int) -> list[tuple[int, dict]]:
        _, *theirs = self.index.counted_at(n, self.selection, self.rows)
        kids = self.index.children(n).tolist()
        return [(int(c), self._figures(int(c), f)) for c, f in zip(kids, theirs) if f["count"] >= STORED]
