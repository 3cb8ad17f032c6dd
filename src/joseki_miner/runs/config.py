"""Run parameters: the YAML files in configs/ as one validated value.

Keys are dotted names (``distance.certain``); ``--set KEY=VALUE`` overrides
any of them.  The engines plan with this value (and the one pass and the
dask engine's tasks read it as they run stages their own way); a stage's
work reads only its settings, made from it (``runs.settings``: the keys
it reads, from which its cache key is made), and ``stages/params.py``
turns them into the plain values the method takes (``Reading``, ``KindRules``, ``Pruning``, the
threshold); below the stages (``method``, ``fast``, ``readers``, ``book``)
no module reads a ``Config``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from joseki_miner.runs.errors import JosekiError
from joseki_miner.runs.ranks import rank_value


# The memory options' defaults (not parameters of the method: they never
# change the outputs): MB of sequences held before sorted runs are spilled,
# MB of duplicate fingerprints and kifu index lines held before they are mapped
SORT_MEMORY_MB = 1024
TABLE_MEMORY_MB = 256


class ConfigError(JosekiError, ValueError):
    """An invalid configuration; the message says which key and why."""

    exit_code = 2


@dataclass(frozen=True)
class Config:
    distance_certain: int = 5
    distance_maybe: int = 5
    distance_noise: bool = False
    corner_start: int = 6
    corner_region: int = 9
    kinds: bool = True
    kinds_follow_up: bool = True
    kinds_approach: float | None = 0.6
    kinds_transpositions: bool = True
    kinds_situational: float | None = 0.5
    kinds_late: int | None = 50
    kinds_doubtful: float | None = 0.03
    kinds_side: int | None = 8
    kinds_strong: tuple[str, ...] | None = ("ai",)
    corner_stones: int = 20
    max_length: int = 30
    min_length: int = 3
    prune_min_count: int | None = None
    prune_min_fraction: float = 0.004
    prune_confidence: float | None = 0.95
    prune_min_games: int = 10
    prune_follow: float | None = 0.8
    prune_min_share: float = 0.0
    prune_fold_tenuki: bool = True
    prune_merge_orders: bool = False
    prune_family: float | None = 0.01
    prune_family_fraction: float = 0.1
    prune_position_share: float | None = None
    prune_position_games: int = 100
    influence_reach: int = 17
    influence_neutral: int = 5
    influence_share: float = 0.30
    include_handicap: bool = False
    include_handicap_starts: bool = True
    dedupe: bool = True
    dedupe_symmetric: bool = False
    limits_member_mb: int = 512
    limits_field_kb: int = 1024
    examples: int = 5
    collections_depth: int = 1
    collections_ranks: tuple[tuple[str, str], ...] | None = None
    filter_years: tuple[int, int] | None = None
    filter_sources: tuple[str, ...] | None = None
    filter_result_known: bool = False
    filter_players: tuple[str, ...] | None = None
    filter_min_rank: str | None = None
    filter_events: tuple[str, ...] | None = None
    filter_handicap: tuple[str, ...] | None = None  # ("even",), ("handicap",) or stone counts as text ("2", "3")
    filter_sample: float | None = None
    emit_counters: bool = False
    report_changed: bool = True
    report_since: int | None = None
    report_players: tuple[str, ...] | None = None

    def section(self, *names: str) -> dict[str, Any]:
        """The named keys (dotted) and their values, for stage cache keys."""
        return {n: getattr(self, _attr(n)) for n in names}

    def dotted(self) -> dict[str, Any]:
        """Every key by its dotted name, as in the YAML files."""
        return {key: getattr(self, _attr(key)) for key in KEYS}


KEYS = (
    "distance.certain",
    "distance.maybe",
    "distance.noise",
    "corner.start",
    "corner.region",
    "kinds",
    "kinds.follow_up",
    "kinds.approach",
    "kinds.transpositions",
    "kinds.situational",
    "kinds.late",
    "kinds.doubtful",
    "kinds.side",
    "kinds.strong",
    "corner_stones",
    "max_length",
    "min_length",
    "prune.min_count",
    "prune.min_fraction",
    "prune.confidence",
    "prune.min_games",
    "prune.follow",
    "prune.min_share",
    "prune.fold_tenuki",
    "prune.merge_orders",
    "prune.family",
    "prune.family_fraction",
    "prune.position_share",
    "prune.position_games",
    "influence.reach",
    "influence.neutral",
    "influence.share",
    "include_handicap",
    "include_handicap.starts",
    "dedupe",
    "dedupe.symmetric",
    "limits.member_mb",
    "limits.field_kb",
    "examples",
    "collections.depth",
    "collections.ranks",
    "filter.years",
    "filter.sources",
    "filter.result_known",
    "filter.players",
    "filter.min_rank",
    "filter.events",
    "filter.handicap",
    "filter.sample",
    "emit.counters",
    "report.changed",
    "report.since",
    "report.players",
)
MAX_MEMBER_MB = 2048  # a member or file is held as one bytes object, its moves as one Arrow string column
_LISTS = {
    "kinds.strong": str,
    "filter.years": int,
    "filter.sources": str,
    "filter.players": str,
    "filter.events": str,
    "report.players": str,
}  # keys whose value is a list
_MAPPINGS = {"collections.ranks": "a collection's name: a rank"}  # keys whose value is a mapping
_TYPES = {f.name: f.type for f in fields(Config)}


def _attr(key: str) -> str:
    return key.replace(".", "_")


def _flatten(tree: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for k, v in tree.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and name not in _MAPPINGS:
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _read(key: str, value: Any, brackets: str = "", what: str | None = None) -> Any:
    """A value given as text (``--set``'s) read as YAML, null as None; a
    bare ``a, b`` inside ``brackets`` ("[]" or "{}") where the text does not
    open them.  Text YAML cannot read is an error (``key`` must be
    ``what``), or, without ``what``, kept as text for the caller to judge."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.lower() in ("null", "none", "~", ""):
        return None
    import yaml  # only where a value is given as text (a run of the defaults never loads it)

    try:
        return yaml.safe_load(
            text if not brackets or text.startswith(brackets[0]) else f"{brackets[0]}{text}{brackets[1]}"
        )
    except yaml.YAMLError:
        if what is None:
            return text
        raise ConfigError(f"invalid config: {key} must be {what}, not {text!r}") from None


def _coerce(key: str, value: Any) -> Any:
    kind = _TYPES[_attr(key)]
    if key in _LISTS:
        return _coerce_list(key, value)
    if key in _MAPPINGS:
        return _coerce_mapping(key, value)
    if key == "filter.handicap":
        return _coerce_handicap(value)
    value = _read(key, value, what="a single value")
    if isinstance(value, str):
        # YAML 1.1 (PyYAML) reads "1e-3" as a string: a number is a number
        try:
            value = float(value.strip())
        except ValueError:
            pass
    if value is None:
        if "None" in str(kind):
            return None
        raise ConfigError(f"invalid config: {key} must be set")
    if str(kind).startswith("str"):
        return str(value).strip()
    if "bool" in str(kind):
        if not isinstance(value, bool):
            raise ConfigError(f"invalid config: {key} must be true or false, not {value!r}")
        return value
    if "int" in str(kind) and "float" not in str(kind):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"invalid config: {key} must be a whole number, not {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"invalid config: {key} must be a number, not {value!r}")
    return float(value)


def _coerce_list(key: str, value: Any) -> tuple | None:
    """A list key's value: null, or a list (YAML ``[a, b]``; a bare
    ``a,b`` on the command line)."""
    value = _read(key, value, "[]", "a list")
    if value is None:
        return None
    if not isinstance(value, list):
        value = [value]
    kind = _LISTS[key]
    if kind is int and not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ConfigError(f"invalid config: {key} must be whole numbers, not {value!r}")
    if kind is str:
        value = [str(v) for v in value]
    return tuple(value)


def _coerce_handicap(value: Any) -> tuple[str, ...] | None:
    """filter.handicap: null, ``even`` (no handicap stones), ``handicap``
    (any), or the stone counts chosen (``[2, 3]``; 0 for even games)."""
    value = _read("filter.handicap", value)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in ("even", "handicap"):
        return (value.strip().lower(),)
    counts = value if isinstance(value, list) else [value]
    if not counts or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 9 for v in counts):
        raise ConfigError(
            f"invalid config: filter.handicap must be even, handicap or stone counts from 0 to 9 "
            f"([2, 3]), not {value!r}"
        )
    return tuple(str(v) for v in sorted(set(counts)))


def _coerce_mapping(key: str, value: Any) -> tuple | None:
    """A mapping key's value: null, or ``{name: value, ...}`` (YAML; on the
    command line too), as pairs in the order given."""
    value = _read(key, value, "{}")
    if value is None:
        return None
    if not isinstance(value, dict) or not value:
        raise ConfigError(
            f"invalid config: {key} must map {_MAPPINGS[key]} ({{tom-9d: 9d}}), or be null, not {value!r}"
        )
    return tuple((str(k).strip(), str(v).strip()) for k, v in value.items())


def load(path: str | Path | None = None, overrides: list[str] | None = None) -> Config:
    """The config of ``path`` (defaults for missing keys) with ``KEY=VALUE``
    overrides applied, validated."""
    values: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"no such config file: {p}")
        import yaml

        try:
            tree = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"invalid config {p}: {exc}".splitlines()[0]) from exc
        except UnicodeDecodeError:
            raise ConfigError(f"invalid config {p}: not a YAML text file (not UTF-8)") from None
        except OSError as exc:
            raise ConfigError(f"cannot read config {p}: {exc.strerror}") from None
        if not isinstance(tree, dict):
            raise ConfigError(f"invalid config {p}: expected a mapping of keys")
        values.update(_flatten(tree))
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"invalid --set {item!r}: expected KEY=VALUE")
        k, v = item.split("=", 1)
        values[k.strip()] = v
    kwargs = {}
    for key, value in values.items():
        if _attr(key) not in _TYPES:
            raise ConfigError(f"invalid config: unknown key {key}")
        kwargs[_attr(key)] = _coerce(key, value)
    config = Config(**kwargs)
    validate(config)
    return config


# The range of every numeric key: wide enough for any experiment, narrow
# enough that no value wraps an integer of the engines (influence scores are
# int16: a beam sums at most 21 lines of reach - d) or asks for absurd memory
# (the kernel holds max_length moves a sequence).
BOUNDS = {
    "distance.certain": (0, 36),  # 36: the longest Manhattan distance on 19x19
    "distance.maybe": (0, 36),
    "corner.start": (1, 10),  # 10: the whole quarter (the 10th line is the central one)
    "corner.region": (1, 19),
    "corner_stones": (1, 361),
    "max_length": (1, 500),
    "min_length": (0, 500),
    "prune.min_count": (1, 10**15),
    "prune.min_fraction": (0, 1),
    "prune.confidence": (0, 1),
    "prune.min_games": (1, 10**15),
    "prune.follow": (0, 1),
    "kinds.approach": (0, 1),
    "kinds.situational": (0, 1),
    "kinds.late": (1, 1000),
    "kinds.doubtful": (0, 1),
    "kinds.side": (1, 10),
    "prune.min_share": (0, 1),
    "prune.family": (0, 1),
    "prune.family_fraction": (0, 1),
    "prune.position_share": (0, 1),
    "prune.position_games": (2, 10**15),
    "filter.sample": (0, 1),
    "influence.reach": (1, 1000),
    "influence.neutral": (0, 30000),
    "influence.share": (0, 1),
    "limits.member_mb": (1, MAX_MEMBER_MB),
    "limits.field_kb": (1, 1024 * MAX_MEMBER_MB),
    "examples": (0, 1000),
    "collections.depth": (0, 8),
    "report.since": (1000, 2999),
}


def validate(c: Config) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ConfigError(f"invalid config: {message}")

    for key, (lo, hi) in BOUNDS.items():
        value = getattr(c, _attr(key))
        need(value is None or lo <= value <= hi, f"{key} must be between {lo} and {hi}, not {value}")
    need(c.prune_follow is None or c.prune_follow > 0, "prune.follow must be above 0, or null (off)")
    need(
        c.prune_confidence is None or 0 < c.prune_confidence < 1,
        "prune.confidence must be above 0 and below 1, or null (the thesis' plain share)",
    )
    need(c.distance_certain <= c.distance_maybe, "distance.certain must be <= distance.maybe (thesis 4.1: a <= b)")
    need(c.influence_share < 1, "influence.share must be in [0, 1)")
    need(c.limits_field_kb <= 1024 * c.limits_member_mb, "limits.field_kb must be at most limits.member_mb (in KB)")
    if c.filter_years is not None:
        need(
            len(c.filter_years) == 2 and 1000 <= c.filter_years[0] <= c.filter_years[1] <= 2999,
            f"filter.years must be [from, to], two years from 1000 to 2999, not {list(c.filter_years)}",
        )
    need(
        c.filter_sample is None or c.filter_sample > 0, "filter.sample must be above 0 (a share of the games), or null"
    )
    need(c.filter_sources is None or len(c.filter_sources) > 0, "filter.sources must name a collection, or be null")
    need(c.filter_players is None or len(c.filter_players) > 0, "filter.players must name a player, or be null")
    need(c.filter_events is None or len(c.filter_events) > 0, "filter.events must name an event, or be null")
    for name, rank in c.collections_ranks or ():
        need(
            rank_value(rank) is not None,
            f"collections.ranks: {name}'s rank must be a rank such as 1k, 7d or 9p, not {rank!r}",
        )
    need(
        c.filter_min_rank is None or rank_value(c.filter_min_rank) is not None,
        f"filter.min_rank must be a rank such as 30k, 1k, 1d, 7d, 1p or P9, not {c.filter_min_rank!r}",
    )
