"""A file's content digest taken while the readers read it: SHA-256, the
same hex digest ``inputs.digest_file`` gives, so the ingest stage's key is
made of the bytes the run read and a cold run reads every input once.

The readers read a file in any order (an archive's directory first, a
file's head, then the file from its start again): ``HashedFile`` hashes
every byte once, in file order, reading from the file itself what a
reader skipped over, and at the end what it left unread.

Knows open files; nothing of games.
"""

from __future__ import annotations

import hashlib
import os

CHUNK = 1 << 20


def unreadable(exc: OSError) -> str:
    """The digest of a file that cannot be read: why (``inputs.digest_file``'s words)."""
    return f"unreadable: {exc.strerror or type(exc).__name__}"


def whole_digest(data: bytes, st: os.stat_result) -> tuple[str, os.stat_result]:
    """The digest of a file read whole in one piece, as ``HashedFile.finish`` gives it."""
    return hashlib.sha256(data).hexdigest(), st


class HashedFile:
    """A binary file, read as the one it wraps is, hashing its content as
    it goes (``finish`` gives the digest)."""

    def __init__(self, fh) -> None:
        self._fh = fh
        self._sha = hashlib.sha256()
        self._upto = 0  # bytes hashed: the file's first ones
        self._at = 0  # where the wrapped file stands

    # -- what readers call ------------------------------------------------------
    def read(self, n: int = -1) -> bytes:
        at = self._at
        data = self._fh.read(n)
        self._at = at + len(data)
        self._take(at, data)
        return data

    def readinto(self, buffer) -> int:
        at = self._at
        n = self._fh.readinto(buffer)
        if n:
            self._at = at + n
            self._take(at, memoryview(buffer)[:n])
        return n

    def seek(self, offset: int, whence: int = 0) -> int:
        self._at = self._fh.seek(offset, whence)
        return self._at

    def tell(self) -> int:
        return self._at

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def __getattr__(self, name):  # name, mode, fileno, close...
        return getattr(self._fh, name)

    def __enter__(self) -> HashedFile:
        return self

    def __exit__(self, *exc) -> None:
        self._fh.close()

    # -- the digest -----------------------------------------------------------------
    def _take(self, at: int, data) -> None:
        end = at + len(data)
        if end <= self._upto:
            return
        if at > self._upto:
            self._fill(at)
        self._sha.update(data[self._upto - at :] if self._upto > at else data)
        self._upto = end

    def _fill(self, end: int | None) -> None:
        """Hash the file's bytes from those hashed up to ``end`` (None: its end)."""
        fd = self._fh.fileno()
        while end is None or self._upto < end:
            chunk = os.pread(fd, CHUNK if end is None else min(CHUNK, end - self._upto), self._upto)
            if not chunk:
                break
            self._sha.update(chunk)
            self._upto += len(chunk)

    def finish(self) -> tuple[str, os.stat_result | None]:
        """The content's digest (what was not read is read now), and the
        file's stat as the digest ends (None where it cannot be had)."""
        try:
            st = os.fstat(self._fh.fileno())
            if self._upto < st.st_size:
                self._fill(None)
            return self._sha.hexdigest(), st
        except OSError as exc:
            return unreadable(exc), None


__all__ = ["HashedFile", "unreadable", "whole_digest"]
