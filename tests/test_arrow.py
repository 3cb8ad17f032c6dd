"""Arrow columns built from buffers against pyarrow's own conversions, and
a ``mine`` run that needs no pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from joseki_miner.arrow import column, numpy, strings

DTYPES = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float64, np.bool_])


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda t: hnp.arrays(t, st.integers(0, 70), elements=st.floats(allow_nan=False)
                                           if t is np.float64 else None)), st.integers(0, 5))
def test_columns_are_pyarrows_columns(values, cut):
    got = column(values)
    assert got.equals(pa.array(values)) and got.type == pa.array(values).type
    if values.dtype != np.bool_:
        assert np.array_equal(numpy(got), values)
        sliced = got.slice(min(cut, len(values)))  # an offset into the buffer
        assert np.array_equal(numpy(sliced), values[min(cut, len(values)):])
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
