"""Each stage's settings (joseki_miner.runs.settings): a stage reads its
settings and nothing else of the config, every field it reads is in a key
(its own or that of a stage before it), and an option added is a field of
its stage's settings with its default in the config, nothing else."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path

import pytest

from joseki_miner.runs import settings
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import Config
from joseki_miner.runs.context import Context, do_work
from joseki_miner.runs.keys import stage_keys
from joseki_miner.runs.settings import READ, Settings, param
from joseki_miner.runs.stages import BY_NAME, NAMES, STAGES

from test_stages import TOY
from toy_stage import ToySettings

ROOT = Path(__file__).resolve().parents[1]
# a value other than the default, for each key whose default is unset or not a number, a flag or a list
OTHER = {
    "prune_min_count": 50,
    "prune_follow": 0.5,
    "prune_confidence": 0.9,
    "prune_family": 0.02,
    "prune_position_share": 0.1,
    "kinds_approach": 0.5,
    "kinds_situational": 0.4,
    "kinds_late": 40,
    "kinds_doubtful": 0.05,
    "kinds_side": 7,
    "filter_years": (2000, 2010),
    "filter_sources": ("kgs",),
    "filter_players": ("a",),
    "filter_min_rank": "5d",
    "filter_events": ("e",),
    "filter_handicap": ("even",),
    "filter_sample": 0.5,
    "collections_ranks": (("a", "9d"),),
    "report_since": 2010,
    "report_players": ("p",),
}


def other(name: str, value):
    """A value of a config key other than ``value``."""
    if name in OTHER:
        return OTHER[name]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.5
    return (*value, "x")


def ancestry(name: str) -> list[str]:
    """A stage and every stage whose key its key extends."""
    chain = [name]
    while BY_NAME[chain[-1]].after:
        chain.append(BY_NAME[chain[-1]].after)
    return chain


@pytest.mark.parametrize("name", NAMES)
def test_every_field_a_stage_reads_is_in_its_key(name):
    """Changing any field of a stage's settings changes its key (where the
    field matters: handicap stones' rule where handicap games are mined);
    a param or rule by the stage's own key's parts, a field read
    (``read()``) maybe by those of a stage before it."""
    stage = BY_NAME[name]
    bases = (Config(), replace(Config(), include_handicap=True))
    for f in fields(stage.settings):
        moved, own = [], False
        for base in bases:
            keys, changed = stage_keys(base, "inputs"), replace(base, **{f.name: other(f.name, getattr(base, f.name))})
            moved += [s for s in ancestry(name) if stage_keys(changed, "inputs")[s] != keys[s]]
            own |= stage.settings.of(changed).key() != stage.settings.of(base).key()
        assert name in moved, (name, f.name)
        assert own or f.metadata["in_key"] == READ, (name, f.name, "a param or rule is in the stage's own key")


def test_a_stage_reads_its_settings_and_nothing_else_of_the_config():
    """The stages' work (joseki_miner/stages) and the book's files read the
    settings their stage declares: no ``.config`` (the runners plan with
    the config; a stage's key is made from its settings)."""
    for path in [*(ROOT / "src/joseki_miner/stages").glob("*.py"), ROOT / "src/joseki_miner/book/files.py"]:
        if path.name == "params.py":  # the method's rules for a stage's settings (or a runner's config)
            continue
        assert not re.search(r"context\.config\b", path.read_text()), path


def test_an_option_is_a_field_of_its_stage_settings(tmp_path, monkeypatch):
    """Adding an option (runs/settings' docstring): a field of its stage's
    settings, its default in the config (and its dotted name); nothing else.
    Its stage's key changes with it, no other stage's does, and the stage's
    work reads it from its settings."""

    @dataclass(frozen=True)
    class ToyConfig(Config):
        toy_top: int = 3  # the config's default

    @dataclass(frozen=True)
    class TopSettings(ToySettings):
        toy_top: int = param()  # the stage's settings

    monkeypatch.setitem(settings.DOTTED, "toy_top", "toy.top")  # its dotted name (runs.config.KEYS)
    (tmp_path / "top_stage.py").write_text("def run(context):\n    return {'top': context.settings.toy_top}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = replace(TOY, settings=TopSettings, work="top_stage")
    three, four = ToyConfig(), ToyConfig(toy_top=4)
    keys, moved = stage_keys(three, "inputs", 2, STAGES + (toy,)), stage_keys(four, "inputs", 2, STAGES + (toy,))
    assert [name for name in keys if keys[name] != moved[name]] == ["toy"]
    assert {name: keys[name] for name in NAMES} == stage_keys(Config(), "inputs")  # the package's keys as they were
    assert TopSettings.of(four).key() == [{"influence.share": 0.3, "toy.top": 4}]
    catalog = Catalog(work=tmp_path / "work", out=tmp_path / "out", stages=STAGES + (toy,))
    assert do_work(toy, Context(catalog, four)) == {"top": 4}


def test_a_rule_keys_its_stage_only_where_it_differs_from_the_thesis():
    """A rule at the thesis' value leaves the key as it was before the rule
    existed; set otherwise, it is one more part of the key."""

    @dataclass(frozen=True)
    class Ruled(Settings):
        prune_follow: float | None = settings.rule(None)

    assert Ruled(None).key() == [{}] and Ruled(None).rules() == {"prune.follow": None}
    assert Ruled(0.8).key() == [{}, {"prune.follow": 0.8}]
