"""The arena of arrays that grow with the games: in memory up to a budget,
then mapped files of which about the budget stays resident."""

from __future__ import annotations

import numpy as np
from helpers import linux, resident

from joseki_miner.fast.mapped import COPY_STEP, PAGE, Arena


def test_arrays_are_in_memory_within_the_budget_then_mapped(tmp_path):
    arena = Arena(tmp_path, budget=64 * 1024)
    small = arena.zeros(4096, np.int64)  # 32 KiB: within half the budget
    large = arena.zeros((8192, 2), np.uint64)  # 128 KiB: past it
    assert id(small) not in arena.mapped and id(large) in arena.mapped
    assert small.sum() == 0 and large.sum() == 0 and large.shape == (8192, 2)
    assert list(tmp_path.iterdir()) == []  # unlinked at once: nothing left behind
    arena.free(small)
    assert arena.held == 0
    again = arena.zeros(4096, np.int64)  # room again once freed
    assert id(again) not in arena.mapped


def test_without_a_folder_every_array_is_in_memory():
    arena = Arena(None, budget=16)
    array = arena.zeros(1000, np.int64)
    assert not arena.mapped and array.nbytes == 8000


@linux
def test_mapped_pages_are_dropped_past_the_budget_and_keep_their_values(tmp_path):
    budget = 128 * PAGE
    arena = Arena(tmp_path, budget=budget)
    table = arena.zeros(1 << 20, np.int64)  # 8 MiB, mapped
    rng = np.random.default_rng(1)
    want = np.zeros_like(table)
    for _ in range(40):
        at = rng.integers(0, len(table), 512)
        table[at] = at + 1  # at most 512 pages touched
        want[at] = at + 1
        arena.touched(512 * PAGE)
        assert resident(table) <= budget // 2 + 512 * PAGE
    assert arena.drops > 0
    assert np.array_equal(table, want)  # dropped pages come back from the file


@linux
def test_an_array_kept_past_the_budget_is_copied_within_it(tmp_path):
    arena = Arena(tmp_path, budget=64 * PAGE)
    small = np.arange(100)
    assert arena.keep(small) is small  # within the budget: itself
    source = np.arange(1 << 18, dtype=np.int64)  # 2 MiB
    copy = arena.keep(source)
    assert id(copy) in arena.mapped
    assert resident(copy) <= arena.budget // 2 + COPY_STEP
    assert np.array_equal(copy, source)
