"""End to end: the stages over the demo collection and a real one."""

from __future__ import annotations

import json
import re
import shutil
import tarfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from joseki_miner.runs.config import ConfigError, load
from joseki_miner.fast.fasttrie import PAYLOAD
from joseki_miner.readers.demo import planted_paths, planted_stats
from joseki_miner.method.points import TENUKI, from_sgf
from joseki_miner.method.points import to_sgf
from joseki_miner.readers import read_paths
from joseki_miner.method.records import GameRecord
from joseki_miner.method.symmetry import POINT_MAP
from joseki_miner.method.trie import COUNTER_COLUMNS, STAT_COLUMNS, Trie
from joseki_miner.runs.catalog import Catalog
from pipeline.cli import app
from joseki_miner.runs.catalog import STAGES
from joseki_miner.runs.stages import alone
from pipeline.run import Request, run_stages
from sgftree import sgf_colours, sgf_first_lines, sgf_paths

OUTPUTS = ("joseki.sgf", "joseki.dot", "influence.dot", "joseki.parquet")
# what a game's corner and its collection's name do not change
TREE_OUTPUTS = ("joseki.dot", "influence.dot", "joseki.parquet")


def mine(paths, folder: Path, *sets: str) -> tuple[dict, Catalog, list[str]]:
    catalog = Catalog(work=folder / "interim", out=folder)
    messages: list[str] = []
    summary = run_stages(catalog, load(None, list(sets)), STAGES, paths, Request(progress=False), log=messages.append)
    return summary, catalog, messages


def tree_of(path: Path) -> dict:
    return Trie.from_table(pq.read_table(path).to_pandas()).paths()


@pytest.fixture(scope="module")
def demo_run(demo_games, tmp_path_factory):
    return mine([demo_games], tmp_path_factory.mktemp("demo-run"))


def test_demo_recovers_exactly_the_planted_joseki(demo_run):
    summary, catalog, _ = demo_run
    mined, planted = tree_of(catalog.joseki), planted_paths()
    mined.pop(())
    planted.pop(())
    assert mined == planted
    assert summary["leaves"] == 8  # 10 planted, two of them prefixes of others


def _paths_by_node(table) -> dict[int, tuple[int, ...]]:
    keys: dict[int, tuple[int, ...]] = {}
    for node, parent, move in zip(table["node"], table["parent"], table["move"]):
        keys[node] = () if parent < 0 else keys[parent] + (TENUKI if move == "" else from_sgf(move),)
    return keys


def test_demo_statistics_equal_the_planted_ones_on_every_node(demo_run):
    """Games, wins of the tree's Black and White (corners dealt with swapped
    colours flip the game's winner; jigo, void and unknown results count for
    neither), years and collections: exactly what the demo planted."""
    _, catalog, _ = demo_run
    table = pq.read_table(catalog.joseki).to_pandas()
    paths = _paths_by_node(table)
    truth = planted_stats()
    assert set(paths.values()) == set(truth)
    years = pq.read_table(catalog.node_years).to_pandas()
    sources = pq.read_table(catalog.node_sources).to_pandas()
    for row in table.itertuples():
        want = truth[paths[row.node]]
        assert (row.games, row.black_wins, row.white_wins) == (want["games"], want["black_wins"], want["white_wins"])
        assert (row.first_year, row.last_year) == (min(want["years"]), max(want["years"]))
        mine = years[years["node"] == row.node]
        assert dict(zip(mine["year"], mine["games"])) == want["years"]
        mine = sources[sources["node"] == row.node]
        assert {Path(s).name: g for s, g in zip(mine["source"], mine["games"])} == want["sources"]
    assert truth[()]["black_wins"] + truth[()]["white_wins"] < truth[()]["games"]  # some results name no winner
    assert any(t["black_wins"] != t["white_wins"] for t in truth.values())


def test_demo_examples_are_the_most_recent_games_of_each_node(demo_run):
    """Up to five a node, the most recent first (ties by game), each with
    the move where its sequence starts and the corner."""
    _, catalog, _ = demo_run
    examples = pq.read_table(catalog.node_examples).to_pandas()
    games = pq.read_table(catalog.games, columns=["game", "DT", "source", "location"]).to_pandas()
    order = pq.read_table(catalog.sorted_sequences).to_pandas()
    table = pq.read_table(catalog.joseki).to_pandas()
    for row in table.itertuples():
        reached = set(order["game"][row.first : row.first + row.count])
        want = sorted(reached, key=lambda g: (tuple(-int(x) for x in games["DT"][g].split("-")), g))[:5]
        mine = examples[examples["node"] == row.node]
        assert mine["game"].tolist() == want and mine["example"].tolist() == list(range(1, len(want) + 1))
        assert (mine["date"] == games["DT"][want].to_numpy()).all()
    assert set(examples["corner"]) <= {"upper left", "upper right", "lower left", "lower right"}
    assert (examples["move"] >= 1).all()


def test_demo_summary_reconciles_and_names_every_reject(demo_run):
    summary, catalog, _ = demo_run
    assert summary["games_read"] == summary["games_accepted"] + summary["games_rejected_total"]
    assert summary["games_accepted"] == 400
    assert summary["games_rejected"] == {"handicap": 1, "not 19x19": 1, "parse error": 1}
    rejects = pq.read_table(catalog.rejects).to_pandas()
    assert sorted(Path(s).name for s in rejects["source"]) == ["bad-9x9.sgf", "bad-handicap.sgf", "bad-truncated.sgf"]
    # the evidence threshold: 95% sure a line is played in 0.4% of the 400 games (5), and min_games (10) above it
    from joseki_miner.method.threshold import evidence

    assert evidence(400, 0.004, 0.95) == 5 and summary["threshold"] == 10 and summary["threshold_on"] == "games"
    assert summary["sequences"] == 1600 - 15  # four corners a game, but the 15 left empty beside a side extension
    on_disk = json.loads(catalog.summary.read_text())
    for key in (
        "games_read",
        "games_accepted",
        "games_rejected",
        "sequences",
        "nodes_before_prune",
        "nodes_after_prune",
        "leaves",
        "seconds",
    ):
        assert key in on_disk


def test_sgf_rereads_to_the_parquet_tree(demo_run):
    _, catalog, _ = demo_run
    text = catalog.sgf.read_text(encoding="utf-8")
    parquet = tree_of(catalog.joseki)
    parquet.pop(())
    assert sgf_paths(text) == parquet
    assert all(colour == ("b" if depth % 2 else "w") for depth, colour in sgf_colours(text))


def test_the_sgf_names_what_was_mined_and_counters_come_only_when_asked(demo_run, demo_games, tmp_path):
    """GN, SO and DT from the games mined (DT: the first and last date of
    games.parquet); `emit.counters` adds the raw counters, re-running emit
    (and the report after it) only."""
    from sgfmill import sgf

    summary, catalog, _ = demo_run
    root = sgf.Sgf_game.from_string(catalog.sgf.read_text(encoding="utf-8")).get_root()
    dates = sorted(d for d in pq.read_table(catalog.games, columns=["DT"]).column("DT").to_pylist() if d)
    assert root.get("DT") == f"{dates[0]},{dates[-1]}"
    assert root.get("SO") == "club, pro"
    assert root.get("GN") == f"Joseki of {summary['games_accepted']} games: club, pro, 2005-2019"
    assert "Count " not in catalog.sgf.read_text(encoding="utf-8")
    folder = tmp_path / "counters"
    shutil.copytree(catalog.out, folder, ignore=shutil.ignore_patterns(".joseki.lock"))
    _, again, log = mine([demo_games], folder, "emit.counters=true")
    assert [m.split(":")[0] for m in log if "done" in m] == ["emit", "report"]
    text = again.sgf.read_text(encoding="utf-8")
    assert (
        len(re.findall(r"Count \d+ sequences; influence \(black/white/neutral, verdict\): up ", text))
        == len(pq.read_table(catalog.joseki)) - 1
    )


def test_parquet_columns_and_counters(demo_run):
    _, catalog, _ = demo_run
    table = pq.read_table(catalog.joseki).to_pandas()
    assert list(table.columns) == [
        "node",
        "parent",
        "depth",
        "color",
        "move",
        "kind",
        "count",
        "tenuki",
        *COUNTER_COLUMNS,
        *STAT_COLUMNS,
    ]
    assert set(table["kind"]) == {"joseki", "follow-up", "enclosure", "extension"}
    trie = pq.read_table(catalog.trie).column_names
    assert trie == ["node", "parent", "depth", "color", "move", "kind", "count", *COUNTER_COLUMNS, *STAT_COLUMNS]
    root = table.iloc[0]
    assert (root["node"], root["parent"], root["depth"], root["color"], root["move"]) == (0, -1, 0, "", "")
    body = table.iloc[1:]
    for d in ("up", "right", "down", "left"):
        assert (body[f"{d}_black"] + body[f"{d}_white"] + body[f"{d}_neutral"] == body["count"]).all()
    assert set(body["color"]) == {"B", "W"}
    assert (body["move"] == "").any()  # the planted tenuki
    # the folded tenuki: where a kept line went on elsewhere, how often
    assert (body["tenuki"] <= body["count"]).all() and body["tenuki"].sum() > 0


def test_same_games_same_config_give_byte_identical_outputs(demo_games, demo_run, tmp_path):
    _, first, _ = demo_run
    _, second, _ = mine([demo_games], tmp_path)
    for name in OUTPUTS:
        assert (first.out / name).read_bytes() == (second.out / name).read_bytes(), name


def test_changing_only_the_threshold_reruns_only_the_published_stages(demo_games, tmp_path):
    _, catalog, log = mine([demo_games], tmp_path)
    assert [m.split(":")[0] for m in log if "done" in m] == list(STAGES)
    before = {s: catalog.manifest(s).read_text() for s in ("ingest", "extract", "build")}
    stamps = {p: p.stat().st_mtime_ns for p in (catalog.games, catalog.sequences, catalog.trie)}
    summary, catalog, log = mine([demo_games], tmp_path, "prune.min_count=30")
    assert [m.split(":")[0] for m in log if "done" in m] == ["prune", "context", "emit", "report"]
    assert [m.split(":")[0] for m in log if "kept" in m] == ["ingest", "extract", "build"]
    assert {s: catalog.manifest(s).read_text() for s in before} == before
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert summary["threshold"] == 30
    assert all(count >= 30 for count in tree_of(catalog.joseki).values())
    # nothing changed: nothing re-runs
    _, _, log = mine([demo_games], tmp_path, "prune.min_count=30")
    assert not [m for m in log if "done" in m]


def _node_counts(catalog: Catalog) -> dict[str, int]:
    """How many nodes (the root too) each published output says the tree holds."""
    index = (catalog.report / "index.html").read_text(encoding="utf-8")
    counts = {
        "joseki.parquet": pq.read_table(catalog.joseki).num_rows,
        "summary.json": json.loads(catalog.summary.read_text())["nodes_after_prune"],
        "joseki.sgf": len(sgf_paths(catalog.sgf.read_text(encoding="utf-8"))) + 1,
        "report pages": len(list(catalog.report.glob("n[0-9]*.html"))),
        "report index": int(re.search(r"([\d,]+) moves? in the tree", index).group(1).replace(",", "")) + 1,
    }
    if catalog.svg.exists():  # drawn where Graphviz is
        counts["joseki.svg"] = catalog.svg.read_text(encoding="utf-8").count('class="node"')
    return counts


def test_a_stage_alone_keeps_the_output_folder_one_tree(demo_games, demo_run, tmp_path):
    """`joseki prune --set prune.min_count=30` (make prune SET=...) prunes
    again, then writes the SGF, the SVGs and the report of the new tree in
    the same commit: every published output counts its nodes; `joseki emit`
    runs the report after it."""
    _, first, _ = demo_run
    shutil.copytree(first.out, tmp_path / "o", ignore=shutil.ignore_patterns(".joseki.lock"))
    catalog = Catalog(work=tmp_path / "o" / "interim", out=tmp_path / "o")
    before = _node_counts(catalog)
    assert len(set(before.values())) == 1, before
    folders = ["--out", str(catalog.out), "--work", str(catalog.work)]
    done = CliRunner().invoke(app, ["prune", *folders, "--set", "prune.min_count=30", "--quiet"])
    assert done.exit_code == 0, done.output
    after = _node_counts(catalog)
    assert len(set(after.values())) == 1 and set(after.values()) != set(before.values()), (before, after)
    assert f"pruned at count >= 30: {after['joseki.parquet']} nodes" in done.output
    assert f"outputs in {catalog.out}" in done.output
    log: list[str] = []
    run_stages(catalog, load(None, []), alone("emit"), [], Request(progress=False, force=True), log=log.append)
    assert [m.split(":")[0] for m in log if "done" in m] == ["emit", "report"]


def test_a_work_stage_alone_says_what_publishes_it(demo_games, demo_run, tmp_path):
    """`joseki build` with another parameter writes the work folder only:
    the book and summary.json stay those of the stages before, the command
    says `joseki prune` publishes the new build, the queries refuse the
    book until it has, and then answer from the new tree."""
    _, first, _ = demo_run
    shutil.copytree(first.out, tmp_path / "o", ignore=shutil.ignore_patterns(".joseki.lock"))
    catalog = Catalog(work=tmp_path / "o" / "interim", out=tmp_path / "o")
    folders = ["--out", str(catalog.out), "--work", str(catalog.work)]
    summary = catalog.summary.read_bytes()
    published = {p: p.read_bytes() for p in (catalog.joseki, catalog.sgf)}
    done = CliRunner().invoke(app, ["build", *folders, "--set", "influence.neutral=3", "--quiet"])
    assert done.exit_code == 0, done.output
    assert "outputs in" not in done.output
    assert (
        f"staged in {catalog.work}" in done.output
        and f"the book in {catalog.out} is still that of the stages before: `joseki prune`" in done.output
    ), done.output
    assert catalog.summary.read_bytes() == summary and {p: p.read_bytes() for p in published} == published
    refused = CliRunner().invoke(app, ["lookup", "Q16", *folders])
    assert refused.exit_code == 2 and "not mined from what" in refused.output, refused.output
    done = CliRunner().invoke(app, ["prune", *folders, "--set", "influence.neutral=3", "--quiet"])
    assert done.exit_code == 0 and f"outputs in {catalog.out}" in done.output, done.output
    assert CliRunner().invoke(app, ["lookup", "Q16", *folders]).exit_code == 0
    assert len(set(_node_counts(catalog).values())) == 1


def test_a_first_work_stage_alone_says_nothing_is_published_yet(demo_games, tmp_path):
    done = CliRunner().invoke(app, ["ingest", str(demo_games), "--out", str(tmp_path), "--quiet"])
    assert done.exit_code == 0, done.output
    assert (
        f"nothing is published in {tmp_path} yet: `joseki extract`, then `joseki build`, then `joseki prune`"
        in done.output
    ), done.output
    assert json.loads((tmp_path / "summary.json").read_text())["games_accepted"] == 400


def _transformed(record: GameRecord, t: int, swap: bool) -> str:
    """The game turned by transform t, its colours swapped if asked (its
    result's winner too), its date kept."""
    moves = "".join(
        f";{'W' if (m.colour < 0) == swap else 'B'}[{to_sgf(POINT_MAP[t][m.point]) if m.point >= 0 else ''}]"
        for m in record.moves
    )
    result = record.meta.get("RE", "")
    if swap and result[:1] in ("B", "W"):
        result = {"B": "W", "W": "B"}[result[0]] + result[1:]
    return f"(;FF[4]GM[1]SZ[19]DT[{record.meta.get('DT', '')}]RE[{result}]{moves})\n"


@pytest.mark.parametrize("t,swap", [(1, False), (6, True), (7, False), (4, True)])
def test_mining_a_transformed_collection_gives_identical_outputs(demo_games, demo_run, tmp_path, t, swap):
    _, original, _ = demo_run
    folder = tmp_path / "games"
    folder.mkdir()
    for i, item in enumerate(read_paths([demo_games])):
        if isinstance(item, GameRecord) and not item.handicap:
            (folder / f"{i:04d}.sgf").write_text(_transformed(item, t, swap))
    _, catalog, _ = mine([folder], tmp_path / "out")
    for name in TREE_OUTPUTS:
        assert (original.out / name).read_bytes() == (catalog.out / name).read_bytes(), name
    # the SGF differs only where it names the collection and the corners of its example games
    texts = [c.sgf.read_text(encoding="utf-8") for c in (original, catalog)]
    assert sgf_paths(texts[0]) == sgf_paths(texts[1])
    assert sgf_first_lines(texts[0]) == sgf_first_lines(texts[1])


runner = CliRunner()


def test_cli_missing_path_is_one_line_and_nonzero(tmp_path):
    result = runner.invoke(app, ["mine", str(tmp_path / "nope"), "--out", str(tmp_path / "o"), "--quiet"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"joseki: no such path: {tmp_path / 'nope'}"]


def test_cli_no_sort_memory_is_one_line_and_nonzero(demo_games, tmp_path):
    result = runner.invoke(app, ["mine", str(demo_games), "--out", str(tmp_path), "--sort-memory", "0", "--quiet"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["joseki: --sort-memory must be a positive number of MB"]


def test_cli_ingest_maps_its_tables_past_the_table_memory(demo_games, tmp_path):
    """`joseki ingest --table-memory 0`: the duplicate fingerprints go to a
    mapped file of the work folder (none is left behind), the same games."""
    for name, extra in (("held", []), ("mapped", ["--table-memory", "0"])):
        result = runner.invoke(app, ["ingest", str(demo_games), "--out", str(tmp_path / name), "--quiet", *extra])
        assert result.exit_code == 0, result.output
    figures = {
        n: json.loads((tmp_path / n / "interim" / "ingest.manifest.json").read_text())["run"]
        for n in ("held", "mapped")
    }
    assert figures["held"]["tables_mapped_bytes"] == 0
    assert figures["mapped"]["tables_mapped_bytes"] == figures["mapped"]["tables_bytes"] > 0
    assert sorted(p.name for p in (tmp_path / "mapped" / "interim").iterdir()) == sorted(
        p.name for p in (tmp_path / "held" / "interim").iterdir()
    )
    assert pq.read_table(tmp_path / "held" / "interim" / "games.parquet").equals(
        pq.read_table(tmp_path / "mapped" / "interim" / "games.parquet")
    )


def test_cli_negative_table_memory_is_one_line_and_nonzero(demo_games, tmp_path):
    result = runner.invoke(app, ["mine", str(demo_games), "--out", str(tmp_path), "--table-memory", "-1", "--quiet"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["joseki: --table-memory must be a number of MB, 0 or more"]


def test_cli_invalid_config_is_one_line_and_nonzero(demo_games, tmp_path):
    result = runner.invoke(
        app, ["mine", str(demo_games), "--out", str(tmp_path), "--set", "distance.certain=7", "--quiet"]
    )
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "distance.certain must be <= distance.maybe" in result.output


def test_cli_strict_stops_at_the_first_bad_record(demo_games, tmp_path):
    result = runner.invoke(app, ["mine", str(demo_games), "--out", str(tmp_path), "--strict", "--quiet"])
    assert result.exit_code == 1
    assert "--strict" in result.output and "bad-" in result.output


def test_cli_single_stage_needs_its_inputs(tmp_path):
    result = runner.invoke(app, ["prune", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 2
    assert "run `joseki ingest` first" in result.output


@pytest.mark.parametrize("command", ["mine", "ingest", "extract", "build", "prune", "emit", "demo"])
def test_cli_help_on_every_command(command):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output


def test_cli_mine_prints_a_summary(demo_games, tmp_path):
    result = runner.invoke(app, ["mine", str(demo_games), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "games read 403: accepted 400, rejected 3" in result.output
    assert "6 joseki" in result.output


@pytest.mark.shared_data
def test_kgs_archives_end_to_end(shared_data, tmp_path):
    """Two real KGS archives, extracted to a temporary folder: the summary
    reconciles and the SGF re-reads to the Parquet tree."""
    games = tmp_path / "kgs"
    for name in ("KGS-2017_01-19-733-.tar.gz", "KGS-2017_02-19-525-.tar.gz"):
        with tarfile.open(shared_data / "kgs-6d" / name) as tar:
            tar.extractall(games, filter="data")
    summary, catalog, _ = mine([games], tmp_path / "out")
    assert summary["games_read"] == 733 + 525
    assert summary["games_read"] == summary["games_accepted"] + summary["games_rejected_total"]
    assert summary["games_accepted"] > 500
    assert summary["leaves"] > 10 and summary["deepest"] >= 5
    parquet = tree_of(catalog.joseki)
    parquet.pop(())
    assert sgf_paths(catalog.sgf.read_text(encoding="utf-8")) == parquet
    assert all(c >= summary["threshold"] for c in parquet.values())


def test_cli_single_stage_reports_only_what_has_run(demo_games, tmp_path):
    result = runner.invoke(app, ["ingest", str(demo_games), "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "games read 403" in result.output and "files without games skipped: 1" in result.output
    figures = "\n".join(result.output.splitlines()[:-1])  # the last line: what publishes it
    assert "trie" not in figures and "joseki" not in figures
    result = runner.invoke(app, ["extract", "--out", str(tmp_path), "--quiet"])
    figures = "\n".join(result.output.splitlines()[:-1])
    assert "sequences 1,585" in figures and "trie" not in figures


def test_console_command_flushes_its_output_and_exit_code(demo_games, tmp_path):
    """The installed ``joseki`` ends its process at once (pipeline.cli.main):
    its summary still reaches a pipe, its files are complete and a usage
    error still exits 2."""
    import subprocess
    import sys

    command = [sys.executable, "-c", "from pipeline.cli import main; main()"]
    done = subprocess.run(
        command + ["mine", str(demo_games), "--out", str(tmp_path), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "games read 403: accepted 400, rejected 3" in done.stdout and "6 joseki" in done.stdout
    assert json.loads((tmp_path / "summary.json").read_text())["games_accepted"] == 400
    assert pq.read_table(tmp_path / "joseki.parquet").num_rows > 0
    failed = subprocess.run(
        command + ["mine", str(tmp_path / "nope"), "--out", str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert failed.returncode == 2
    assert failed.stderr.strip() == f"joseki: no such path: {tmp_path / 'nope'}"


def test_mine_reports_the_memory_that_grows_with_the_games(demo_run):
    """The manifests size what the bench extrapolates memory from: the
    sequences passed to the build (2-byte keys, 1-byte packed classes,
    8-byte offsets, 24-byte payloads; held up to the sort memory) and the duplicate table (20
    bytes a slot, at most three quarters full); where each game was read
    goes to a file, removed when the stage ends."""
    summary, catalog, _ = demo_run
    figures = {s: json.loads(catalog.manifest(s).read_text())["run"] for s in ("ingest", "extract")}
    moves = pq.read_table(catalog.sequences, columns=["moves"]).column("moves").to_pylist()
    keys = sum(len(m) for m in moves) // 2
    held = figures["extract"]["sequence_bytes"]
    per_sequence = 8 + PAYLOAD.itemsize  # an offset and the payload
    assert 3 * keys + per_sequence * len(moves) <= held <= 3 * keys + per_sequence * len(moves) + 8 * 1000
    assert figures["ingest"]["dedupe_bytes"] >= 20 * summary["games_accepted"] * 4 // 3
    assert figures["ingest"]["wheres_spilled_bytes"] > 0
    assert not list(catalog.games.parent.glob("*.wheres"))
    assert figures["extract"]["runs_spilled"] == 0 == figures["extract"]["spilled_bytes"]  # the demo fits


def test_mine_records_its_memory_when_reading_ends_and_after_the_build(demo_run):
    """The streamed manifests carry the process's RSS (the bench reads it):
    when reading ended, now and at its peak so far, and the peak once the
    trie is stored, which is no lower."""
    _, catalog, _ = demo_run
    extract, build = (json.loads(catalog.manifest(s).read_text())["run"] for s in ("extract", "build"))
    assert extract["rss_mib"] > 10 and extract["peak_rss_mib"] <= build["peak_rss_mib"]
    # Linux syncs a thread's RSS counters with the process's peak in steps, so
    # the two readings can differ by a few pages either way
    assert extract["rss_mib"] <= extract["peak_rss_mib"] + 1


def _ingest(paths, folder: Path, engine: str, include_handicap: bool) -> tuple[list[tuple], list[dict]]:
    """One engine's ingest of ``paths``: its rejects (file name, location,
    reason, detail) and its accepted games."""
    from joseki_miner.stages import ingest

    games, rejects = folder / f"{engine}-games.parquet", folder / f"{engine}-rejects.parquet"
    ingest.read(paths, games, rejects, ingest.Reading(include_handicap=include_handicap, engine=engine))
    rows = pq.read_table(rejects).to_pylist()
    return (
        [(Path(r["source"]).name, r["location"], r["reason"], r["detail"]) for r in rows],
        pq.read_table(games).to_pylist(),
    )


HUGE_ROOTS = {  # file -> root properties; 2**64 + 19 and 2**64 + 2 wrapped to 19 and 2 in the fast scanner
    "ha-12.sgf": "HA[12]",
    "ha-40000.sgf": "HA[40000]",
    "ha-70000.sgf": "HA[70000]",
    "ha-2to64.sgf": "HA[18446744073709551618]",
    "ha-1e400.sgf": "HA[1e400]",
    "sz-40000.sgf": "SZ[40000]",
    "sz-2to64.sgf": "SZ[18446744073709551635]",
    "sz-09.sgf": "SZ[09]",
    "km-huge.sgf": "KM[99999999999999999999999999]",
    "ha-9.sgf": "HA[9]",
}


@pytest.mark.parametrize("include_handicap", [False, True])
def test_huge_sizes_and_handicaps_are_rejected_alike_by_both_engines(tmp_path, include_handicap):
    """A board size or handicap too large for any column (or for the
    scanner's integers) is rejected with its reason, never wrapped, by both
    engines: "not 19x19" for the size; "handicap" for a handicap while
    include_handicap is off, and "bad handicap" for more than 9 stones while
    it is on; a huge komi is text, kept as written."""
    folder = tmp_path / "games"
    folder.mkdir()
    for i, (name, root) in enumerate(HUGE_ROOTS.items()):  # each game its own moves: no duplicates
        (folder / name).write_text(f"(;GM[1]FF[4]{root};B[pd];W[dp];B[pp];W[{'abcdefghijk'[i]}c])\n")
    handicaps = {
        "ha-12.sgf": 12,
        "ha-40000.sgf": 40000,
        "ha-70000.sgf": 70000,
        "ha-2to64.sgf": 10**9,
        "ha-1e400.sgf": 10**9,
    }
    expected = [
        (name, "", "bad handicap", f"handicap {h}: more than 9 stones")
        if include_handicap
        else (name, "", "handicap", f"handicap {h}")
        for name, h in handicaps.items()
    ]
    expected += [
        ("sz-09.sgf", "", "not 19x19", "board size 09"),
        ("sz-2to64.sgf", "", "not 19x19", "board size 18446744073709551635"),
        ("sz-40000.sgf", "", "not 19x19", "board size 40000"),
    ]
    if not include_handicap:
        expected.append(("ha-9.sgf", "", "handicap", "handicap 9"))
    for engine in ("fast", "reference"):
        rejects, games = _ingest([folder], tmp_path, engine, include_handicap)
        assert sorted(rejects) == sorted(expected), engine
        assert [(Path(g["source"]).name, g["handicap"], g["KM"]) for g in games] == (
            [("ha-9.sgf", 9, "")] if include_handicap else []
        ) + [("km-huge.sgf", 0, "99999999999999999999999999")]


def test_names_that_are_not_utf8_reach_the_tables_escaped_in_both_engines(tmp_path):
    """A file and an archive member named in bytes that are not UTF-8 used
    to crash both engines where their names went to Parquet; now both
    store them with backslash escapes."""
    import io
    import os

    folder = tmp_path / "games"
    folder.mkdir()
    with open(os.fsencode(folder) + b"/\xff\xfe.sgf", "wb") as f:
        f.write(b"(;GM[1]FF[4]SZ[19];B[pd];W[dp];B[pp];W[dd])\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        game = b"(;GM[1]FF[4]SZ[19];B[pd];W[dp];B[pp];W[dc])\n"
        info = tarfile.TarInfo(b"\xe9t\xe9.sgf".decode("utf-8", "surrogateescape"))
        info.size = len(game)
        tar.addfile(info, io.BytesIO(game))
    (folder / "old.tar.gz").write_bytes(buf.getvalue())
    for engine in ("fast", "reference"):
        rejects, games = _ingest([folder], tmp_path, engine, False)
        assert rejects == []
        assert [(g["source"][len(str(folder)) :], g["location"]) for g in games] == [
            ("/old.tar.gz", "\\xe9t\\xe9.sgf"),
            ("/\\xff\\xfe.sgf", ""),
        ], engine


def test_limits_reach_both_engines_and_the_ingest_cache_key(tmp_path):
    """limits.member_mb and limits.field_kb reach the readers (both engines,
    `mine` in one pass and `ingest` alone reject the same games) and the
    ingest stage's cache key."""
    import gzip
    import zipfile

    from joseki_miner.runs.keys import stage_keys

    folder = tmp_path / "games"
    folder.mkdir()
    with zipfile.ZipFile(folder / "a.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.sgf", bytes(2 << 20))
        z.writestr("ok.sgf", "(;GM[1];B[pd];W[dp];B[pp];W[dd])")
    (folder / "b.sgf.gz").write_bytes(gzip.compress(bytes(2 << 20)))
    (folder / "c.sgf").write_text("(;GM[1]PB[" + "x" * 2000 + "];B[pd];W[dp];B[pp];W[dc])")
    sets = ["limits.member_mb=1", "limits.field_kb=1"]
    expected = [
        ("a.zip", "zeros.sgf", "archive member too large"),
        ("b.sgf.gz", "b.sgf", "archive member too large"),
        ("c.sgf", "", "field too long"),
    ]
    for n, (engine, stages) in enumerate((("fast", STAGES), ("reference", ["ingest"]), ("fast", ["ingest"]))):
        catalog = Catalog(work=tmp_path / f"out{n}" / "interim", out=tmp_path / f"out{n}")
        summary = run_stages(catalog, load(None, sets), stages, [folder], Request(progress=False, engine=engine))
        rejects = pq.read_table(catalog.rejects).to_pylist()
        assert [(Path(r["source"]).name, r["location"], r["reason"]) for r in rejects] == expected, (engine, stages)
        assert summary["games_accepted"] == 1
    keys = {stage_keys(load(None, s), "inputs")["ingest"] for s in ([], sets[:1], sets[1:])}
    assert len(keys) == 3


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_filters_leave_games_out_with_their_reasons(demo_games, tmp_path, engine):
    """filter.years, .sources and .result_known, applied as games are read:
    games read = accepted + rejected + filtered, each filtered game with
    its reason, and only the games kept are mined."""
    from joseki_miner.readers.demo import generate

    _, truth = generate()
    records = truth["game_records"]
    catalog = Catalog(work=tmp_path / "interim", out=tmp_path)
    config = load(None, ["filter.years=[2008, 2015]", "filter.sources=pro", "filter.result_known=true"])
    summary = run_stages(catalog, config, STAGES, [demo_games], Request(progress=False, engine=engine))
    outside = sum(not 2008 <= r["year"] <= 2015 for r in records)
    club = sum(2008 <= r["year"] <= 2015 and r["collection"] == "club" for r in records)
    undecided = sum(2008 <= r["year"] <= 2015 and r["collection"] == "pro" and r["winner"] == 0 for r in records)
    assert summary["games_filtered"] == {
        "year not in 2008-2015": outside,
        "collection not selected": club,
        "result names no winner": undecided,
    }
    kept = len(records) - outside - club - undecided
    assert summary["games_accepted"] == kept
    assert summary["games_read"] == kept + summary["games_rejected_total"] + summary["games_filtered_total"]
    games = pq.read_table(catalog.games, columns=["year", "winner", "collection"]).to_pandas()
    assert games["year"].between(2008, 2015).all() and (games["winner"] != 0).all()
    assert set(games["collection"].map(lambda c: Path(c).name)) == {"pro"}
    root = pq.read_table(catalog.joseki).to_pandas().iloc[0]
    assert root["games"] == kept and root["first_year"] >= 2008 and root["last_year"] <= 2015
    assert sum(summary["games_by_year"].values()) == kept


def test_collections_are_the_paths_given_or_the_folders_inside(demo_games, tmp_path):
    """collections.depth 1 (default): the demo's club/ and pro/; 0: the
    folder given."""
    for depth, names in ((1, {"club", "pro"}), (0, {demo_games.name})):
        catalog = Catalog(work=tmp_path / str(depth) / "interim", out=tmp_path / str(depth))
        summary = run_stages(
            catalog, load(None, [f"collections.depth={depth}"]), STAGES, [demo_games], Request(progress=False)
        )
        assert {Path(c).name for c in summary["games_by_collection"]} == names
        assert sum(summary["games_by_collection"].values()) == summary["games_accepted"]
        sources = pq.read_table(catalog.node_sources).to_pandas()
        assert sources[sources["node"] == 0]["games"].sum() == summary["games_accepted"]


def test_cli_summary_counts_filtered_games(demo_games, tmp_path):
    result = runner.invoke(
        app, ["mine", str(demo_games), "--out", str(tmp_path), "--quiet", "--set", "filter.result_known=true"]
    )
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert "rejected 3 (handicap: 1, not 19x19: 1, parse error: 1), filtered " in first
    assert "(result names no winner: " in first


def test_the_planted_demo_names_each_planted_line_by_its_kind(demo_run):
    """Every node says what it is (joseki.parquet and trie.parquet's kind,
    the SGF's first comment line): each planted joseki is a joseki, the
    line played after a tenuki a follow-up, the planted enclosure an
    enclosure, the planted side extension an extension, and the summary
    counts the joseki apart from the follow-ups and the fuseki shapes."""
    from joseki_miner.readers.demo import PLANTED, keys_of

    summary, catalog, _ = demo_run
    table = pq.read_table(catalog.joseki).to_pandas()
    paths = _paths_by_node(table)
    kind = {paths[n]: k for n, k in zip(table["node"], table["kind"])}
    for name, moves, _, planted in PLANTED:
        keys = keys_of(moves)
        assert kind[keys] == planted, name
    assert {k for _, _, _, k in PLANTED} == {"joseki", "follow-up", "enclosure", "extension"}
    trie = pq.read_table(catalog.trie, columns=["parent", "move", "kind"]).to_pandas()
    trie_paths = _paths_by_node(trie.assign(node=range(len(trie))))
    assert {trie_paths[i]: k for i, k in enumerate(trie["kind"])}.items() >= kind.items()
    # 7 planted joseki, two prefixes of others; the line before the follow-up's tenuki ends a joseki
    assert summary["joseki"] == 6 and summary["follow_ups"] == 1 and summary["fuseki_shapes"] == 2
    firsts = sgf_first_lines(catalog.sgf.read_text(encoding="utf-8"))
    assert firsts[keys_of("dc -- ce")].startswith("Enclosure (fuseki): Black plays in the corner again")
    assert firsts[keys_of("dd fc cf jd")].startswith("Extension (fuseki): this move leaves the corner")
    assert firsts[keys_of("dd fc cf db cc dc")].startswith("Joseki ends here")
    assert firsts[keys_of("dd fc cf")] == "Joseki."
    assert firsts[keys_of("dc ec db")].startswith("Joseki ends here")
    assert firsts[keys_of("dc ec db --")].startswith("Tenuki: the joseki ended at the move before")
    assert firsts[keys_of("dc ec db -- eb")].startswith("Follow-up: the joseki ended, and a player came back")


def test_the_sgfs_own_words_are_ascii(demo_run):
    """CGoban 1.9 reads comments as Latin-1 whatever CA says: every word
    the SGF writes itself is ASCII (the demo's names and collections are
    too, so the whole file is)."""
    _, catalog, _ = demo_run
    text = catalog.sgf.read_bytes().decode("ascii")
    assert "; Black wins " in text and "\u00b7" not in text


PEOPLE_GAMES = {  # file: (PB, PW, BR, WR, EV)
    "a.sgf": ("Ke Jie", "AlphaGo", "9段", "", "The Future of Go Summit, Match 1"),
    "b.sgf": ("lee", "kim", "6d", "7d", "KGS"),
    "c.sgf": ("x", "y", "3k", "5d", ""),
    "d.sgf": ("ke jie ", "z", "P9", "9p", "11th UEC Cup"),
    "e.sgf": ("a", "b", "", "", ""),
}


@pytest.mark.parametrize("engine", ["fast", "reference", "dask"])
def test_filters_of_players_ranks_and_events(tmp_path, engine):
    """filter.players (either colour, case and outer blanks aside),
    filter.min_rank (both players; an unknown rank is left out, with its
    own reason) and filter.events (a part of the event's name), each game
    left out counted by its first reason, the same on every engine."""
    folder = tmp_path / "games"
    folder.mkdir()
    for k, (name, (pb, pw, br, wr, ev)) in enumerate(PEOPLE_GAMES.items()):
        moves = f";B[pd];W[dp];B[pp];W[dd];B[fc];W[c{'fghij'[k]}]"  # games apart: none a duplicate
        (folder / name).write_text(f"(;GM[1]SZ[19]PB[{pb}]PW[{pw}]BR[{br}]WR[{wr}]EV[{ev}]{moves})", encoding="utf-8")
    cases = {
        "filter.players=[KE JIE]": ({"a.sgf", "d.sgf"}, {"player not selected": 3}),
        "filter.min_rank=5d": ({"b.sgf", "d.sgf"}, {"rank unknown": 2, "rank below 5d": 1}),
        "filter.events=[summit, uec]": ({"a.sgf", "d.sgf"}, {"event not selected": 3}),
    }
    for n, (setting, (kept, reasons)) in enumerate(cases.items()):
        catalog = Catalog(work=tmp_path / f"o{n}" / "interim", out=tmp_path / f"o{n}")
        summary = run_stages(
            catalog,
            load(None, [setting, "prune.min_count=1"]),
            STAGES,
            [folder],
            Request(progress=False, engine=engine),
        )
        assert summary["games_filtered"] == reasons, setting
        assert summary["games_read"] == summary["games_accepted"] + summary["games_filtered_total"] == 5
        assert {Path(s).name for s in pq.read_table(catalog.games, columns=["source"]).column(0).to_pylist()} == kept


@pytest.mark.parametrize("engine", ["fast", "reference", "dask"])
def test_a_sample_keeps_the_games_its_moves_choose(demo_games, tmp_path, engine):
    """filter.sample: the games whose moves ``in_sample`` takes, a smaller
    sample inside a larger one, each left out counted by its reason (games
    read = accepted + rejected + filtered), the same games on every engine;
    a compare side chooses as a sampled mine does."""
    from joseki_miner.book.compare import side_games
    from joseki_miner.runs.inputs import Filters, in_sample

    everything = Catalog(work=tmp_path / "all" / "interim", out=tmp_path / "all")
    run_stages(everything, load(None, []), ["ingest"], [demo_games], Request(progress=False, engine=engine))
    moves = pq.read_table(everything.games, columns=["moves"]).column(0).to_pylist()
    kept = {}
    for share in (0.5, 0.25):
        config = load(None, [f"filter.sample={share}"])
        catalog = Catalog(work=tmp_path / str(share) / "interim", out=tmp_path / str(share))
        summary = run_stages(catalog, config, STAGES, [demo_games], Request(progress=False, engine=engine))
        kept[share] = pq.read_table(catalog.games, columns=["moves"]).column(0).to_pylist()
        assert kept[share] == [m for m in moves if in_sample(m, share)]
        assert summary["games_filtered"] == {f"not in the sample of {share:g}": len(moves) - len(kept[share])}
        assert summary["games_read"] == (
            summary["games_accepted"] + summary["games_rejected_total"] + summary["games_filtered_total"]
        )
        assert int(side_games(everything.games, Filters.of(config))[0].sum()) == len(kept[share])
    assert set(kept[0.25]) <= set(kept[0.5]) and 0 < len(kept[0.25]) < len(kept[0.5]) < len(moves)
    with pytest.raises(ConfigError, match="filter.sample"):
        load(None, ["filter.sample=0"])


@pytest.mark.parametrize("engine", ["fast", "reference", "dask"])
def test_the_handicap_filter_chooses_even_or_handicap_games(tmp_path, engine):
    """filter.handicap (with include_handicap): even games, handicap games,
    or games of chosen numbers of stones, each left out counted by its
    reason, the same on every engine; a compare side chooses as a filtered
    mine does."""
    from joseki_miner.book.compare import side_games
    from joseki_miner.runs.inputs import Filters

    folder = tmp_path / "games"
    folder.mkdir()
    stones = {
        "even.sgf": "",
        "h2.sgf": "HA[2]AB[pd][dp]",
        "h3.sgf": "HA[3]AB[pd][dp][pp]",
        "h4.sgf": "HA[4]AB[pd][dp][pp][dd]",
    }
    for k, (name, setup) in enumerate(stones.items()):
        (folder / name).write_text(f"(;GM[1]SZ[19]{setup};W[r{'cdef'[k]}];B[jj];W[cq];B[dq])", encoding="utf-8")
    cases = {
        "even": ({"even.sgf"}, {"handicap game": 3}),
        "handicap": ({"h2.sgf", "h3.sgf", "h4.sgf"}, {"even game": 1}),
        "[0, 3]": ({"even.sgf", "h3.sgf"}, {"handicap not 0, 3": 2}),
    }
    everything = Catalog(work=tmp_path / "all" / "interim", out=tmp_path / "all")
    run_stages(
        everything,
        load(None, ["include_handicap=true", "prune.min_count=1"]),
        STAGES,
        [folder],
        Request(progress=False, engine=engine),
    )
    for n, (setting, (kept, reasons)) in enumerate(cases.items()):
        config = load(None, [f"filter.handicap={setting}", "include_handicap=true", "prune.min_count=1"])
        catalog = Catalog(work=tmp_path / f"o{n}" / "interim", out=tmp_path / f"o{n}")
        summary = run_stages(catalog, config, STAGES, [folder], Request(progress=False, engine=engine))
        assert summary["games_filtered"] == reasons, setting
        assert summary["games_read"] == summary["games_accepted"] + summary["games_filtered_total"] == 4
        assert {Path(s).name for s in pq.read_table(catalog.games, columns=["source"]).column(0).to_pylist()} == kept
        side = side_games(everything.games, Filters.of(config))[0]
        assert int(side.sum()) == len(kept)
    with pytest.raises(ConfigError, match="filter.handicap"):
        load(None, ["filter.handicap=12"])
    with pytest.raises(ConfigError, match="filter.handicap"):
        load(None, ["filter.handicap=odd"])


def test_the_new_filters_key_ingest_only_when_set():
    """Unset, the filters of players, ranks and events leave the ingest
    key as it was before they existed (a folder mined then stays up to
    date); set, each changes it."""
    from joseki_miner.runs.keys import key, stage_keys
    from joseki_miner.runs.settings import IngestSettings

    config = load(None, [])
    always = ("include_handicap", "dedupe", "limits.member_mb", "limits.field_kb", "collections.depth", "filter.years")
    always += ("filter.sources", "filter.result_known")
    ingest = key("ingest", "inputs", config.section(*always), IngestSettings.FORMAT)
    assert stage_keys(config, "inputs")["ingest"] == ingest
    keys = {
        stage_keys(load(None, [s]), "inputs")["ingest"]
        for s in (
            "filter.players=[a]",
            "filter.min_rank=1d",
            "filter.events=[b]",
            "filter.players=[b]",
            "filter.handicap=even",
        )
    }
    assert len(keys) == 5 and stage_keys(config, "inputs")["ingest"] not in keys


def test_a_tree_too_large_to_draw_in_seconds_gets_its_dot_and_says_why_it_has_no_svg(demo_games, tmp_path, monkeypatch):
    """Graphviz takes minutes for a tree of thousands of nodes: past
    files.SVG_NODES the DOT files are written, no SVG is drawn, and the run
    says why (summary.json and the summary's line); a tree within it is
    drawn where Graphviz is."""
    from helpers import mine_into
    from joseki_miner.book import files
    from pipeline.cli import _print_summary

    monkeypatch.setattr(files, "SVG_NODES", 10)
    catalog = mine_into([demo_games], tmp_path / "large")
    summary = json.loads(catalog.summary.read_text())
    assert summary["nodes_after_prune"] > 10 and "Graphviz draws at most 10 in seconds" in summary["svg_skipped"]
    assert catalog.dot.is_file() and catalog.influence_dot.is_file()
    assert not catalog.svg.exists() and not catalog.influence_svg.exists()
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        _print_summary(summary, catalog)
    assert "no SVG drawn: the tree has" in out.getvalue()
    monkeypatch.setattr(files, "SVG_NODES", 10_000)
    small = mine_into([demo_games], tmp_path / "small")
    assert "svg_skipped" not in json.loads(small.summary.read_text())
    if shutil.which("dot"):
        assert small.svg.is_file() and small.influence_svg.is_file()


def test_the_demos_handicap_game_opens_its_corners_alike_on_every_engine(demo_games, tmp_path):
    """With include_handicap, the demo's handicap game is mined: each
    handicap stone opens its corner's sequence at move 0, White's 3-3
    invasion its second entry; joseki.parquet counts each node's sequences
    a handicap stone opened, the book shows the handicap joseki apart and
    the SGF's comments say it; every engine writes the same bytes.
    Without include_handicap.starts the stones open nothing and the tree
    has no handicap column, as before the rule."""
    sets = ["include_handicap=true", "prune.min_count=1", "prune.min_games=1"]
    outs = {}
    for engine in ("fast", "reference", "dask"):
        catalog = Catalog(work=tmp_path / engine / "interim", out=tmp_path / engine)
        run_stages(catalog, load(None, sets), STAGES, [demo_games], Request(progress=False, engine=engine))
        outs[engine] = catalog
    fast = outs["fast"]
    for engine in ("reference", "dask"):
        for name in ("joseki.parquet", "joseki.sgf", "node_examples.parquet", "report/index.html"):
            assert (outs[engine].out / name).read_bytes() == (fast.out / name).read_bytes(), (engine, name)
    games = pq.read_table(fast.games, columns=["game", "source"]).to_pylist()
    game = next(g["game"] for g in games if g["source"].endswith("bad-handicap.sgf"))
    sequences = pq.read_table(fast.sequences).to_pylist()
    mine = [s for s in sequences if s["game"] == game]
    invasion = "ddccdccddebecfbfcg"  # the 4-4 stone, the 3-3 invasion and its joseki, in the tree's form
    assert [(s["start"], s["moves"]) for s in mine] == [(0, invasion), (0, "ddfcdfcc")]
    joseki = pq.read_table(fast.out / "joseki.parquet").to_pylist()
    by_path, node_of = {}, {}
    for row in joseki:
        path = (*by_path.get(row["parent"], ()), row["move"]) if row["parent"] >= 0 else ()
        by_path[row["node"]] = path
        node_of[path] = row
    line = node_of[tuple(invasion[i : i + 2] for i in range(0, len(invasion), 2))]
    assert line["handicap"] == 1 and line["count"] >= 1
    assert node_of[()]["handicap"] == 2  # the two stones; no other game of the demo has one
    sgf = (fast.out / "joseki.sgf").read_text()
    assert "from a handicap stone 100%" in sgf
    index = (fast.out / "report" / "index.html").read_text()
    assert "Handicap joseki" in index

    catalog = Catalog(work=tmp_path / "setup" / "interim", out=tmp_path / "setup")
    run_stages(
        catalog, load(None, [*sets, "include_handicap.starts=false"]), STAGES, [demo_games], Request(progress=False)
    )
    assert "handicap" not in pq.read_schema(catalog.out / "joseki.parquet").names
    assert 0 not in pq.read_table(catalog.sequences, columns=["start"]).column(0).to_pylist()
    assert "Handicap joseki" not in (catalog.out / "report" / "index.html").read_text()
