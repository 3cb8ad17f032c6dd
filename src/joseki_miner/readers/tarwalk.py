"""The regular files of a plain tar held in memory, found from its
headers: walked compiled (numba) where they are the plainest, header by
header in Python where they are not.  A module of its own so that what
only plans the inputs (the dask engine's driver) never loads numba.

Knows tar headers; nothing of compression, of streams (``archives``) or
of games."""

from __future__ import annotations

import numpy as np
from numba import njit

TarMembers = list[tuple[str, int, int]]  # (name, start, size) of each regular file


def tar_members(data: bytes) -> TarMembers | None:
    """(name, start, size) of the regular files of a plain tar held in
    memory, or None when anything is unusual (then ``archives.iter_tar``
    reads it and reports what is wrong): bad checksums, pax or GNU
    long-name headers, sparse files, base-256 sizes, a missing end marker,
    a cut member.  The headers are walked compiled (``walk_tar``); where
    that walk meets anything but the plainest fields, ``tar_headers``
    decides."""
    rows = np.empty((len(data) // 512 + 1, 6), dtype=np.int64)
    n = walk_tar(np.frombuffer(data, dtype=np.uint8), rows)
    if n < 0:
        return tar_headers(data)
    out = []
    for na, nb, pa, pb, start, size in rows[:n].tolist():
        name = data[pa:pb] + b"/" + data[na:nb] if pb > pa else data[na:nb]
        out.append((name.decode("utf-8", "surrogateescape"), start, size))
    return out


def tar_headers(data: bytes) -> TarMembers | None:
    """``tar_members`` read in Python, header by header."""
    out = []
    off, end = 0, len(data)
    while True:
        if off + 512 > end:
            return None  # no end-of-archive marker
        header = data[off : off + 512]
        if header.count(0) == 512:
            return out
        stored = header[148:156].split(b"\0", 1)[0].strip()
        try:
            if int(stored or b"-1", 8) != sum(header[:148]) + 256 + sum(header[156:]):
                return None
            size_field = header[124:136]
            if size_field[0] & 0x80:
                return None
            size = int(size_field.split(b"\0", 1)[0].strip() or b"0", 8)
        except ValueError:
            return None
        kind = header[156:157]
        name = header[:100].split(b"\0", 1)[0]
        prefix = header[345:500].split(b"\0", 1)[0]  # as tarfile: used whenever set
        if prefix:
            name = prefix + b"/" + name
        start = off + 512
        if start + size > end:
            return None  # cut inside a member
        if kind in (b"0", b"\0"):
            if not (kind == b"\0" and name.endswith(b"/")):  # old-style directory
                out.append((name.decode("utf-8", "surrogateescape"), start, size))
        elif kind != b"5":  # links, devices and pipes: ``archives.iter_tar`` names them
            return None
        off = start + (size + 511) // 512 * 512


@njit(cache=True, inline="always")
def _octal(data, a, b):
    """A header's octal field data[a:b] as tarfile reads plain ones (up to a
    NUL, blanks stripped): its value, -2 when empty, -1 when anything but
    octal digits is left (Python's int() then decides)."""
    e = a
    while e < b and data[e] != 0:
        e += 1
    while a < e and (data[a] == 32 or 9 <= data[a] <= 13):
        a += 1
    while e > a and (data[e - 1] == 32 or 9 <= data[e - 1] <= 13):
        e -= 1
    if a == e:
        return -2
    value = 0
    for i in range(a, e):
        if not 48 <= data[i] <= 55:
            return -1
        value = value * 8 + data[i] - 48
    return value


@njit(cache=True, inline="always")
def _field_end(data, a, b):
    """Where the NUL-terminated field data[a:b] ends."""
    while a < b and data[a] != 0:
        a += 1
    return a


@njit(cache=True, nogil=True)
def walk_tar(data, rows):
    """``tar_headers`` for the plainest tars: per regular file a row (name
    start, name end, prefix start, prefix end, data start, size); returns
    the number of files, or -1 where ``tar_headers`` must decide."""
    n = 0
    off = 0
    end = len(data)
    while True:
        if off + 512 > end:
            return -1
        zero = True
        for i in range(off, off + 512):
            if data[i] != 0:
                zero = False
                break
        if zero:
            return n
        stored = _octal(data, off + 148, off + 156)
        total = 256
        for i in range(off, off + 148):
            total += data[i]
        for i in range(off + 156, off + 512):
            total += data[i]
        if stored != total or data[off + 124] & 0x80:
            return -1
        size = _octal(data, off + 124, off + 136)
        if size == -1:
            return -1
        size = max(size, 0)
        kind = data[off + 156]
        name_end = _field_end(data, off, off + 100)
        prefix_end = _field_end(data, off + 345, off + 500)
        start = off + 512
        if start + size > end:
            return -1
        if kind == 48 or kind == 0:  # "0" or NUL: a regular file, unless an old-style directory
            if prefix_end > off + 345:
                last = data[name_end - 1] if name_end > off else 47  # prefix + "/" + name
            else:
                last = data[name_end - 1] if name_end > off else 0
            if not (kind == 0 and last == 47):
                rows[n, 0] = off
                rows[n, 1] = name_end
                rows[n, 2] = off + 345
                rows[n, 3] = prefix_end
                rows[n, 4] = start
                rows[n, 5] = size
                n += 1
        elif kind != 53:  # "5", a directory; links, devices and fifos are named by ``iter_tar``
            return -1
        off = start + (size + 511) // 512 * 512
