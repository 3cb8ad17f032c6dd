"""The errors a user reads (joseki_miner.runs.errors): every one is a
JosekiError whose exit code the command exits with, in one line."""

from __future__ import annotations

import pytest

from helpers import joseki_cli as joseki
from joseki_miner.book.explore import NotInTree, NotMined
from joseki_miner.book.lookup import SequenceError
from joseki_miner.runs.config import ConfigError
from joseki_miner.runs.errors import JosekiError, PublishError, StrictError, UsageError
from joseki_miner.runs.lineage import OtherRun
from joseki_miner.runs.store import Busy


@pytest.mark.parametrize(
    "error, code",
    [
        (UsageError, 2),
        (ConfigError, 2),
        (SequenceError, 2),
        (NotMined, 2),
        (OtherRun, 2),
        (Busy, 2),
        (NotInTree, 1),
        (StrictError, 1),
        (PublishError, 1),
    ],
)
def test_every_error_a_user_reads_says_its_exit_code(error, code):
    assert issubclass(error, JosekiError) and error.exit_code == code


def test_strict_says_so_in_its_line():
    assert StrictError.of("a.sgf", "game 2", "parse error", "unexpected end").line() == (
        "--strict: a.sgf:game 2: parse error: unexpected end"
    )


def test_the_command_exits_with_the_errors_code(demo_games, tmp_path):
    """An unusable invocation (a bad --set) and text that is no sequence:
    2, in one line each."""
    bad = joseki("mine", str(demo_games), "--out", str(tmp_path), "--set", "distance.maybe=-1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stderr.startswith("joseki: ")
    nothing = joseki("lookup", "Z99", "--out", str(tmp_path))
    assert nothing.returncode == 2 and nothing.stderr.count("\n") == 1
