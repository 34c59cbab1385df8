"""The text of a record file, whatever its encoding, and the bytes that did not read.

Records come as UTF-8 (with or without a BOM), UTF-16 with a BOM (Notepad's
"Unicode"), a GB encoding (GB2312/GBK/GB18030) or Big5. The encoding chosen
is the one whose reading has the fewest faults: bytes that do not decode, and
characters no record holds (controls, private-use code points, and, in a GB
or Big5 reading, the rare characters that another encoding's bytes turn into).
A damaged byte (a download cut mid-character) costs one character, U+FFFD,
never the file; `Decoded.damaged` says where.
"""
import codecs
import dataclasses
import re
import threading
import unicodedata

# Characters that Xiangqi records are full of, in simplified and traditional
# forms: they tell a GB file from a Big5 one when both read without fault.
_RECORD_CHARS = frozenset("炮砲马馬车車兵卒进進退平帅帥将將仕士相象"
                          "一二三四五六七八九前后後红紅黑胜勝负負和")
_CANDIDATES = ("utf-8", "gb18030", "big5")
_NAMES = {"utf-8": "UTF-8", "utf-16": "UTF-16", "gb18030": "GB18030", "big5": "Big5"}
_HANDLER = "tuong-records-count"
_FAULTS = threading.local()             # the offsets the running decode could not read


def _count(error: UnicodeError) -> tuple[str, int]:
    """codecs error handler: note where the bytes did not decode, read U+FFFD."""
    assert isinstance(error, UnicodeDecodeError)
    _FAULTS.offsets.append(error.start)
    return "\ufffd", error.end


codecs.register_error(_HANDLER, _count)


@dataclasses.dataclass
class Decoded:
    """A file's text, the encoding it was read in, and the byte offsets (in
    the file) of the sequences that did not decode, each read as U+FFFD."""
    text: str
    encoding: str
    damaged: list[int]

    def warning(self) -> str | None:
        """What the damage cost, for a report naming the file (None if nothing)."""
        if not self.damaged:
            return None
        count = len(self.damaged)
        shown = ", ".join(str(offset) for offset in self.damaged[:5])
        more = f" and {count - 5} more" if count > 5 else ""
        bytes_ = "byte" if count == 1 else "bytes"
        name = _NAMES.get(self.encoding, self.encoding)
        return (f"{count} damaged {bytes_} (not {name}) at offset{'s' * (count > 1)} "
                f"{shown}{more}: each read as U+FFFD")


# Braces, and lead bytes whose trail is `}`, each at a character's start (the
# characters before them read one by one, lazily): in GB and Big5 a lead byte
# takes the next byte as its trail even where that is `}`, so a comment whose
# last character was cut would run on to the next one, and the moves between
# be lost. (A tag value cut mid-character ends in `"`, which no trail is.)
# Characters are one byte below 0x81 or a lead byte and the next: a lead and a
# `{` or `}` are one character (as both decoders read them), other leads pair
# with any byte, which keeps the count of characters in step with theirs.
# Each match ends in an event, or at the end of the bytes (a lead byte with
# no trail there, or nothing): the run of characters always stops where one
# of these follows, so every search succeeds at once, from the end of the
# one before, and the scan is linear. (Searches that failed, from within a
# character after the last `}`, could only find `{`, which changes nothing.)
_EVENTS = re.compile(rb"(?:[^\x81-\xfe{}]|[\x81-\xfe][^}])*([{}]|[\x81-\xfe]\x7d|[\x81-\xfe]?\Z)",
                     re.DOTALL)
_LEAD_BRACE = re.compile(rb"[\x81-\xfe]\x7d")     # no such pair: nothing to unswallow
_INVALID = {"big5": 0x80, "gb18030": 0xFF}      # a byte that no character starts with


def _unswallow(data: bytes, encoding: str) -> bytes:
    """`data` with each lead byte that would swallow the `}` closing a
    comment (the last such before the next `{`, and no `}` closes the
    comment before that) made invalid, byte
    for byte: read as U+FFFD, the brace kept. A cut character costs itself,
    not the moves after its comment."""
    if encoding not in _INVALID or b"}" not in data or not _LEAD_BRACE.search(data):
        return data
    events = [(m.start(1), m.group(1)) for m in _EVENTS.finditer(data) if m.group(1)[-1:] in
              (b"{", b"}")]
    fixed, inside = None, False
    for i, (at, what) in enumerate(events):
        if what in (b"{", b"}"):
            inside = what == b"{"
        elif inside:                     # a character with `}` for its trail, in a comment
            after = events[i + 1][1] if i + 1 < len(events) else b"{"
            if after == b"{":            # the last such, and no `}` closes the comment
                fixed = fixed or bytearray(data)
                fixed[at] = _INVALID[encoding]
                inside = False
    return data if fixed is None else bytes(fixed)


def _reading(data: bytes, encoding: str, skip: int = 0) -> Decoded:
    """`data[skip:]` decoded, every fault read as U+FFFD and noted."""
    data = _unswallow(data[skip:], encoding)
    try:
        return Decoded(data.decode(encoding), encoding, [])      # most files: no fault
    except UnicodeDecodeError:
        pass
    _FAULTS.offsets = []
    try:
        text = data.decode(encoding, errors=_HANDLER)
        return Decoded(text, encoding, [skip + offset for offset in _FAULTS.offsets])
    finally:
        _FAULTS.offsets = []


def _odd(char: str, encoding: str) -> bool:
    """Whether a character is one no record holds, as read in `encoding`:
    controls and private-use code points, and in a GB reading a CJK character
    outside GB2312, in a Big5 reading one outside Big5's frequent part (what
    bytes of another encoding turn into)."""
    if char.isascii():
        return not (char.isprintable() or char in "\t\n\r\f")
    if char == "\ufffd":
        return False                     # counted as a fault already
    if unicodedata.category(char)[0] in "CM":
        return True                      # controls, private use, unassigned, stray marks
    if encoding == "gb18030":
        try:
            char.encode("gb2312")
        except UnicodeEncodeError:
            return True
    elif encoding == "big5":
        try:
            return char.encode("big5")[0] >= 0xC7     # C9-F9: the less frequent characters
        except UnicodeEncodeError:
            return True
    return False


_ODD: dict[str, dict[str, bool]] = {}     # _odd's answers by encoding, then character


def _faults(decoded: Decoded, bound: int | None = None) -> int:
    """The bytes that did not decode and the characters no record holds;
    once they are more than `bound`, a count above it (the exact count is
    of no use then)."""
    text, encoding = decoded.text, decoded.encoding
    known = _ODD.setdefault(encoding, {})
    if len(known) > 50_000:
        known.clear()
    count = len(decoded.damaged)
    for char in set(text):
        odd = known.get(char)
        if odd is None:
            odd = known[char] = _odd(char, encoding)
        if odd:
            count += text.count(char)
            if bound is not None and count > bound:
                break
    return count


def _record_chars(text: str) -> int:
    """How many of the characters records are full of a text holds."""
    return sum(text.count(char) for char in _RECORD_CHARS)


def read(data: bytes) -> Decoded:
    """A record file's text in the encoding that reads it with the fewest
    faults (a BOM decides where there is one; strict UTF-8 wins at once);
    on a tie, the one with more of the characters records are full of, then
    the first of UTF-8, GB18030, Big5."""
    if data.startswith(b"\xef\xbb\xbf"):
        return _reading(data, "utf-8", 3)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):       # Notepad's "Unicode"
        return _reading(data, "utf-16")
    try:
        return Decoded(data.decode("utf-8"), "utf-8", [])
    except UnicodeDecodeError:
        pass
    # (faults, preference, reading), Big5 first (most of these files are),
    # then GB18030 counted only as far as it could still win; where either
    # reads without fault, UTF-8's reading (a fault at least, strict UTF-8
    # failed) cannot win, and is not made (its faults cost a call each). A
    # count cut short is above the fewest, so never among the tied.
    big5 = _reading(data, "big5")
    readings = [(_faults(big5), 2, big5)]
    gb = _reading(data, "gb18030")
    readings.append((_faults(gb, readings[0][0]), 1, gb))
    fewest = min(reading[0] for reading in readings)
    if fewest:
        decoded = _reading(data, "utf-8")
        readings.append((_faults(decoded, fewest), 0, decoded))
        fewest = min(reading[0] for reading in readings)
    tied = [reading for reading in readings if reading[0] == fewest]
    if len(tied) == 1:
        return tied[0][2]
    return min(tied, key=lambda reading: (-_record_chars(reading[2].text), reading[1]))[2]


def decode(data: bytes) -> str:
    """The text of `read` (a damaged byte is U+FFFD)."""
    return read(data).text
