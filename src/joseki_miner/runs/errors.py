"""How a run stops that the ``joseki`` command reports as one line (kept
apart from the stages, so the command can name them without loading the
compiled code)."""

from __future__ import annotations


class UsageError(Exception):
    """An invocation that cannot run (missing path, unwritable folder, stale
    inputs for a single stage, a folder in use by another run); the CLI
    prints it as one line."""


class PublishError(RuntimeError):
    """The tree could not be sent to the output URL (the local copy is whole
    and committed: the next run sends it again)."""


class StrictError(RuntimeError):
    """--strict: the first bad record stops the run."""

    @classmethod
    def of(cls, source: str, location: str, reason: str, detail: str) -> "StrictError":
        """The error naming a rejected game as the reject ledger holds it."""
        return cls(f"{source}:{location}: {reason}: {detail}".replace("::", ":"))
