"""The compiled per-game kernel: replay, phase 1, influence and normal form
for a batch of games on flat integer arrays (numba).

It computes exactly what ``sequences.extract`` computes (the reference path:
``board``, ``sequences``, ``influence``, ``symmetry``), only faster; a test
compares the two on thousands of real games.  Differences of technique:
influence beams read per-row and per-column occupancy bit masks instead of
walking the board; each sequence keeps bit masks of the points within the
two distances of its stones instead of measuring to every stone; chains
are kept incrementally with pseudo-liberty counts instead of flood fills,
on a grid padded with a border, so neighbours need no bounds tests.

Input, a batch of games: ``colours`` (int8, BLACK -1 / WHITE +1) and
``points`` (int16, PASS -1) of every move, ``move_offsets`` (int64, one more
than games) saying where each game's moves start; setup stones likewise in
``setup_colours``/``setup_points``/``setup_offsets``.  Games with setup
stones after the root are left to the reference path.

Output, the normalized sequences of all games in order: per sequence its
game (index in the batch), transform, colour swap and key offset; per key
the key (point or TENUKI), 4 influence scores (up, right, down, left), its
move number (at most ``NUMBER_MAX``) and whether it was played near
another sequence (``sequences`` says both).

Knows points, colours and the method's rules; nothing of files or tries.
"""

from __future__ import annotations

import os

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from joseki_miner.method.points import SIZE, TENUKI
from joseki_miner.method.symmetry import DIRECTION_MAP, POINT_MAP

__all__ = ["extract_batch", "validate_and_extract", "validate_batch", "symmetric_fingerprints", "TENUKI", "NUMBER_MAX"]

NUMBER_MAX = 32767  # an entry's move number is kept as an int16: a later one is stored as this

_POINT_MAP = np.array(POINT_MAP, dtype=np.int16)  # [t, p], p in 0..361
_DIRECTION_MAP = np.array(DIRECTION_MAP, dtype=np.int8)  # [t, d]
# _SPANS[c, w]: the bits of columns c - w .. c + w on a row, clipped to the board
_SPANS = np.zeros((SIZE, SIZE), dtype=np.int64)
for _c in range(SIZE):
    for _w in range(SIZE):
        for _x in range(max(0, _c - _w), min(SIZE - 1, _c + _w) + 1):
            _SPANS[_c, _w] |= 1 << _x


@intrinsic
def _leading_zeros(typingctx, x):
    """LLVM's ctlz on an int64 (64 for 0): one instruction instead of a
    megabyte of lookup tables passed to every call."""

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@intrinsic
def _trailing_zeros(typingctx, x):
    """LLVM's cttz on an int64 (64 for 0)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


# A board is one int64 array ``st`` of shape (ROWS, CELLS), one row per
# field below, and ``masks`` (4, 19): occupancy bits of black rows, white
# rows, black columns, white columns.  The grid is padded: point p (row r,
# column c) is cell (r + 1) * W + c + 1 of a W x W grid whose border holds
# OFF, so a cell's neighbours are at -W, +1, +W and -1, with no table and
# no bounds to test.  Few array arguments matter: numba counts references
# to every array passed to a function, on every call.  The helpers that
# allocate nothing are compiled without reference counting (``_nrt=False``):
# the board's calls, a few per move, then cost no atomic counts (a tenth
# of the kernel's time).
# colour (OFF on the border); chain head; next stone of the chain (circular); pseudo-liberties and stones (at
# the head); scratch
BOARD, CHAIN, NXT, PLIB, STONES, STACK = range(6)
ROWS = 6
W = SIZE + 2
CELLS = W * W
OFF = 2
STEPS = (-W, 1, W, -1)  # to the four neighbours of a cell


@njit(cache=True, inline="always")
def _cell(p):
    """The cell of point p."""
    return p + W + 1 + 2 * (p // SIZE)


@njit(cache=True, inline="always")
def _u(i):
    """Index i, known to be 0 or more, as an unsigned index: numba tests a
    signed index for a negative value (Python's a[-1]) on every access; the
    board's, the beams' and the distance masks' accesses paid a seventh of
    the kernel's time for it."""
    return np.uint64(i)


@njit(cache=True, _nrt=False)
def _set(st, masks, cell, v):
    """Put v (BLACK, WHITE or EMPTY) on a cell, keeping the bit masks in step."""
    old = st[BOARD, _u(cell)]
    r = cell // W - 1
    c = cell % W - 1
    if old != 0:
        k = 0 if old < 0 else 1
        masks[_u(k), _u(r)] &= ~(1 << c)
        masks[_u(2 + k), _u(c)] &= ~(1 << r)
    st[BOARD, _u(cell)] = v
    if v != 0:
        k = 0 if v < 0 else 1
        masks[_u(k), _u(r)] |= 1 << c
        masks[_u(2 + k), _u(c)] |= 1 << r


@njit(cache=True, _nrt=False)
def _remove_chain(st, masks, head):
    """Take a chain off the board; its neighbours' chains gain the liberties."""
    p = head
    while True:  # clear first, so the chain's own stones gain nothing
        _set(st, masks, p, 0)
        st[CHAIN, _u(p)] = -1
        p = st[NXT, _u(p)]
        if p == head:
            break
    while True:
        for step in STEPS:
            v = st[BOARD, _u(p + step)]
            if v != 0 and v != OFF:
                st[PLIB, _u(st[CHAIN, _u(p + step)])] += 1
        p = st[NXT, _u(p)]
        if p == head:
            break


@njit(cache=True, _nrt=False)
def _merge(st, a, b):
    """Join chain b into chain a (the larger keeps its head); return the head."""
    if st[STONES, _u(a)] < st[STONES, _u(b)]:
        a, b = b, a
    p = b
    while True:
        st[CHAIN, _u(p)] = a
        p = st[NXT, _u(p)]
        if p == b:
            break
    na = st[NXT, _u(a)]  # splice the two circular lists
    st[NXT, _u(a)] = st[NXT, _u(b)]
    st[NXT, _u(b)] = na
    st[PLIB, _u(a)] += st[PLIB, _u(b)]
    st[STONES, _u(a)] += st[STONES, _u(b)]
    return a


@njit(cache=True, _nrt=False)
def _play(st, masks, colour, cell):
    """SGF FF[5] on an empty cell: place, capture adjacent opponent chains
    without liberties, then the mover's chain if it has none (suicide).
    Chains keep pseudo-liberties: one per (stone, empty neighbour) pair, so
    a chain has no liberty exactly when its count is 0."""
    _set(st, masks, cell, colour)
    here = _u(cell)
    st[CHAIN, here] = cell
    st[NXT, here] = cell
    st[STONES, here] = 1
    st[PLIB, here] = 0
    for step in STEPS:
        q = _u(cell + step)
        v = st[BOARD, q]
        if v == 0:
            st[PLIB, here] += 1
        elif v != OFF:
            st[PLIB, _u(st[CHAIN, q])] -= 1
    head = cell
    for step in STEPS:
        q = _u(cell + step)
        if st[BOARD, q] == colour and st[CHAIN, q] != head:
            head = _merge(st, head, st[CHAIN, q])
    captured = False
    for step in STEPS:
        q = _u(cell + step)
        if st[BOARD, q] == -colour and st[PLIB, _u(st[CHAIN, q])] == 0:
            _remove_chain(st, masks, st[CHAIN, q])
            captured = True
    if not captured and st[PLIB, _u(head)] == 0:
        _remove_chain(st, masks, head)


@njit(cache=True, _nrt=False)
def _build_chains(st):
    """Chains and pseudo-liberties of a position set up from scratch."""
    st[CHAIN, :] = -1
    for start in range(CELLS):
        colour = st[BOARD, start]
        if colour == 0 or colour == OFF or st[CHAIN, start] >= 0:
            continue
        st[CHAIN, start] = start
        st[NXT, start] = start
        st[STONES, start] = 1
        st[PLIB, start] = 0
        st[STACK, 0] = start
        top = 1
        while top > 0:
            top -= 1
            p = st[STACK, top]
            for step in STEPS:
                q = p + step
                if st[BOARD, q] == 0:
                    st[PLIB, start] += 1
                elif st[BOARD, q] == colour and st[CHAIN, q] < 0:
                    st[CHAIN, q] = start
                    st[NXT, q] = st[NXT, start]
                    st[NXT, start] = q
                    st[STONES, start] += 1
                    st[STACK, top] = q
                    top += 1


@njit(cache=True, inline="always")
def _count_corners(in_corner, p):
    """Count a stone in every corner whose quarter holds it (central lines
    shared), as sequences.corners_of."""
    r = p // 19
    c = p % 19
    for ri in range(2):
        if (ri == 0 and r > 9) or (ri == 1 and r < 9):
            continue
        for ci in range(2):
            if (ci == 0 and c > 9) or (ci == 1 and c < 9):
                continue
            in_corner[2 * ri + ci] += 1


@njit(cache=True, _nrt=False)
def _set_up(st, masks, setup_colours, setup_points, lo, hi):
    """A game's starting position: an empty board within its border, its
    setup stones setup_*[lo:hi] (black first, then white; they never
    capture) and their chains."""
    st[BOARD, :] = 0
    for i in range(W):
        st[BOARD, i] = OFF
        st[BOARD, CELLS - W + i] = OFF
        st[BOARD, i * W] = OFF
        st[BOARD, i * W + W - 1] = OFF
    masks[:, :] = 0
    for i in range(lo, hi):
        _set(st, masks, _cell(setup_points[i]), setup_colours[i])
    if hi > lo:
        _build_chains(st)


@njit(cache=True, inline="always")
def _mix(a, b, v):
    """One step of the two 64-bit hashes (FNV-1a style and an LCG) of a
    game's fingerprint."""
    a = (a ^ v) * np.uint64(1099511628211)
    b = (b + v) * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    return a, b


@njit(cache=True, inline="always")
def _beam_pair(masks, k, lo, hi, near, far, reach):
    """The beams out of both sides of a box along lines lo..hi: rows (k 0,
    beams left and right) or columns (k 2, beams up and down); the box
    spans near..far across them.  Returns (toward 0, toward 18)."""
    before = (1 << near) - 1
    after = ~((1 << (far + 1)) - 1) & 0x7FFFF
    toward_0 = 0
    toward_18 = 0
    for line in range(lo, hi + 1):
        b = masks[_u(k), _u(line)]
        o = b | masks[_u(k + 1), _u(line)]
        m = o & before
        if m:
            x = 63 - _leading_zeros(m)
            d = near - x
            if d < reach:
                toward_0 += (reach - d) * (-1 if (b >> x) & 1 else 1)
        m = o & after
        if m:
            x = _trailing_zeros(m)
            d = x - far
            if d < reach:
                toward_18 += (reach - d) * (-1 if (b >> x) & 1 else 1)
    return toward_0, toward_18


@njit(cache=True, inline="always")
def _beams(masks, rmin, rmax, cmin, cmax, reach, out):
    """Influence (up, right, down, left) around a box, as influence.beam_scores."""
    up, down = _beam_pair(masks, 2, max(0, cmin - 1), min(18, cmax + 1), rmin, rmax, reach)
    left, right = _beam_pair(masks, 0, max(0, rmin - 1), min(18, rmax + 1), cmin, cmax, reach)
    out[0] = up
    out[1] = right
    out[2] = down
    out[3] = left


@njit(cache=True, inline="always")
def _widen(within, s, k, r, c, d, spans):
    """Add the diamond of Manhattan radius d around (r, c) to within[s, k]."""
    for row in range(max(0, r - d), min(18, r + d) + 1):
        within[_u(s), _u(k), _u(row)] |= spans[_u(c), _u(min(18, d - abs(row - r)))]


@njit(cache=True, _nrt=False)
def _clear_distance(masks, seq_keys, seq_len, seq_stones, s, r, c, within):
    """Noise recognition (5.2), as sequences.Sequence.clear_distance: the
    distance from (r, c) to the nearest stone of sequence s, at most
    ``within``, with no stone in the way (on the rectangle the two span
    but on a point s has played); ``within + 1`` when there is none."""
    best = within + 1
    for i in range(seq_len[s]):
        q = seq_keys[s, i]
        if q == 361:
            continue
        rq = q // 19
        cq = q % 19
        d = abs(r - rq) + abs(c - cq)
        if d >= best:
            continue
        lo = min(c, cq)
        hi = max(c, cq)
        span = ((np.int64(1) << (hi + 1)) - 1) & ~((np.int64(1) << lo) - 1)
        clear = True
        for row in range(min(r, rq), max(r, rq) + 1):
            if (masks[_u(0), _u(row)] | masks[_u(1), _u(row)]) & ~seq_stones[_u(s), _u(row)] & span:
                clear = False
                break
        if clear:
            best = d
    return best


@njit(cache=True, _nrt=False)
def _axis_half(r1, c1, r2, c2, r, c):
    """Is (r, c) on the canonical side of the axis mapping (r1,c1) to (r2,c2)?"""
    if r1 == r2:
        return c <= 9  # vertical central line: left half
    if c1 == c2:
        return r <= 9  # horizontal central line: top half
    if r2 == c1 and c2 == r1:
        return r <= c  # main diagonal: above-right
    return r + c <= 18  # anti-diagonal


@njit(cache=True, _nrt=False)
def _normal_transform(seq_keys, seq_scores, s, n, swap, point_map, direction_map, cand):
    """The transform of section 5.1 for sequence s (see symmetry.normalize);
    ``cand``: 8 booleans of scratch."""
    for t in range(8):
        cand[t] = True
    ncand = 8
    for i in range(n):
        p = seq_keys[s, i]
        if p == 361:
            continue
        # distinct images among the candidates
        first = -1
        distinct = False
        for t in range(8):
            if cand[t]:
                q = point_map[t, p]
                if first < 0:
                    first = q
                elif q != first:
                    distinct = True
        if not distinct:
            continue
        best = -1
        if ncand == 8:
            for t in range(8):
                q = point_map[t, p]
                r = q // 19
                c = q % 19
                if r <= c and c <= 9:
                    best = q
                    break
        else:
            q1 = -1
            q2 = -1
            for t in range(8):
                if cand[t]:
                    q = point_map[t, p]
                    if q1 < 0:
                        q1 = q
                    elif q != q1:
                        q2 = q
            r1, c1, r2, c2 = q1 // 19, q1 % 19, q2 // 19, q2 % 19
            if _axis_half(r1, c1, r2, c2, r1, c1):
                best = q1
            else:
                best = q2
        ncand = 0
        for t in range(8):
            if cand[t]:
                if point_map[t, p] == best:
                    ncand += 1
                else:
                    cand[t] = False
        if ncand == 1:
            break
    # ties: the smallest transformed influence, then the smallest transform
    chosen = -1
    sign = -1 if swap else 1
    for t in range(8):
        if not cand[t]:
            continue
        if chosen < 0:
            chosen = t
            continue
        # compare transformed scores of t against chosen, lexicographically
        verdict = 0
        for i in range(n):
            for d_new in range(4):
                a = 0
                b = 0
                for d in range(4):
                    if direction_map[t, d] == d_new:
                        a = sign * seq_scores[s, i, d]
                    if direction_map[chosen, d] == d_new:
                        b = sign * seq_scores[s, i, d]
                if a != b:
                    verdict = -1 if a < b else 1
                    break
            if verdict != 0:
                break
        if verdict < 0:
            chosen = t
    return chosen


@njit(cache=True, _nrt=False)
def _last_repeat(points, lo, hi, setup_points, slo, shi, seen):
    """The last of moves lo..hi-1 on a point that held a stone before it
    (set up or played earlier), or lo - 1.  Past it every move is on a point
    never used, so empty: validation's replay can stop there."""
    seen[:] = False
    for i in range(slo, shi):
        seen[setup_points[i]] = True
    last = lo - 1
    for m in range(lo, hi):
        p = points[m]
        if p >= 0:
            if seen[p]:
                last = m
            seen[p] = True
    return last


@njit(cache=True, _nrt=False)
def _first_occupied(st, masks, colours, points, start, hi):
    """Play moves start..hi-1 on the board; the index of the first one on an
    occupied point (-1 if none; the board is left there)."""
    for m in range(start, hi):
        p = points[m]
        if p < 0:
            continue
        cell = _cell(p)
        if st[BOARD, cell] != 0:
            return m
        _play(st, masks, colours[m], cell)
    return -1


# a game's fingerprint: the two hashes' seeds, and the value mixed in between its setup stones and its moves
_SEED_A, _SEED_B, _SETUP_END = 1469598103934665603, 7809847782465536322, 99991


@njit(cache=True, _nrt=False)
def _fingerprint(colours, points, lo, hi, setup_colours, setup_points, slo, shi):
    """The moves that are not passes, and a 128-bit fingerprint of setup
    stones and moves (two 64-bit hashes) of one game."""
    a = np.uint64(_SEED_A)
    b = np.uint64(_SEED_B)
    for i in range(slo, shi):
        a, b = _mix(a, b, np.uint64(setup_points[i] + 1000 * (setup_colours[i] + 2)))
    a, b = _mix(a, b, np.uint64(_SETUP_END))
    played = 0
    for m in range(lo, hi):
        a, b = _mix(a, b, np.uint64(points[m] + 1 + 1000 * (colours[m] + 2)))
        if points[m] >= 0:
            played += 1
    return played, a, b


@njit(cache=True, nogil=True)
def _extract_batch(
    colours,
    points,
    move_offsets,
    setup_colours,
    setup_points,
    setup_offsets,
    certain,
    maybe,
    corner_stones,
    max_length,
    reach,
    start_lines,
    noise,
    point_map,
    direction_map,
    spans,
    todo,
    opens,
    validate,
    first_game,
    out_game,
    out_transform,
    out_swap,
    out_start,
    out_offsets,
    out_keys,
    out_scores,
    out_numbers,
    out_near,
    n_out,
    n_keys,
    occupied,
    played,
    h1,
    h2,
):
    """Games from ``first_game`` on (those with ``todo`` set), into the given
    output arrays.  Returns (next game, sequences, keys): when the outputs
    are full it stops before a game and the caller grows them and calls
    again (arrays are never reallocated in here: that would slow every
    access in the loop).  With ``validate`` it also fills occupied, played,
    h1 and h2 as ``_validate_batch`` does, replaying each game on from where
    phase 1 stopped: one replay serves both."""
    n_games = len(move_offsets) - 1

    st = np.zeros((ROWS, CELLS), dtype=np.int64)
    masks = np.zeros((4, 19), dtype=np.int64)
    seen = np.zeros(361, dtype=np.bool_)
    beam = np.zeros(4, dtype=np.int64)
    in_corner = np.zeros(4, dtype=np.int64)
    cand = np.zeros(8, dtype=np.bool_)
    max_moves = 1
    for g in range(n_games):
        max_moves = max(max_moves, move_offsets[g + 1] - move_offsets[g] + setup_offsets[g + 1] - setup_offsets[g] + 1)
    # a game starts at most one sequence a move or handicap stone, and at
    # most 361: a sequence starts at a point no sequence has within distance
    # a, and its first stone keeps that point within a of it for the rest of
    # the game; so the rows a game's sequences need do not grow with its
    # moves (a kifu line of 100 million passes asked for 40 GB here, and the
    # run died of a MemoryError)
    max_moves = min(max_moves, 362)
    seq_len = np.zeros(max_moves, dtype=np.int64)
    seq_start = np.zeros(max_moves, dtype=np.int64)
    seq_keys = np.empty((max_moves, max_length), dtype=np.int16)
    seq_cols = np.empty((max_moves, max_length), dtype=np.int8)
    seq_scores = np.empty((max_moves, max_length, 4), dtype=np.int16)
    seq_numbers = np.empty((max_moves, max_length), dtype=np.int16)  # each entry's move number, capped
    seq_near = np.empty((max_moves, max_length), dtype=np.uint8)  # 1: played within b of two or more sequences
    # per sequence, row bit masks of the points within certain (0) and
    # maybe (1) of its stones: a move's distance test is one bit
    seq_within = np.empty((max_moves, 2, 19), dtype=np.int64)
    seq_box = np.empty((max_moves, 4), dtype=np.int64)
    seq_stones = np.zeros((max_moves, 19), dtype=np.int64)  # row bit masks of the points a sequence played (noise)
    near_b = np.empty(max_moves, dtype=np.int64)
    joining = np.empty(max_moves, dtype=np.int64)

    for g in range(first_game, n_games):
        if not todo[g]:
            continue
        lo = move_offsets[g]
        hi = move_offsets[g + 1]
        _set_up(st, masks, setup_colours, setup_points, setup_offsets[g], setup_offsets[g + 1])
        for i in range(4):
            in_corner[i] = 0
        for i in range(setup_offsets[g], setup_offsets[g + 1]):
            _count_corners(in_corner, setup_points[i])
        nseq = 0
        stop = hi  # the first move phase 1 did not play
        # a handicap game's black setup stones (listed first) open its sequences before move 1, each its own
        nh = 0
        if opens[g]:
            for i in range(setup_offsets[g], setup_offsets[g + 1]):
                if setup_colours[i] < 0:
                    nh += 1
        for m in range(lo - nh, hi):
            stone = m < lo  # a handicap stone, on the board already
            if stone:
                p = setup_points[setup_offsets[g] + nh + m - lo]
                colour = -1
            else:
                p = points[m]
                if p < 0:
                    continue
                colour = colours[m]
            cell = _cell(p)
            if not stone and st[BOARD, cell] != 0:  # not a valid game: validation rejects it
                stop = m
                break
            number = 0 if stone else min(m - lo + 1, NUMBER_MAX)
            r = p // 19
            c = p % 19
            nb = 0
            near_a = False
            bit = np.int64(1) << c
            for s in range(0 if stone else nseq):  # a handicap stone joins no sequence: it opens its own
                if seq_within[s, 1, r] & bit:
                    if noise:  # within b as the crow flies: is a stone of s within reach with nothing in the way?
                        d = _clear_distance(masks, seq_keys, seq_len, seq_stones, s, r, c, maybe)
                        if d > maybe:
                            continue
                        if d <= certain:
                            near_a = True
                    elif certain == maybe or seq_within[s, 0, r] & bit:
                        near_a = True
                    near_b[nb] = s
                    nb += 1
            nj = 0
            near = 1 if nb >= 2 else 0
            for j in range(nb):
                s = near_b[j]
                tenuki = seq_cols[s, seq_len[s] - 1] == colour
                need = 2 if tenuki else 1
                if seq_len[s] + need <= max_length:
                    joining[nj] = s
                    nj += 1
                    if tenuki:
                        k = seq_len[s]
                        seq_keys[s, k] = 361
                        seq_cols[s, k] = -colour
                        seq_numbers[s, k] = number
                        seq_near[s, k] = 0
                        _beams(masks, seq_box[s, 0], seq_box[s, 1], seq_box[s, 2], seq_box[s, 3], reach, beam)
                        for d in range(4):
                            seq_scores[s, k, d] = beam[d]
                        seq_len[s] = k + 1
            if not stone:
                _play(st, masks, colour, cell)
            starts = (not near_a) and nb <= 1 and max(min(r, 18 - r), min(c, 18 - c)) < start_lines
            if starts:
                s = nseq
                nseq += 1
                seq_len[s] = 0
                seq_start[s] = 0 if stone else m - lo + 1
                for k in range(2):
                    for row in range(SIZE):
                        seq_within[s, k, row] = 0
                if noise:
                    for row in range(SIZE):
                        seq_stones[s, row] = 0
                seq_box[s, 0] = 19
                seq_box[s, 1] = -1
                seq_box[s, 2] = 19
                seq_box[s, 3] = -1
                joining[nj] = s
                nj += 1
            for j in range(nj):
                s = joining[j]
                k = seq_len[s]
                seq_keys[s, k] = p
                seq_cols[s, k] = colour
                seq_numbers[s, k] = number
                seq_near[s, k] = near
                if noise:
                    seq_stones[s, r] |= np.int64(1) << c
                _widen(seq_within, s, 1, r, c, maybe, spans)
                if certain < maybe:
                    _widen(seq_within, s, 0, r, c, certain, spans)
                seq_box[s, 0] = min(seq_box[s, 0], r)
                seq_box[s, 1] = max(seq_box[s, 1], r)
                seq_box[s, 2] = min(seq_box[s, 2], c)
                seq_box[s, 3] = max(seq_box[s, 3], c)
                _beams(masks, seq_box[s, 0], seq_box[s, 1], seq_box[s, 2], seq_box[s, 3], reach, beam)
                for d in range(4):
                    seq_scores[s, k, d] = beam[d]
                seq_len[s] = k + 1
            if stone:
                continue
            _count_corners(in_corner, p)
            if min(in_corner[0], min(in_corner[1], min(in_corner[2], in_corner[3]))) >= corner_stones:
                stop = m + 1
                break
        if validate:
            last = _last_repeat(points, lo, hi, setup_points, setup_offsets[g], setup_offsets[g + 1], seen)
            first = _first_occupied(st, masks, colours, points, stop, last + 1)
            occupied[g] = first - lo if first >= 0 else -1
            played[g], h1[g], h2[g] = _fingerprint(
                colours, points, lo, hi, setup_colours, setup_points, setup_offsets[g], setup_offsets[g + 1]
            )
        # normal form of every sequence, in the order they were started
        need = 0
        for s in range(nseq):
            need += seq_len[s]
        if n_out + nseq >= len(out_game) or n_keys + need > len(out_keys):
            return g, n_out, n_keys
        for s in range(nseq):
            n = seq_len[s]
            swap = seq_cols[s, 0] > 0
            t = _normal_transform(seq_keys, seq_scores, s, n, swap, point_map, direction_map, cand)
            out_game[n_out] = g
            out_transform[n_out] = t
            out_swap[n_out] = swap
            out_start[n_out] = seq_start[s]
            sign = -1 if swap else 1
            for i in range(n):
                key = seq_keys[s, i]
                out_keys[n_keys + i] = point_map[t, key]
                out_numbers[n_keys + i] = seq_numbers[s, i]
                out_near[n_keys + i] = seq_near[s, i]
                for d in range(4):
                    out_scores[n_keys + i, direction_map[t, d]] = sign * seq_scores[s, i, d]
            n_keys += n
            n_out += 1
            out_offsets[n_out] = n_keys
    return n_games, n_out, n_keys


def _grown(a: np.ndarray, n: int) -> np.ndarray:
    b = np.empty((n,) + a.shape[1:], dtype=a.dtype)
    b[: len(a)] = a
    return b


def extract_batch(colours, points, move_offsets, setup_colours, setup_points, setup_offsets, params, handicap=None):
    """Phase 1 for a batch of games (see the module docstring; ``handicap``:
    each game's handicap stones, read where ``params.handicap``).  Returns a
    dict of arrays: game, transform, swapped, start (the move number where
    a sequence starts, 0 for a handicap stone), offsets, keys, scores,
    numbers, near."""
    batch = (colours, points, move_offsets, setup_colours, setup_points, setup_offsets)
    return _run(batch, params, np.ones(len(move_offsets) - 1, dtype=np.bool_), False, handicap)[0]


def validate_and_extract(batch: tuple, params, todo, handicap=None):
    """``validate_batch`` and ``extract_batch`` in one replay of ``batch``
    (their six arrays), for the games with ``todo`` set (the others get no
    sequences and zero figures).  Returns (occupied, played, h1, h2),
    sequences."""
    sequences, checks = _run(batch, params, np.ascontiguousarray(todo, dtype=np.bool_), True, handicap)
    return checks, sequences


def _opens(params, handicap, n_games: int) -> np.ndarray:
    """Which games' black setup stones open sequences: the handicap games,
    where ``params.handicap`` asks (the reference's ``handicap_stones``)."""
    if not getattr(params, "handicap", False) or handicap is None:
        return np.zeros(n_games, dtype=np.bool_)
    return np.ascontiguousarray(np.asarray(handicap) > 0, dtype=np.bool_)


def _games(colours, points, move_offsets, setup_colours, setup_points, setup_offsets) -> tuple:
    """A batch's arrays in the kernels' types (one compiled version each)."""
    return (
        np.ascontiguousarray(colours, dtype=np.int8),
        np.ascontiguousarray(points, dtype=np.int16),
        np.ascontiguousarray(move_offsets, dtype=np.int64),
        np.ascontiguousarray(setup_colours, dtype=np.int8),
        np.ascontiguousarray(setup_points, dtype=np.int16),
        np.ascontiguousarray(setup_offsets, dtype=np.int64),
    )


def _run(batch: tuple, params, todo, validate, handicap=None):
    n_games = len(batch[2]) - 1
    inputs = (
        *_games(*batch),
        params.certain,
        params.maybe,
        params.corner_stones,
        params.max_length,
        params.reach,
        params.start,
        bool(params.noise),
        _POINT_MAP,
        _DIRECTION_MAP,
        _SPANS,
        todo,
        _opens(params, handicap, n_games),
        validate,
    )
    n_checks = n_games if validate else 0
    checks = (
        np.full(n_checks, -1, np.int64),
        np.zeros(n_checks, np.int64),
        np.zeros(n_checks, np.uint64),
        np.zeros(n_checks, np.uint64),
    )
    cap = 8 * n_games + 16  # sequences; about 5 a game, of about 28 keys
    out = [
        np.empty(cap, np.int64),
        np.empty(cap, np.int8),
        np.empty(cap, np.bool_),
        np.empty(cap, np.int32),
        np.zeros(cap + 1, np.int64),
        np.empty(24 * cap, np.int16),
        np.empty((24 * cap, 4), np.int16),
        np.empty(24 * cap, np.int16),
        np.empty(24 * cap, np.uint8),
    ]
    g = n_out = n_keys = 0
    while True:
        g, n_out, n_keys = _extract_batch(*inputs, g, *out, n_out, n_keys, *checks)
        if g == n_games:
            break
        cap *= 2  # full: grow and go on from game g
        out = [
            _grown(out[0], cap),
            _grown(out[1], cap),
            _grown(out[2], cap),
            _grown(out[3], cap),
            _grown(out[4], cap + 1),
            *(_grown(a, 24 * cap) for a in out[5:]),
        ]
    game, transform, swapped, start, offsets, keys, scores, numbers, near = out
    sequences = {
        "game": game[:n_out],
        "transform": transform[:n_out],
        "swapped": swapped[:n_out],
        "start": start[:n_out],
        "offsets": offsets[: n_out + 1],
        "keys": keys[:n_keys],
        "scores": scores[:n_keys],
        "numbers": numbers[:n_keys],
        "near": near[:n_keys],
    }
    return sequences, checks


@njit(cache=True, nogil=True)
def _validate_batch(colours, points, move_offsets, setup_colours, setup_points, setup_offsets):
    """Per game: index of the first move on an occupied point (-1 if none),
    the number of moves that are not passes, and a 128-bit fingerprint of
    setup stones and moves (two 64-bit hashes)."""
    n_games = len(move_offsets) - 1
    occupied = np.full(n_games, -1, dtype=np.int64)
    played = np.zeros(n_games, dtype=np.int64)
    h1 = np.zeros(n_games, dtype=np.uint64)
    h2 = np.zeros(n_games, dtype=np.uint64)
    st = np.zeros((ROWS, CELLS), dtype=np.int64)
    masks = np.zeros((4, 19), dtype=np.int64)
    seen = np.zeros(361, dtype=np.bool_)
    for g in range(n_games):
        lo = move_offsets[g]
        hi = move_offsets[g + 1]
        _set_up(st, masks, setup_colours, setup_points, setup_offsets[g], setup_offsets[g + 1])
        last = _last_repeat(points, lo, hi, setup_points, setup_offsets[g], setup_offsets[g + 1], seen)
        first = _first_occupied(st, masks, colours, points, lo, last + 1)
        occupied[g] = first - lo if first >= 0 else -1
        played[g], h1[g], h2[g] = _fingerprint(
            colours, points, lo, hi, setup_colours, setup_points, setup_offsets[g], setup_offsets[g + 1]
        )
    return occupied, played, h1, h2


def validate_batch(colours, points, move_offsets, setup_colours, setup_points, setup_offsets):
    """See ``_validate_batch``."""
    return _validate_batch(*_games(colours, points, move_offsets, setup_colours, setup_points, setup_offsets))


@njit(cache=True, nogil=True)
def _symmetric_fingerprints(
    colours, points, move_offsets, setup_colours, setup_points, setup_offsets, games, point_map
):
    """Per game of ``games``: the least (h1, h2) of ``_fingerprint``'s hashes
    over its 16 images (8 symmetries, colours swapped or not), each colour's
    setup stones sorted: the same for a game however it was recorded."""
    n = len(games)
    h1 = np.zeros(n, dtype=np.uint64)
    h2 = np.zeros(n, dtype=np.uint64)
    stones = np.empty(361, dtype=np.int64)
    for i in range(n):
        g = games[i]
        lo, hi = move_offsets[g], move_offsets[g + 1]
        slo, shi = setup_offsets[g], setup_offsets[g + 1]
        found = False
        best_a = np.uint64(0)
        best_b = np.uint64(0)
        for t in range(8):
            for s in (1, -1):
                a = np.uint64(_SEED_A)
                b = np.uint64(_SEED_B)
                for colour in (-1, 1):  # the image's black stones, then its white ones, each sorted
                    k = 0
                    for j in range(slo, shi):
                        if setup_colours[j] * s == colour and k < 361:
                            stones[k] = point_map[t, setup_points[j]]
                            k += 1
                    for q in np.sort(stones[:k]):
                        a, b = _mix(a, b, np.uint64(q + 1000 * (colour + 2)))
                a, b = _mix(a, b, np.uint64(_SETUP_END))
                for m in range(lo, hi):
                    q = point_map[t, points[m]] if points[m] >= 0 else -1
                    a, b = _mix(a, b, np.uint64(q + 1 + 1000 * (colours[m] * s + 2)))
                if not found or a < best_a or (a == best_a and b < best_b):
                    best_a, best_b, found = a, b, True
        h1[i], h2[i] = best_a, best_b
    return h1, h2


def symmetric_fingerprints(colours, points, move_offsets, setup_colours, setup_points, setup_offsets, games):
    """See ``_symmetric_fingerprints``."""
    return _symmetric_fingerprints(
        *_games(colours, points, move_offsets, setup_colours, setup_points, setup_offsets),
        np.ascontiguousarray(games, dtype=np.int64),
        _POINT_MAP,
    )


def compiled() -> bool:
    """Whether numba's cache holds the compiled replay (a first run on a
    machine compiles every kernel, about half a minute, and caches them on disk)."""
    try:
        index = _extract_batch._cache._cache_file._index_path  # numba's own: where its index would be
    except AttributeError:  # numba's internals moved: say nothing rather than something untrue
        return True
    return os.path.exists(index)
