"""The fingerprint table of duplicate games against a plain dict."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import linux, resident

from joseki_miner.fast.fingerprints import MAX_ID, FingerprintTable, room_in
from joseki_miner.fast.mapped import PAGE, Arena

# few distinct values, so repeats are common; high bits vary too
PRINTS = st.tuples(st.sampled_from([0, 1, 2**63, 2**64 - 1, 12345, 2**40 + 7]), st.sampled_from([0, 1, 2**63 + 5, 99]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(PRINTS, max_size=40), max_size=8), st.booleans())
def test_first_ids_are_those_of_a_dict_of_first_occurrences(tmp_path_factory, batches, mapped):
    """Batch after batch: a fingerprint seen before gives the id its first
    game was stored with; a new one gives -1 and takes the next id; in
    memory or in mapped files whose pages are dropped all the time."""
    arena = Arena(tmp_path_factory.mktemp("arena"), budget=0) if mapped else None
    table = FingerprintTable(capacity=16, arena=arena)  # small, so it grows on the way
    seen: dict = {}
    next_id = 0
    for batch in batches:
        h1 = np.array([a for a, _ in batch], dtype=np.uint64)
        h2 = np.array([b for _, b in batch], dtype=np.uint64)
        got = table.first_ids(h1, h2, next_id).tolist()
        want = []
        for key in batch:
            if key in seen:
                want.append(seen[key])
            else:
                seen[key] = next_id
                next_id += 1
                want.append(-1)
        assert got == want
        assert len(table) == len(seen)
        assert len(table) <= room_in(len(table.ids))  # at most three quarters full


def test_a_million_distinct_fingerprints_stay_distinct():
    rng = np.random.default_rng(7)
    h1 = rng.integers(0, 2**63, size=1_000_000, dtype=np.uint64)
    h2 = rng.integers(0, 2**63, size=1_000_000, dtype=np.uint64)
    table = FingerprintTable()
    assert (table.first_ids(h1, h2, 0) == -1).all()
    again = table.first_ids(h1[::-1], h2[::-1], 10**6)
    assert (again == np.arange(10**6)[::-1]).all()
    assert table.nbytes <= 20 * 2**21  # 20 bytes a slot, 2**21 slots: more than a third full


def test_ids_past_int32_are_refused_not_wrapped():
    table = FingerprintTable()
    with pytest.raises(OverflowError):
        table.first_ids(np.array([1], np.uint64), np.array([2], np.uint64), MAX_ID)


@linux
def test_a_table_past_its_arena_budget_stays_resident_within_it(tmp_path):
    """Two million games: the table goes to mapped files (40 MiB at the
    end), of which about half the budget stays resident, and still finds
    every first game."""
    budget = 2 * 2**20
    table = FingerprintTable(arena=Arena(tmp_path, budget=budget))
    rng = np.random.default_rng(11)
    h1 = rng.integers(0, 2**64 - 1, size=2_000_000, dtype=np.uint64)
    h2 = rng.integers(0, 2**64 - 1, size=2_000_000, dtype=np.uint64)
    batch = 4096
    for lo in range(0, len(h1), batch):
        assert (table.first_ids(h1[lo : lo + batch], h2[lo : lo + batch], lo) == -1).all()
        held = sum(resident(a) if id(a) in table.arena.mapped else a.nbytes for a in (table.keys, table.ids))
        assert held <= budget + 3 * PAGE * batch  # half the budget in memory, half mapped, and a batch
    assert table.arena.most_mapped >= table.nbytes > 2 * budget and table.arena.drops > 0
    order = rng.permutation(len(h1))
    assert (table.first_ids(h1[order], h2[order], len(h1)) == order).all()
