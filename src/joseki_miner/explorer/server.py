"""Serving the explorer: uvicorn over the application, on 127.0.0.1
unless told otherwise.  ``Serving`` runs it in a thread of the caller's
process (the tests, the benchmark) and stops it when asked; ``serve``
runs it until Ctrl-C (``joseki explore``)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import uvicorn

from joseki_miner.explorer.app import Explorer, app

LONGEST_REQUEST = 1 << 20  # bytes of a request's head uvicorn takes, so a long query reaches the app's own 400


def config(explorer: Explorer, host: str, port: int) -> uvicorn.Config:
    return uvicorn.Config(
        app(explorer),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        http="h11",
        h11_max_incomplete_event_size=LONGEST_REQUEST,
        lifespan="off",
    )


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class Serving:
    """The explorer served in a thread (``with Serving(explorer) as url``)."""

    def __init__(self, explorer: Explorer, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.host, self.port = host, port or free_port(host)
        self.server = uvicorn.Server(config(explorer, self.host, self.port))
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.run, name="explorer", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the explorer did not start on {self.url}")
            time.sleep(0.02)
        return self.url

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serve(explorer: Explorer, host: str, port: int, ready: Callable[[str], None]) -> bool:
    """Serve until Ctrl-C; ``ready`` is told the URL once it listens.
    True where it was stopped by a signal."""
    server = uvicorn.Server(config(explorer, host, port))
    url = f"http://{host}:{port}"

    def started() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        if server.started:
            ready(url)

    threading.Thread(target=started, name="explorer-ready", daemon=True).start()
    server.run()
    return bool(server.should_exit)
