"""Parquet helpers shared by the stages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def count_rows(path: Path) -> int:
    return pq.ParquetFile(path).metadata.num_rows


def string_bytes(column: pa.StringArray) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (from 0) and the bytes of a string column, without copying
    it into Python strings."""
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + len(column) + 1]
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return offsets - offsets[0], data
