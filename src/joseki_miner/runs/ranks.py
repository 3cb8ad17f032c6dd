"""A player's rank as the collections write it (``BR``/``WR``: "6d", "1k",
"9p", "P9", "P8段", "9段", "3 kyu"), as one number that orders them: kyu
below dan below professional."""

from __future__ import annotations

import re

_KYU = re.compile(r"(\d{1,2})\s*(?:k|kyu|級|级)", re.IGNORECASE)
_DAN = re.compile(r"(\d)\s*(?:d|dan|段)", re.IGNORECASE)
_PRO = re.compile(r"(?:(\d)\s*(?:p|pro)|p\s*(\d)\s*(?:p|d|dan|段)?)", re.IGNORECASE)
KYU_MOST = 30


def rank_value(text: str) -> int | None:
    """The rank's order: 30 kyu is -30, 1 kyu -1, 1 dan 0, 9 dan 8, a
    professional 1 dan 21 (above every amateur); None where it is not a
    rank (empty, "?", "-", 0d, 10d, 31k). A trailing "?" or "*" (a rank the server is
    not sure of) is ignored."""
    text = text.strip().rstrip("?*").strip()
    if (m := _PRO.fullmatch(text)) and 1 <= int(m.group(1) or m.group(2)):
        return 20 + int(m.group(1) or m.group(2))
    if (m := _DAN.fullmatch(text)) and 1 <= int(m.group(1)):
        return int(m.group(1)) - 1
    if (m := _KYU.fullmatch(text)) and 1 <= int(m.group(1)) <= KYU_MOST:
        return -int(m.group(1))
    return None
