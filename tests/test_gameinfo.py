"""The games' dates as the ingest figures keep them (``date_span``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from joseki_miner.method.gameinfo import date_span

days = st.lists(st.sampled_from([0, 19991231, 20040301, 20040300, 20040000, 20171230, 20250101]), max_size=12)


@given(st.lists(days, max_size=5))
def test_the_span_of_batches_is_the_span_of_all_the_games(batches):
    """Folded over batches in any grouping (the partitions' tasks, then
    the driver), the first and last known date of every game; 0, 0 where
    no game has one."""
    span = [0, 0]
    for batch in batches:
        span = date_span(np.array(batch, np.int64), span)
    known = [d for batch in batches for d in batch if d > 0]
    assert span == ([min(known), max(known)] if known else [0, 0])
    merged = [0, 0]
    for part in [date_span(np.array(batch, np.int64), [0, 0]) for batch in batches]:
        merged = date_span(np.array(part, np.int64), merged)
    assert merged == span
