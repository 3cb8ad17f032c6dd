"""Shared fixtures: the real collections in ../shared/data (skipped with a
clear message where absent) and the demo collection."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real game collections not found at {SHARED_DATA} (see DEVELOPERS.md: ../shared/data)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def demo_games(tmp_path_factory) -> Path:
    from joseki_miner.demo import write_collection

    folder = tmp_path_factory.mktemp("demo")
    write_collection(folder)
    return folder
