"""A run asked to stop (Ctrl-C, SIGTERM).

A signal handler that raises wherever the interpreter happens to be can land
inside a compiled call or a reader's ``except``, and a stop then looks like
the end of the input.  So the CLI's handlers only ``request`` a stop, and the
long loops of a run ``check`` for it at points where stopping leaves nothing
half-done: between batches of games, blocks of the trie, files hashed.
``check`` raises ``Stopped``, which unwinds the run like any error (no file
is committed).

Knows nothing of games or files.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Stopped(Exception):
    """The run was asked to stop; ``signal`` names why ("SIGINT", "SIGTERM").

    No ``JosekiError``: a stop is asked for, not a failure.  It unwinds the
    run as ``KeyboardInterrupt`` does, and the command reports the two
    alike (exit 128 + the signal's number, "interrupted"), never as an
    error's line; apart, no ``except JosekiError`` takes a stop for one."""

    def __init__(self, signal: str) -> None:
        super().__init__(f"stopped by {signal}")
        self.signal = signal


_asked = threading.Event()
_why = ["SIGINT"]
_task = threading.local()  # per thread: the run whose task it runs (a dask worker's thread), if any
_ended: set[str] = set()  # runs that failed or were stopped while their tasks ran here


def request(signal: str = "SIGINT") -> None:
    """Ask the run to stop at its next check (safe from a signal handler)."""
    _why[0] = signal
    _asked.set()


def requested() -> bool:
    return _asked.is_set()


def check() -> None:
    """Raise ``Stopped`` if a stop was asked for, or if this thread runs a
    task of a run that has ended."""
    if _asked.is_set():
        raise Stopped(_why[0])
    run = getattr(_task, "run", None)
    if run is not None and run in _ended:
        raise Stopped("the end of its run")


@contextmanager
def task_of(run: str) -> Iterator[None]:
    """The block runs a task of ``run`` (in this thread): once that run has
    ended (``end``), its next ``check`` raises."""
    before, _task.run = getattr(_task, "run", None), run
    try:
        yield
    finally:
        _task.run = before


def end(run: str) -> None:
    """``run`` failed or was stopped: its tasks still running in this
    process stop at their next ``check``."""
    _ended.add(run)


def reset() -> None:
    """Forget a request (a new run in the same process)."""
    _asked.clear()
