"""tools/records/encoding.py's quick reading against the long one it replaced:
every candidate encoding read with the fault-counting handler, faults counted
character by character, the comment braces found by a look-ahead that tried
again from every byte. The same text, encoding and damaged offsets on random
bytes full of braces, cut characters and lead bytes, and on real records
made over in UTF-8, GB18030 and Big5, damaged too."""
import codecs
import collections
import random
import re

from tuong.tools.records import encoding

_SLOW_EVENTS = re.compile(
    rb"(?=((?:[^\x81-\xfe{}]|[\x81-\xfe][^}])*))\1([{}]|[\x81-\xfe]\x7d)", re.DOTALL)


def _slow_unswallow(data, name):
    if name not in encoding._INVALID or b"}" not in data:
        return data
    events = [(m.start(2), m.group(2)) for m in _SLOW_EVENTS.finditer(data)]
    fixed, inside = None, False
    for i, (at, what) in enumerate(events):
        if what in (b"{", b"}"):
            inside = what == b"{"
        elif inside:
            after = events[i + 1][1] if i + 1 < len(events) else b"{"
            if after == b"{":
                fixed = fixed or bytearray(data)
                fixed[at] = encoding._INVALID[name]
                inside = False
    return data if fixed is None else bytes(fixed)


_FAULTS: list[int] = []


def _count(error):
    _FAULTS.append(error.start)
    return "\ufffd", error.end


codecs.register_error("tuong-test-encoding-slow", _count)


def _slow_reading(data, name):
    _FAULTS.clear()
    text = _slow_unswallow(data, name).decode(name, errors="tuong-test-encoding-slow")
    return encoding.Decoded(text, name, list(_FAULTS))


def _slow_read(data):
    try:
        return encoding.Decoded(data.decode("utf-8"), "utf-8", [])
    except UnicodeDecodeError:
        pass
    readings = []
    for preference, name in enumerate(("utf-8", "gb18030", "big5")):
        decoded = _slow_reading(data, name)
        counts = collections.Counter(decoded.text)
        faults = len(decoded.damaged) + sum(n for char, n in counts.items()
                                            if encoding._odd(char, name))
        readings.append((faults, -sum(char in encoding._RECORD_CHARS for char in decoded.text),
                         preference, decoded))
    return min(readings, key=lambda reading: reading[:3])[3]


_GAME = ('[Event "友誼賽"]\n[Red "柳大華"]\n\n1. 炮二平五 {中炮} 馬８進７ 2. 馬二進三 '
         '{屏風馬，黑方應以} 車９平８ 3. 車一平二 卒７進１\n1-0\n')


def _samples(rng):
    pieces = [b"{", b"}", b"\xa4", b"\xa4}", b"{\xa4}", b"\x81", b"\xff", b"\xe4\xb8",
              b"\xb1}", b"ab", b"\n", b"\xa4@"]
    for _ in range(3000):
        yield b"".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
    for name in ("utf-8", "gb18030", "big5"):
        data = _GAME.encode(name, errors="replace")
        yield data
        for _ in range(100):
            damaged = bytearray(data)
            for _ in range(rng.randrange(1, 4)):
                at = rng.randrange(len(damaged))
                damaged[at:at + rng.randrange(2)] = rng.choice(pieces)
            yield bytes(damaged)


def test_the_quick_reading_is_the_long_one():
    for data in _samples(random.Random(1)):
        quick, slow = encoding.read(data), _slow_read(data)
        assert (quick.text, quick.encoding, quick.damaged) == \
            (slow.text, slow.encoding, slow.damaged), data
        for name in ("big5", "gb18030"):
            assert encoding._unswallow(data, name) == _slow_unswallow(data, name), data
