"""Stage 3, build: sequences.parquet -> trie.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8)."""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from joseki_miner.influence import classify
from joseki_miner.points import TENUKI, from_sgf
from joseki_miner.trie import Trie

from .parquet import count_rows, iter_batches, write_frame


def decode_keys(text: str) -> list[int]:
    return [TENUKI if text[i : i + 2] == "--" else from_sgf(text[i : i + 2]) for i in range(0, len(text), 2)]


def run(sequences_path: Path, trie_path: Path, *, neutral: int, progress: bool = True) -> dict:
    trie = Trie()
    with tqdm(total=count_rows(sequences_path), desc="build", unit=" seqs", disable=not progress) as bar:
        for batch in iter_batches(sequences_path, ["moves", "scores"]):
            for moves, scores in zip(batch["moves"], batch["scores"]):
                classes = [classify(s, neutral) for s in scores]
                trie.insert(decode_keys(moves), [classes[i : i + 4] for i in range(0, len(classes), 4)])
                bar.update()
    table = trie.to_table()
    write_frame(table, trie_path)
    return {"nodes_before_prune": len(table)}
