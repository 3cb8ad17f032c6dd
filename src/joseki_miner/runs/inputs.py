"""What a run's inputs are: the files it reads, and each one's content.

The ingest stage's cache key must change whenever an input's bytes change.
A file's size and modification time do not tell that: a file rewritten in
place within one tick of the file system's clock, at the same size, keeps
both.  So each file is known by a digest of its content (SHA-256: about
1.5 GB/s on this project's machine, 0.05 s for all of ../shared/data, next to
6 s of reading it).  Digests are cached by the file's stat identity (device,
inode, size, modification and change times), as git's index caches them, so
a run whose inputs have not changed reads none of them: a file whose
identity is unchanged keeps its digest, unless it changed so close to the
moment its digest was taken that a later change might not move its times
(git calls such entries "racy"); those are not cached, and hashed again.
The change time cannot be set by programs and moves with every write, so a
file edited in place is always hashed again.

Also how the games read are named by collection (``Collections``) and
which are left out as they are read (``Filters``).

Knows files and the names of collections; nothing of games' moves.
"""

from __future__ import annotations

import hashlib
import os
import struct
import time
from array import array
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path


from joseki_miner.runs import stop, store
from joseki_miner.runs.files import Walked, identity, walk_batches
from joseki_miner.runs.progress import bar as progress_bar
from joseki_miner.runs.store import staged, sync_folder

CHUNK = 1 << 20
RACY_NS = 2_000_000_000  # a change this close to the digest's moment may not move the file's times (FAT: 2 s)
# The digest cache's file: this magic, the number of entries (8 bytes) and the SHA-256 of their resolved paths
# (32 bytes), then per entry its stat identity (five int64: device, inode, size, modification and change times
# in ns), its digest (64 hex digits) and its resolved path (UTF-8, each ended by a NUL): read with the standard
# library, so a run whose inputs are all known imports neither pyarrow nor numpy, and an unchanged collection is
# matched against it whole (its paths' digest, its numbers as one array) without decoding it entry by entry
CACHE_MAGIC = b"joseki-miner input digests 2\n"
KEY_FIELDS = 5
HEX = 64


def digest_file(path: str | os.PathLike) -> str:
    """SHA-256 of a file's content (hex), or why it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
    except OSError as exc:
        return f"unreadable: {exc.strerror or type(exc).__name__}"
    return h.hexdigest()


NO_STAT = (-1, -1, -1, -1, -1)


def _text(path: str) -> str:
    """A path as text that any encoder takes (names that are not UTF-8 keep
    their bytes as escapes)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _paths_digest(paths: list[str]) -> bytes:
    return hashlib.sha256(("\0".join(paths) + "\0" if paths else "").encode("utf-8", "surrogateescape")).digest()


@dataclass
class Cached:
    """The digests cached in the work folder: their entries' resolved paths
    (their digest, ``paths_digest``; the paths themselves decoded only when
    asked), stat identities (``numbers``: five a file, in one array) and
    digests."""

    count: int = 0
    paths_digest: bytes = b""
    numbers: array = field(default_factory=lambda: array("q"))
    digests: str = ""  # HEX characters a file
    raw_paths: bytes = b""

    @property
    def paths(self) -> list[str]:
        return self.raw_paths.decode("utf-8", "surrogateescape").split("\0")[:-1]

    def key(self, i: int) -> tuple:
        return tuple(self.numbers[KEY_FIELDS * i : KEY_FIELDS * (i + 1)])

    def digest(self, i: int) -> str:
        return self.digests[HEX * i : HEX * (i + 1)]


def load_cache(path: Path | None) -> Cached:
    """The digests cached at ``path`` (none where it cannot be read)."""
    if path is None:
        return Cached()
    try:
        data = Path(path).read_bytes()
        if not data.startswith(CACHE_MAGIC):
            return Cached()
        at = len(CACHE_MAGIC)
        (n,) = struct.unpack_from("<q", data, at)
        paths_digest = data[at + 8 : at + 40]
        at += 40
        numbers = array("q")
        numbers.frombytes(data[at : at + 8 * KEY_FIELDS * n])
        at += 8 * KEY_FIELDS * n
        digests = data[at : at + HEX * n].decode("ascii")
        raw = data[at + HEX * n :]
        if len(numbers) != KEY_FIELDS * n or len(digests) != HEX * n or hashlib.sha256(raw).digest() != paths_digest:
            return Cached()
    except (OSError, ValueError, struct.error):  # a cache that cannot be read is no cache: every file is hashed
        return Cached()
    return Cached(n, paths_digest, numbers, digests, raw)


def _save_cache(path: Path, paths: list[str], keys: list[tuple], digests: list[str]) -> None:
    numbers = array("q", [v for key in keys for v in key])
    raw = "".join(p + "\0" for p in paths).encode("utf-8", "surrogateescape")
    data = b"".join(
        [
            CACHE_MAGIC,
            struct.pack("<q", len(paths)),
            hashlib.sha256(raw).digest(),
            numbers.tobytes(),
            "".join(digests).encode("ascii"),
            raw,
        ]
    )
    tmp = staged(path)
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    sync_folder(path.parent)


@dataclass
class Scan:
    """The inputs as one walk met them, and what is known of each file's
    content: its digest from the cache where its stat identity is the one
    cached (and not racy), else none yet.  The missing digests come from
    the readers as they read (``learn``: the fast engine's ingest reads
    each input once) or from hashing the files (``hash_missing``).  The
    cache is kept in the walk's order, so an unchanged collection is
    matched against it in one pass, without a table of its paths.  Kept as
    columns, a file a position in each: a million files are a few lists,
    not a million objects."""

    walked: Walked
    paths: list[str]  # as the walk gives them, as text
    reals: list[str]  # resolved, as text
    sizes: list[int]  # -1: could not be looked at
    numbers: array  # stat identities as walked, KEY_FIELDS a file
    digests: list[str | None]  # None: not known yet
    cacheable: list[bool]  # per file: its digest may be cached (taken while its stat identity was the walk's)
    known: int  # how many digests the cache held
    now: int  # ns: when the walk began, for the racy rule
    seconds: float = 0.0  # the walk's
    hashed: int = 0  # files hashed apart from reading them
    hash_seconds: float = 0.0
    added: bool = False  # digests the cache did not hold were found

    @property
    def missing(self) -> list[int]:
        """The files whose digest is not known yet."""
        if None not in self.digests:
            return []
        return [i for i, digest in enumerate(self.digests) if digest is None]

    def bytes(self, files: Iterable[int] | None = None) -> int:
        """The size of the files (all of them when None), those that could be looked at."""
        sizes = self.sizes if files is None else [self.sizes[i] for i in files]
        return sum(size for size in sizes if size > 0)

    def key_of(self, i: int) -> tuple:
        """File i's stat identity as walked."""
        return tuple(self.numbers[KEY_FIELDS * i : KEY_FIELDS * (i + 1)])

    def _fresh(self, key: tuple) -> bool:
        """A file of this stat identity did not change so close to the walk
        that its next change might not move its times (git's "racy" entries)."""
        return key[2] >= 0 and max(key[3], key[4]) < self.now - RACY_NS

    def _cacheable(self, i: int, digest: str, st: os.stat_result | None) -> None:
        """File i's digest may be cached when it has not changed since the
        walk (its stat identity as the digest ended) and is not racy."""
        key = self.key_of(i)
        if st is not None and not digest.startswith("unreadable") and identity(st) == key and self._fresh(key):
            self.cacheable[i] = True
            self.added = True

    def learn(self, digests: dict[str, tuple[str, os.stat_result | None]]) -> None:
        """The digests the readers took as they read (by path: digest, and
        the file's stat as the digest ended)."""
        limit = self.now - RACY_NS
        for i, found in enumerate(self.walked.files):
            if self.digests[i] is not None:
                continue
            taken = digests.get(found.path)
            if taken is None:
                continue
            digest, st = taken
            self.digests[i] = digest
            key = found.identity
            if (
                st is not None
                and key is not None
                and not digest.startswith("unreadable")
                and max(key[3], key[4]) < limit
                and identity(st) == key
            ):  # as ``_cacheable``
                self.cacheable[i] = True
                self.added = True

    def hash_missing(self, jobs: int = 2, progress: bool = False) -> None:
        """Hash the files whose digest is not known (a bar of their bytes)."""
        todo = self.missing
        if not todo:
            return
        t0 = time.perf_counter()
        with (
            progress_bar(progress, total=self.bytes(todo), desc="hash inputs", unit="B", unit_scale=True) as bar,
            ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="digest") as pool,
        ):
            for i, digest in zip(todo, pool.map(digest_file, [self.walked.files[i].path for i in todo])):
                stop.check()
                self.digests[i] = digest
                try:
                    st = os.stat(self.walked.files[i].path)
                except OSError:
                    st = None
                self._cacheable(i, digest, st)
                bar.update(max(self.sizes[i], 0))
        self.hashed += len(todo)
        self.hash_seconds += time.perf_counter() - t0

    def key(self) -> str:
        """The inputs' key: every file read (its path as given and as
        resolved, its size, its content's digest) and everything skipped
        without reading (a FIFO...).  Every digest must be known."""
        if None in self.digests:
            raise RuntimeError(f"{len(self.missing)} inputs have no digest yet")
        # a column at a time, each field ended by a NUL (no path holds one): a million files in a few joins
        h = hashlib.sha256(f"files {len(self.paths)}\n".encode())
        for fields in (self.paths, self.reals, list(map(str, self.sizes)), self.digests):
            h.update(("\0".join(fields) + "\0").encode("utf-8"))
        h.update(b"skipped\n")
        h.update("".join(f"{_text(source)}\0{why}\n" for source, why in self.walked.skipped).encode("utf-8"))
        return h.hexdigest()[:16]

    def by_path(self) -> dict[str, str]:
        """Each file's digest by its path as the walk gives it."""
        return dict(zip(self.paths, self.digests))

    def save(self, cache: Path | None) -> None:
        """Write the cache of digests, in the walk's order (when it changed)."""
        keep = [i for i, ok in enumerate(self.cacheable) if ok]
        if cache is None or (not self.added and len(keep) == self.known):
            return
        try:
            _save_cache(
                cache, [self.reals[i] for i in keep], [self.key_of(i) for i in keep], [self.digests[i] for i in keep]
            )
        except OSError:  # a cache not written only costs hashing again
            pass

    def figures(self) -> dict:
        """How the inputs were walked and hashed (for the run's manifest)."""
        return {
            "input_files": len(self.paths),
            "input_bytes": self.bytes(),
            "files_hashed": self.hashed,
            "inputs_seconds": round(self.seconds, 3),
            "hash_seconds": round(self.hash_seconds, 3),
        }


def _texts(paths: list[str]) -> list[str]:
    """``_text`` of each path: the paths themselves where all are UTF-8, as nearly all are."""
    try:
        "".join(paths).encode("utf-8")
        return paths
    except UnicodeEncodeError:
        return [_text(p) for p in paths]


def scan(
    paths: Iterable[str | os.PathLike],
    *,
    cache: Path | None = None,
    exclude: Iterable[str | os.PathLike] = (),
    progress: bool = False,
) -> Scan:
    """Walk the inputs once (``files.walk``: one stat a file) and take each
    file's digest from ``cache`` where its stat identity is the one cached
    and did not change within the racy margin of the walk; nothing is read.
    ``progress``: a bar of the files met."""
    t0 = time.perf_counter()
    now = time.time_ns()
    skipped: list[tuple[str, str]] = []
    files = []
    with progress_bar(progress, desc="inputs", unit=" files", mininterval=0.5) as bar:
        for batch in walk_batches(paths, lambda source, location, why: skipped.append((source, why)), exclude):
            files += batch
            stop.check()
            bar.update(len(batch))
    flat: list[int] = []
    for f in files:
        flat.extend(f.identity or NO_STAT)
    numbers = array("q", flat)
    n = len(files)
    scanned = Scan(
        Walked(files, skipped),
        _texts([f.path for f in files]),
        _texts([f.real for f in files]),
        flat[2::KEY_FIELDS],
        numbers,
        [None] * n,
        [False] * n,
        0,
        now,
    )
    cached = load_cache(cache)
    scanned.known = cached.count
    if (
        cached.count == n
        and cached.numbers == numbers
        and max(max(flat[3::KEY_FIELDS], default=0), max(flat[4::KEY_FIELDS], default=0)) < now - RACY_NS
        and cached.paths_digest == _paths_digest(scanned.reals)
    ):
        # the collection as it was, not a file changed since the cache was written: every digest at once
        scanned.digests = [cached.digests[HEX * i : HEX * (i + 1)] for i in range(n)]
        scanned.cacheable = [True] * n
    elif cached.count:
        where = {p: i for i, p in enumerate(cached.paths)}
        for i, real in enumerate(scanned.reals):
            j = where.get(real, -1)
            if j >= 0 and cached.key(j) == scanned.key_of(i) and scanned._fresh(cached.key(j)):
                scanned.digests[i] = cached.digest(j)
                scanned.cacheable[i] = True
    for i, size in enumerate(scanned.sizes):
        if size < 0:  # could not be looked at: say why, as reading would
            try:
                os.stat(files[i].path)
                scanned.digests[i] = "unreadable: it changed while it was looked at"
            except OSError as exc:
                scanned.digests[i] = f"unreadable: {exc.strerror}"
    scanned.seconds = time.perf_counter() - t0
    return scanned


def inputs_key(
    paths: Iterable[str | os.PathLike],
    *,
    cache: Path | None = None,
    exclude: Iterable[str | os.PathLike] = (),
    jobs: int = 2,
    digests: dict[str, str] | None = None,
    progress: bool = False,
) -> tuple[str, dict]:
    """A key that changes whenever the inputs do (``Scan.key``), every
    file's digest known by the cache or by hashing it now.  Digests are
    cached in ``cache``; ``exclude`` as ``files.walk``.  Returns the key and
    figures (files, bytes, files hashed); ``digests``, when given, gets each
    file's digest by its path as the walk gives it."""
    scanned = scan(paths, cache=cache, exclude=exclude, progress=progress)
    scanned.hash_missing(jobs, progress)
    scanned.save(cache)
    if digests is not None:
        digests.update(scanned.by_path())
    return scanned.key(), scanned.figures()


class Collections:
    """The collection each game comes from, named by where it was read:
    the path given on the command line; with ``depth`` 1 (2...), the
    folder one (two...) levels inside a folder given, where that folder
    holds several folders of games (``../shared/data``: ai, kgs-6d, tom-9d,
    tygem-9d), and the folder given where it holds one (``tygem-9d``, whose
    games are all in kifu/, its index files aside in index/).  Files less
    deep stay with the folder above them.  Named as given, with ``/``
    between parts."""

    def __init__(
        self, paths: Iterable[str | os.PathLike], depth: int = 1, ranks: Iterable[tuple[str, str]] = ()
    ) -> None:
        # as the readers write sources: a path given, normalized (``Path``), and the files under it
        self.given = sorted({str(Path(p)) for p in paths}, key=len, reverse=True)  # the longest first
        self.depth = depth
        self.ranks = tuple(ranks or ())  # (collection, rank): the rank of its players where records carry none
        self.rank_by: dict[str, str | None] = {}  # by collection name
        self.known: dict[str, str] = {}  # by source
        self.folders: dict[str, str] = {}  # by folder (ended by a separator), for the files under a folder given
        self.splits: dict[str, bool] = {}  # by folder: does it hold several folders of games?

    def of(self, source: str) -> str:
        """The collection of a game read from ``source`` (a file as the
        readers name it: a path given, or one under a folder given)."""
        name = self.known.get(source)
        if name is not None:
            return name
        folder = source[: source.rfind(os.sep) + 1]
        if source not in self.given:  # a file under a folder given: its folder's name, found once a folder
            name = self.folders.get(folder)
            if name is not None:
                return name
        name, by_folder = self._name(source)
        if by_folder:
            self.folders[folder] = name
        else:
            self.known[source] = name
        return name

    def _name(self, source: str) -> tuple[str, bool]:
        """The collection of ``source``, and whether it is its folder's (as
        for every file under a folder given, whose name its folders make)."""
        for given in self.given:
            if source == given:
                return _text(given.rstrip("/") or given), False
            prefix = given.rstrip(os.sep) + os.sep
            if source.startswith(prefix):
                parts = source[len(prefix) :].split(os.sep)[:-1]  # the folders between, not the file
                taken, folder = [], given
                for part in parts[: self.depth]:
                    if not self._splits(folder):
                        break
                    taken.append(part)
                    folder = os.path.join(folder, part)
                return _text("/".join([given.rstrip(os.sep) or given, *taken])), True
        return _text(source), False

    def _splits(self, folder: str) -> bool:
        """Does ``folder`` hold two or more folders with files in them (a
        folder named ``index``, the Tygem layout's index files, aside)?"""
        if folder not in self.splits:
            self.splits[folder] = (
                sum(1 for sub in _subfolders(folder) if sub.name.lower() != "index" and _holds_files(sub.path)) >= 2
            )
        return self.splits[folder]

    def rank_of(self, name: str) -> str | None:
        """The rank the collection ``name`` declares for its players (config
        collections.ranks), if any."""
        if name not in self.rank_by:
            self.rank_by[name] = next((rank for wanted, rank in self.ranks if self.selected(name, [wanted])), None)
        return self.rank_by[name]

    def declared(self, ranks: list[str], collection: list[str]) -> list[str]:
        """A column of ranks (BR or WR), each empty one the rank its game's
        collection declares."""
        if not self.ranks:
            return ranks
        return [rank or (self.rank_of(name) or "") for rank, name in zip(ranks, collection)]

    @staticmethod
    def selected(name: str, wanted: Iterable[str]) -> bool:
        """Is the collection ``name`` one of ``wanted`` (a name, or the last
        part of one; case aside, as players' names)?"""
        name = name.casefold()
        return any(
            name == w.casefold().rstrip("/") or name.rsplit("/", 1)[-1] == w.casefold().rstrip("/") for w in wanted
        )


def _subfolders(folder: str) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return [e for e in entries if not e.name.startswith(".") and e.is_dir()]
    except OSError:
        return []


def _holds_files(folder: str) -> bool:
    """Is there a file (not hidden) anywhere under ``folder``, outside
    joseki-miner's own folders?"""
    for root, dirs, files in os.walk(folder):
        if store.LOCK_NAME in files:
            dirs.clear()
            continue
        if any(not f.startswith(".") for f in files):
            return True
        dirs[:] = [d for d in dirs if not d.startswith(".")]
    return False


@dataclass(frozen=True)
class Filters:
    """Games left out as they are read (config ``filter.*``), each counted
    with its reason: a year outside ``years`` (from, to; a game without a
    date too), a collection not in ``sources``, a result naming no winner
    when ``result_known``, neither player in ``players`` (names as the
    records write them, case and outer blanks aside), a player below
    ``min_rank`` or of no known rank, an event naming none of ``events``
    (a part of its name, case aside), a game whose handicap stones are not
    those of ``handicap`` (``even``: none; ``handicap``: some; or their
    counts, 0 for none), a game outside a ``sample`` of that share of the
    games (chosen by its moves, ``in_sample``: the same games on every
    engine and in any order, and a smaller sample inside a larger one).
    A game that cannot be mined is
    rejected first, then one that repeats an earlier game (kept or left
    out), so a filtered run keeps the games the filters select from an
    unfiltered one."""

    years: tuple[int, int] | None = None
    sources: tuple[str, ...] | None = None
    result_known: bool = False
    players: tuple[str, ...] | None = None
    min_rank: str | None = None
    events: tuple[str, ...] | None = None
    handicap: tuple[str, ...] | None = None
    sample: float | None = None

    PEOPLE = ("PB", "PW", "BR", "WR", "EV")  # the game information ``reasons`` needs for the last three

    @classmethod
    def of(cls, config) -> Filters:
        """The games a config's ``filter.*`` keys leave out."""
        c = config
        return cls(
            c.filter_years,
            c.filter_sources,
            c.filter_result_known,
            c.filter_players,
            c.filter_min_rank,
            c.filter_events,
            c.filter_handicap,
            c.filter_sample,
        )

    def reasons(
        self,
        year,
        winner,
        collection: list[str],
        collections: Collections,
        people: dict[str, list[str]] | None = None,
        handicap=None,
        moves: list[str] | None = None,
    ) -> list[str | None]:
        """Per game (``year``, ``winner`` and ``handicap``, its handicap
        stones: numpy arrays; ``people``: the games' ``PEOPLE`` values, where
        ``by_people``; ``moves``, their moves as games.parquet writes them,
        where there is a ``sample``), why it is left out (the first
        reason), or None."""
        import numpy as np  # loaded by the readers before any game: not by a run whose stages are up to date

        out: list[str | None] = [None] * len(year)
        if self.years is not None:
            low, high = self.years
            for k in np.flatnonzero((year < low) | (year > high)).tolist():
                out[k] = f"year not in {low}-{high}" if year[k] else "no date"
        if self.sources is not None:
            chosen: dict[str, bool] = {}  # by collection: a batch's games come from a few
            for k, name in enumerate(collection):
                if name not in chosen:
                    chosen[name] = collections.selected(name, self.sources)
                if out[k] is None and not chosen[name]:
                    out[k] = "collection not selected"
        if self.result_known:
            for k in np.flatnonzero(winner == 0).tolist():
                out[k] = out[k] or "result names no winner"
        if self.handicap is not None:
            for k, why in self.handicap_reasons(np.asarray(handicap)).items():
                out[k] = out[k] or why
        if self.by_people:
            for k, why in enumerate(self.people_reasons(people)):
                out[k] = out[k] or why
        if self.sample is not None and moves is not None:
            for k, text in enumerate(moves):
                if out[k] is None and not in_sample(text, self.sample):
                    out[k] = f"not in the sample of {self.sample:g}"
        return out

    def handicap_reasons(self, handicap) -> dict[int, str]:
        """The games whose handicap stones ``handicap`` leave them out, and why."""
        import numpy as np

        wanted = self.handicap
        if wanted == ("even",):
            return {k: "handicap game" for k in np.flatnonzero(handicap != 0).tolist()}
        if wanted == ("handicap",):
            return {k: "even game" for k in np.flatnonzero(handicap == 0).tolist()}
        counts = [int(v) for v in wanted]
        return {k: f"handicap not {', '.join(wanted)}" for k in np.flatnonzero(~np.isin(handicap, counts)).tolist()}

    @property
    def by_people(self) -> bool:
        """Does a filter read the players, their ranks or the event?"""
        return self.players is not None or self.min_rank is not None or self.events is not None

    def people_reasons(self, people: dict[str, list[str]]) -> list[str | None]:
        """Per game, why the players, their ranks or the event leave it out."""
        from joseki_miner.runs.ranks import rank_value

        names = {n.strip().casefold() for n in self.players} if self.players is not None else None
        events = [e.strip().casefold() for e in self.events] if self.events is not None else None
        least = rank_value(self.min_rank) if self.min_rank is not None else None
        out: list[str | None] = []
        for black, white, black_rank, white_rank, event in zip(*(people[k] for k in self.PEOPLE)):
            why = None
            if names is not None and black.strip().casefold() not in names and white.strip().casefold() not in names:
                why = "player not selected"
            elif least is not None:
                ranks = (rank_value(black_rank), rank_value(white_rank))
                if None in ranks:
                    why = "rank unknown"
                elif min(ranks) < least:
                    why = f"rank below {self.min_rank}"
            if why is None and events is not None and not any(e in event.casefold() for e in events):
                why = "event not selected"
            out.append(why)
        return out

    @property
    def active(self) -> bool:
        return (
            self.years is not None
            or self.sources is not None
            or self.result_known
            or self.by_people
            or self.handicap is not None
            or self.sample is not None
        )


def in_sample(moves: str, share: float) -> bool:
    """Is a game of these moves (games.parquet's text) in a sample of
    ``share`` of the games: the first 8 bytes of the moves' SHA-256, read
    as a fraction of 2**64, below ``share``."""
    value = int.from_bytes(hashlib.sha256(moves.encode("utf-8")).digest()[:8], "big")
    return value < share * 2**64
