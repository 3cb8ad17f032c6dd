"""Arrays saved to a folder, whole once renamed: NAME.npy files, and the
small ones in one pickle (``TOGETHER``); nested arrays under flat names
("years.node" for arrays["years"]["node"]).  The build's counts keep their
node arrays and their games' days so, and prune's shard tasks hand on the
nodes prune kept.  Every byte goes through Python's file: a full disk
raises ENOSPC, which the run reports in one line."""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import numpy as np

from joseki_miner.fast.arrow import put_array

TOGETHER = "together.pkl"  # a saved folder's small arrays, by name


def write_array(path: Path | str, a: np.ndarray) -> None:
    """``np.save``'s bytes, written through Python's file: a full disk then
    raises ENOSPC, which the run reports in one line (numpy's own writing
    says only "N requested and M written")."""
    from numpy.lib import format as npy

    a = np.asarray(a)
    a = a if a.flags.c_contiguous else a.copy(order="C")  # (ascontiguousarray makes a 0-d array 1-d)
    with open(path, "wb") as f:
        npy.write_array_header_1_0(f, npy.header_data_from_array_1_0(a))
        put_array(f, a)


def save_arrays(folder: Path, arrays: dict[str, np.ndarray], together: tuple[str, ...] | None = None) -> None:
    """Arrays as NAME.npy files of ``folder``, whole once renamed (a
    zip of them, ``np.savez``, costs a CRC of every byte at each load),
    but those of the groups ``together`` in one pickle (``TOGETHER``):
    small arrays each a file cost their reader more to open and parse than
    to read (None: all of them, for folders of small arrays alone, as the
    nodes prune kept).  A copy of the same count that renamed
    its folder first is kept: its arrays are these."""
    writing = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(writing, ignore_errors=True)
    writing.mkdir()
    joined = {n: a for n, a in arrays.items() if together is None or n.partition(".")[0] in together}
    with open(writing / TOGETHER, "wb") as f:
        f.write(pickle.dumps(joined, protocol=pickle.HIGHEST_PROTOCOL))
    for name, a in arrays.items():
        if name not in joined:
            write_array(writing / f"{name}.npy", a)
    try:
        os.replace(writing, folder)
    except OSError:
        if not folder.is_dir():
            raise
        shutil.rmtree(writing, ignore_errors=True)


def load_arrays(folder: Path, without: tuple[str, ...] = (), mapped: bool = False) -> dict:
    """The arrays ``save_arrays`` wrote, by name (read, not mapped: a map holds
    its file open, and a few dozen counts of 25 arrays pass the usual limit of
    1,024 open files; ``mapped`` for a task that reads one count's, most
    of its arrays at a few rows, and lets them go), but those of the groups
    ``without`` ("years" for "years.node" ...)."""
    if not folder.is_dir():
        raise RuntimeError(f"{folder.parent} holds no counted subtrees")

    def wanted(name: str) -> bool:
        return name.partition(".")[0] not in without

    together = pickle.loads((folder / TOGETHER).read_bytes())
    out = {name: np.require(a, requirements="W") for name, a in together.items() if wanted(name)}
    for path in sorted(folder.glob("*.npy")):
        name = path.name[: -len(".npy")]
        if wanted(name):
            out[name] = np.load(path, allow_pickle=False, mmap_mode="r" if mapped else None)
    return dict(sorted(out.items()))


def flattened(arrays: dict) -> dict[str, np.ndarray]:
    """Node arrays as flat names ("years.node" for arrays["years"]["node"])."""
    return {
        f"{name}.{sub}" if sub else name: a
        for name, value in arrays.items()
        for sub, a in (value.items() if isinstance(value, dict) else [("", value)])
    }


def nested(flat: dict[str, np.ndarray]) -> dict:
    """Arrays under flat names nested again (``flattened``'s inverse)."""
    arrays: dict = {}
    for name, a in flat.items():
        top, _, sub = name.partition(".")
        if sub:
            arrays.setdefault(top, {})[sub] = a
        else:
            arrays[top] = a
    return arrays


def write_saved(folder: Path, arrays: dict) -> None:
    """Arrays (nested) for ``read_saved``, whole once renamed."""
    save_arrays(folder, flattened(arrays))


def read_saved(folder: Path) -> dict:
    """Arrays ``save_arrays`` wrote (the nodes prune kept, a count's days), nested."""
    return nested(load_arrays(folder))
