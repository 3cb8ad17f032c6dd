"""A player's rank as the collections write it (``BR``/``WR``: "6d", "1k",
"9p", "P9", "P8段", "9段", "3 kyu"), as one number that orders them: kyu
below dan below professional."""

from __future__ import annotations

import re

RANK = re.compile(r"\s*(\d{1,2})\s*([kdp])\s*", re.IGNORECASE)  # a rank in a config: 30k, 1k, 1d, 7d, 1p
_KYU = re.compile(r"(\d{1,2})\s*(?:k|kyu|級|级)", re.IGNORECASE)
_DAN = re.compile(r"(\d{1,2})\s*(?:d|dan|段)", re.IGNORECASE)
_PRO = re.compile(r"(?:(\d{1,2})\s*(?:p|pro)|p\s*(\d{1,2})\s*(?:d|dan|段)?)", re.IGNORECASE)


def rank_value(text: str) -> int | None:
    """The rank's order: 30 kyu is -30, 1 kyu -1, 1 dan 0, 9 dan 8, a
    professional 1 dan 21 (above every amateur); None where it is not a
    rank (empty, "?", "-"). A trailing "?" or "*" (a rank the server is
    not sure of) is ignored."""
    text = text.strip().rstrip("?*").strip()
    if m := _PRO.fullmatch(text):
        return 20 + int(m.group(1) or m.group(2))
    if m := _DAN.fullmatch(text):
        return int(m.group(1)) - 1
    if m := _KYU.fullmatch(text):
        return -int(m.group(1))
    return None
