"""The headers of a plain tar held in memory, walked compiled (numba): a
module of its own so that what only plans the inputs (the dask engine's
driver) never loads numba."""

from __future__ import annotations

from numba import njit


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
    """``_tar_headers`` for the plainest tars: per regular file a row (name
    start, name end, prefix start, prefix end, data start, size); returns
    the number of files, or -1 where ``_tar_headers`` must decide."""
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
