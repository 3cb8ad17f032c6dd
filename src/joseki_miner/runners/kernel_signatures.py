"""The type signatures the kernels are called with from Python, as
numba compiled them over ../shared/data and the tests (written by
scripts/kernel_signatures.py: do not edit; ``runners.kernels`` reads it)."""

from typing import Any

from numba import types as t

from joseki_miner.fast import fasttrie
from joseki_miner.fast import fingerprints
from joseki_miner.fast import kernel
from joseki_miner.fast import scan
from joseki_miner.readers import tarwalk

A = t.Array

SIGNATURES: tuple[tuple[Any, list[tuple[t.Type, ...]]], ...] = (
    (
        fasttrie._back,
        [
            (A(t.int64, 1, "C"),),
        ],
    ),
    (
        fasttrie._classes,
        [
            (
                A(t.int16, 2, "C"),
                t.int64,
                A(t.uint8, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._close_stats,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                t.int64,
                t.int64,
                A(t.int32, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._count_block,
        [
            (
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.uint8, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int8, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                A(t.int16, 2, "C"),
                A(t.uint8, 1, "C"),
                t.int64,
                t.boolean,
                t.int64,
                A(t.int64, 2, "C"),
                A(t.int16, 1, "C"),
                A(t.uint8, 1, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int32, 2, "C"),
                A(t.int64, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._gather,
        [
            (
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.uint64, 1, "C"),
            ),
            (
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.uint8, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._merge_runs,
        [
            (
                A(t.uint64, 2, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._not_above,
        [
            (
                A(t.uint64, 2, "C"),
                t.int64,
                A(t.uint64, 2, "C"),
                t.int64,
            ),
        ],
    ),
    (
        fasttrie._pack,
        [
            (
                A(t.int32, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.uint64, 2, "C"),
            ),
            (
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.uint64, 2, "C"),
            ),
        ],
    ),
    (
        fasttrie._scatter,
        [
            (
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
            ),
            (
                A(t.int64, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int32, 1, "C"),
            ),
            (
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._shared,
        [
            (
                A(t.int64, 1, "A"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int16, 1, "C"),
            ),
            (
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int16, 1, "C"),
            ),
        ],
    ),
    (
        fasttrie._starts,
        [
            (A(t.int64, 1, "C"),),
        ],
    ),
    (
        fasttrie._tally,
        [
            (
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        fingerprints._insert,
        [
            (
                A(t.uint64, 2, "C"),
                A(t.int32, 1, "C"),
                A(t.uint64, 1, "C"),
                A(t.uint64, 1, "C"),
                t.int64,
                t.int64,
                A(t.int64, 1, "C"),
                t.int64,
            ),
        ],
    ),
    (
        fingerprints._rehash,
        [
            (
                A(t.uint64, 2, "C"),
                A(t.int32, 1, "C"),
                A(t.uint64, 2, "C"),
                A(t.int32, 1, "C"),
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._axis_half,
        [
            (
                t.int64,
                t.int64,
                t.int64,
                t.int64,
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._build_chains,
        [
            (A(t.int64, 2, "C"),),
        ],
    ),
    (
        kernel._clear_distance,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int16, 2, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 2, "C"),
                t.int64,
                t.int64,
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._extract_batch,
        [
            (
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
                t.int64,
                t.int64,
                t.int64,
                t.int64,
                t.int64,
                t.int64,
                t.boolean,
                A(t.int16, 2, "C"),
                A(t.int8, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.boolean, 1, "C"),
                A(t.boolean, 1, "C"),
                t.boolean,
                t.int64,
                A(t.int64, 1, "C"),
                A(t.int8, 1, "C"),
                A(t.boolean, 1, "C"),
                A(t.int32, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int16, 2, "C"),
                A(t.int16, 1, "C"),
                A(t.uint8, 1, "C"),
                t.int64,
                t.int64,
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.uint64, 1, "C"),
                A(t.uint64, 1, "C"),
            ),
        ],
    ),
    (
        kernel._fingerprint,
        [
            (
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                t.int64,
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._first_occupied,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._last_repeat,
        [
            (
                A(t.int16, 1, "C"),
                t.int64,
                t.int64,
                A(t.int16, 1, "C"),
                t.int64,
                t.int64,
                A(t.boolean, 1, "C"),
            ),
        ],
    ),
    (
        kernel._merge,
        [
            (
                A(t.int64, 2, "C"),
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._normal_transform,
        [
            (
                A(t.int16, 2, "C"),
                A(t.int16, 3, "C"),
                t.int64,
                t.int64,
                t.boolean,
                A(t.int16, 2, "C"),
                A(t.int8, 2, "C"),
                A(t.boolean, 1, "C"),
            ),
        ],
    ),
    (
        kernel._play,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                t.int64,
                t.int64,
            ),
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                t.int8,
                t.int64,
            ),
        ],
    ),
    (
        kernel._remove_chain,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                t.int64,
            ),
        ],
    ),
    (
        kernel._set,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                t.int64,
                t.int64,
            ),
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                t.int64,
                t.int8,
            ),
        ],
    ),
    (
        kernel._set_up,
        [
            (
                A(t.int64, 2, "C"),
                A(t.int64, 2, "C"),
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        kernel._validate_batch,
        [
            (
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        scan.find_rows,
        [
            (
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                t.int64,
                A(t.int32, 1, "C"),
                A(t.uint8, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.boolean, 1, "C"),
                t.int64,
                A(t.uint8, 1, "C", True),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        scan.ident_hashes,
        [
            (
                A(t.uint8, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.boolean, 1, "C"),
                t.int64,
            ),
        ],
    ),
    (
        scan.index_info_spans,
        [
            (
                A(t.uint8, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 2, "C"),
                t.int64,
                A(t.boolean, 1, "C"),
                A(t.int64, 3, "C"),
            ),
        ],
    ),
    (
        scan.info_column,
        [
            (
                A(t.uint8, 1, "C"),
                A(t.uint8, 1, "C", True),
                A(t.int64, 3, "C"),
                t.int64,
            ),
            (
                A(t.uint8, 1, "C", True),
                A(t.uint8, 1, "C", True),
                A(t.int64, 3, "C"),
                t.int64,
            ),
        ],
    ),
    (
        scan.joined_lines,
        [
            (
                A(t.uint8, 1, "C", True),
                A(t.uint8, 1, "C", True),
                A(t.int64, 2, "C"),
            ),
        ],
    ),
    (
        scan.kifu_ids,
        [
            (
                A(t.uint8, 1, "C", True),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        scan.moves_text,
        [
            (
                A(t.int8, 1, "C"),
                A(t.int16, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
            ),
        ],
    ),
    (
        scan.scan_kifu,
        [
            (
                A(t.uint8, 1, "C", True),
                t.int64,
                t.int64,
                A(t.boolean, 1, "C"),
            ),
        ],
    ),
    (
        scan.scan_sgf,
        [
            (
                A(t.uint8, 1, "C", True),
                A(t.int64, 1, "C"),
                A(t.int64, 1, "C"),
                A(t.boolean, 1, "C"),
                A(t.int64, 1, "C"),
                t.int64,
            ),
        ],
    ),
    (
        scan.sgf_info_spans,
        [
            (
                A(t.uint8, 1, "C", True),
                A(t.int64, 3, "C"),
                A(t.boolean, 1, "C"),
                A(t.boolean, 1, "C"),
                A(t.int64, 3, "C"),
            ),
        ],
    ),
    (
        scan.text_lines,
        [
            (
                A(t.uint8, 1, "C", True),
                A(t.boolean, 1, "C"),
                t.int64,
                t.int64,
            ),
        ],
    ),
    (
        tarwalk.walk_tar,
        [
            (
                A(t.uint8, 1, "C", True),
                A(t.int64, 2, "C"),
            ),
        ],
    ),
)
