"""Archives read in place: zip, tar (plain, gz, bz2, xz), single gz/bz2/xz.

Nothing is unpacked to disk: tar archives are streamed member by member,
zip members are read through the central directory (or, when that is lost
to truncation, by walking the local headers), single compressed files are
decompressed in memory.  Each member comes out as ``(name, data, error)``:
``data`` is None and ``error`` says why when a member cannot be read, so a
damaged archive loses only the members it cannot give.

No member is inflated past a limit (``limit``, bytes: limits.member_mb): a
larger one comes out with a ``TooLarge`` error, found from its declared
size when it has one (zip, tar) and otherwise by inflating with a bounded
output, which stops one byte past the limit; declared sizes only ever
refuse early, never let more through.  A tar is inflated whole in memory
(its headers walked compiled) only within the limit; a larger one is
streamed member by member.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import BinaryIO, NamedTuple

from joseki_miner.runs import threads

Member = tuple[str, "bytes | None", str]

READ_ERRORS = (
    tarfile.TarError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    lzma.LZMAError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    struct.error,
    KeyError,
    IndexError,
    OverflowError,
    TypeError,  # tarfile on a gzip header cut short
    AttributeError,
)

ARCHIVE_KINDS = ("zip", "tar", "gzip", "bz2", "xz")
MEMBER_BYTES = 512 << 20  # limits.member_mb's default


class TooLarge(str):
    """A member's error detail that says it inflates past the limit: the
    reader rejects it as "archive member too large", not as unreadable."""


class NotAFile(str):
    """A member's error detail that says it holds no data of its own (a
    link, a device): the reader names it among the skipped files."""


def not_a_file(kind: str) -> NotAFile:
    """The detail of a member that is not a regular file: its kind, the key
    it is counted under among the skipped files."""
    return NotAFile(f"{kind} in an archive (not followed)" if "link" in kind else f"{kind} in an archive")


class TooLargeError(Exception):
    """Inflating went past the limit (stopped there).

    No ``JosekiError``: a member's error, as ``RecordError`` is a record's,
    never the command's.  It is caught in this module: a member past the
    limit is rejected as too large (``too_large``), a compressed tar past
    it is read member by member instead; the run goes on."""


def too_large(limit: int) -> TooLarge:
    """The detail of every member past ``limit``, however it was found."""
    return TooLarge(f"more than {limit:,} bytes inflated (limits.member_mb)")


def magic_kind(head: bytes) -> str | None:
    """The archive kind of a file by its first bytes (at least 512 for tar)."""
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"BZh") and len(head) > 3 and head[3:4].isdigit():
        return "bz2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if looks_like_tar(head):
        return "tar"
    return None


_CHECKSUM_FIELD = re.compile(rb"[0-7 \x00]*")


def looks_like_tar(block: bytes) -> bool:
    """Is ``block`` (>= 512 bytes) a tar header?"""
    if len(block) < 512:
        return False
    if block[257:262] == b"ustar":
        return True
    if not _CHECKSUM_FIELD.fullmatch(block, 148, 156):  # no octal checksum: no tar (most text, and fast)
        return False
    try:  # old v7 tar: check the header checksum
        stored = int(block[148:156].split(b"\x00")[0].strip() or b"-1", 8)
    except ValueError:
        return False
    computed = sum(block[:148]) + 8 * 32 + sum(block[156:512])
    return stored == computed and any(block[:100])


def _decompressor(kind: str, fileobj: BinaryIO) -> BinaryIO:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=fileobj, mode="rb")
    if kind == "bz2":
        return bz2.BZ2File(fileobj, mode="rb")
    return lzma.LZMAFile(fileobj, mode="rb")


def _peek(kind: str, raw: bytes, size: int) -> bytes:
    """The first ``size`` decompressed bytes of ``raw`` (a possibly cut
    compressed stream), as far as they can be had."""
    try:
        if kind == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, size)
        if kind == "bz2":
            return bz2.BZ2Decompressor().decompress(raw, size)
        return lzma.LZMADecompressor().decompress(raw, size)
    except READ_ERRORS:
        return b""


TAR_NAMES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz", ".tar")


def compressed_holds_tar(kind: str, fileobj: BinaryIO, name: str = "") -> bool:
    """Does the compressed stream in ``fileobj`` (at its start) hold a tar?
    Leaves ``fileobj`` at its start.  On a stream cut too short to show a
    whole tar header, the name decides (``.tar.gz``, ``.tgz``...)."""
    pos = fileobj.tell()
    raw = fileobj.read(1 << 16)
    fileobj.seek(pos)
    head = _peek(kind, raw, 512)
    if len(head) >= 512:
        return looks_like_tar(head)
    if len(head) >= 262 and head[257:262] == b"ustar":
        return True
    return name.lower().endswith(TAR_NAMES)


class _WatchedTarInfo(tarfile.TarInfo):
    """Notes on the archive why its headers ended: tarfile ends a stream
    silently on a cut or damaged header past the first member; only a block
    of zeros is a proper end."""

    @classmethod
    def fromtarfile(cls, tf):  # noqa: D102 - tarfile's hook
        try:
            return super().fromtarfile(tf)
        except tarfile.EOFHeaderError:
            raise
        except tarfile.EmptyHeaderError:
            tf._joseki_end = "the archive ends without its end-of-archive marker (truncated?)"
            raise
        except tarfile.TruncatedHeaderError:
            tf._joseki_end = "the archive is cut inside a member header (truncated)"
            raise
        except tarfile.InvalidHeaderError as exc:
            tf._joseki_end = f"damaged member header: {exc}"
            raise


def iter_tar(
    fileobj: BinaryIO, want: Callable[[str], bool] | None = None, limit: int = MEMBER_BYTES, kind: str = "tar"
) -> Iterator[Member]:
    """Stream the regular files of a tar, compressed as ``kind`` says (a
    magic_kind() answer).  ``want`` picks the members whose data is read
    (others come out with data None, no error); a member larger than
    ``limit`` is not read (its size in the header is what the stream
    holds).  A damaged or truncated stream ends the walk with one error
    item: the member being read, or ``(after NAME)`` when the damage is in
    the headers after it.  The stream is inflated by gzip's (bz2's, lzma's)
    file objects, whose reads are bounded; tarfile's own ("r|*") inflates
    each block it reads whole, and a block of a bz2 bomb is gigabytes."""
    last = ""
    try:
        stream = _decompressor(kind, fileobj) if kind in ("gzip", "bz2", "xz") else fileobj
        tf = tarfile.open(fileobj=stream, mode="r|", tarinfo=_WatchedTarInfo)
    except READ_ERRORS as exc:
        yield "(start of archive)", None, f"not a readable tar archive: {exc}"
        return
    with tf:
        while True:
            try:
                info = tf.next()
            except READ_ERRORS as exc:
                where = f"(after {last})" if last else "(start of archive)"
                yield where, None, f"archive damaged or truncated: {exc or type(exc).__name__}"
                return
            if info is None:
                problem = getattr(tf, "_joseki_end", "")
                if problem:
                    yield (f"(after {last})" if last else "(start of archive)"), None, problem
                return
            if not info.isfile():
                if info.issym() or info.islnk():
                    yield info.name, None, not_a_file("symbolic link" if info.issym() else "hard link")
                elif not info.isdir():
                    yield info.name, None, not_a_file("device or pipe")
                continue
            last = info.name
            if want is not None and not want(info.name):
                yield info.name, None, ""
                continue
            if info.size > limit:
                yield info.name, None, too_large(limit)  # the walk skips its data, a block at a time
                continue
            try:
                handle = tf.extractfile(info)
                data = handle.read() if handle is not None else b""
                if len(data) != info.size:
                    raise EOFError(f"member cut short: {len(data)} of {info.size} bytes")
            except READ_ERRORS as exc:
                yield info.name, None, f"{type(exc).__name__}: {exc}"
                return  # a stream cannot go on past a damaged member
            yield info.name, data, ""


_INFLATE_LIMIT = 256 << 20  # decompressed bytes of a zip read ahead, at most
_COMPRESSED_SUFFIXES = (".gz", ".tgz", ".gzip", ".bz2", ".tbz", ".tbz2", ".xz", ".txz")  # read ahead when tars


try:  # Intel ISA-L's inflate: the same bytes as zlib's, in under half the time
    from isal import isal_zlib as _isal_zlib
except ImportError:  # pragma: no cover - isal is a dependency; zlib does the same, slower
    _isal_zlib = None

_INFLATE_ERRORS = READ_ERRORS + ((_isal_zlib.IsalError,) if _isal_zlib is not None else ())


def _new_decompressor(kind: str):
    if kind == "gzip":  # a gzip member, header and trailer checked
        return (_isal_zlib or zlib).decompressobj(16 + zlib.MAX_WBITS)
    return bz2.BZ2Decompressor() if kind == "bz2" else lzma.LZMADecompressor()


def _inflate(kind: str, raw: bytes, limit: int) -> bytes:
    """The compressed stream ``raw`` decompressed whole, as gzip.decompress
    (bz2.decompress, lzma.decompress) reads it: members or streams one after
    the other.  The output is bounded: TooLargeError once it would pass
    ``limit`` bytes (nothing past limit + 1 is inflated); a READ_ERRORS (or
    ISA-L) exception for damaged or cut data."""
    parts: list[bytes] = []
    room = limit + 1
    while raw:
        d = _new_decompressor(kind)
        try:
            out = d.decompress(raw, room)
        except (OSError, lzma.LZMAError):
            if parts and kind != "gzip":
                break  # data after the streams that is no stream: ignored, as bz2 and lzma do
            raise
        room -= len(out)
        if room <= 0:
            raise TooLargeError(limit)
        if not d.eof:
            raise EOFError("compressed data ended before the end-of-stream marker was reached")
        parts.append(out)
        raw = d.unused_data.lstrip(b"\0") if kind == "gzip" else d.unused_data  # gzip allows zero padding
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _decompressed(kind: str, fileobj: BinaryIO, limit: int = MEMBER_BYTES) -> bytes | None:
    """The whole decompressed stream (a plain tar's bytes for "tar"), or
    None if it cannot be had cleanly within ``limit`` bytes: then the tar
    is streamed member by member, which reads what it can and says what is
    wrong.  More than ``limit`` compressed bytes are not read either."""
    try:
        raw = fileobj.read(limit + 1)
        if len(raw) > limit:
            return None
        return raw if kind == "tar" else _inflate(kind, raw, limit)
    except (TooLargeError, *_INFLATE_ERRORS):
        return None


class Inflater:
    """Archives decompressed in background threads, ``ahead`` files ahead of
    the reader (the first ones from the start), so that reading need not
    wait for zlib, bz2 or lzma (which let other threads run meanwhile).  ``take(path)`` gives, for a
    compressed tar, its content and headers as ``iter_tar_fast`` would find them;
    for a zip (when ``zips``), its members as ``iter_zip`` gives them (with
    ``want``: only the members it wants are inflated); or None (then
    ``iter_members`` reads the file itself).  ``limit``: as ``iter_members``'s;
    a tar past it (or damaged) is given as ``Tar(None, None)``, to be
    streamed without inflating it again."""

    def __init__(
        self,
        paths: list,
        ahead: int = 1,
        zips: bool = True,
        want: Callable[[str], bool] | None = None,
        limit: int = MEMBER_BYTES,
    ) -> None:
        suffixes = _COMPRESSED_SUFFIXES + ((".zip",) if zips else ())
        self.want = want
        self.limit = limit
        self.paths = [str(p) for p in paths if str(p).lower().endswith(suffixes)]
        self.position = {p: i for i, p in enumerate(self.paths)}
        self.ahead = ahead
        self.futures: dict[int, Future] = {}
        self.pool = threads.pool(ahead, "inflate") if self.paths else None
        for j in range(min(ahead, len(self.paths))):  # from now on: the reader has other files to read first
            self._start(j)

    def _start(self, j: int) -> None:
        self.futures[j] = self.pool.submit(_inflate_file, self.paths[j], self.want, self.limit)

    def take(self, path) -> Tar | list[Member] | None:
        i = self.position.get(str(path))
        if i is None or self.pool is None:
            return None
        for j in range(i, min(i + self.ahead + 1, len(self.paths))):
            if j not in self.futures:
                self._start(j)
        for j in [j for j in self.futures if j < i]:
            self.futures.pop(j).cancel()
        return self.futures.pop(i).result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.futures.clear()


# flags of a member that zipfile refuses to read (encrypted, strongly
# encrypted, compressed patched data): the fast paths leave it to zipfile
_ZIPFILE_JUDGES = 0x01 | 0x20 | 0x40


def _zip_raw(buf: bytes, info: zipfile.ZipInfo) -> bytes | None:
    """The stored (compressed) bytes of a member of a zip held in ``buf``,
    or None at anything zipfile itself should judge (encryption, other
    methods, a local header that disagrees with the directory)."""
    h = info.header_offset
    if (
        info.flag_bits & _ZIPFILE_JUDGES
        or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
        or h + _LOCAL.size > len(buf)
    ):
        return None
    (magic, _, flags, _, _, _, _, _, _, nlen, xlen) = _LOCAL.unpack_from(buf, h)
    name = buf[h + 30 : h + 30 + nlen].decode("utf-8" if flags & 0x800 else "cp437", "replace")
    start = h + 30 + nlen + xlen
    raw = buf[start : start + info.compress_size]
    if magic != b"PK\x03\x04" or name != info.orig_filename or len(raw) != info.compress_size:
        return None
    return raw


def _inflatable(infos: list[zipfile.ZipInfo], limit: int) -> bool:
    """Whether these members may be inflated at once (the read-ahead's
    bound, and no member past ``limit``)."""
    return sum(i.file_size for i in infos) <= _INFLATE_LIMIT and all(i.file_size <= limit for i in infos)


def _zip_members(buf: bytes, infos: list[zipfile.ZipInfo]) -> list[Member] | None:
    """``list(iter_zip(...))`` of a sound zip held in memory (``infos``: its
    central directory), its members inflated by ISA-L; None at anything
    zipfile itself should judge (encryption, other methods, names or sizes
    or CRCs that disagree)."""
    if _isal_zlib is None:
        return None
    out: list[Member] = []
    for info in infos:
        if info.is_dir():
            continue
        raw = _zip_raw(buf, info)
        if raw is None or _is_link(info):
            return None
        try:
            if info.compress_type == zipfile.ZIP_STORED:
                data = raw
            else:  # never past the size declared (within the limit): a lie stops there
                inflate = _isal_zlib.decompressobj(-15)
                data = inflate.decompress(raw, info.file_size + 1)
                if not inflate.eof:
                    return None
        except Exception:  # noqa: BLE001 - zipfile judges it
            return None
        if len(data) != info.file_size or _isal_zlib.crc32(data) != info.CRC:
            return None
        out.append((info.filename, data, ""))
    return out


def _inflate_file(
    path: str, want: Callable[[str], bool] | None = None, limit: int = MEMBER_BYTES
) -> Tar | list[Member] | None:
    try:
        with open(path, "rb") as fh:
            kind = magic_kind(fh.read(1024))
            if kind == "zip":
                fh.seek(0)
                try:
                    with zipfile.ZipFile(fh) as zf:
                        infos = zf.infolist()
                except READ_ERRORS:
                    return None
                wanted = [i for i in infos if want is None or want(i.filename)]
                if not _inflatable(wanted, limit) or os.fstat(fh.fileno()).st_size > 2 * _INFLATE_LIMIT:
                    return None  # iter_zip reads it, member by member
                fh.seek(0)
                members = _zip_members(fh.read(), wanted)
                if members is None:
                    fh.seek(0)
                    return list(iter_zip(fh, want))
                if want is not None:  # as iter_zip gives them: the others named, without data
                    found = iter(members)
                    members = [
                        next(found) if want(i.filename) else (i.filename, None, "") for i in infos if not i.is_dir()
                    ]
                return members
            if kind not in ("gzip", "bz2", "xz"):
                return None
            fh.seek(0)
            if not compressed_holds_tar(kind, fh, path):
                return None
            data = _decompressed(kind, fh, limit)
            return _tar(data) if data is not None else Tar(None, None)  # to be streamed
    except Exception:  # noqa: BLE001 - the reader then reads the file itself and reports what is wrong
        return None


class Tar(NamedTuple):
    """A decompressed tar and its members as ``tarwalk.tar_members`` finds them;
    data None: a tar to be streamed (past the limit, or damaged)."""

    data: bytes | None
    members: list[tuple[str, int, int]] | None


def _tar(data: bytes) -> Tar:
    """A plain tar held in memory, with its members."""
    # compiled: loaded where a tar is read, not where inputs are planned
    from joseki_miner.readers.tarwalk import tar_members

    return Tar(data, tar_members(data))


def iter_tar_fast(
    kind: str,
    fileobj: BinaryIO,
    want: Callable[[str], bool] | None = None,
    inflated: Tar | None = None,
    limit: int = MEMBER_BYTES,
) -> Iterator[Member]:
    """``iter_tar`` for a plain, sound tar: decompress it whole (unless
    ``inflated`` holds it and its headers already) and walk its headers directly
    (tarfile's per-member work is most of the cost of reading thousands of
    small files).  Anything unusual, or a tar larger than ``limit`` bytes,
    goes to ``iter_tar``, which gives the same members for a sound archive."""
    pos = fileobj.tell()
    if inflated is None:
        data = _decompressed(kind, fileobj, limit)
        inflated = _tar(data) if data is not None else None
    data, members = inflated if inflated is not None else (None, None)
    if members is None:
        fileobj.seek(pos)
        yield from iter_tar(fileobj, want, limit, kind)
        return
    view = memoryview(data)
    for name, start, size in members:
        if want is not None and not want(name):
            yield name, None, ""
        else:
            yield name, bytes(view[start : start + size]), ""


def iter_zip(
    fileobj: BinaryIO, want: Callable[[str], bool] | None = None, limit: int = MEMBER_BYTES
) -> Iterator[Member]:
    """The files of a zip, in stored order; a member that cannot be read
    (bad data, bad CRC, unsupported method) comes out with its error, one
    that declares more than ``limit`` bytes with ``too_large`` (zipfile never
    inflates past the size declared).  A zip whose central directory is gone
    (a truncated download) is walked by its local headers instead."""
    try:
        zf = zipfile.ZipFile(fileobj)
        infos = zf.infolist()
    except READ_ERRORS:
        fileobj.seek(0)
        yield from _salvage_zip(fileobj.read(), want, limit)
        return
    with zf:
        for info in infos:
            if info.is_dir():
                continue
            if want is not None and not want(info.filename):
                yield info.filename, None, ""
                continue
            yield _zip_member(zf, info, limit)


def _is_link(info: zipfile.ZipInfo) -> bool:
    """A symbolic link, as Info-ZIP stores one (its data is where it points)."""
    return (info.external_attr >> 16) & 0o170000 == 0o120000


def _zip_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> Member:
    if _is_link(info):
        return info.filename, None, not_a_file("symbolic link")
    if info.file_size > limit:
        return info.filename, None, too_large(limit)
    try:
        return info.filename, zf.read(info), ""
    except READ_ERRORS as exc:
        return info.filename, None, f"{type(exc).__name__}: {exc}"


class ZipPart:
    """The ``k``-th of ``parts`` runs of a zip's files (numbered as
    ``iter_zip`` gives them), read from its central directory (ZipFile
    raises where it is lost): ``own`` gives its members as ``iter_zip``
    does (the last run: every file from its start on), ``before`` the
    files before it, of which only what is asked is read.  A zip no larger
    than the read-ahead's bound is held in memory (its compressed bytes),
    and a run within it inflated at once by ISA-L: one part costs its own
    members and one reading of the directory, not the whole archive."""

    def __init__(self, fileobj: BinaryIO, k: int, parts: int, limit: int = MEMBER_BYTES) -> None:
        self.zf = zipfile.ZipFile(fileobj)
        infos = [info for info in self.zf.infolist() if not info.is_dir()]
        lo, hi = k * len(infos) // parts, (k + 1) * len(infos) // parts if k < parts - 1 else len(infos)
        self.buf = b""
        if os.fstat(fileobj.fileno()).st_size <= 2 * _INFLATE_LIMIT:
            fileobj.seek(0)
            self.buf = fileobj.read()
        self.limit, self.earlier, self.mine = limit, infos[:lo], infos[lo:hi]

    def own(self) -> Iterator[Member]:
        """Its own members (after ``any_own`` and ``before``: the compressed
        bytes are let go here)."""
        buf, self.buf, members = self.buf, b"", None
        if buf and _inflatable(self.mine, self.limit):
            members = _zip_members(buf, self.mine)
        del buf
        if members is not None:
            yield from members
            return
        for info in self.mine:  # one at a time: a large run is never held whole
            yield _zip_member(self.zf, info, self.limit)

    def any_own(self, peek: Callable[[str, bytes], bool], head: int) -> bool:
        """Whether ``peek(name, first bytes)`` wants any of its own files."""
        return any(peek(info.filename, first) for info, first in self._heads(self.mine, head))

    def before(self, peek: Callable[[str, bytes], bool], head: int) -> Iterator[Member]:
        """The files before the part that ``peek(name, first bytes)`` wants,
        whole; only the first ``head`` bytes of the others are inflated."""
        for info, first in self._heads(self.earlier, head):
            if peek(info.filename, first):
                try:
                    yield info.filename, self.zf.read(info), ""
                except READ_ERRORS:  # the part that holds it says why
                    continue

    def _heads(self, infos, head: int) -> Iterator[tuple[zipfile.ZipInfo, bytes]]:
        for info in infos:
            if info.file_size > self.limit:
                continue
            try:
                first = _zip_head(self.buf, info, head)
                if first is None:
                    with self.zf.open(info) as member:
                        first = member.read(head)
            except READ_ERRORS:
                continue
            yield info, first

    def close(self) -> None:
        self.zf.close()


def _zip_head(buf: bytes, info: zipfile.ZipInfo, head: int) -> bytes | None:
    """The first ``head`` bytes of a member of a zip held in ``buf``, or
    None where zipfile should read it (encryption, other methods, headers
    that disagree)."""
    raw = _zip_raw(buf, info) if buf else None
    if raw is None:
        return None
    if info.compress_type == zipfile.ZIP_STORED:
        return raw[:head]
    try:
        return zlib.decompressobj(-15).decompress(raw, head)
    except zlib.error:
        return None


_LOCAL = struct.Struct("<4s5H3L2H")
CUT_HEADER = "the archive is cut inside a member header"


def _salvage_zip(buf: bytes, want: Callable[[str], bool] | None, limit: int = MEMBER_BYTES) -> Iterator[Member]:
    pos = buf.find(b"PK\x03\x04")
    if pos < 0:
        yield "(start of archive)", None, "not a readable zip archive (no central directory, no member header)"
        return
    last = ""
    while 0 <= pos:
        if pos + _LOCAL.size > len(buf):
            yield (f"(after {last})" if last else "(start of archive)"), None, CUT_HEADER
            return
        (_, _, flags, method, _, _, crc, csize, usize, nlen, xlen) = _LOCAL.unpack_from(buf, pos)
        # a name flagged UTF-8 that is not (zipfile refuses the whole archive) keeps its bytes, escaped
        name = buf[pos + 30 : pos + 30 + nlen].decode("utf-8" if flags & 0x800 else "cp437", "backslashreplace")
        start = pos + 30 + nlen + xlen
        if start > len(buf):
            yield (f"(after {last})" if last else "(start of archive)"), None, CUT_HEADER
            return
        nxt = -1
        data, error = None, ""
        try:
            if name.endswith("/"):
                nxt = buf.find(b"PK\x03\x04", start)
                pos = nxt
                continue
            if flags & 1:
                raise NotImplementedError("encrypted member")
            if method not in (0, 8):
                raise NotImplementedError(f"compression method {method}")
            if flags & 8 or csize == 0 and method == 8:
                if method != 8:
                    raise NotImplementedError("stored member of unknown size")
                d = zlib.decompressobj(-15)
                data = d.decompress(buf[start:], limit + 1)
                if len(data) > limit:
                    raise TooLargeError(limit)
                if not d.eof:
                    raise EOFError("member cut short")
                end = len(buf) - len(d.unused_data)
            else:
                if usize > limit:
                    raise TooLargeError(limit)
                end = start + csize
                if end > len(buf):
                    raise EOFError(f"member cut short: {len(buf) - start} of {csize} bytes")
                raw = buf[start:end]
                if method == 0:
                    data = raw
                else:  # bounded: the size declared may lie
                    d = zlib.decompressobj(-15)
                    data = d.decompress(raw, limit + 1)
                    if len(data) > limit:
                        raise TooLargeError(limit)
                    if not d.eof:
                        zlib.decompress(raw, -15)  # raises, in zlib's words
                if zlib.crc32(data) != crc:
                    raise zipfile.BadZipFile("bad CRC-32")
            nxt = buf.find(b"PK\x03\x04", end)
        except TooLargeError:
            data, error = None, too_large(limit)
            nxt = buf.find(b"PK\x03\x04", start)
        except READ_ERRORS as exc:
            data, error = None, f"{type(exc).__name__}: {exc}"
            nxt = buf.find(b"PK\x03\x04", start)
        last = name
        if want is not None and not want(name):
            yield name, None, ""
        else:
            yield name, data, error
        pos = nxt


_STEP = 1 << 16  # bytes a single compressed file is read by: it is held to the limit and a step


def decompress_single(kind: str, fileobj: BinaryIO, limit: int = MEMBER_BYTES) -> tuple[bytes | None, str]:
    """The content of a single compressed file, or (None, error): read a
    step at a time, and no further than one step past ``limit`` bytes."""
    out = io.BytesIO()
    try:
        with _decompressor(kind, fileobj) as stream:
            while step := stream.read(_STEP):
                out.write(step)
                if out.tell() > limit:
                    return None, too_large(limit)
        return out.getvalue(), ""
    except READ_ERRORS as exc:
        return None, f"{type(exc).__name__}: {exc}"


def inner_name(name: str, kind: str) -> str:
    """The name of the file inside a single compressed file."""
    low = name.lower()
    for suffix in {"gzip": (".gz", ".gzip"), "bz2": (".bz2",), "xz": (".xz",)}.get(kind, ()):
        if low.endswith(suffix):
            return name[: -len(suffix)]
    return name


def iter_members(
    kind: str,
    fileobj: BinaryIO,
    name: str,
    want: Callable[[str], bool] | None = None,
    inflated: Tar | list[Member] | None = None,
    limit: int = MEMBER_BYTES,
) -> Iterator[Member]:
    """The members of an archive of ``kind`` (a magic_kind() answer);
    ``inflated``: what an ``Inflater`` read of it ahead with the same
    ``want`` and ``limit``, if anything.  A member past ``limit`` bytes
    comes out with a ``TooLarge`` error, uninflated."""
    if kind == "zip":
        if isinstance(inflated, list):
            yield from inflated
        else:
            yield from iter_zip(fileobj, want, limit)
    elif kind == "tar":
        yield from iter_tar_fast(kind, fileobj, want, None, limit)
    elif kind in ("gzip", "bz2", "xz"):
        tar = inflated if isinstance(inflated, Tar) else None
        if tar is not None or compressed_holds_tar(kind, fileobj, name):
            yield from iter_tar_fast(kind, fileobj, want, tar, limit)
            return
        member = inner_name(name.rsplit("/", 1)[-1], kind)
        if want is not None and not want(member):
            yield member, None, ""
            return
        data, error = decompress_single(kind, fileobj, limit)
        yield member, data, error


def as_fileobj(data: bytes) -> BinaryIO:
    return io.BytesIO(data)
