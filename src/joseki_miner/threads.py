"""Thread pools, or the caller's thread alone.

The readers and stages overlap their steps in threads (inflate, scan,
validate, write) so that one process keeps more than one core busy.  A dask
worker is one core of a cluster whose other cores run other workers: there
those threads only contend with them.  Inside ``one_thread()`` every pool
made with ``pool`` runs each call at once, in the caller's thread, and the
work is the same, in the same order.

Knows nothing of games or files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager

_alone = [False]


class Inline(Executor):
    """An executor that runs what it is given at once, in the caller's thread."""

    def submit(self, fn: Callable, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed over, as a thread's would be
            future.set_exception(exc)
        return future


def pool(max_workers: int = 1, thread_name_prefix: str = "", initializer: Callable[[], None] | None = None) -> Executor:
    """A ThreadPoolExecutor, or inside ``one_thread()`` an ``Inline`` one (its
    ``initializer``, for threads of its own, is not run)."""
    if _alone[0]:
        return Inline()
    return ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=thread_name_prefix, initializer=initializer)


@contextmanager
def one_thread() -> Iterator[None]:
    """Pools made inside run their work in the caller's thread."""
    before, _alone[0] = _alone[0], True
    try:
        yield
    finally:
        _alone[0] = before
