"""Readers: game collections on disk -> ``GameRecord`` or ``Reject``, every
game met as exactly one of the two (``dispatch`` tells the formats apart
and walks folders and archives; ``sgf``, ``kifu``, ``ishi`` read one
format each; ``bulk`` reads them in flat batches for the compiled engine;
``archives``, ``tarwalk``, ``encoding``, ``digest`` serve them; ``demo``
plants the built-in collection)."""

from joseki_miner.method.records import GameRecord, Reject
from joseki_miner.readers.dispatch import (
    HEAD,
    KEPT_BYTES,
    MEMBER_BYTES,
    Reader,
    existing_files,
    index_scope,
    iter_files,
    read_bytes,
    read_paths,
    shown,
    sniff,
)
from joseki_miner.readers.kifu import IndexStore
from joseki_miner.readers.sgf import FIELD_BYTES
from joseki_miner.runs.files import Found, Walked, walk, walked
