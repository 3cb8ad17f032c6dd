"""The opponent's reply at a position: one of its continuations, drawn in
proportion to its games at the selection, and where the line ends.

A draw is seeded: the random generator is derived from the seed and the
moves so far (SHA-256 of both, not Python's ``hash``, which changes from
one process to the next), so a session replays the same way.  The draw
does not depend on the order the continuations are listed in (they are
drawn in the order of their moves).

A line ends (``End``, with its reason) where

* no continuation is counted at least twice at the selection: "the games
  run out" (a move played once is not stored);
* a tenuki is played in more than ``tenuki_bound`` of the sequences there,
  or the continuation drawn turns the line from a joseki into another kind
  (a follow-up, an approach, an enclosure, an extension: the corner's
  joseki is over and the game goes on elsewhere): "the joseki ends here".

A line that starts in a kind other than a joseki (practising an enclosure)
ends only where its games run out or a tenuki is the rule.

Pure functions of their arguments; knows continuations' figures only."""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

RUN_OUT = "the games run out"
JOSEKI_ENDS = "the joseki ends here"
STORED = 2  # a continuation counted at least this often at the selection is one the games play
TENUKI_BOUND = 0.5  # a tenuki share above this: the joseki is over here
TURNS = ("follow-up", "approach", "enclosure", "extension")  # the kinds that are no longer the corner's joseki


@dataclass(frozen=True)
class Reply:
    """The move drawn: the continuation's dict as given."""

    move: dict


@dataclass(frozen=True)
class End:
    """Where the line ends, and why (``RUN_OUT`` or ``JOSEKI_ENDS``)."""

    reason: str


def is_tenuki(c: dict) -> bool:
    return c.get("board") == "tenuki" or c.get("move") == "tenuki" or c.get("normal", "").endswith("[]")


def rng_for(seed: int, moves: Sequence[str]) -> random.Random:
    """The generator of a draw: of the seed and the moves so far only."""
    text = f"{int(seed)}|{' '.join(moves)}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(text).digest()[:8], "big"))


def playable(continuations: Sequence[dict]) -> list[dict]:
    """The continuations the games play (counted at least ``STORED``
    times at the selection, with a game), in the order of their moves."""
    kept = [c for c in continuations if c["count"] >= STORED and c["games"] > 0]
    return sorted(kept, key=lambda c: c.get("normal") or c["move"])


def ended(continuations: Sequence[dict], tenuki_bound: float = TENUKI_BOUND) -> End | None:
    """Where the line ends before anything is drawn: no continuation the
    games play, or a tenuki the rule."""
    kept = playable(continuations)
    if not kept:
        return End(RUN_OUT)
    if any(is_tenuki(c) and c["share"] > tenuki_bound for c in kept):
        return End(JOSEKI_ENDS)
    return None


def turns(kind_here: str | None, child: dict) -> bool:
    """Whether the move ``child`` turns the line from a joseki into another kind."""
    return kind_here in (None, "joseki") and child.get("kind") in TURNS


def draw(continuations: Sequence[dict], seed: int, moves: Sequence[str]) -> dict:
    """One continuation the games play, drawn in proportion to its games."""
    kept = playable(continuations)
    bounds = list(accumulate(c["games"] for c in kept))
    return kept[bisect_right(bounds, rng_for(seed, moves).random() * bounds[-1])]


def reply(
    continuations: Sequence[dict],
    seed: int,
    moves: Sequence[str],
    kind_here: str | None = None,
    tenuki_bound: float = TENUKI_BOUND,
) -> Reply | End:
    """The opponent's reply at a position of kind ``kind_here`` reached by
    ``moves``, or where the line ends (module docstring)."""
    end = ended(continuations, tenuki_bound)
    if end is not None:
        return end
    chosen = draw(continuations, seed, moves)
    if turns(kind_here, chosen):
        return End(JOSEKI_ENDS)
    return Reply(chosen)
