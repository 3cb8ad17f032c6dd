"""Compiled scanners for plain game records: the main line of SGF game trees
and one-game-per-line kifu dumps, straight from bytes to integer arrays;
and for the kifu dumps' index texts: their lines, ids and game information,
straight from UTF-8 bytes, as the Python reading (``kifu``) gives them.

They take only the common, plain shape of a record.  Anything unusual (long
FF[3] property names, setup stones after the root, compressed point lists,
AE, a move off a 19x19 board, broken brackets, identifiers that are not
one or two capitals...) marks the game ``UNUSUAL``
and the caller reads it with the full Python readers instead, so
correctness never depends on this fast path.

Knows bytes, SGF syntax and points; nothing of files, archives or the method.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from joseki_miner.method.records import GAME_INFO

OK, UNUSUAL = 0, 1

WHITESPACE = np.zeros(256, dtype=np.bool_)
for _c in b" \t\r\n\f\v":
    WHITESPACE[_c] = True


@njit(cache=True, inline="always")
def _point(data, a, b):
    """Point of a move value data[a:b]: -1 pass, -2 not plain."""
    n = b - a
    if n == 0:
        return -1
    if n != 2:
        return -2
    c = data[a] - 97
    r = data[a + 1] - 97
    if c == 19 and r == 19:
        return -1
    if c < 0 or c > 18 or r < 0 or r > 18:
        return -2
    return r * 19 + c


@njit(cache=True, inline="always")
def _number(data, a, b):
    v = 0
    seen = False
    for i in range(a, b):
        ch = data[i]
        if 48 <= ch <= 57:
            v = v * 10 + (ch - 48)
            seen = True
        elif ch == 32 or ch == 9:
            continue
        else:
            break
    return v if seen else -1


# root properties whose first value the scanner locates (games.parquet's
# game-info), and GM, which must be 1 (Go)
ROOT_TEXT = GAME_INFO
_GM = len(ROOT_TEXT)
ROOT_SLOTS = np.full(26 * 26, -1, dtype=np.int64)
for _slot, _name in enumerate(ROOT_TEXT + ("GM",)):
    ROOT_SLOTS[(ord(_name[0]) - 65) * 26 + ord(_name[1]) - 65] = _slot


@njit(cache=True, inline="always")
def _stripped(data, a, b):
    """data[a:b] without leading and trailing blanks, as (a, b)."""
    while a < b and (data[a] == 32 or 9 <= data[a] <= 13):
        a += 1
    while b > a and (data[b - 1] == 32 or 9 <= data[b - 1] <= 13):
        b -= 1
    return a, b


_NUMBER_DIGITS = 6  # SZ and HA values of more digits are read in Python: no integer here can wrap


@njit(cache=True, inline="always")
def _is_number(data, a, b):
    """Is data[a:b], blanks stripped, a run of 1 to _NUMBER_DIGITS digits
    without a leading zero (or "0")?  Anything else (a longer number, "09",
    whose text a reject's detail quotes) is read in Python."""
    a, b = _stripped(data, a, b)
    if b == a or b - a > _NUMBER_DIGITS or (data[a] == 48 and b - a > 1):
        return False
    for k in range(a, b):
        if data[k] < 48 or data[k] > 57:
            return False
    return True


@njit(cache=True, inline="always")
def _is_go(data, a, b):
    """Is the GM value data[a:b], blanks stripped, "1" or nothing?"""
    a, b = _stripped(data, a, b)
    return b == a or (b == a + 1 and data[a] == 49)


@njit(cache=True, inline="always")
def _count_two(data, a, b, x, y):
    """How often the bytes x and y occur in data[a:b]."""
    nx = 0
    ny = 0
    for i in range(a, b):
        if data[i] == x:
            nx += 1
        elif data[i] == y:
            ny += 1
    return nx, ny


@njit(cache=True, nogil=True)
def scan_sgf(data, starts, ends, ws, slots, max_value):
    """Game trees in data[starts[k]:ends[k]] for each unit k (a file or an
    archive member).  Returns per game: unit, tree start/end, size,
    handicap, status, move offsets, setup offsets; the flat colours/points
    of moves and setup stones; and per game the spans of the first values of
    the root properties ROOT_TEXT (``slots``: ROOT_SLOTS; -1 when absent)
    with whether they are plain (no escape, no line break or tab: their
    text is their bytes).  A game holding a value longer than ``max_value``
    bytes (limits.field_kb) is UNUSUAL: the Python reader rejects it."""
    # upper bounds (a game opens with '(', a move or stone has a '['), so no
    # array is ever reallocated inside the loop: that would cost numba's
    # reference counting on every access and slow the scan several times
    trees = 0
    values = 0
    for u in range(len(starts)):
        t, v = _count_two(data, starts[u], ends[u], 40, 91)  # '(' and '['
        trees += t
        values += v
    cap = trees + 2
    g_unit = np.empty(cap, np.int64)
    g_start = np.empty(cap, np.int64)
    g_end = np.empty(cap, np.int64)
    g_text = np.full((cap, _GM, 2), -1, np.int64)
    g_plain = np.ones(cap, np.bool_)
    g_size = np.empty(cap, np.int64)
    g_ha = np.empty(cap, np.int64)
    g_status = np.empty(cap, np.int8)
    g_moff = np.empty(cap + 1, np.int64)
    g_soff = np.empty(cap + 1, np.int64)
    mcap = values + 1
    m_col = np.empty(mcap, np.int8)
    m_pt = np.empty(mcap, np.int16)
    scap = values + 1
    s_col = np.empty(scap, np.int8)
    s_pt = np.empty(scap, np.int16)
    n = 0
    nm = 0
    ns = 0
    g_moff[0] = 0
    g_soff[0] = 0
    for u in range(len(starts)):
        i = starts[u]
        end = ends[u]
        while i < end:
            # find the next game tree
            while i < end and data[i] != 40:  # '('
                i += 1
            if i >= end:
                break
            g_unit[n] = u
            g_start[n] = i
            g_size[n] = 19
            g_ha[n] = 0
            status = OK
            m0 = nm
            s0 = ns
            depth = 0
            main_depth = 0
            main_open = True
            nodes = 0  # main-line nodes seen
            in_main_node = False
            node_has_move = False
            closed = False
            bare = False  # after a '(' and before its first ';'
            after_child = -1  # the depth a variation last closed back to: no node or property may follow there
            while i < end:
                ch = data[i]
                if ch == 40:  # '('
                    depth += 1
                    bare = True
                    if main_open:
                        main_depth = depth
                    i += 1
                elif ch == 41:  # ')'
                    if main_open and depth == main_depth:
                        main_open = False
                    in_main_node = False
                    depth -= 1
                    after_child = depth
                    i += 1
                    if depth == 0:
                        closed = True
                        break
                elif ch == 59:  # ';'
                    bare = False
                    if depth == after_child:
                        status = UNUSUAL  # a node after closed variations: the Python reader rejects it
                    in_main_node = main_open and depth == main_depth
                    if in_main_node:
                        nodes += 1
                        node_has_move = False
                    i += 1
                elif 65 <= ch <= 90 or 97 <= ch <= 122:
                    # property identifier
                    if bare or depth == after_child:
                        status = UNUSUAL  # a property outside any node: '(' without ';', or after a ')'
                    a = i
                    lower = False
                    while i < end and (65 <= data[i] <= 90 or 97 <= data[i] <= 122):
                        if data[i] >= 97:
                            lower = True
                        i += 1
                    ident_len = i - a
                    c0 = data[a]
                    c1 = data[a + 1] if ident_len > 1 else 0
                    if (lower or ident_len > 2) and in_main_node:
                        status = UNUSUAL  # long or FF[3] names: the Python reader rewrites them
                    # values
                    nvalues = 0
                    while True:
                        while i < end and ws[data[i]]:
                            i += 1
                        if i >= end or data[i] != 91:  # '['
                            break
                        i += 1
                        va = i
                        escaped = False
                        while i < end:
                            ch2 = data[i]
                            if ch2 == 92:  # backslash
                                escaped = True
                                i += 2
                                continue
                            if ch2 == 93:  # ']'
                                break
                            i += 1
                        if i >= end:
                            status = UNUSUAL  # unterminated value
                            break
                        vb = i
                        i += 1
                        nvalues += 1
                        if vb - va > max_value:
                            status = UNUSUAL
                        if not in_main_node or lower:
                            continue
                        if ident_len == 1 and (c0 == 66 or c0 == 87):  # B, W
                            p = _point(data, va, vb)
                            if p == -2 or escaped or nvalues > 1 or node_has_move:
                                status = UNUSUAL
                                continue
                            node_has_move = True
                            m_col[nm] = -1 if c0 == 66 else 1
                            m_pt[nm] = p
                            nm += 1
                        elif ident_len == 2 and c0 == 65 and (c1 == 66 or c1 == 87):  # AB, AW
                            p = _point(data, va, vb)
                            if nodes != 1 or p < 0:
                                status = UNUSUAL
                                continue
                            s_col[ns] = -1 if c1 == 66 else 1
                            s_pt[ns] = p
                            ns += 1
                        elif ident_len == 2 and c0 == 65 and c1 == 69:  # AE
                            status = UNUSUAL
                        elif ident_len == 2 and c0 == 83 and c1 == 90 and nodes == 1:  # SZ
                            g_size[n] = _number(data, va, vb)
                            if not _is_number(data, va, vb) or g_size[n] != 19:  # 19:13, 19x19; 9 (said as written)
                                status = UNUSUAL
                        elif ident_len == 2 and c0 == 72 and c1 == 65 and nodes == 1:  # HA
                            g_ha[n] = _number(data, va, vb)
                            if not _is_number(data, va, vb):
                                status = UNUSUAL
                        elif ident_len == 2 and nodes > 1 and 65 <= c1 <= 90:
                            slot = slots[(c0 - 65) * 26 + c1 - 65]
                            if slot >= 0 and slot != _GM:
                                status = UNUSUAL  # game information past the root: the Python reader gathers it
                        elif ident_len == 2 and nodes == 1 and nvalues == 1 and 65 <= c1 <= 90:
                            slot = slots[(c0 - 65) * 26 + c1 - 65]
                            if slot == _GM:
                                if not _is_go(data, va, vb):
                                    status = UNUSUAL  # not a game of Go
                            elif slot >= 0 and g_text[n, slot, 0] < 0:
                                g_text[n, slot, 0] = va
                                g_text[n, slot, 1] = vb
                                if escaped:
                                    g_plain[n] = False
                                for k in range(va, vb):
                                    if 9 <= data[k] <= 13:
                                        g_plain[n] = False
                    if nvalues == 0:
                        status = UNUSUAL  # identifier without a value
                elif ws[ch]:
                    i += 1
                else:
                    status = UNUSUAL  # stray character
                    i += 1
            if not closed or nodes == 0:
                status = UNUSUAL
            g_end[n] = i
            g_status[n] = status
            g_moff[n + 1] = nm
            g_soff[n + 1] = ns
            if status != OK:  # keep the arrays of plain games only
                nm = m0
                ns = s0
                g_moff[n + 1] = nm
                g_soff[n + 1] = ns
            n += 1
    return (
        g_unit[:n],
        g_start[:n],
        g_end[:n],
        g_size[:n],
        g_ha[:n],
        g_status[:n],
        g_moff[: n + 1],
        g_soff[: n + 1],
        m_col[:nm],
        m_pt[:nm],
        s_col[:ns],
        s_pt[:ns],
        g_text[:n],
        g_plain[:n],
    )


@njit(cache=True, nogil=True)
def scan_kifu(data, start, end, ws):
    """One game a line: ``id<TAB>;B[pd];W[dp]...``.  Returns per non-blank
    line: its start/end (without trailing CR and blanks), its number
    (1-based), status (UNUSUAL unless a numeric id, a tab and plain moves),
    move offsets; and the flat colours/points of the moves."""
    lines, values = _count_two(data, start, end, 10, 91)  # upper bounds, as in scan_sgf
    cap = lines + 2
    l_start = np.empty(cap, np.int64)
    l_end = np.empty(cap, np.int64)
    l_number = np.empty(cap, np.int64)
    l_status = np.empty(cap, np.int8)
    l_moff = np.empty(cap + 1, np.int64)
    mcap = values + 1
    m_col = np.empty(mcap, np.int8)
    m_pt = np.empty(mcap, np.int16)
    n = 0
    nm = 0
    l_moff[0] = 0
    i = start
    number = 0
    while i < end:
        a = i
        number += 1
        while i < end and data[i] != 10:
            i += 1
        b = i
        i += 1
        blank = True
        for k in range(a, b):
            if not ws[data[k]]:
                blank = False
                break
        if blank:
            continue
        # strip \r and trailing blanks
        while b > a and (data[b - 1] == 13 or data[b - 1] == 32):
            b -= 1
        l_start[n] = a
        l_end[n] = b
        status = OK
        m0 = nm
        # the id
        k = a
        ident = 0
        digits = 0
        while k < b and 48 <= data[k] <= 57 and digits < 18:
            ident = ident * 10 + (data[k] - 48)
            digits += 1
            k += 1
        if digits == 0 or k >= b or data[k] != 9:
            status = UNUSUAL
            ident = -1
        k += 1
        while status == OK and k < b:
            # ;B[xy]
            if data[k] != 59 or k + 3 >= b or (data[k + 1] != 66 and data[k + 1] != 87) or data[k + 2] != 91:
                status = UNUSUAL
                break
            colour = -1 if data[k + 1] == 66 else 1
            q = k + 3
            while q < b and data[q] != 93:
                q += 1
            if q >= b:
                status = UNUSUAL
                break
            p = _point(data, k + 3, q)
            if p == -2:
                status = UNUSUAL
                break
            m_col[nm] = colour
            m_pt[nm] = p
            nm += 1
            k = q + 1
        if status != OK:
            nm = m0
        l_number[n] = number
        l_status[n] = status
        l_moff[n + 1] = nm
        n += 1
    return l_start[:n], l_end[:n], l_number[:n], l_status[:n], l_moff[: n + 1], m_col[:nm], m_pt[:nm]


@njit(cache=True, nogil=True)
def moves_text(colours, points, offsets, games):
    """The SGF move text of each game in ``games`` (indices), 3 bytes a
    move ("B" or "W" and the point, "tt" for a pass), as records.encode_moves
    writes it: the bytes and the offsets of each game's text."""
    total = 0
    for g in games:
        total += offsets[g + 1] - offsets[g]
    out = np.empty(3 * total, np.uint8)
    text_offsets = np.empty(len(games) + 1, np.int32)
    text_offsets[0] = 0
    k = 0
    for i in range(len(games)):
        g = games[i]
        for m in range(offsets[g], offsets[g + 1]):
            out[k] = 66 if colours[m] < 0 else 87
            p = points[m]
            if p < 0:
                out[k + 1] = 116
                out[k + 2] = 116
            else:
                out[k + 1] = 97 + p % 19
                out[k + 2] = 97 + p // 19
            k += 3
        text_offsets[i + 1] = k
    return out, text_offsets


# index_info_spans: how a GAME_INFO value of an index line is given
INFO_EMPTY, INFO_SPAN, INFO_DATE, INFO_EXTRA = 0, 1, 2, 3
_MAX_FIELDS = 16  # field boundaries kept a line; the layouts read the first 11


@njit(cache=True, inline="always")
def _code_point(text, k):
    """The code point whose UTF-8 starts at text[k], and its size in bytes."""
    c = text[k]
    if c < 0x80:
        return c, 1
    if c < 0xE0:
        return ((c & 0x1F) << 6) | (text[k + 1] & 0x3F), 2
    if c < 0xF0:
        return ((c & 0x0F) << 12) | ((text[k + 1] & 0x3F) << 6) | (text[k + 2] & 0x3F), 3
    return ((c & 0x07) << 18) | ((text[k + 1] & 0x3F) << 12) | ((text[k + 2] & 0x3F) << 6) | (text[k + 3] & 0x3F), 4


@njit(cache=True, inline="always")
def _unicode_stripped(text, a, b, strip):
    """text[a:b] (UTF-8) without the leading and trailing code points
    ``strip`` marks, as str.strip takes off its blanks."""
    while a < b:
        cp, size = _code_point(text, a)
        if cp >= len(strip) or not strip[cp]:
            break
        a += size
    while b > a:
        start = b - 1
        while text[start] & 0xC0 == 0x80:
            start -= 1
        cp, size = _code_point(text, start)
        if cp >= len(strip) or not strip[cp]:
            break
        b = start
    return a, b


@njit(cache=True, nogil=True)
def index_info_spans(text, starts, rows, layouts, date_slot, strip, spans):
    """The GAME_INFO values of index lines, as ``kifu.index_info`` reads
    them, without a string a game.  Line ``rows[g]`` (-1: none) is
    ``text[starts[r]:starts[r + 1] - 1]``, UTF-8; its fields are split on
    tabs, and the layout is chosen by their number (11 or more ``layouts[0]``,
    8 or more ``layouts[1]``, else ``layouts[2]``: the field of each slot,
    -1 none).  Fills ``spans[g, slot]`` with (kind, a, b): INFO_EMPTY "",
    INFO_SPAN ``text[a:b]``, INFO_DATE the date whose year starts at ``a``
    ("YYYY?MM?DD" written "YYYY-MM-DD"); values are stripped of the code
    points ``strip`` marks (str.strip's blanks).  Returns per game whether
    its line must be read in Python instead: a lone surrogate, a date of
    another shape, or one that begins with a character that is not ASCII
    (is it a letter?)."""
    n_games = len(rows)
    python = np.zeros(n_games, np.bool_)
    bounds = np.empty(_MAX_FIELDS + 1, np.int64)
    for g in range(n_games):
        for s in range(spans.shape[1]):
            spans[g, s, 0] = INFO_EMPTY
        r = rows[g]
        if r < 0:
            continue
        a = starts[r]
        e = starts[r + 1] - 1
        fields = 1
        bounds[0] = a
        for k in range(a, e):
            c = text[k]
            if c == 9:
                if fields <= _MAX_FIELDS - 1:
                    bounds[fields] = k + 1
                fields += 1
            elif c == 0xED and k + 1 < e and text[k + 1] >= 0xA0:
                python[g] = True  # a surrogate, as "surrogatepass" wrote it
        if python[g]:
            continue
        layout = 0 if fields >= 11 else 1 if fields >= 8 else 2
        for s in range(spans.shape[1]):
            f = layouts[layout, s]
            if f < 0 or f >= fields:
                continue
            fa = bounds[f]
            fb = e if f + 1 >= fields else bounds[f + 1] - 1
            fa, fb = _unicode_stripped(text, fa, fb, strip)
            if fa == fb:
                continue
            if s != date_slot:
                spans[g, s, 0] = INFO_SPAN
                spans[g, s, 1] = fa
                spans[g, s, 2] = fb
                continue
            c = text[fa]
            if c >= 0x80:  # is it a letter?  Python knows
                python[g] = True
                break
            d = fa + 1 if (65 <= c <= 90 or 97 <= c <= 122) else fa
            ok = d + 10 <= fb
            if ok:
                for k in (0, 1, 2, 3, 5, 6, 8, 9):
                    if not 48 <= text[d + k] <= 57:
                        ok = False
                for k in (4, 7):
                    c = text[d + k]
                    if c != 46 and c != 47 and c != 45:  # . / -
                        ok = False
            if not ok:
                python[g] = True
                break
            spans[g, s, 0] = INFO_DATE
            spans[g, s, 1] = d
    return python


@njit(cache=True, inline="always")
def _valid_utf8(text, a, b):
    """Is text[a:b] well-formed UTF-8 (no overlong form, no surrogate, nothing past U+10FFFF)?"""
    k = a
    while k < b:
        c = text[k]
        if c < 0x80:
            k += 1
            continue
        if 0xC2 <= c <= 0xDF:
            size, low, high = 2, 0x80, 0xBF
        elif 0xE0 <= c <= 0xEF:
            size = 3
            low = 0xA0 if c == 0xE0 else 0x80
            high = 0x9F if c == 0xED else 0xBF
        elif 0xF0 <= c <= 0xF4:
            size = 4
            low = 0x90 if c == 0xF0 else 0x80
            high = 0x8F if c == 0xF4 else 0xBF
        else:
            return False
        if k + size > b or not low <= text[k + 1] <= high:
            return False
        for j in range(k + 2, k + size):
            if text[j] & 0xC0 != 0x80:
                return False
        k += size
    return True


@njit(cache=True, nogil=True)
def sgf_info_spans(text, values, plain, strip, spans):
    """The GAME_INFO values of scanned SGF games (``values``: each game's
    root value spans, -1 absent), as ``bulk._infos`` reads them, without a
    string a game: a plain value's bytes stripped of the code points
    ``strip`` marks (str.strip's blanks).  Fills ``spans`` as
    ``index_info_spans`` does; returns per game whether it must be read in
    Python instead (a value with escapes or line breaks, or not UTF-8)."""
    n_games = values.shape[0]
    python = np.zeros(n_games, np.bool_)
    for g in range(n_games):
        for s in range(spans.shape[1]):
            spans[g, s, 0] = INFO_EMPTY
        if not plain[g]:
            python[g] = True
            continue
        for s in range(spans.shape[1]):
            a = values[g, s, 0]
            b = values[g, s, 1]
            if a < 0:
                continue
            if not _valid_utf8(text, a, b):
                python[g] = True
                break
            a, b = _unicode_stripped(text, a, b, strip)
            if a < b:
                spans[g, s, 0] = INFO_SPAN
                spans[g, s, 1] = a
                spans[g, s, 2] = b
    return python


def info_arrays(text, spans, names, read_in_python) -> dict:
    """Arrow string columns of game information, one a name, from the
    spans the compiled reading found in ``text``; the games it left to
    Python (``read_in_python``: (game, its values by slot)) take those
    values instead, gathered into one extra buffer their spans point into."""
    import pyarrow as pa

    pieces: list[bytes] = []
    at = 0
    for g, values in read_in_python:
        for slot, value in enumerate(values):
            spans[g, slot, 0] = INFO_EMPTY
            if value:
                piece = value.encode("utf-8")
                spans[g, slot] = (INFO_EXTRA, at, at + len(piece))
                pieces.append(piece)
                at += len(piece)
    extra = np.frombuffer(b"".join(pieces), np.uint8)
    out = {}
    for slot, name in enumerate(names):
        offsets, column = info_column(text, extra, spans, slot)
        out[name] = pa.StringArray.from_buffers(len(spans), pa.py_buffer(offsets), pa.py_buffer(column))
    return out


@njit(cache=True, nogil=True)
def info_column(text, extra, spans, slot):
    """One GAME_INFO column of ``index_info_spans``' spans as an Arrow
    string array's offsets and bytes; INFO_EXTRA values are ``extra[a:b]``."""
    n = spans.shape[0]
    offsets = np.empty(n + 1, np.int32)
    offsets[0] = 0
    total = 0
    for g in range(n):
        kind = spans[g, slot, 0]
        if kind == INFO_DATE:
            total += 10
        elif kind != INFO_EMPTY:
            total += spans[g, slot, 2] - spans[g, slot, 1]
        offsets[g + 1] = total
    data = np.empty(total, np.uint8)
    for g in range(n):
        kind = spans[g, slot, 0]
        a = spans[g, slot, 1]
        o = offsets[g]
        if kind == INFO_DATE:
            for k in range(4):
                data[o + k] = text[a + k]
            data[o + 4] = 45
            data[o + 5] = text[a + 5]
            data[o + 6] = text[a + 6]
            data[o + 7] = 45
            data[o + 8] = text[a + 8]
            data[o + 9] = text[a + 9]
        elif kind == INFO_SPAN:
            for k in range(spans[g, slot, 2] - a):
                data[o + k] = text[a + k]
        elif kind == INFO_EXTRA:
            for k in range(spans[g, slot, 2] - a):
                data[o + k] = extra[a + k]
    return offsets, data


@njit(cache=True, nogil=True)
def text_lines(buf, strip, glued_a, glued_b):
    """The lines of UTF-8 text as ``str.splitlines`` cuts them (at \\n, \\r,
    \\r\\n, \\v, \\f, \\x1c-\\x1e, U+0085, U+2028, U+2029), for an index:
    each line's start and end, and whether it is odd (no tab, a blank id
    before the first tab, or ``glued_a`` or ``glued_b`` fields: two lines
    run together), to be read in Python."""
    n = len(buf)
    cap = 1
    for k in range(n):
        c = buf[k]
        if c == 10 or c == 13 or c == 11 or c == 12 or 28 <= c <= 30 or c == 0x85 or c == 0xA8 or c == 0xA9:
            cap += 1  # an upper bound: every byte that may end a line
    starts = np.empty(cap, np.int64)
    ends = np.empty(cap, np.int64)
    odd = np.empty(cap, np.bool_)
    lines = 0
    k = 0
    while k < n:
        a = k
        tabs = 0
        first_tab = -1
        size = 0  # of the line break
        while k < n:
            c = buf[k]
            if c == 10 or c == 13 or c == 11 or c == 12 or 28 <= c <= 30:
                size = 2 if c == 13 and k + 1 < n and buf[k + 1] == 10 else 1
                break
            if c == 0xC2 and k + 1 < n and buf[k + 1] == 0x85:
                size = 2
                break
            if c == 0xE2 and k + 2 < n and buf[k + 1] == 0x80 and (buf[k + 2] == 0xA8 or buf[k + 2] == 0xA9):
                size = 3
                break
            if c == 9:
                if first_tab < 0:
                    first_tab = k
                tabs += 1
            k += 1
        starts[lines] = a
        ends[lines] = k
        if tabs == 0 or tabs + 1 == glued_a or tabs + 1 == glued_b:
            odd[lines] = True
        else:
            fa, fb = _unicode_stripped(buf, a, first_tab, strip)
            odd[lines] = fa == fb
        lines += 1
        k += size
    return starts[:lines], ends[:lines], odd[:lines]


@njit(cache=True, nogil=True)
def joined_lines(buf, extra, spans):
    """Lines given as (0: ``buf``, 1: ``extra``; start, end) spans, copied
    into one text, each ended by \\n: the text and each line's start (one
    more: the end)."""
    total = 0
    for i in range(len(spans)):
        total += spans[i, 2] - spans[i, 1] + 1
    text = np.empty(total, np.uint8)
    starts = np.empty(len(spans) + 1, np.int64)
    o = 0
    for i in range(len(spans)):
        starts[i] = o
        src = buf if spans[i, 0] == 0 else extra
        for k in range(spans[i, 1], spans[i, 2]):
            text[o] = src[k]
            o += 1
        text[o] = 10
        o += 1
    starts[len(spans)] = o
    return text, starts


@njit(cache=True, inline="always")
def _bytes_hash(text, a, b, mask):
    """FNV-1a of text[a:b] (64 bits, as int64), and'ed with ``mask``."""
    h = np.uint64(14695981039346656037)
    for k in range(a, b):
        h = (h ^ np.uint64(text[k])) * np.uint64(1099511628211)
    return np.int64(h) & mask


@njit(cache=True, inline="always")
def _line_ident(text, starts, row, strip):
    """The id of line ``row``: its text before the first tab, stripped."""
    a = starts[row]
    t = a
    while text[t] != 9 and text[t] != 10:
        t += 1
    return _unicode_stripped(text, a, t, strip)


@njit(cache=True, nogil=True)
def ident_hashes(text, starts, strip, mask):
    """``_bytes_hash`` of every line's id (``_line_ident``)."""
    n = len(starts) - 1
    out = np.empty(n, np.int64)
    for row in range(n):
        a, b = _line_ident(text, starts, row, strip)
        out[row] = _bytes_hash(text, a, b, mask)
    return out


@njit(cache=True, nogil=True)
def find_rows(hashes, fences, step, rows, text, starts, strip, mask, q_buf, q_start, q_end):
    """For each id ``q_buf[q_start[i]:q_end[i]]``: the largest row among
    the lines whose id is those very bytes (``hashes`` sorted, ``rows``
    the line of each), or -1.  ``fences`` is every ``step``-th hash: the
    search reads one block of ``hashes`` (a page, when they are mapped)."""
    n = len(hashes)
    out = np.full(len(q_start), -1, np.int64)
    for i in range(len(q_start)):
        qa = q_start[i]
        qb = q_end[i]
        h = _bytes_hash(q_buf, qa, qb, mask)
        block = np.searchsorted(fences, h)  # fences[block - 1] < h <= fences[block]
        first = max(0, (block - 1) * step)
        lo = first + np.searchsorted(hashes[first : min(n, block * step + 1)], h)
        for k in range(lo, n):
            if hashes[k] != h:
                break
            row = rows[k]
            if row <= out[i]:
                continue
            a, b = _line_ident(text, starts, row, strip)
            if b - a != qb - qa:
                continue
            same = True
            for j in range(b - a):
                if text[a + j] != q_buf[qa + j]:
                    same = False
                    break
            if same:
                out[i] = row
    return out


@njit(cache=True, nogil=True)
def kifu_ids(data, l_start, l_end):
    """Where each plain kifu line's id ends: its first tab."""
    out = np.empty(len(l_start), np.int64)
    for i in range(len(l_start)):
        k = l_start[i]
        while k < l_end[i] and data[k] != 9:
            k += 1
        out[i] = k
    return out
