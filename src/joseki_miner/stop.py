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


class Stopped(Exception):
    """The run was asked to stop; ``signal`` names why ("SIGINT", "SIGTERM")."""

    def __init__(self, signal: str) -> None:
        super().__init__(f"stopped by {signal}")
        self.signal = signal


_asked = threading.Event()
_why = ["SIGINT"]


def request(signal: str = "SIGINT") -> None:
    """Ask the run to stop at its next check (safe from a signal handler)."""
    _why[0] = signal
    _asked.set()


def requested() -> bool:
    return _asked.is_set()


def check() -> None:
    """Raise ``Stopped`` if a stop was asked for."""
    if _asked.is_set():
        raise Stopped(_why[0])


def reset() -> None:
    """Forget a request (a new run in the same process)."""
    _asked.clear()
