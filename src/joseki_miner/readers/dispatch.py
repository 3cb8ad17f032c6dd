"""The dispatch: game collections on disk -> ``GameRecord`` or ``Reject``.

Every game a reader meets comes out as exactly one of the two, so a run can
always say games read = games accepted + games rejected.  Readers know file
formats and nothing of the method.

``read_paths`` takes files and folders (walked recursively in sorted order)
and tells formats apart by content as well as by name:

* archives by their magic bytes: zip, tar, tar.gz/.tgz, tar.bz2, tar.xz,
  single .gz/.bz2/.xz files, nested archives too, all read in place
  (``archives``);
* SGF (``sgf``): text whose first non-blank character is ``(``, or any file
  named ``.sgf``/``.mgt`` (which then yields at least one item: a file of
  that name with no game in it is rejected as ``not a game``);
* kifu lines ``id<TAB>;B[pd];W[dp];...`` of the Tom and Tygem dumps
  (``kifu``), joined by id with their index files;
* index files (``*.index``, or lines ``id<TAB>date...``): metadata, never
  games;
* the Ishi Standard Format (``ishi``): lines of its keywords (EVENT, B, W,
  SETUP...).

Anything else (a README, an image, macOS ``._`` files) is not a game: it is
skipped without a record, and reported to ``on_skip`` if one is given.

Locations: ``source`` is the file given (an archive for its members);
``location`` is the archive member (nested members joined with ``!``),
then ``:game N`` in an SGF collection, ``:line N`` in a kifu file,
``:event N`` in an Ishi file with several events.  Names are text: bytes of
a file or member name that are not UTF-8 are shown as backslash escapes
(``\\xff``, as Python's "backslashreplace" writes them; ``shown``), the same
for both engines.

Index files are read first, wherever they are among the paths (a pre-pass
over folders and archive member names), and apply to the kifu files of the
folder that holds them (or of its parent, for a folder named ``index``, as
in the Tygem layout), inside archives too.

Limits (limits.member_mb and limits.field_kb, in bytes here) keep a bomb
or a broken file from exhausting memory: an archive member (or a single
compressed file) that inflates past ``member_bytes`` is rejected as
``archive member too large`` without being inflated whole, a game file
larger than it as ``file too large`` (an index file that large is left
out, and named among the skipped files); an SGF property value (a kifu id,
an Ishi header line) longer than ``field_bytes`` rejects its game as
``field too long``, and an index line that long is ignored (its game gets
no metadata but its id).
"""

from __future__ import annotations

import os
import posixpath
import stat
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from joseki_miner.fast.mapped import Arena
from joseki_miner.runs.files import SkipHook, walk
from joseki_miner.method.records import GameRecord, Reject
from joseki_miner.readers import archives, encoding
from joseki_miner.readers.digest import HashedFile, unreadable, whole_digest
from joseki_miner.readers.ishi import looks_like_ishi, read_ishi_bytes
from joseki_miner.readers.kifu import IndexStore, looks_like_index, looks_like_kifu, read_kifu_bytes
from joseki_miner.readers.sgf import FIELD_BYTES, read_sgf_bytes

SGF_SUFFIXES = {".sgf", ".mgt"}
ARCHIVE_SUFFIXES = {".zip", ".tar", ".gz", ".tgz", ".bz2", ".tbz", ".tbz2", ".xz", ".txz", ".gzip"}
INDEX_SUFFIX = ".index"
HEAD = 8192
KEPT_BYTES = 256 << 20  # decompressed archives held from the index pre-pass for the main pass, at most
MAX_NESTING = 4
MEMBER_BYTES = archives.MEMBER_BYTES
INDEX_TOO_LARGE = "index file too large (limits.member_mb): ignored"


@dataclass(frozen=True)
class Share:
    """A partition's share of its collections (``cluster.partitions``):
    the kifu index files it does not read but needs (``indexes``), read in
    the reading order (the first ``before`` of them before its files),
    ``part``: (k, K), the k-th of K parts of the members of each archive
    (``Reader``), and ``rows``: (k, K), the k-th of K equal runs of the
    games and rejects read (``bulk.read_batches``: a kifu month, one
    member, too large for one partition)."""

    indexes: tuple[str | os.PathLike, ...] = ()
    before: int = 0
    part: tuple[int, int] = (0, 1)
    rows: tuple[int, int] = (0, 1)


@dataclass(frozen=True)
class Taken:
    """What the caller takes as the files are read: the files skipped
    (``on_skip``), the tables that grow with the games (``arena``), each
    file's content digest (``digests``: ``readers.digest``)."""

    on_skip: SkipHook | None = None
    arena: Arena | None = None
    digests: dict | None = None


def iter_files(
    paths: Iterable[str | os.PathLike], on_skip: SkipHook | None = None, exclude: Iterable[str | os.PathLike] = ()
) -> Iterator[Path]:
    """The files of ``walk``, as paths."""
    for found in walk(paths, on_skip, exclude):
        yield Path(found.path)


def _suffix(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot:].lower() if dot > 0 else ""


def _is_junk(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.startswith("._") or "__MACOSX/" in name or base in (".DS_Store", "Thumbs.db")


def sniff(name: str, head: bytes) -> str | None:
    """What a file holds, from its name and first bytes: one of "zip",
    "tar", "gzip", "bz2", "xz", "sgf", "kifu", "index", "ishi", or None
    when it is no game file at all."""
    if (
        head[:1] == b"("
        and b";" in head[:HEAD]
        and b"\0" not in head[:200]
        and not _is_junk(name)
        and _suffix(name) != INDEX_SUFFIX
        and not archives.looks_like_tar(head)
    ):
        return "sgf"  # nearly every game file, as ``sniff_every_rule`` decides it (no mark, no UTF-16, no blank first)
    return sniff_every_rule(name, head)


def sniff_every_rule(name: str, head: bytes) -> str | None:
    """``sniff``, every rule in its order."""
    if _is_junk(name):
        return None
    kind = archives.magic_kind(head)
    if kind is not None:
        return kind
    suffix = _suffix(name)
    if suffix == INDEX_SUFFIX:
        return "index"
    body, bom = encoding.strip_bom(head)
    if bom is not None and bom != "utf_8":
        body = body.decode(bom, "replace").encode("utf-8")
    stripped = body.lstrip()
    if stripped.startswith(b"(") and b";" in stripped[:HEAD]:
        return "sgf"
    if suffix in SGF_SUFFIXES and _SGF_START_RE.search(body):
        return "sgf"  # named SGF and holding a game start: junk before it or not
    if looks_like_kifu(body):
        return "kifu"
    if looks_like_index(body):
        return "index"
    if looks_like_ishi(body):
        return "ishi"
    if suffix in SGF_SUFFIXES:
        return "sgf"
    return None


_SGF_START_RE = re.compile(rb"\(\s*;")


def shown(name: str) -> str:
    """A file or member name as sources and locations show it: its bytes
    that are not UTF-8 (which os and tarfile hand over as lone surrogates)
    as backslash escapes, ``\\xff``, so that any table can hold it."""
    if name.isascii():
        return name
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte stands for
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def _join(prefix: str, member: str) -> str:
    return f"{prefix}!{member}" if prefix else member


def _index_scope(vpath: str, archive_vpath: str | None) -> str:
    scope = posixpath.dirname(vpath)
    if archive_vpath is not None and scope == archive_vpath:
        scope = posixpath.dirname(archive_vpath)
    if posixpath.basename(scope).lower() == "index":
        scope = posixpath.dirname(scope)
    return scope


def _vpath(path: Path | str) -> str:
    return os.path.abspath(path).replace(os.sep, "/")


def index_scope(path: Path | str) -> str:
    """The folder (a virtual path) whose kifu games the index file at
    ``path`` describes, or the indexes at the root of the archive at
    ``path``: as the index pre-pass scopes them."""
    return _index_scope(_vpath(path), None)


def _holds_kifu(name: str, head: bytes) -> bool:
    """Whether a member whose first bytes are ``head`` is, or may hold, a
    kifu dump, whose games the kifu indexes name (a part of a zip without
    one needs no index read before it)."""
    kind = sniff(name, head)
    return kind == "kifu" or kind in archives.ARCHIVE_KINDS


def _holds_indexes(name: str, head: bytes) -> bool:
    """Whether a member whose first bytes are ``head`` is, or may hold, a
    kifu index (an index, or an archive): what a part reads of the members
    before it (``_indexes_in``)."""
    kind = sniff(name, head)
    return kind == "index" or kind in archives.ARCHIVE_KINDS


def _wants_index(name: str) -> bool:
    return name.lower().endswith(INDEX_SUFFIX) and not _is_junk(name)


def _inflated_size(inflated: archives.Tar | list | None) -> int:
    if isinstance(inflated, archives.Tar):
        return len(inflated.data) if inflated.data is not None else 0
    return sum(len(data) for _, data, _ in inflated) if inflated else 0


def _small(fd: int, limit: int) -> tuple[bytes, os.stat_result] | None:
    """A regular file of at most ``limit`` bytes read whole from an open
    descriptor, and its stat; None for anything else (larger, not regular,
    growing, unreadable: read through a file object).  The descriptor is
    left open, at the file's start."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:  # it changed: read as a large file is
            os.lseek(fd, 0, os.SEEK_SET)
            return None
    except OSError:
        return None
    return data, st


def _read_whole(fh, limit: int) -> bytes | None:
    """An open file's bytes from its start, or None when it holds more than
    ``limit``: refused by its size, and never read further than a byte past
    the limit (a file can grow, or not say its size).  Read in one piece
    (``head + rest`` held the file twice)."""
    size = os.fstat(fh.fileno()).st_size
    if size > limit:
        return None
    fh.seek(0)
    data = fh.read(size + 1)
    if len(data) > size:  # it grew, or did not say
        data += fh.read(limit + 1 - len(data))
    return data if len(data) <= limit else None


class Reader:
    """The walk of files, folders and archives, each file told apart by
    its content and read by its format into records (``records``); the
    batch reader (``bulk``) reads the same files into flat batches."""

    def __init__(
        self,
        encoding_fallback: bool,
        on_skip: SkipHook | None,
        arena: Arena | None = None,
        member_bytes: int = MEMBER_BYTES,
        field_bytes: int = FIELD_BYTES,
        part: tuple[int, int] = (0, 1),
        digests: dict | None = None,
    ) -> None:
        self.fallback = encoding_fallback
        # given, each file's content digest and its stat as the digest ended, by path, taken as it is read
        self.digests = digests
        # (k, K): of each archive, the k-th of K runs of its members (in order, as even in number as can be);
        # of a file that is no archive, the whole file in part 0 and nothing in the others
        self.part = part
        self.on_skip = on_skip
        self.member_bytes = member_bytes
        self.field_bytes = field_bytes
        self.index = IndexStore(arena, line_bytes=field_bytes)
        self.loaded: set[str] = set()  # vpaths of index files already read
        self.inflater: archives.Inflater | None = None
        self.kept: dict[str, archives.Tar | list] = {}  # archives the index pre-pass decompressed, for the main pass
        self.kept_bytes = 0

    # -- index pre-pass --------------------------------------------------
    def load_indexes(self, files: list[Path]) -> None:
        # this pass mostly waits for them; of a zip only the index files are inflated
        inflater = archives.Inflater(files, ahead=2, want=_wants_index, limit=self.member_bytes)
        try:
            self._load_indexes(files, inflater)
        finally:
            inflater.close()

    def load_found_by_content(self, files: list[Path]) -> None:
        """Of index files outside a partition, before its own in the reading
        order, those only their content says are indexes (``index/x.txt``):
        one reading adds them as its main pass meets them, before it reaches
        the partition's files (those after, it has not met yet)."""
        for f in files:
            vpath = _vpath(f)
            if vpath in self.loaded or _is_junk(f.name):
                continue
            try:
                with open(f, "rb") as fh:
                    if sniff(f.name, fh.read(HEAD)) == "index":
                        data = _read_whole(fh, self.member_bytes)
                        if data is not None:
                            self._add_index(vpath, None, data)
            except OSError:  # the partition that holds it says why
                continue

    def _keep(self, path: Path, inflated: archives.Tar | list | None) -> None:
        """Hold a decompressed tar for the main pass, within KEPT_BYTES; and
        a zip whose members this pass inflated all (it inflates only index
        files: a zip of indexes)."""
        if isinstance(inflated, list) and not all(data is not None for _, data, _ in inflated):
            return
        size = _inflated_size(inflated)
        if inflated is not None and self.kept_bytes + size <= KEPT_BYTES:
            self.kept[str(path)] = inflated
            self.kept_bytes += size

    def _kept(self, path: Path):
        """What the pre-pass kept or the read-ahead has of ``path``, if anything."""
        inflated = self.kept.pop(str(path), None)
        if inflated is not None:
            self.kept_bytes -= _inflated_size(inflated)
        elif self.inflater is not None:
            inflated = self.inflater.take(path)
        return inflated

    def _load_indexes(self, files: list[Path], inflater: archives.Inflater) -> None:
        for f in files:
            name = f.name
            if _is_junk(name):
                continue
            suffix = _suffix(name)
            try:
                if suffix == INDEX_SUFFIX:
                    with open(f, "rb") as fh:
                        data = _read_whole(fh, self.member_bytes)
                    if data is not None:  # else the main pass names it among the skipped files
                        self._add_index(_vpath(f), None, data)
                elif suffix in ARCHIVE_SUFFIXES or suffix == "":
                    with open(f, "rb") as fh:
                        head = fh.read(HEAD)
                        kind = archives.magic_kind(head)
                        if kind is not None:
                            fh.seek(0)
                            inflated = inflater.take(f)
                            self._scan_archive_indexes(kind, fh, name, _vpath(f), inflated)
                            self._keep(f, inflated)
                        elif suffix == "" and looks_like_index(head):
                            data = _read_whole(fh, self.member_bytes)
                            if data is not None:
                                self._add_index(_vpath(f), None, data)
            except Exception:  # noqa: BLE001 - the main pass reports what cannot be read
                continue

    def _scan_archive_indexes(self, kind: str, fh, name: str, vpath: str, inflated: archives.Tar | None = None) -> None:
        for member, data, error in archives.iter_members(
            kind, fh, name, want=_wants_index, inflated=inflated, limit=self.member_bytes
        ):
            if data is not None and not error:
                self._add_index(f"{vpath}/{member}", vpath, data)

    def _add_index(self, vpath: str, archive_vpath: str | None, data: bytes) -> None:
        if vpath in self.loaded:
            return
        self.loaded.add(vpath)
        self.index.add_aside(_index_scope(vpath, archive_vpath), data)  # read while the pre-pass goes on

    # -- main pass -------------------------------------------------------
    def skip(self, source: str, location: str, why: str) -> None:
        if self.on_skip is not None:
            self.on_skip(source, location, why)

    def read_files(self, files: list[Path]) -> Iterator:
        """The items of ``files``, in order (archives inflated a file ahead,
        in the background, unless the index pre-pass kept them)."""
        # a part of a zip inflates its own members (``_members_of_part``), not the whole zip ahead
        self.inflater = archives.Inflater(
            [f for f in files if str(f) not in self.kept], zips=self.part[1] == 1, limit=self.member_bytes
        )
        try:
            for f in files:
                yield from self.read_file(f)
        finally:
            self.inflater.close()
            self.inflater = None
            self.kept.clear()
            self.kept_bytes = 0

    def read_file(self, path: Path) -> Iterator[GameRecord | Reject]:
        """The games of a file, and the rejects."""
        source = shown(str(path))
        first = self.part[0] == 0  # what is said of the file as a whole, its first part says
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            if self.digests is not None:
                self.digests[str(path)] = (unreadable(exc), None)
            if first:
                yield Reject(source, "", "unreadable file", f"{type(exc).__name__}: {exc}")
            return
        small = _small(fd, min(HEAD - 1, self.member_bytes))
        if small is not None:  # a folder of small games: open, stat, read, close, and no file object
            data, st = small
            kind = sniff(path.name, data)
            if kind not in archives.ARCHIVE_KINDS:  # an archive is read from its file, as a large one is
                os.close(fd)
                if self.digests is not None:
                    self.digests[str(path)] = whole_digest(data, st)
                if not first:
                    return
                vpath = "" if kind == "sgf" else _vpath(path)  # an SGF game needs no index
                if kind is None or kind == "index":
                    self._skip_kind(kind, source, "", vpath, None, data)
                    return
                yield from self._read_text(kind, data, source, "", vpath)
                return
        vpath = _vpath(path)
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            fh = open(fd, "rb")
        except OSError as exc:  # a folder, say, put where the file was
            os.close(fd)
            if self.digests is not None:
                self.digests[str(path)] = (unreadable(exc), None)
            if first:
                yield Reject(source, "", "unreadable file", f"{type(exc).__name__}: {exc}")
            return
        if self.digests is not None:  # the ingest key's digest, of the bytes read here (``inputs``)
            fh = HashedFile(fh)
        with fh:
            try:
                try:
                    head = fh.read(HEAD)
                except OSError as exc:
                    if first:
                        yield Reject(source, "", "unreadable file", f"{type(exc).__name__}: {exc}")
                    return
                kind = sniff(path.name, head)
                if kind in archives.ARCHIVE_KINDS:
                    fh.seek(0)
                    inflated = self._kept(path)
                    yield from self._read_archive(kind, fh, path.name, source, "", vpath, 0, inflated)
                    return
                if not first:
                    return
                if kind is None or kind == "index":
                    self._skip_kind(kind, source, "", vpath, None, head, fh)
                    return
                try:  # a file shorter than its head was read whole with it (a folder of small games)
                    data = head if len(head) < min(HEAD, self.member_bytes + 1) else _read_whole(fh, self.member_bytes)
                except OSError as exc:
                    yield Reject(source, "", "unreadable file", f"{type(exc).__name__}: {exc}")
                    return
            finally:
                if self.digests is not None:
                    self.digests[str(path)] = fh.finish()
        if data is None:
            yield Reject(source, "", "file too large", f"more than {self.member_bytes:,} bytes (limits.member_mb)")
            return
        yield from self._read_text(kind, data, source, "", vpath)

    def _skip_kind(self, kind, source, location, vpath, archive_vpath, head, fh=None) -> None:
        if kind == "index":
            if vpath not in self.loaded:  # found by content only now (or too large for the pre-pass)
                try:
                    data = _read_whole(fh, self.member_bytes) if fh is not None else head
                except OSError:
                    data = head
                if data is None:
                    self.skip(source, location, INDEX_TOO_LARGE)
                    return
                self._add_index(vpath, archive_vpath, data)
            self.skip(source, location, "index file (metadata, not games)")
        else:
            self.skip(source, location, "not a game record")

    def _read_archive(
        self, kind, fh, name, source, prefix, vpath, depth, inflated=None
    ) -> Iterator[GameRecord | Reject]:
        if depth >= MAX_NESTING:
            yield Reject(source, prefix, "unreadable archive member", "archives nested too deep")
            return
        try:
            members = archives.iter_members(kind, fh, name, inflated=inflated, limit=self.member_bytes)
            if depth == 0 and self.part[1] > 1:
                members = self._members_of_part(kind, fh, name, vpath, inflated, members)
            for member, data, error in members:
                location = _join(prefix, shown(member)) if member else (prefix or "(archive)")
                if isinstance(error, archives.NotAFile):
                    self.skip(source, location, error)
                    continue
                if isinstance(error, archives.TooLarge):
                    yield Reject(source, location, "archive member too large", error)
                    continue
                if error or data is None:
                    yield Reject(source, location, "unreadable archive member", shown(error) or "no data")
                    continue
                yield from self._read_member(data, member, source, location, f"{vpath}/{member}", vpath, depth)
        except Exception as exc:  # noqa: BLE001 - a reader never raises
            yield Reject(source, prefix or "(archive)", "unreadable archive member", f"{type(exc).__name__}: {exc}")

    def _members_of_part(self, kind, fh, name, vpath, inflated, members) -> Iterator:
        """Of ``members`` (an archive's, in order), this reader's part: the
        k-th of K runs, cut by a count of the archive's members (a first
        walk, which reads no member's data; the archive kept in memory by
        the index pre-pass, or inflated ahead, is walked again, not
        inflated again).  The last part takes every member from its start
        on, so a damaged archive that a walk without data counts otherwise
        still gives each member, and its error, to one part alone (an
        archive that cannot be walked at all: to the last part).  The
        members before the part are read for the kifu indexes among them
        alone, which a whole reading would know by then.  A zip's part
        inflates its own members alone (``archives.ZipPart``), and of those
        before it only their first bytes, where its own may hold kifu games
        (the read-ahead would inflate the whole zip in every part)."""
        k, parts = self.part
        if kind == "zip" and not isinstance(inflated, list):  # its own members alone are inflated
            try:
                part = archives.ZipPart(fh, k, parts, self.member_bytes)
            except archives.READ_ERRORS:  # no central directory: walked as below, by its local headers
                fh.seek(0)
            else:
                try:
                    if part.any_own(_holds_kifu, HEAD):  # its kifu games need the indexes before it
                        for name, data, _ in part.before(_holds_indexes, HEAD):
                            self._indexes_in(data, name, f"{vpath}/{name}", vpath, 0)
                    yield from part.own()
                finally:
                    part.close()
                return
        try:
            count = sum(
                1
                for _ in archives.iter_members(
                    kind, fh, name, want=lambda member: False, inflated=inflated, limit=self.member_bytes
                )
            )
        except Exception:  # noqa: BLE001 - the reading walk says why, in the last part
            count = 0
        fh.seek(0)
        lo, hi = k * count // parts, (k + 1) * count // parts if k < parts - 1 else None
        i = 0  # the members walked
        try:
            for item in members:
                if hi is not None and i >= hi:
                    return
                if i >= lo:
                    yield item
                elif item[1] is not None and not item[2]:
                    self._indexes_in(item[1], item[0], f"{vpath}/{item[0]}", vpath, 0)
                i += 1
        except Exception:  # noqa: BLE001 - said by the part that holds the member where the walk failed
            if lo <= i and (hi is None or i < hi):
                raise

    def _indexes_in(self, data: bytes, member: str, vpath: str, archive_vpath: str, depth: int) -> None:
        """The kifu indexes a whole reading of a member would add, and
        nothing else: neither games nor skips (another part says those)."""
        kind = sniff(member, data[:HEAD])
        if kind == "index":
            self._add_index(vpath, archive_vpath, data)  # once: an index already loaded is kept
        elif kind in archives.ARCHIVE_KINDS and depth + 1 < MAX_NESTING:
            try:
                for inner, inner_data, error in archives.iter_members(
                    kind, archives.as_fileobj(data), member, limit=self.member_bytes
                ):
                    if inner_data is not None and not error:
                        self._indexes_in(inner_data, inner, f"{vpath}/{inner}", vpath, depth + 1)
            except Exception:  # noqa: BLE001 - the part that holds the member says why it cannot be read
                pass

    def _read_member(self, data, member, source, location, vpath, archive_vpath, depth):
        kind = sniff(member, data[:HEAD])
        if kind in archives.ARCHIVE_KINDS:
            yield from self._read_archive(kind, archives.as_fileobj(data), member, source, location, vpath, depth + 1)
        elif kind is None or kind == "index":
            self._skip_kind(kind, source, location, vpath, archive_vpath, data)
        else:
            yield from self._read_text(kind, data, source, location, vpath)

    def _read_text(self, kind, data, source, location, vpath) -> Iterator[GameRecord | Reject]:
        if kind == "sgf":
            yield from read_sgf_bytes(
                data, source, location, encoding_fallback=self.fallback, field_bytes=self.field_bytes
            )
        elif kind == "kifu":
            yield from read_kifu_bytes(
                data, source, location, self.index.lookup_for(vpath), field_bytes=self.field_bytes
            )
        elif kind == "ishi":
            yield from read_ishi_bytes(
                data, source, location, encoding_fallback=self.fallback, field_bytes=self.field_bytes
            )


def existing_files(
    paths: Iterable[str | os.PathLike] | str | os.PathLike,
    on_skip: SkipHook | None = None,
    exclude: Iterable[str | os.PathLike] = (),
) -> list[Path]:
    """Every file under ``paths`` (see ``iter_files``); FileNotFoundError
    for a path that does not exist."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    for p in paths:
        if not os.path.lexists(p):
            raise FileNotFoundError(f"no such file or folder: {p}")
    return list(iter_files(paths, on_skip, exclude))


def read_paths(
    paths: Iterable[str | os.PathLike] | str | os.PathLike,
    *,
    encoding_fallback: bool = True,
    on_skip: SkipHook | None = None,
    arena: Arena | None = None,
    exclude: Iterable[str | os.PathLike] = (),
    member_bytes: int = MEMBER_BYTES,
    field_bytes: int = FIELD_BYTES,
) -> Iterator[GameRecord | Reject]:
    """Every game found under ``paths``, in a deterministic order: one
    ``GameRecord`` or one ``Reject`` per game met.

    ``encoding_fallback``: guess legacy encodings of text that is neither
    valid in its declared charset nor UTF-8 (see ``encoding``); off, such a
    game is rejected as ``undecodable text``.  ``on_skip(source, location,
    why)`` hears of every file or member that holds no game (index files,
    READMEs...).  Raises FileNotFoundError for a path that does not exist
    (an unusable invocation); everything else becomes a record or a reject.
    The index lines of kifu dumps are held in ``arena`` (``mapped``; in
    memory if none).  Folders in ``exclude`` are not read (``iter_files``).
    ``member_bytes`` and ``field_bytes``: the limits (limits.member_mb and
    limits.field_kb, in bytes; see above).
    """
    files = existing_files(paths, on_skip, exclude)
    reader = Reader(encoding_fallback, on_skip, arena, member_bytes, field_bytes)
    reader.load_indexes(files)
    yield from reader.read_files(files)


def read_bytes(
    data: bytes,
    name: str,
    *,
    source: str | None = None,
    encoding_fallback: bool = True,
    on_skip: SkipHook | None = None,
    member_bytes: int = MEMBER_BYTES,
    field_bytes: int = FIELD_BYTES,
) -> Iterator[GameRecord | Reject]:
    """The games in one file's bytes, as if a file called ``name`` held them
    (no index join beyond indexes inside the bytes' own archive)."""
    reader = Reader(encoding_fallback, on_skip, None, member_bytes, field_bytes)
    source = shown(name if source is None else source)
    kind = sniff(name, data[:HEAD])
    if kind in archives.ARCHIVE_KINDS:
        try:
            reader._scan_archive_indexes(kind, archives.as_fileobj(data), name, "/" + name)  # within the limits
        except Exception:  # noqa: BLE001 - the main pass reports what cannot be read
            pass
        yield from reader._read_archive(kind, archives.as_fileobj(data), name, source, "", "/" + name, 0)
    elif kind is None or kind == "index":
        reader._skip_kind(kind, source, "", "/" + name, None, data)
    else:
        yield from reader._read_text(kind, data, source, "", "/" + name)
