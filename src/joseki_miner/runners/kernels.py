"""Every kernel compiled at once.  numba compiles a kernel, for each type
signature, the first time a run calls it with that signature: a machine's
first run compiled only what its inputs needed, and a later run on other
inputs (a tar, a kifu dump, a table mapped past --table-memory) compiled
again.  A run that compiled anything calls ``warm``: every signature the
kernels are called with (``kernel_signatures``, written by
scripts/kernel_signatures.py) compiled and cached now, so later runs on
this machine compile nothing.

Knows numba's dispatchers; nothing of what the kernels compute."""

from __future__ import annotations


def warm() -> int:
    """Compile (or load from numba's cache) every known signature of every
    kernel not yet loaded in this process; how many there were."""
    from joseki_miner.runners.kernel_signatures import SIGNATURES

    done = 0
    for dispatcher, signatures in SIGNATURES:
        for signature in signatures:
            if signature not in dispatcher.overloads:
                dispatcher.compile(signature)
                done += 1
    return done
