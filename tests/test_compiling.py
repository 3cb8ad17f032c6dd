"""The compile notice (joseki_miner.fast.compiling): said once at the first
kernel numba compiles, whichever it is and however many follow."""

from __future__ import annotations

import numba

from joseki_miner.fast.compiling import NOTICE, Notice


def test_the_notice_is_said_once_at_any_kernels_compilation():
    said: list[str] = []
    notice = Notice(said.append)
    numba.njit(lambda x: x + 1)(1)  # before install: nothing
    notice.install()
    notice.install()  # twice: one listener
    try:
        assert said == []
        numba.njit(lambda x: x * 2)(3)
        numba.njit(lambda x: x - 2)(3.0)
        assert said == [NOTICE]
    finally:
        notice.remove()
    numba.njit(lambda x: x + 3)(1)
    assert said == [NOTICE]
