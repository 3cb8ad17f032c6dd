"""Run parameters: configs/*.yaml and --set overrides."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from joseki_miner.runs.config import KEYS, Config, ConfigError, load

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _flat(tree, prefix=""):
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def test_defaults_equal_default_yaml():
    from_file = load(CONFIGS / "default.yaml")
    assert from_file == Config() == load()
    raw = _flat(yaml.safe_load((CONFIGS / "default.yaml").read_text()))
    assert set(raw) == set(KEYS)  # every key is in the file
    assert Config().dotted() == {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}  # lists: tuples


def test_thesis_defaults():
    c = Config()
    assert (c.distance_certain, c.distance_maybe) == (5, 5)
    assert (c.corner_stones, c.max_length, c.min_length) == (20, 30, 3)
    assert (c.influence_reach, c.influence_neutral, c.influence_share) == (17, 5, 0.30)
    assert c.include_handicap is False
    thesis = load(CONFIGS / "thesis.yaml")
    assert (thesis.prune_min_count, thesis.prune_min_fraction, thesis.prune_confidence) == (None, 0.01, None)
    assert thesis.prune_min_games == 1 and thesis.prune_follow is None and not thesis.kinds


def test_the_defaults_read_the_share_as_evidence_and_name_follow_ups():
    c = Config()
    assert (c.prune_min_count, c.prune_min_fraction, c.prune_confidence, c.prune_min_games) == (None, 0.004, 0.95, 10)
    assert c.prune_follow == 0.8 and c.kinds and c.kinds_follow_up and c.kinds_approach == 0.6
    with pytest.raises(ConfigError, match="prune.confidence"):
        load(None, ["prune.confidence=1"])
    with pytest.raises(ConfigError, match="prune.min_games"):
        load(None, ["prune.min_games=0"])


@pytest.mark.parametrize("name, d", [("distance4.yaml", 4), ("distance6.yaml", 6)])
def test_distance_configs_load(name, d):
    c = load(CONFIGS / name)
    assert (c.distance_certain, c.distance_maybe) == (d, d)
    assert c.prune_min_count == 150
    # otherwise the defaults
    assert c.corner_stones == 20 and c.max_length == 30 and c.influence_reach == 17


def test_set_overrides_parse_numbers_and_null():
    c = load(CONFIGS / "distance4.yaml", ["prune.min_count=null", "influence.share=0.25", "max_length=12"])
    assert c.prune_min_count is None
    assert c.influence_share == 0.25 and isinstance(c.influence_share, float)
    assert c.max_length == 12 and isinstance(c.max_length, int)
    assert c.distance_certain == 4  # the file still counts
    c = load(None, ["prune.min_count=150", "prune.min_fraction=1", "include_handicap=true"])
    assert c.prune_min_count == 150 and isinstance(c.prune_min_count, int)
    assert c.prune_min_fraction == 1.0 and isinstance(c.prune_min_fraction, float)
    assert c.include_handicap is True
    assert load(None, [" distance.maybe = 7 "]).distance_maybe == 7
    assert load(None, ["prune.min_count=~"]).prune_min_count is None
    assert load(None, ["prune.min_count=None"]).prune_min_count is None


def test_numbers_in_scientific_notation(tmp_path):
    """PyYAML (YAML 1.1) reads "1e-3" as a string; a number is a number,
    on the command line and in a file."""
    assert load(None, ["prune.min_fraction=1e-3"]).prune_min_fraction == 0.001
    assert load(None, ["prune.min_fraction=2E-2"]).prune_min_fraction == 0.02
    p = tmp_path / "sci.yaml"
    p.write_text("prune:\n  min_fraction: 5e-3\n")
    assert load(p).prune_min_fraction == 0.005
    # still not a whole number, still not a number
    assert "must be a whole number" in one_line_error(None, ["max_length=1e3"])
    assert "must be a number" in one_line_error(None, ["influence.share=e-3"])


def test_later_overrides_win():
    assert load(None, ["max_length=12", "max_length=13"]).max_length == 13


def test_section_and_dotted():
    c = load(None, ["distance.maybe=6"])
    assert c.section("distance.certain", "distance.maybe") == {"distance.certain": 5, "distance.maybe": 6}
    assert c.dotted()["distance.maybe"] == 6


def one_line_error(path=None, overrides=None):
    with pytest.raises(ConfigError) as info:
        load(path, overrides)
    message = str(info.value)
    assert "\n" not in message
    assert message
    return message


@pytest.mark.parametrize(
    "override, words",
    [
        ("distance.sure=3", "unknown key distance.sure"),
        ("certain=3", "unknown key certain"),
        ("distance.certain=6", "distance.certain must be <= distance.maybe"),
        ("distance.certain=abc", "distance.certain must be a whole number"),
        ("distance.certain=4.5", "distance.certain must be a whole number"),
        ("corner_stones=true", "corner_stones must be a whole number"),
        ("corner_stones=null", "corner_stones must be set"),
        ("include_handicap=3", "include_handicap must be true or false"),
        ("influence.share=lots", "influence.share must be a number"),
        ("influence.share=1", "influence.share must be in [0, 1)"),
        ("prune.min_fraction=1.5", "prune.min_fraction must be between 0 and 1"),
        ("prune.min_count=0", "prune.min_count must be between 1 and"),
        ("max_length=0", "max_length must be between 1 and 500"),
        ("corner_stones=0", "corner_stones must be between 1 and 361"),
        ("distance.certain=-1", "distance.certain must be between 0 and 36"),
        ("influence.reach=0", "influence.reach must be between 1 and 1000"),
        ("influence.neutral=-1", "influence.neutral must be between 0 and"),
        ("max_length", "expected KEY=VALUE"),
        # issue 14: values that wrapped an engine's integers, or were not values at all
        ("influence.reach=40000", "influence.reach must be between 1 and 1000, not 40000"),
        ("max_length=100000000000000000000", "max_length must be between 1 and 500"),
        ("prune.min_count=100000000000000000000", "prune.min_count must be between 1 and"),
        ("distance.maybe=37", "distance.maybe must be between 0 and 36"),
        ("corner_stones=362", "corner_stones must be between 1 and 361"),
        ("prune.min_fraction=nan", "prune.min_fraction must be between 0 and 1, not nan"),
        ("prune.min_fraction=.inf", "prune.min_fraction must be between 0 and 1, not inf"),
        ("distance.certain=[1", "distance.certain must be a single value, not '[1'"),
        ("distance.certain={a: b", "distance.certain must be a single value"),
    ],
)
def test_bad_overrides_give_a_one_line_config_error(override, words):
    assert words in one_line_error(None, [override])


def test_a_greater_than_b_in_a_file(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("distance:\n  certain: 6\n  maybe: 5\n")
    assert "distance.certain must be <= distance.maybe" in one_line_error(p)
    # an override can repair it
    assert load(p, ["distance.maybe=6"]).distance_maybe == 6


def test_bad_files(tmp_path):
    assert "no such config file" in one_line_error(tmp_path / "missing.yaml")
    p = tmp_path / "list.yaml"
    p.write_text("- 1\n- 2\n")
    assert "expected a mapping" in one_line_error(p)
    p = tmp_path / "broken.yaml"
    p.write_text("distance: [1, 2\nmaybe: : :\n")
    one_line_error(p)
    p = tmp_path / "unknown.yaml"
    p.write_text("distance:\n  far: 9\n")
    assert "unknown key distance.far" in one_line_error(p)
    p = tmp_path / "type.yaml"
    p.write_text("influence:\n  reach: seventeen\n")
    assert "influence.reach must be a whole number" in one_line_error(p)
    p = tmp_path / "empty.yaml"
    p.write_text("")
    assert load(p) == Config()
    p = tmp_path / "binary.yaml"  # issue 14: a program given as a config gave a UnicodeDecodeError traceback
    p.write_bytes(bytes(range(256)) * 4)
    assert "not a YAML text file" in one_line_error(p)
    p = tmp_path / "folder.yaml"
    p.mkdir()
    assert "no such config file" in one_line_error(p)


def test_every_numeric_key_is_bounded():
    """No numeric key is left without a range (issue 14: influence.reach=40000
    was accepted and wrapped the kernel's int16 scores)."""
    from joseki_miner.runs.config import BOUNDS

    from joseki_miner.runs.config import _LISTS, _TYPES

    numeric = {k for k in KEYS if _TYPES[k.replace(".", "_")].split(" ")[0] in ("int", "float")} - set(_LISTS)
    assert numeric <= set(BOUNDS)
    reach, lines = BOUNDS["influence.reach"][1], 21  # a beam: the box's 19 lines and one each side
    assert reach * lines < 2**15


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


def test_limits_keys_are_bounded():
    """limits.member_mb and limits.field_kb: whole numbers within bounds (a
    field no larger than a member)."""
    c = load(None, ["limits.member_mb=90", "limits.field_kb=64"])
    assert (c.limits_member_mb, c.limits_field_kb) == (90, 64)
    assert (Config().limits_member_mb, Config().limits_field_kb) == (512, 1024)
    assert "limits.member_mb must be between 1 and 2048" in one_line_error(None, ["limits.member_mb=0"])
    assert "limits.member_mb must be between 1 and 2048" in one_line_error(None, ["limits.member_mb=4096"])
    assert "limits.field_kb must be between 1 and" in one_line_error(None, ["limits.field_kb=0"])
    assert "limits.field_kb must be at most limits.member_mb" in one_line_error(
        None, ["limits.member_mb=1", "limits.field_kb=1025"]
    )
    assert "limits.field_kb must be a whole number" in one_line_error(None, ["limits.field_kb=1.5"])


def test_every_key_has_its_row_in_the_parameters_page():
    """docs/parameters.md, the page the README sends a user to, names
    every key the config reads."""
    from pathlib import Path

    from joseki_miner.runs.config import KEYS

    page = (Path(__file__).resolve().parents[1] / "docs" / "parameters.md").read_text(encoding="utf-8")
    assert [key for key in KEYS if f"| `{key}` |" not in page] == []
