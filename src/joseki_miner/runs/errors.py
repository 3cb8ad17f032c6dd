"""How a run or a query stops that the ``joseki`` command reports as one
line: every such error is a ``JosekiError``, whose ``exit_code`` the
command exits with (kept apart from the stages, so the command can name
them without loading the compiled code)."""

from __future__ import annotations


class JosekiError(Exception):
    """An error the ``joseki`` command prints as one line (``line``) and
    exits with ``exit_code``: 2 for what cannot be asked, 1 for a run or
    an answer that failed."""

    exit_code = 1

    def line(self) -> str:
        return str(self)


class UsageError(JosekiError):
    """An invocation that cannot run (missing path, unwritable folder, stale
    inputs for a single stage, a folder in use by another run)."""

    exit_code = 2


class PublishError(JosekiError, RuntimeError):
    """The tree could not be sent to the output URL (the local copy is whole
    and committed: the next run sends it again)."""


class StrictError(JosekiError, RuntimeError):
    """--strict: the first bad record stops the run."""

    def line(self) -> str:
        return f"--strict: {self}"

    @classmethod
    def of(cls, source: str, location: str, reason: str, detail: str) -> "StrictError":
        """The error naming a rejected game as the reject ledger holds it."""
        return cls(f"{source}:{location}: {reason}: {detail}".replace("::", ":"))
