"""Columnar, batched, deterministic Parquet writing shared by the stages."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


class BatchWriter:
    """Collect rows column-wise and write them as row groups of ``batch``."""

    def __init__(self, path: Path, schema: pa.Schema, batch: int = 50_000) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = path.with_suffix(path.suffix + ".tmp")
        self.path = path
        self.schema = schema
        self.batch = batch
        self.columns: dict[str, list] = {n: [] for n in schema.names}
        self.rows = 0
        self.writer = pq.ParquetWriter(self.tmp, schema, compression="zstd")

    def add(self, row: dict) -> None:
        for name, column in self.columns.items():
            column.append(row[name])
        self.rows += 1
        if len(self.columns[self.schema.names[0]]) >= self.batch:
            self.flush()

    def flush(self) -> None:
        if self.columns[self.schema.names[0]]:
            self.writer.write_table(pa.table(self.columns, schema=self.schema))
            self.columns = {n: [] for n in self.schema.names}

    def close(self) -> None:
        self.flush()
        self.writer.close()
        self.tmp.replace(self.path)  # a reader never sees a half-written file


def write_frame(frame, path: Path) -> None:
    """Write a pandas frame without its index, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp, compression="zstd")
    tmp.replace(path)


def iter_batches(path: Path, columns: list[str] | None = None, batch: int = 20_000):
    """Row batches of a Parquet file as dicts of Python lists."""
    for rb in pq.ParquetFile(path).iter_batches(batch_size=batch, columns=columns):
        yield rb.to_pydict()


def count_rows(path: Path) -> int:
    return pq.ParquetFile(path).metadata.num_rows
