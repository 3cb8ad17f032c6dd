"""Arrays saved to a folder (joseki_miner.stages.saved): the bytes numpy
writes, and a full disk said in one line."""

from __future__ import annotations

import numpy as np
import pytest

from joseki_miner.stages import saved


@pytest.mark.parametrize("array", [np.array(7), np.zeros(0, np.int64), np.arange(24, dtype=np.int8).reshape(2, 12)])
def test_a_counts_arrays_are_npy_files_and_a_full_disk_says_so(tmp_path, array):
    """A count's arrays are the bytes ``np.save`` writes, and a full disk
    raises ENOSPC (the run's one line), not numpy's bare "requested and
    written" (a traceback)."""
    import errno
    import os

    saved.write_array(tmp_path / "a.npy", array)
    np.save(tmp_path / "b.npy", array, allow_pickle=False)
    assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here to fill a disk")
    with pytest.raises(OSError) as raised:
        saved.write_array("/dev/full", np.zeros(1 << 16, np.int64))
    assert raised.value.errno == errno.ENOSPC
