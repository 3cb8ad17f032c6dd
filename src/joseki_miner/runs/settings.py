"""Each stage's settings: the config keys the stage reads, as one frozen
value made from the config (``of``), and the parts of its cache key made
from that value and a format number (``key``).  A stage's work reads its
settings and nothing else of the config (``Context.settings``, set by
``do_work``), so its key is what it reads.  The engines that run stages
their own way (the fast engine's one pass, the dask engine's tasks) still
take the same keys from the config; each is a field of its stage's
settings (tests/test_settings.py changes every field and sees its key
move).

A field is one config key, named as ``Config`` names it (the dots as
underscores), and says how the key holds it:

- ``param()``: always in the key;
- ``rule(thesis)``: in the key where it differs from ``thesis`` (the
  thesis' value, or "unset"): a folder mined before the rule existed stays
  up to date;
- ``read()``: read, and keyed elsewhere: by a stage before it (every key
  extends that of the stage it comes after) or in the parts the stage adds
  (``parts``, where a key matters only with another set).

Adding an option: a field here, its default in ``Config`` (with its
dotted name in ``KEYS``) and configs/default.yaml, its line in the docs."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from joseki_miner.runs.config import KEYS, Config

PARAM, RULE, READ = "param", "rule", "read"
DOTTED = {key.replace(".", "_"): key for key in KEYS}  # a field's config key, by its name

S = TypeVar("S", bound="Settings")


def param() -> Any:
    """A config key always in the stage's key."""
    return field(metadata={"in_key": PARAM})


def rule(thesis: Any) -> Any:
    """A config key in the stage's key where it differs from ``thesis``."""
    return field(metadata={"in_key": RULE, "thesis": thesis})


def read() -> Any:
    """A config key the stage reads, keyed before it or in its ``parts``."""
    return field(metadata={"in_key": READ})


@dataclass(frozen=True)
class Settings:
    """What a stage reads of the config (module docstring)."""

    FORMAT: ClassVar[dict[str, int] | None] = None  # what the stage writes, numbered: a new format, a new key

    @classmethod
    def of(cls: type[S], config: Config) -> S:
        """The settings a config gives."""
        return cls(**{f.name: getattr(config, f.name) for f in fields(cls)})

    def key(self, floor: int = 2) -> list:
        """The parts of the stage's cache key (``floor``: the least count
        the build stores, known once the games are read)."""
        rules = self.rules(changed=True)
        return [self.params(), *([rules] if rules else []), *self.parts(floor)]

    def params(self) -> dict[str, Any]:
        """The keys always in the stage's key, by their dotted names."""
        return {DOTTED[f.name]: getattr(self, f.name) for f in fields(self) if f.metadata["in_key"] == PARAM}

    def rules(self, changed: bool = False) -> dict[str, Any]:
        """The rules, by their dotted names; ``changed``: only those that
        differ from the thesis."""
        return {
            DOTTED[f.name]: getattr(self, f.name)
            for f in fields(self)
            if f.metadata["in_key"] == RULE and not (changed and getattr(self, f.name) == f.metadata["thesis"])
        }

    def parts(self, floor: int) -> list:
        """The key's other parts: the format number."""
        return [self.FORMAT] if self.FORMAT else []


@dataclass(frozen=True)
class IngestSettings(Settings):
    """How ingest reads games (``stages.params.Reading``)."""

    # 2, a folder given names its games unless it holds several folders of them; 3 and 4, a game is looked for among
    # the duplicates before the filters (4: the dask engine's partitions trace the first games the filters leave out
    # apart); 5, setup stones that are not a handicap's reject their game; 6, a collection is cut at a root written
    # without its ';' too
    FORMAT = {"reading": 6}

    include_handicap: bool = param()
    dedupe: bool = param()
    limits_member_mb: int = param()
    limits_field_kb: int = param()
    collections_depth: int = param()
    filter_years: tuple[int, int] | None = param()
    filter_sources: tuple[str, ...] | None = param()
    filter_result_known: bool = param()
    # the filters of players, ranks and events: in the key only when set
    filter_players: tuple[str, ...] | None = rule(None)
    filter_min_rank: str | None = rule(None)
    filter_events: tuple[str, ...] | None = rule(None)
    filter_handicap: tuple[str, ...] | None = rule(None)
    filter_sample: float | None = rule(None)
    dedupe_symmetric: bool = rule(False)
    collections_ranks: tuple[tuple[str, str], ...] | None = rule(None)


@dataclass(frozen=True)
class ExtractSettings(Settings):
    """Phase 1's distances, corner and influence (4.2, 5.2, 8)."""

    FORMAT = {"sequences": 2}  # 2: each move's move number and whether it was near another sequence

    distance_certain: int = param()
    distance_maybe: int = param()
    corner_stones: int = param()
    max_length: int = param()
    influence_reach: int = param()
    # the future work's rules of phase 1 (5.2, 9)
    distance_noise: bool = rule(False)
    corner_start: int = rule(10)
    include_handicap: bool = read()  # ingest's
    include_handicap_starts: bool = read()  # in the key where handicap games are mined (``handicap``)

    def parts(self, floor: int) -> list:
        return [*self.handicap(), *super().parts(floor)]

    def handicap(self) -> list[dict]:
        """Whether handicap stones open sequences: in the key only where
        handicap games are mined, so no key of an even-game run changes."""
        return [{"include_handicap.starts": self.include_handicap_starts}] if self.include_handicap else []


@dataclass(frozen=True)
class BuildSettings(Settings):
    """The trie's influence and the nodes' kinds."""

    FORMAT = {"positions": 1}  # build writes the position index (trie_positions.parquet)

    influence_neutral: int = param()
    kinds: bool = read()  # these four in the key where kinds are on (``parts``)
    corner_region: int = read()
    kinds_follow_up: bool = read()
    kinds_approach: float | None = read()

    def parts(self, floor: int) -> list:
        kinds = ("kinds", "corner_region", "kinds_follow_up", "kinds_approach")
        shown = [{DOTTED[k]: getattr(self, k) for k in kinds}] if self.kinds else []
        return [floor, *shown, *super().parts(floor)]


@dataclass(frozen=True)
class PruneSettings(Settings):
    """Phase 2: the threshold (4.2), the length, the future work's rules
    (section 9), the examples kept."""

    FORMAT = {"kinds.transpositions": 1}  # prune writes node_transpositions.parquet, where it names them

    prune_min_count: int | None = param()
    prune_min_fraction: float = param()
    min_length: int = param()
    examples: int = param()
    prune_follow: float | None = rule(None)
    prune_min_share: float = rule(0.0)
    prune_fold_tenuki: bool = rule(False)
    prune_confidence: float | None = rule(None)
    prune_min_games: int = rule(1)
    prune_merge_orders: bool = rule(False)
    prune_family: float | None = rule(None)
    prune_family_fraction: float = rule(0.1)
    prune_position_share: float | None = rule(None)
    prune_position_games: int = rule(100)
    kinds: bool = read()  # the build's
    corner_region: int = read()
    kinds_follow_up: bool = read()
    kinds_approach: float | None = read()
    kinds_transpositions: bool = read()  # in the key as the format, where prune names them

    def parts(self, floor: int) -> list:
        return super().parts(floor) if transpositions(self) else []


@dataclass(frozen=True)
class ContextSettings(Settings):
    """The board's kinds (issue 65): in the key where they differ from off."""

    FORMAT = {"context": 1}  # node_context.parquet

    kinds: bool = param()
    kinds_situational: float | None = rule(None)
    kinds_late: int | None = rule(None)
    kinds_doubtful: float | None = rule(None)
    kinds_side: int | None = rule(None)
    kinds_strong: tuple[str, ...] | None = rule(("ai",))


@dataclass(frozen=True)
class BookSettings(Settings):
    """What emit and the report read of the tree's files (prune's keys)."""

    min_length: int = read()
    prune_merge_orders: bool = read()
    kinds: bool = read()
    kinds_transpositions: bool = read()


@dataclass(frozen=True)
class EmitSettings(BookSettings):
    """The SGF's and the drawings' influence and counters."""

    influence_share: float = param()
    emit_counters: bool = param()


@dataclass(frozen=True)
class ReportSettings(BookSettings):
    """The book's influence and its pages beyond the thesis."""

    influence_share: float = param()
    report_changed: bool = rule(False)
    report_since: int | None = rule(None)
    report_players: tuple[str, ...] | None = rule(None)


def transpositions(settings: PruneSettings | BookSettings | Config) -> bool:
    """Whether prune names each node's other move orders: with kinds, where
    orders are not merged (a merged node holds them all)."""
    return bool(settings.kinds and settings.kinds_transpositions and not settings.prune_merge_orders)
