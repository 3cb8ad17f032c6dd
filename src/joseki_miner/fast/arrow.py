"""Arrow columns from numpy arrays and Python strings, and back, built from
their buffers.

``pa.array`` and ``Array.to_numpy`` import pandas on their first call in a
process, to ask whether their argument is a pandas object: a fifth of a
second holding the interpreter's lock, which ``mine`` paid in the middle of
reading its first batches.  Nothing in ``mine`` needs pandas, so its
columns go through here.  Only what the stages use: numbers and booleans
without nulls, strings with or without; and an array's bytes written
through Python's file (``put_array``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_NUMPY = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.uint16(): np.uint16,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
}
_ARROW = {np.dtype(v): k for k, v in _NUMPY.items()}


def column(values, dtype=None) -> pa.Array:
    """The Arrow array of a numpy array (of numbers or booleans), as
    ``pa.array(np.asarray(values, dtype))`` gives it; ``dtype`` numpy's
    or Arrow's."""
    if isinstance(dtype, pa.DataType):
        dtype = np.bool_ if dtype == pa.bool_() else _NUMPY[dtype]
    values = np.ascontiguousarray(values, dtype=dtype)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(_ARROW[values.dtype], len(values), [None, pa.py_buffer(values)])


def strings(values: list[str | None]) -> pa.StringArray:
    """The Arrow array of Python strings (None: null), as
    ``pa.array(values, pa.string())`` gives it.  A column of ASCII text
    (most game information) is encoded in one piece, its lengths those of
    the strings: a third of the time of encoding each."""
    n = len(values)
    offsets = np.zeros(n + 1, np.int32)
    if None not in values:
        joined = "".join(values)
        if joined.isascii():
            np.cumsum(np.fromiter(map(len, values), np.int64, n), out=offsets[1:], dtype=np.int32)
            return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(joined.encode("ascii")))
    nulls = [v is None for v in values]
    pieces = [b"" if v is None else v.encode("utf-8") for v in values]
    np.cumsum(np.fromiter(map(len, pieces), np.int64, len(pieces)), out=offsets[1:], dtype=np.int32)
    valid = None
    if any(nulls):
        valid = pa.py_buffer(np.packbits(~np.array(nulls), bitorder="little"))
    return pa.StringArray.from_buffers(
        n, pa.py_buffer(offsets), pa.py_buffer(b"".join(pieces)), valid, null_count=sum(nulls)
    )


def booleans(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A column of booleans without nulls as a numpy array."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = [
        np.unpackbits(np.frombuffer(c.buffers()[1], np.uint8), bitorder="little")[c.offset : c.offset + len(c)]
        for c in chunks
        if len(c)
    ]
    return np.concatenate(parts).astype(bool) if parts else np.zeros(0, bool)


def numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A column of numbers without nulls as a numpy array (as
    ``to_numpy()`` gives it)."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    dtype = _NUMPY[values.type]
    parts = [
        np.frombuffer(c.buffers()[1], dtype, count=len(c), offset=c.offset * np.dtype(dtype).itemsize)
        for c in chunks
        if len(c)
    ]
    return parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.zeros(0, dtype)


def put_array(f, a: np.ndarray) -> None:
    """An array's bytes through Python's file (``tofile``'s bytes): a full
    disk raises ENOSPC, which the run reports in one line."""
    if a.size:  # (a view of no bytes cannot be cast)
        f.write(memoryview(np.ascontiguousarray(a)).cast("B"))
