"""Progress bars: tqdm's where a person watches, nothing where none does.

tqdm takes 30 ms to import (it asks the installed packages for its
version): a run whose stages are all up to date takes half a second, and
with ``--quiet`` shows no bar, so it does not import it.
"""

from __future__ import annotations


class Quiet:
    """A bar that shows nothing (tqdm's ``disable=True``, without tqdm)."""

    def update(self, n: float = 1) -> None:
        pass

    def __enter__(self) -> Quiet:
        return self

    def __exit__(self, *exc) -> None:
        pass


def bar(progress: bool, **kwargs):
    """A tqdm bar of ``kwargs`` when ``progress``, else one that shows nothing."""
    if not progress:
        return Quiet()
    from tqdm import tqdm

    return tqdm(**kwargs)


__all__ = ["Quiet", "bar"]
