"""Text encodings of game files: BOMs, declared charsets, a fallback guess.

Game records are ASCII where it matters (moves, property names); only text
(player names, events, comments) may be in another encoding.  ``decode``
turns bytes into text in this order of trust:

1. ASCII is ASCII (the common case, no work);
2. valid UTF-8 with many multi-byte characters is UTF-8 (legacy text never
   is);
3. a declared charset (SGF ``CA``) other than Latin-1/ASCII, strictly,
   then (with ``fallback``) a superset of it (GB2312 -> GB18030,
   EUC-KR -> CP949, Shift_JIS -> CP932, Big5 -> CP950) because writers
   declare the small charset and use the large one; but if the bytes are
   also valid UTF-8 and read more plausibly so, UTF-8 (a converter
   re-encoded the file and kept ``CA``);
4. valid UTF-8, unless it reads as junk and a legacy guess reads clearly
   better (a short GB2312 name can be valid UTF-8 by chance);
5. with ``fallback``: the declared charset with replacement characters when
   only a character or so is bad (a name cut in the middle), else for text
   declaring nothing (or Latin-1) a Latin-1 reading when it looks like
   European names, else a guess among the legacy encodings of Go servers
   (EUC-KR, GB2312, Shift_JIS, Big5 and their supersets): each candidate
   that decodes strictly is scored on how plausible its characters are
   (scripts, common Korean syllables, Go words, no half-width kana or box
   drawing) and the best above a threshold wins;
6. ISO-8859-1, the SGF default, for text that declares nothing or Latin-1;
7. otherwise the text is undecodable (``Decoded.text`` is None).

Without ``fallback`` only steps 1-4 (no superset, no guess) and 6 apply.
BOMs (UTF-8, UTF-16, UTF-32, and BOM-less UTF-16) are handled by
``strip_bom`` before any of this.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

# declared names -> the codec to try first, then its superset
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "cp936": "gb18030",
    "hz": "gb18030",
    "euc_kr": "cp949",
    "cp949": "cp949",
    "iso2022_kr": "cp949",
    "shift_jis": "cp932",
    "cp932": "cp932",
    "shift_jis_2004": "cp932",
    "shift_jisx0213": "cp932",
    "big5": "cp950",
    "cp950": "big5hkscs",
    "big5hkscs": "big5hkscs",
    "latin_1": "cp1252",
    "iso8859_1": "cp1252",
    "ascii": "cp1252",
}
# names that say little: writers put them in by default (SGF's own default)
_WEAK = {"latin_1", "iso8859_1", "ascii", "cp1252"}

# the guess: candidates in order of preference when their scores tie
_GUESSES = ("euc_kr", "gb2312", "shift_jis", "big5", "cp949", "gb18030", "cp932", "cp950")
_GUESS_THRESHOLD = 0.5
# valid UTF-8 with at least this many continuation bytes is taken as UTF-8
# without weighing other readings
_SURE_UTF8 = 48

_ALIASES = {
    "utf8": "utf-8",
    "ks_c_5601": "euc_kr",
    "ks_c_5601-1987": "euc_kr",
    "ksc5601": "euc_kr",
    "uhc": "cp949",
    "sjis": "shift_jis",
    "x-sjis": "shift_jis",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "gb_2312": "gb2312",
    "gb2312-80": "gb2312",
    "euc-cn": "gb2312",
    "euccn": "gb2312",
    "big-5": "big5",
    "big5-hkscs": "big5hkscs",
    "x-euc-tw": "big5",
}

# Sino-Korean syllables (readings of Hanja: most Korean names) and a few
# native ones seen in names and nicknames.
_COMMON_HANGUL = frozenset(
    "가각간갈감갑강개거건걸검게겨격견결겸경계고곡곤골공과곽관광괴교구국군굴궁권궐귀규균귤그극근글금급긍기긴길김"
    "나낙난날남납낭내녀년념녕노녹논농뇌뇨누눈늘능니닉다단달담답당대덕도독돈돌동두둑둔득등라락란람랍랑래랭략량"
    "려력련렬렴렵령례로록론롱뢰료룡루류륙륜률륭륵름릉리린림립마막만말망매맥맹멱면멸명모목몰몽묘무묵문물미민밀"
    "바박반발방배백번벌범법벽변별병보복본봉부북분불붕비빈빙사삭산살삼삽상새색생서석선설섬섭성세소속손솔송쇄쇠"
    "수숙순술숭슬습승시식신실심십쌍씨아악안알암압앙애액앵야약양어억언얼엄업여역연열염엽영예오옥온올옹와완왈왕외"
    "요욕용우욱운울웅원월위유육윤율융은을음읍응의이익인일임입잉자작잔잠잡장재쟁저적전절점접정제조족존졸종좌죄주"
    "죽준줄중즉즐즙증지직진질짐집징차착찬찰참창채책처척천철첨첩청체초촉촌총촬최추축춘출충췌취측층치칙친칠침칭쾌"
    "타탁탄탈탐탑탕태택토통퇴투특틈파판팔패팽퍅편폄평폐포폭표품풍피필핍하학한할함합항해핵행향허헌험혁현혈혐협형"
    "혜호혹혼홀홍화확환활황회획횡효후훈훙훤훼휘휴휼흉흑흔흘흠흡흥희힐"
    "빛봄샘솜슬별늘꽃꿈님짱캡킹팡퐁뽀삐쿠키토티트크스즈츠드프피테레데베세케페헤네메제체쏘꼬또빠쭈찌울"
)


# characters of Go records (results, ranks, titles) in simplified,
# traditional and Japanese forms: a small bonus that separates GB2312 from
# Big5 readings of the same bytes.
_GO_WORDS = frozenset(
    "黑白黒胜勝负負段级級目半盘盤中局围圍棋碁子先后後贴貼还還让讓和平时時间間秒读讀杯赛賽战戰冠军軍名人王天元"
    "本因坊圣聖十届屆第决決对對者手番押投了不计計点點"
)
_KOREAN = ("euc_kr", "cp949")


def _char_score(o: int, codec: str, has_hangul: bool) -> float:
    if 0x4E00 <= o <= 0x9FFF:  # CJK unified ideographs
        if codec in _KOREAN:  # Hanja: rare in Korean names, rarer mixed
            return 0.3 if has_hangul else 0.6
        return 1.2 if chr(o) in _GO_WORDS else 1.0
    if 0xAC00 <= o <= 0xD7A3:  # Hangul syllables
        # common syllables outweigh the Go-word bonus of a GB2312 reading
        return 1.25 if chr(o) in _COMMON_HANGUL else 0.3
    if 0x3040 <= o <= 0x30FF:  # hiragana, katakana
        return 1.0
    if 0x3000 <= o <= 0x303F or 0xFF01 <= o <= 0xFF5E:  # CJK punctuation, full width
        return 0.5
    if 0xC0 <= o <= 0x24F and o not in (0xD7, 0xF7):  # Latin letters
        return 0.5
    if 0x370 <= o <= 0x52F:  # Greek, Cyrillic: names only when UTF-8 says so
        return 0.8 if codec == "utf_8" else -1.0
    if 0x2000 <= o <= 0x206F or 0xA0 <= o <= 0xBF:  # punctuation
        return 0.2
    if 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or 0x3100 <= o <= 0x312F:
        return 0.2  # rare ideographs, compatibility ideographs, bopomofo
    return -1.0  # half-width kana, jamo, box drawing, modifier letters, private use...


def plausibility(text: str, codec: str = "utf_8") -> float:
    """How plausible the non-ASCII characters of ``text`` (as read with
    ``codec``) are as names and comments of Go records: about 1 for clean
    CJK text, below 0 for junk."""
    chars = [ord(c) for c in text if ord(c) >= 128][:4096]
    if not chars:
        return 1.0
    has_hangul = any(0xAC00 <= o <= 0xD7A3 for o in chars)
    return sum(_char_score(o, codec, has_hangul) for o in chars) / len(chars)


def _latin_plausible(data: bytes) -> bool:
    """Latin-1 text of a European name: every high byte is a letter next to an
    ASCII letter (CJK double bytes come in runs of high bytes)."""
    n = len(data)
    for i, b in enumerate(data):
        if b < 128:
            continue
        if b < 0xC0 or b in (0xD7, 0xF7):
            return False
        before = data[i - 1] if i > 0 else 0
        after = data[i + 1] if i + 1 < n else 0
        if before >= 128 and after >= 128:
            return False
        if not (chr(before).isalpha() and before < 128) and not (chr(after).isalpha() and after < 128):
            return False
    return True


def normalise_name(name: str | bytes | None) -> str | None:
    """A Python codec name for a declared charset, or None if unknown."""
    if name is None:
        return None
    if isinstance(name, bytes):
        name = name.decode("ascii", "replace")
    name = name.strip().lower()
    if not name:
        return None
    name = _ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name.replace("-", "_") if name != "utf-8" else "utf_8"
    except (LookupError, ValueError):
        return None


def _try(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


@dataclass(frozen=True)
class Decoded:
    """The outcome of decoding: ``text`` is None when undecodable."""

    text: str | None
    encoding: str
    how: str  # "ascii", "bom", "declared", "superset", "utf-8", "guess", "default", "lenient", "undecodable"


_BOMS = (
    (codecs.BOM_UTF8, "utf_8"),
    (codecs.BOM_UTF32_LE, "utf_32_le"),
    (codecs.BOM_UTF32_BE, "utf_32_be"),
    (codecs.BOM_UTF16_LE, "utf_16_le"),
    (codecs.BOM_UTF16_BE, "utf_16_be"),
)


def strip_bom(data: bytes) -> tuple[bytes, str | None]:
    """``data`` without its byte-order mark, and the encoding the mark names.

    Also recognises BOM-less UTF-16 (every other byte NUL in ASCII text)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :], codec
    head = data[:200]
    if len(head) >= 8 and head.count(0) * 3 >= len(head):
        if head[1::2].count(0) * 4 >= len(head[1::2]) * 3:
            return data, "utf_16_le"
        if head[0::2].count(0) * 4 >= len(head[0::2]) * 3:
            return data, "utf_16_be"
    return data, None


def guess(data: bytes, floor: float = _GUESS_THRESHOLD) -> tuple[str, str] | None:
    """(text, codec) of the most plausible legacy CJK decoding scoring above
    ``floor``, or None."""
    best = None
    best_score = floor
    for codec in _GUESSES:
        text = _try(data, codec)
        if text is None:
            continue
        score = plausibility(text, codec)
        if score > best_score + 1e-9:
            best, best_score = (text, codec), score
    return best


def _lenient(data: bytes, codec: str) -> str | None:
    """``data`` in ``codec`` with replacement characters, if only a few
    bytes are bad (a name cut in the middle of a character)."""
    text = data.decode(codec, "replace")
    bad = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) >= 128) - bad
    return text if bad <= max(1, good // 10) and good >= 2 * bad else None


def decode(data: bytes, declared: str | bytes | None = None, *, fallback: bool = True) -> Decoded:
    """Decode game-file bytes in the order of trust described above."""
    if data.isascii():
        return Decoded(data.decode("ascii"), "ascii", "ascii")
    declared_codec = normalise_name(declared)
    strong = declared_codec is not None and declared_codec not in _WEAK
    utf8 = _try(data, "utf_8")
    if utf8 is not None and len(data) - len(utf8) >= _SURE_UTF8:
        # many multi-byte characters, all valid: no legacy text does that
        return Decoded(utf8, "utf_8", "utf-8")
    # a legacy charset declared on text that is valid UTF-8: a converter
    # re-encoded the file and kept CA; UTF-8 wins unless the declared
    # reading is more plausible (short legacy text can be valid UTF-8)
    if strong:
        found = None
        text = _try(data, declared_codec)
        if text is not None:
            found = Decoded(text, declared_codec, "declared")
        elif fallback and _SUPERSETS.get(declared_codec, declared_codec) != declared_codec:
            superset = _SUPERSETS[declared_codec]
            text = _try(data, superset)
            if text is not None:
                found = Decoded(text, superset, "superset")
        if found is not None:
            if (
                utf8 is not None
                and found.encoding != "utf_8"
                and plausibility(utf8) > plausibility(found.text, found.encoding)
            ):
                return Decoded(utf8, "utf_8", "utf-8")
            return found
    if utf8 is not None:
        # short legacy text can be valid UTF-8 by chance ("时" in GB2312
        # reads as U+02B1): a clearly better guess wins over it
        score = plausibility(utf8)
        if not fallback or score >= _GUESS_THRESHOLD:
            return Decoded(utf8, "utf_8", "utf-8")
        found = guess(data, floor=score)
        if found is None:
            return Decoded(utf8, "utf_8", "utf-8")
        return Decoded(found[0], found[1], "guess")
    if not fallback:
        if strong:
            return Decoded(None, declared_codec, "undecodable")
        return Decoded(data.decode("latin_1"), "latin_1", "default")
    if strong:
        text = _lenient(data, declared_codec)
        if text is not None:
            return Decoded(text, declared_codec, "lenient")
    elif _latin_plausible(data):
        return Decoded(data.decode("cp1252", "replace"), "cp1252", "guess")
    found = guess(data)
    if found is not None:
        return Decoded(found[0], found[1], "guess")
    if not strong:
        return Decoded(data.decode("latin_1"), "latin_1", "default")
    return Decoded(None, declared_codec, "undecodable")


CA_RE = re.compile(rb"(?<![A-Za-z])CA\s*\[\s*([^\]\s]*)\s*\]")


def declared_charset(data: bytes) -> bytes | None:
    """The first SGF ``CA`` value in ``data`` (also ``CharsetA...`` long forms)."""
    m = CA_RE.search(data)
    return m.group(1) if m else None
