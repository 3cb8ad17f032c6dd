"""Arrow columns built from buffers against pyarrow's own conversions, and
a ``mine`` run that needs no pandas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from joseki_miner.fast.arrow import column, numpy, strings

ROOT = Path(__file__).resolve().parents[1]

DTYPES = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float64, np.bool_])


@settings(max_examples=200, deadline=None)
@given(
    DTYPES.flatmap(
        lambda t: hnp.arrays(t, st.integers(0, 70), elements=st.floats(allow_nan=False) if t is np.float64 else None)
    ),
    st.integers(0, 5),
)
def test_columns_are_pyarrows_columns(values, cut):
    got = column(values)
    assert got.equals(pa.array(values)) and got.type == pa.array(values).type
    if values.dtype != np.bool_:
        assert np.array_equal(numpy(got), values)
        sliced = got.slice(min(cut, len(values)))  # an offset into the buffer
        assert np.array_equal(numpy(sliced), values[min(cut, len(values)) :])
        chunked = pa.chunked_array([got, got], got.type)
        assert np.array_equal(numpy(chunked), np.concatenate([values, values]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | st.text(), max_size=20))
def test_strings_are_pyarrows_strings(values):
    got = strings(values)
    want = pa.array(values, pa.string())
    assert got.equals(want) and got.null_count == want.null_count


def test_an_arrow_type_names_the_column_type():
    assert column([1, 2], pa.int16()).type == pa.int16()
    assert column([1, 0], pa.bool_()).to_pylist() == [True, False]


def test_mine_imports_no_pandas(demo_games, tmp_path):
    """pa.array and to_numpy import pandas on their first call: a fifth of a
    second of the interpreter's lock, in the middle of the first batches.
    Every stage of ``mine`` builds its columns without them."""
    script = (
        "import sys\n"
        "from pipeline.cli import app\n"
        "try:\n"
        f"    app([{'mine'!r}, {str(demo_games)!r}, '--out', {str(tmp_path)!r}, '--quiet'], prog_name='joseki')\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print('pandas' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "False"


DASK_SCRIPT = """
import sys
from pathlib import Path


def loaded():
    import sys
    return sorted(m for m in ("pandas", "matplotlib") if m in sys.modules)


if __name__ == "__main__":
    from joseki_miner.cluster.client import Cluster, Options
    from joseki_miner.runs.config import load
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.catalog import STAGES
    from pipeline.run import Request, run_stages

    games, folder = sys.argv[1], Path(sys.argv[2])
    cluster = Cluster(Options(workers=1))
    run_stages(Catalog(work=folder / "work", out=folder / "out"), load(None, []), STAGES, [games],
               Request(progress=False, engine="dask", cluster=Options(scheduler=cluster.client.scheduler.address)))
    print(list(cluster.client.run(loaded).values()))
"""


def test_a_dask_worker_imports_neither_pandas_nor_matplotlib(demo_games, tmp_path):
    """A worker's every task (partitions, resolution, joins, counts, the
    report) builds and reads its tables without pandas, and draws without
    matplotlib: each import is a few tenths of a second of every worker's."""
    script = tmp_path / "run.py"
    script.write_text(DASK_SCRIPT)
    result = subprocess.run(
        [sys.executable, str(script), str(demo_games), str(tmp_path / "mined")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert result.stdout.strip().splitlines()[-1] == "[[]]"
