"""The practice schedule: cards (a position, as the tree's normal-form
moves, and the colour to play there) scheduled by FSRS (the maintained
``fsrs`` package's ``Scheduler``, fuzzing off so a schedule can be
checked), kept in one SQLite file.

The file is ours when its ``PRAGMA application_id`` is ``APPLICATION_ID``;
any other file (another program's database, a file that is no database,
a corrupt one) is refused, never written.  Each review is one
transaction (``BEGIN IMMEDIATE``: the card's state read, FSRS applied, the
card and the review written, ``COMMIT``), in WAL mode: a kill or Ctrl-C
loses at most the review under way, and two connections reviewing at
once wait for each other (``busy_timeout``) and lose nothing.

A move becomes a rating (``rating_of``): the move played most at the
selection is ``Good``; another that at least ``feedback.RARE`` of the
games there play is ``Hard``; a rare move or one the tree does not know is
``Again``, which FSRS brings back within minutes (its relearning steps)
and whose stability it cuts, so the lines a player gets wrong come back
sooner and more often.

"Due today": the cards due before the end of the day (UTC), the positions
most games reach first.  Knows SQLite, FSRS and cards; nothing of the
tree but the figures it is given."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from fsrs import Card as FsrsCard, Rating, Scheduler

from joseki_miner.practice.feedback import RARE_MARK, UNKNOWN_MARK
from joseki_miner.runs.errors import JosekiError

APPLICATION_ID = 0x4A4D5052  # "JMPR": joseki-miner practice
SCHEMA = 1
HEADER = b"SQLite format 3\x00"
COLOURS = ("black", "white")

_TABLES = """
CREATE TABLE cards (
    id INTEGER PRIMARY KEY,
    moves TEXT NOT NULL,            -- the tree's normal form, as B[pd] W[qc] with semicolons ("" the empty corner)
    colour TEXT NOT NULL CHECK (colour IN ('black', 'white')),  -- to play
    games INTEGER NOT NULL,         -- how many games reach the position
    fsrs TEXT NOT NULL,             -- the FSRS card (its JSON)
    due REAL NOT NULL,              -- when it is due, seconds since 1970 (UTC)
    UNIQUE (moves, colour)
);
CREATE INDEX cards_due ON cards (due);
CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    card INTEGER NOT NULL REFERENCES cards (id),
    rating INTEGER NOT NULL,        -- FSRS's: 1 Again, 2 Hard, 3 Good, 4 Easy
    at REAL NOT NULL,
    log TEXT NOT NULL               -- FSRS's review log (its JSON)
);
"""


class PracticeError(JosekiError):
    """A practice file that cannot be used: not ours, corrupt, unwritable (exit 2)."""

    exit_code = 2


def default_path() -> Path:
    """The practice file in the user's data folder (XDG_DATA_HOME, else ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "joseki-miner" / "practice.sqlite3"


def card_moves(normal: str) -> str:
    """Normal-form moves as a card keeps them: ``B[pd];W[qc]`` (from
    ``B[pd] W[qc]``, ``B[pd];W[qc]`` or the like)."""
    return ";".join(m for m in normal.replace(";", " ").split() if m)


@dataclass(frozen=True)
class Card:
    """A card as the schedule holds it."""

    id: int
    moves: str
    colour: str
    games: int
    due: datetime
    state: str
    reviews: int

    def as_dict(self) -> dict:
        return {**self.__dict__, "due": self.due.isoformat()}


def rating_of(fb: dict) -> Rating:
    """A move's rating, from its ``feedback`` (module docstring)."""
    if fb["mark"] in (RARE_MARK, UNKNOWN_MARK):
        return Rating.Again
    return Rating.Good if fb["most_played"] else Rating.Hard


def _now(now: datetime | None) -> datetime:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc)


class Schedule:
    """The cards and reviews of one practice file (``open``)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.db = connection
        self.scheduler = Scheduler(enable_fuzzing=False)

    @classmethod
    def open(cls, path: Path | None = None) -> Schedule:
        """The practice file at ``path`` (default: ``default_path``), made
        where there is none; a PracticeError where it is not ours, is
        corrupt or cannot be written."""
        path = Path(path) if path is not None else default_path()
        try:
            _check_header(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        except OSError as exc:
            raise PracticeError(f"cannot open the practice file {path}: {exc.strerror or exc}") from exc
        except sqlite3.Error as exc:
            raise PracticeError(f"cannot open the practice file {path}: {exc}") from exc
        try:
            _prepare(db, path)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise _refusal(path, exc) from exc
        except PracticeError:
            db.close()
            raise
        return cls(path, db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Schedule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One transaction that writes: BEGIN IMMEDIATE ... COMMIT (ROLLBACK on any error)."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _refusal(self.path, exc) from exc
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise _refusal(self.path, exc) from exc
            raise

    def add(self, cards: Iterable[tuple[str, str, int]], now: datetime | None = None) -> int:
        """Cards (normal-form moves, colour to play, games) into the deck, in
        one transaction: a card already there keeps its schedule and takes
        the new games.  How many are new."""
        at = _now(now)
        added = 0
        with self._writing() as db:
            for moves, colour, games in cards:
                if colour not in COLOURS:
                    raise PracticeError(f"a card's colour is black or white, not {colour!r}")
                moves = card_moves(moves)
                found = db.execute("SELECT id FROM cards WHERE moves = ? AND colour = ?", (moves, colour)).fetchone()
                if found:
                    db.execute("UPDATE cards SET games = ? WHERE id = ?", (int(games), found[0]))
                    continue
                number = db.execute("SELECT coalesce(max(id), 0) + 1 FROM cards").fetchone()[0]
                fresh = FsrsCard(card_id=number, due=at)
                db.execute(
                    "INSERT INTO cards (id, moves, colour, games, fsrs, due) VALUES (?, ?, ?, ?, ?, ?)",
                    (number, moves, colour, int(games), fresh.to_json(), at.timestamp()),
                )
                added += 1
        return added

    def review(self, moves: str, colour: str, rating: Rating, games: int = 0, now: datetime | None = None) -> Card:
        """One review of a card (added where it is not in the deck), as one
        transaction; the card as FSRS schedules it next."""
        at = _now(now)
        moves = card_moves(moves)
        with self._writing() as db:
            found = db.execute("SELECT id, fsrs FROM cards WHERE moves = ? AND colour = ?", (moves, colour)).fetchone()
            if found is None:
                number = db.execute("SELECT coalesce(max(id), 0) + 1 FROM cards").fetchone()[0]
                card = FsrsCard(card_id=number, due=at)
                db.execute(
                    "INSERT INTO cards (id, moves, colour, games, fsrs, due) VALUES (?, ?, ?, ?, ?, ?)",
                    (number, moves, colour, int(games), card.to_json(), at.timestamp()),
                )
            else:
                number, card = found[0], FsrsCard.from_json(found[1])
            card, log = self.scheduler.review_card(card, Rating(rating), review_datetime=at)
            db.execute(
                "UPDATE cards SET fsrs = ?, due = ? WHERE id = ?", (card.to_json(), card.due.timestamp(), number)
            )
            db.execute(
                "INSERT INTO reviews (card, rating, at, log) VALUES (?, ?, ?, ?)",
                (number, int(rating), at.timestamp(), log.to_json()),
            )
        return self.card(number)

    def card(self, number: int) -> Card:
        row = self._read(
            "SELECT id, moves, colour, games, fsrs, (SELECT count(*) FROM reviews WHERE card = cards.id) "
            "FROM cards WHERE id = ?",
            (number,),
        )
        return _card(row[0])

    def find(self, moves: str, colour: str) -> Card | None:
        rows = self._read(
            "SELECT id, moves, colour, games, fsrs, (SELECT count(*) FROM reviews WHERE card = cards.id) "
            "FROM cards WHERE moves = ? AND colour = ?",
            (card_moves(moves), colour),
        )
        return _card(rows[0]) if rows else None

    def due(self, now: datetime | None = None, today: bool = True) -> list[Card]:
        """The cards due by the end of the day (UTC) of ``now`` (``today``)
        or by ``now``, the positions most games reach first."""
        at = _now(now)
        until = datetime(at.year, at.month, at.day, tzinfo=timezone.utc) + timedelta(days=1) if today else at
        rows = self._read(
            "SELECT id, moves, colour, games, fsrs, (SELECT count(*) FROM reviews WHERE card = cards.id) "
            "FROM cards WHERE due < ? ORDER BY games DESC, moves, colour",
            (until.timestamp(),),
        )
        return [_card(r) for r in rows]

    def reviews(self) -> list[tuple[int, int, float]]:
        """Every review kept: its number, card and rating, in order."""
        return [tuple(r) for r in self._read("SELECT id, card, rating FROM reviews ORDER BY id", ())]

    def _read(self, sql: str, args: tuple) -> list:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise _refusal(self.path, exc) from exc


def _card(row: tuple) -> Card:
    number, moves, colour, games, text, reviews = row
    card = FsrsCard.from_json(text)
    return Card(number, moves, colour, games, card.due, card.state.name.lower(), reviews)


def _check_header(path: Path) -> None:
    """Refuse a file that is there, not empty, and no SQLite database."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(HEADER))
    except FileNotFoundError:
        return
    except IsADirectoryError as exc:
        raise PracticeError(f"the practice file {path} is a folder") from exc
    if head and head != HEADER:
        raise PracticeError(f"{path} is not a joseki-miner practice file (no SQLite database): refused, left as it is")


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    """WAL mode, and the schema where the file is new; a PracticeError
    where it is another program's or of a newer schema."""
    db.execute("PRAGMA busy_timeout = 30000")
    owner = db.execute("PRAGMA application_id").fetchone()[0]
    tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if owner != APPLICATION_ID and (owner != 0 or tables):
        raise PracticeError(
            f"{path} is not a joseki-miner practice file (another program's database): refused, left as it is"
        )
    if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        db.execute("PRAGMA journal_mode = WAL")
    if owner == 0:
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA application_id").fetchone()[0] == 0:  # not made by another connection meanwhile
                for statement in _TABLES.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA:
        raise PracticeError(f"{path} was written by a newer joseki-miner (practice schema {version}): refused")


def _refusal(path: Path, exc: sqlite3.Error) -> PracticeError:
    """An SQLite error as one line that names the file."""
    text = str(exc)
    if "readonly" in text or "unable to open" in text:
        return PracticeError(f"cannot write the practice file {path}: {text}")
    if isinstance(exc, sqlite3.DatabaseError) and ("malformed" in text or "not a database" in text):
        return PracticeError(f"{path} is corrupt ({text}): refused, left as it is")
    return PracticeError(f"the practice file {path}: {text}")


def repertoire_cards(found: dict) -> list[tuple[str, str, int]]:
    """The cards a player's repertoire (``book.repertoire.repertoire``)
    seeds: each place where the player's own move left the book, with the
    colour they played (the tree's: its Black starts the corner) and the
    games the tree's moves there have."""
    cards = {}
    for line in found["lines"]:
        if line["by"] != "player" or line["left_with"] is None:
            continue
        key = (card_moves(line["sequence"]), COLOURS[line["depth"] % 2])
        cards[key] = max(cards.get(key, 0), sum(t["games"] for t in line["tree"]))
    return [(moves, colour, games) for (moves, colour), games in cards.items()]
