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

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

_state = threading.local()  # per thread: a worker of several threads runs tasks side by side


def alone() -> bool:
    """Whether this thread is inside ``one_thread()``."""
    return getattr(_state, "alone", False)


class Inline(Executor):
    """An executor that runs what it is given at once, in the caller's thread
    (it has no threads to name)."""

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
    if alone():
        return Inline()
    return ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=thread_name_prefix, initializer=initializer)


@contextmanager
def one_thread() -> Iterator[None]:
    """Pools made inside (in this thread) run their work in the caller's thread."""
    before, _state.alone = alone(), True
    try:
        yield
    finally:
        _state.alone = before


def settled(future: Future, make: Callable[[], T]) -> T:
    """``make()``, whose result another thread awaits in ``future``: set
    there, or its error, which is then raised here too."""
    try:
        value = make()
    except BaseException as exc:
        future.set_exception(exc)
        raise
    future.set_result(value)
    return value
