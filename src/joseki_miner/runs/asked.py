"""What a user asks for, checked once, here: a limit, the keys of one side
of a comparison, and the names of collections, players and events against
those the games hold.  Each failure is a ``UsageError`` (one line, exit 2)
that says what would do: a name that matches no game lists the nearest
names the games hold."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from joseki_miner.runs.config import ConfigError, load
from joseki_miner.runs.errors import UsageError
from joseki_miner.runs.inputs import Collections, Filters

NEAREST = 5  # names offered for one that matches no game


def limit(value: int | None, default: int | None = None) -> int | None:
    """``--limit``: the first this many (None: all); 0 means all, in every
    command; no value, the command's ``default``."""
    if value is None:
        return default
    if value < 0:
        raise UsageError(f"--limit must be 0 (all) or more, not {value}")
    return value or None


def side(keys: list[str], option: str) -> tuple[Filters, str]:
    """One side of ``compare`` (``--a`` or ``--b``): its ``filter.*`` keys
    (the prefix may be left out), each at most once; and how it reads."""
    given = [k if k.strip().startswith("filter.") else f"filter.{k.strip()}" for k in keys]
    named: dict[str, str] = {}
    for k, raw in zip(given, keys):
        if "=" not in k:
            raise UsageError(f"--{option} takes a filter key as KEY=VALUE (filter.years=[2010,2015]), not {raw!r}")
        name = k.split("=", 1)[0].strip()
        if name in named:
            raise UsageError(
                f"--{option} gives {name} twice ({named[name]!r} and {raw!r}): give it once, with "
                "every value in it (filter.sources=[ai,kgs-6d])"
            )
        named[name] = raw
    try:
        return Filters.of(load(None, given)), " ".join(keys) or "every game"
    except ConfigError as exc:
        raise UsageError(f"--{option}: {exc}") from None


def nearest(name: str, names: list[str], n: int = NEAREST) -> list[str]:
    """The names nearest ``name``, case aside: those that hold it first,
    then those difflib finds close."""
    wanted = name.strip().casefold()
    if not wanted:
        return []
    folded: dict[str, str] = {}
    for known in names:
        folded.setdefault(known.casefold(), known)
    holding = sorted((f for f in folded if wanted in f), key=lambda f: (len(f), f))
    close = difflib.get_close_matches(wanted, list(folded), n=n, cutoff=0.6)
    found = list(dict.fromkeys([*holding, *close]))[:n]
    return [folded[f] for f in found]


def _nearest_text(name: str, names: list[str]) -> str:
    near = nearest(name, names)
    return f"; nearest: {', '.join(near)}" if near else ""


def check_sources(wanted: tuple[str, ...] | None, known: list[str], key: str = "filter.sources") -> None:
    """Every collection asked for is one the games come from (by its name
    or its last part, case aside), or a UsageError lists those there are."""
    if wanted is None:
        return
    short = sorted({name.rsplit("/", 1)[-1] for name in known})
    for w in wanted:
        if not any(Collections.selected(name, [w]) for name in known):
            there = ", ".join(short) if short else "none"
            raise UsageError(f"{key}: no collection {w!r} among the games (collections: {there})")


@dataclass
class Known:
    """The names the games hold: collections, players (either colour) and
    events, as the records write them."""

    collections: list[str]
    players: list[str]
    events: list[str]

    @classmethod
    def of_games(cls, games: Path) -> Known:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from joseki_miner.runs.catalog import parts_of

        table = pa.concat_tables(
            [pq.ParquetFile(part).read(columns=["collection", "PB", "PW", "EV"]) for part in parts_of(games)]
        )

        def distinct(*names: str) -> list[str]:
            values: set[str] = set()
            for n in names:
                values.update(v.strip() for v in table.column(n).unique().to_pylist() if v and v.strip())
            return sorted(values)

        return cls(distinct("collection"), distinct("PB", "PW"), distinct("EV"))

    def check(self, filters: Filters, what: str) -> None:
        """Every collection, player and event a side's (``what``'s) filters
        name is one the games hold, or a UsageError lists the nearest."""
        check_sources(filters.sources, self.collections, f"{what}: filter.sources")
        players = {p.casefold() for p in self.players}
        for name in filters.players or ():
            if name.strip().casefold() not in players:
                raise UsageError(
                    f"{what}: no game of {name!r} (names as the games write them, either colour)"
                    + _nearest_text(name, self.players)
                )
        for event in filters.events or ():
            if not any(event.strip().casefold() in e.casefold() for e in self.events):
                raise UsageError(f"{what}: no event holds {event!r}" + _nearest_text(event, self.events))

    def player(self, name: str, where: str) -> None:
        """A player the games hold, or a UsageError lists the nearest."""
        if name.strip().casefold() not in {p.casefold() for p in self.players}:
            raise UsageError(
                f"no game of {name!r} in {where} (names as the games write them, either colour)"
                + _nearest_text(name, self.players)
            )
