"""Trends and comparisons that hold the collections apart (docs/method.md,
"Trends and comparisons within collections").

The games mined come from collections that cover different years (a
server's dump of 2011, the programs' games of 2017-2019): a line's share
of a year's games moves with the year's mix of collections as much as with
the players' taste.  Here, in pure functions of counts:

* ``year_collections`` and ``held_years``: the games of each year by
  collection, and the years whose games are mostly (``HELD``, 90%) one
  collection's: a trend's mark, the report's charts' and the explorer's;
* ``within_shares`` and ``within_peak``: a line's share of each year's
  games within collections (each collection's share that year, combined
  with each collection's weight fixed over the years: its share of all the
  games mined), and the year it was most popular so;
* ``stratified``: a move's change of share between two sides tested
  within collections (Cochran-Mantel-Haenszel, the Mantel-Haenszel
  difference with Sato's variance), and ``mix_warnings``: where the two
  sides' collections differ;
* ``node_cells``: each node's games by year and collection, counted from
  the sequences in trie order (the range of each node) and the games'.

Knows counts, years and collections' names; nothing of files or pages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

HELD = 0.9  # a year whose games are this much one collection's is marked as that collection's
FLOOR = 0.01  # a year, and a collection's year, of under this share of the games says little (words.YEAR_FLOOR)
MIX = 0.25  # the two sides' collection mixes differ "by a lot" from this distance on (half the sum of |differences|)

Cells = Mapping[int, Mapping[str, int]]  # year -> collection -> games


def year_collections(year: Sequence[int] | np.ndarray, collection: Sequence[str]) -> dict[int, dict[str, int]]:
    """The games of each known year (> 0) by collection: ``year`` and
    ``collection`` are each game's."""
    return coded_year_collections(year, *coded(collection))


def coded_year_collections(year: Sequence[int] | np.ndarray, code: np.ndarray, names: list[str]) -> Cells:
    """``year_collections`` of each game's collection as an index of ``names``."""
    whole = [(0, len(year))]
    return node_cells([whole], np.arange(len(year)), np.asarray(year, np.int64), code, names)[0]


def held_years(cells: Cells, held: float = HELD) -> dict[int, tuple[str, float]]:
    """The years whose games (``cells``, ``year_collections``) are at
    least ``held`` of one collection's: year -> (that collection, its
    share of the year's games)."""
    out = {}
    for y, by in sorted(cells.items()):
        total = sum(by.values())
        if not total:
            continue
        name, most = min(by.items(), key=lambda kv: (-kv[1], kv[0]))
        if most >= held * total:
            out[y] = (name, most / total)
    return out


def collection_totals(cells: Cells) -> dict[str, int]:
    """Each collection's games over every year of ``cells``."""
    out: dict[str, int] = {}
    for by in cells.values():
        for c, n in by.items():
            out[c] = out.get(c, 0) + n
    return out


def within_shares(node: Cells, mined: Cells, floor: float = FLOOR) -> dict[int, float]:
    """A line's share of each year's games within collections (direct
    standardization): with ``mined`` the games of each year by collection
    and ``node`` the line's,

        S_y = sum_c w_c p_cy     w_c = N_c / N,  p_cy = x_cy / N_cy,

    the weight of a collection fixed over the years (its share of all the
    games mined).  A collection's year counts where it holds at least
    ``floor`` of its collection's games; a year's cells that do not count
    (the collection played little or nothing that year) are filled by the
    collection's own share over all its years times the year's level,
    the mean of the counted collections' p_cy / p_c (weights w_c):
    one collection's shares are its raw shares.  Only the years of at
    least ``floor`` of all games, with a counted cell."""
    totals = collection_totals(mined)
    everything = sum(totals.values())
    if not everything:
        return {}
    mine = collection_totals(node)
    weight = {c: n / everything for c, n in totals.items()}
    level = {c: mine.get(c, 0) / n for c, n in totals.items() if n}  # p_c
    out = {}
    for y, by in sorted(mined.items()):
        if y <= 0 or sum(by.values()) < floor * everything:
            continue
        here = node.get(y, {})
        counted = {c: here.get(c, 0) / n for c, n in by.items() if n and n >= floor * totals[c]}
        if not counted:
            continue
        relative = [(weight[c], p / level[c]) for c, p in counted.items() if level.get(c)]
        year_level = sum(w * r for w, r in relative) / sum(w for w, _ in relative) if relative else 0.0
        out[y] = sum(weight[c] * p for c, p in counted.items()) + sum(
            weight[c] * level.get(c, 0.0) * year_level for c in totals if c not in counted
        )
    return out


def within_peak(node: Cells, mined: Cells, floor: float = FLOOR) -> int | None:
    """The year a line was most popular within collections: the highest
    ``within_shares`` (the later year among equals); None where no year
    stands above another (the empty corner: every game, every year)."""
    return peak_of(within_shares(node, mined, floor))


def peak_of(shares: Mapping[int, float]) -> int | None:
    """The year of the highest share (the later among equals); None where
    no year stands above another."""
    rounded = {y: round(s, 12) for y, s in shares.items()}  # sums in float: 1e-16 apart
    if len(set(rounded.values())) < 2:
        return None
    return max(rounded, key=lambda y: (rounded[y], y))


def coded(collection: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Each game's collection as an index of the names, sorted."""
    names = sorted(set(collection))
    index = {n: i for i, n in enumerate(names)}
    return np.array([index[c] for c in collection], np.int64), names


def one_collection(years: Mapping[int, int], name: str = "") -> dict[int, dict[str, int]]:
    """Games by year as the cells of one collection (a book without its
    nodes' cells: within one collection is the raw share)."""
    return {y: {name: n} for y, n in years.items()}


# -- two sides ------------------------------------------------------------------------


def stratified(xa: Sequence[int], na: Sequence[int], xb: Sequence[int], nb: Sequence[int]) -> dict:
    """A change of share from side a to side b (x of n on each, a stratum
    a collection) tested within the strata:

    * the Mantel-Haenszel difference  D = sum_k w_k (pb_k - pa_k) / sum_k w_k,
      w_k = na_k nb_k / N_k  (N_k = na_k + nb_k);
    * its variance (Sato 1989, right for many strata of few games as for
      few of many): Var = (D sum_k P_k + sum_k Q_k) / (sum_k w_k)^2,
      P_k = (nb_k^2 xa_k - na_k^2 xb_k + na_k nb_k (na_k - nb_k) / 2) / N_k^2,
      Q_k = (xb_k (na_k - xa_k) + xa_k (nb_k - xb_k)) / (2 N_k);
      the 95% interval D -+ 1.96 sqrt(Var);
    * the Cochran-Mantel-Haenszel test of no change in any stratum:
      z = sum_k (xb_k - E_k) / sqrt(sum_k V_k), E_k = nb_k m_k / N_k,
      V_k = na_k nb_k m_k (N_k - m_k) / (N_k^2 (N_k - 1)), m_k = xa_k + xb_k;
      p two-sided (z^2 is the CMH chi-square, 1 df, no continuity correction).

    A stratum with games on one side only says nothing of a change (its
    weight is 0): ``informative`` counts the others.  None of the figures
    where none is informative."""
    xa, na, xb, nb = (np.asarray(v, np.float64) for v in (xa, na, xb, nb))
    both = (na > 0) & (nb > 0)
    informative = int(both.sum())
    if not informative:
        return {"difference": None, "low": None, "high": None, "z": None, "p": None, "informative": 0}
    xa, na, xb, nb = xa[both], na[both], xb[both], nb[both]
    n = na + nb
    w = na * nb / n
    difference = float((w * (xb / nb - xa / na)).sum() / w.sum())
    p_ = (nb**2 * xa - na**2 * xb + na * nb * (na - nb) / 2) / n**2
    q_ = (xb * (na - xa) + xa * (nb - xb)) / (2 * n)
    variance = max(0.0, float((difference * p_.sum() + q_.sum()) / w.sum() ** 2))
    half = 1.959963984540054 * math.sqrt(variance)
    m = xa + xb
    many = n > 1
    v = (na * nb * m * (n - m) / (n**2 * np.where(many, n - 1, 1)))[many]
    spread = math.sqrt(float(v.sum()))
    z = float((xb - nb * m / n)[many].sum()) / spread if spread else 0.0
    return {
        "difference": difference,
        "low": difference - half,
        "high": difference + half,
        "z": z,
        "p": math.erfc(abs(z) / math.sqrt(2)),
        "informative": informative,
    }


def mix_warnings(a: Mapping[str, int], b: Mapping[str, int], names: Mapping[str, str] | None = None) -> list[str]:
    """What the two sides' games by collection (``a``, ``b``) warn of, in
    words: a collection on one side only (its games say nothing of a
    change, within collections), and mixes that differ by ``MIX`` or more
    (half the sum of the differences of the collections' shares)."""
    names = names or {}
    ta, tb = sum(a.values()), sum(b.values())
    out = []
    for side, here, there in (("first", a, b), ("second", b, a)):
        alone = sorted(c for c, n in here.items() if n and not there.get(c))
        if alone:
            shown = ", ".join(f"{names.get(c, c)} ({here[c]:,} games)" for c in alone)
            out.append(
                f"only the {side} side has games of {shown}: a collection on one side says nothing of a change "
                "within collections, and is left out of the test"
            )
    if ta and tb:
        distance = sum(abs(a.get(c, 0) / ta - b.get(c, 0) / tb) for c in set(a) | set(b)) / 2
        if distance >= MIX:
            out.append(
                f"the two sides' collections differ by {100 * distance:.0f}% of their games: a raw change of "
                "share would mix a change of collection with a change of play; the test holds the collections apart"
            )
    return out


# -- each node's cells ------------------------------------------------------------------


def node_cells(
    ranges: Sequence[Sequence[tuple[int, int]]], game: np.ndarray, year: np.ndarray, code: np.ndarray, names: list[str]
) -> list[dict[int, dict[str, int]]]:
    """Each node's games by year and collection: ``ranges`` a node's rows
    of the sequences in trie order (first, count; several where move
    orders are merged), ``game`` each row's game, and ``year`` and
    ``code`` (an index of ``names``) each game's; each game once a node.

    A game's rows in a node's range each write their place into the
    game's cell of one array: the rows whose place is read back are one a
    game (no sort, no set: a pass over each node's rows)."""
    game = np.asarray(game, np.int64)
    year, code = np.asarray(year, np.int64), np.asarray(code, np.int64)
    k = max(1, len(names))
    known = year > 0
    first = int(year[known].min()) if known.any() else 0
    cell = np.where(known, (year - first) * k + code, -1)  # each game's cell: (year, collection)
    cells_in = int(cell.max()) + 1 if len(cell) else 0
    written = np.full(len(year), -1, np.int64)
    place = 0
    out = []
    for parts in ranges:
        if len(parts) == 1:
            games = game[parts[0][0] : parts[0][0] + parts[0][1]]
        else:
            games = np.concatenate([game[lo : lo + c] for lo, c in parts]) if parts else np.zeros(0, np.int64)
        places = np.arange(place, place + len(games))
        written[games] = places
        once = games[written[games] == places]
        place += len(games)
        held = cell[once]
        counts = np.bincount(held[held >= 0], minlength=cells_in)
        cells: dict[int, dict[str, int]] = {}
        for at in np.flatnonzero(counts).tolist():
            cells.setdefault(first + at // k, {})[names[at % k]] = int(counts[at])
        out.append(cells)
    return out
