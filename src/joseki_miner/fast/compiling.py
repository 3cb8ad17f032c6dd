"""A notice when numba compiles a kernel: a first run on a machine (or
after an upgrade) compiles each kernel it calls, each time it first calls
it, and its first games look slow without a word.  numba announces every
compilation that its cache could not serve (the event ``numba:compile``);
a run says so once, however many kernels follow."""

from __future__ import annotations

import threading
from typing import Callable

NOTICE = "compiling the fast engine's kernels for this machine (once, about half a minute in all; later runs load them)"


class Notice:
    """Says ``NOTICE`` through ``log`` at the first compilation after
    ``install``, and nothing more until ``remove``."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log
        self.said = False
        self.lock = threading.Lock()
        self.listener = None

    def install(self) -> None:
        if self.listener is not None:
            return
        from numba.core import event

        notice = self

        class _Listener(event.Listener):
            def on_start(self, ev) -> None:
                notice.heard()

            def on_end(self, ev) -> None:
                pass

        self.listener = _Listener()
        event.register("numba:compile", self.listener)

    def heard(self) -> None:
        with self.lock:
            if self.said:
                return
            self.said = True
        self.log(NOTICE)

    def remove(self) -> None:
        if self.listener is None:
            return
        from numba.core import event

        event.unregister("numba:compile", self.listener)
        self.listener = None
