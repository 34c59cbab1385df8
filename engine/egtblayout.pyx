# The layout of a tablebase: the pieces of an endgame (its name), the
# squares each can ever stand on, a position's index, and the folded values
# a file stores (engine/egtbfile.py writes and reads the files). See
# engine/egtb.pyx for what the values mean.
#
# Indexing. Each piece's squares are limited to where it can ever stand
# (a general to its palace's 9 points, an advisor to 5, an elephant to 7, a
# pawn to the 55 squares in front of its start, others to all 90); two like
# pieces of a side share one index over unordered pairs. index = side to
# move + 2 * (mixed radix over the pieces in table order).

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport uint8_t, int64_t
from libc.string cimport memset, memcpy

import array

from tuong.engine.rows import flip_square, mirror_square

LETTERS = "KAEHRCP"
MAX_SIZE = 1 << 36               # positions in one table: 64 GiB of values
# Order of pieces within a side's part of the name and of the index.
ORDER = {k: i for i, k in enumerate("KRCHPAE")}


def domain(kind, colour):
    """The squares (0-89, rank * 9 + file) where a piece can ever stand."""
    squares = []
    for r in range(10):
        for f in range(9):
            rr = r if colour == 0 else 9 - r
            if kind == KING:
                ok = 3 <= f <= 5 and rr <= 2
            elif kind == ADVISOR:
                ok = (f, rr) in ((3, 0), (5, 0), (4, 1), (3, 2), (5, 2))
            elif kind == ELEPHANT:
                ok = (f, rr) in ((2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4))
            elif kind == PAWN:
                ok = rr >= 5 or (rr in (3, 4) and f % 2 == 0)
            else:
                ok = True
            if ok:
                squares.append(r * 9 + f)
    return squares


def parse_name(name):
    """'KRAvKEE' -> [(colour, kind), ...] in table order; ValueError if malformed."""
    parts = name.split("v")
    if len(parts) != 2 or not all(p.startswith("K") and p.count("K") == 1 for p in parts):
        raise ValueError(f"not an endgame name: {name!r} (e.g. KRvK, KHvKAA, KCAvKEE)")
    pieces = []
    for colour, part in enumerate(parts):
        if any(c not in LETTERS for c in part):
            raise ValueError(f"{name!r}: pieces are K A E H R C P")
        if sorted(part, key=ORDER.get) != list(part):
            raise ValueError(f"{name!r}: write each side's pieces in the order K R C H P A E")
        for kind in ("A", "E"):
            if part.count(kind) > 2:
                raise ValueError(f"{name!r}: at most two {kind}")
        if part.count("P") > 5 or any(part.count(k) > 2 for k in "RCH"):
            raise ValueError(f"{name!r}: too many pieces of one kind")
        pieces += [(colour, LETTERS.index(c)) for c in part]
    if len(pieces) > MAXP:
        raise ValueError(f"{name!r}: at most {MAXP} pieces")
    # Kings first (the index's outer digits), then the rest in name order.
    return sorted(pieces, key=lambda p: (p[1] != KING, p[0], ORDER[LETTERS[p[1]]]))


def draws_proven(pieces):
    """Do the table's draws hold under our rules? Yes when at most one side
    has an attacker (rook, cannon, horse, pawn): the other side can neither
    check nor chase throughout a cycle. [(colour, kind)]."""
    return len({colour for colour, kind in pieces if kind not in (KING, ADVISOR, ELEPHANT)}) < 2


def name_of(pieces):
    """The inverse of parse_name: [(colour, kind)] -> 'KRAvKEE'."""
    sides = ["", ""]
    for colour, kind in sorted(pieces, key=lambda p: (p[0], ORDER[LETTERS[p[1]]])):
        sides[colour] += LETTERS[kind]
    return "v".join(sides)


# rows.flip_square as a table, for the probes (nogil).
cdef int FLIPPED[90]
for _sq in range(90):
    FLIPPED[_sq] = flip_square(_sq)
del _sq


cdef int flipped_square(int sq) noexcept nogil:
    return FLIPPED[sq]


cdef int init_spec(Spec* s, str name) except -1:
    """Fill s for the endgame `name` (parse_name's order); ValueError if it
    cannot be indexed."""
    pieces = parse_name(name)
    memset(s, 0, sizeof(Spec))
    s.n = len(pieces)
    for i, (colour, kind) in enumerate(pieces):
        s.colour[i], s.kind[i] = colour, kind
    s.size = 2
    g = -1
    for i, (colour, kind) in enumerate(pieces):
        if g >= 0 and (s.colour[s.gstart[g]], s.kind[s.gstart[g]]) == (colour, kind):
            s.gsize[g] += 1
            if s.gsize[g] > 2:
                raise ValueError(f"{name}: more than two like pieces are not indexed")
            continue
        g += 1
        s.gstart[g], s.gsize[g] = i, 1
        squares = domain(kind, colour)
        s.dsize[g] = len(squares)
        for q in range(90):
            s.dpos[g][q] = -1
        for k, q in enumerate(squares):
            s.dom[g][k] = q
            s.dpos[g][q] = k
    s.ngroups = g + 1
    size = 2
    for g in range(s.ngroups):
        s.radix[g] = s.dsize[g] * (s.dsize[g] - 1) // 2 if s.gsize[g] == 2 else s.dsize[g]
        size *= s.radix[g]
    if size > MAX_SIZE:
        raise ValueError(f"{name}: {size:,} positions, more than this generator holds "
                         f"({MAX_SIZE:,})")
    s.size = size
    return 0


cdef int64_t folded_size(const Spec* s):
    """Bytes of fold()."""
    cdef int64_t block = s.size // s.radix[0]
    return block * sum(1 for k in range(s.radix[0]) if s.dom[0][k] % 9 != 5)


cdef bytes fold(const Spec* s, const uint8_t* values):
    """The values with the left-right mirror folded away: the positions
    whose Red general stands on the d or e file (the f file's are their
    mirrors). Red's general is the index's outermost digit."""
    cdef int64_t block = s.size // s.radix[0]
    cdef int digit
    parts = []
    for digit in range(s.radix[0]):
        if s.dom[0][digit] % 9 != 5:
            parts.append(PyBytes_FromStringAndSize(<char*> values + digit * block, block))
    return b"".join(parts)


cdef int unfold(const Spec* s, uint8_t* values, bytes data, str name) except -1:
    """Fill the values from folded() data: a position whose Red general
    stands on the f file takes its mirror's value. The mirror of an
    index is a sum of each group's mirrored digit times its stride, so
    it is kept up to date digit by digit as the positions are walked in
    index order, rather than decoding each position."""
    cdef int64_t block = s.size // s.radix[0]
    cdef int64_t kept = 0, inner, count, mirror, dst, src
    cdef int digit, g, k, a, b, q, r
    cdef const uint8_t* raw = data
    expected = block * sum(1 for k in range(s.radix[0]) if s.dom[0][k] % 9 != 5)
    if len(data) != expected:
        raise ValueError(f"{name}: {len(data)} values, expected {expected}")
    for digit in range(s.radix[0]):
        if s.dom[0][digit] % 9 != 5:
            memcpy(values + digit * block, raw + kept, block)
            kept += block
    # Each group's digit -> its mirrored digit, and the groups' strides.
    cdef int64_t* mirrored[MAXG]
    cdef int64_t stride[MAXG]
    cdef int digits[MAXG]
    cdef int64_t radix
    maps = []
    for g in range(s.ngroups):
        table = array.array("q", [0] * s.radix[g])
        for k in range(s.radix[g]):
            if s.gsize[g] == 2:
                b = 1
                while (b + 1) * b // 2 <= k:
                    b += 1
                a = k - b * (b - 1) // 2
                q = s.dpos[g][mirror_square(s.dom[g][a])]
                r = s.dpos[g][mirror_square(s.dom[g][b])]
                table[k] = pair_index(min(q, r), max(q, r))
            else:
                table[k] = s.dpos[g][mirror_square(s.dom[g][k])]
        maps.append(table)
    cdef int64_t[::1] view
    for g in range(s.ngroups):
        view = maps[g]
        mirrored[g] = &view[0]
    count = block // 2                   # the inner digits' positions
    stride[s.ngroups - 1] = 1
    for g in range(s.ngroups - 2, 0, -1):
        stride[g] = stride[g + 1] * s.radix[g + 1]
    with nogil:
        for digit in range(s.radix[0]):
            if s.dom[0][digit] % 9 != 5:
                continue
            mirror = 0
            for g in range(1, s.ngroups):
                digits[g] = 0
                mirror += mirrored[g][0] * stride[g]
            src = mirrored[0][digit] * block
            dst = digit * block
            for inner in range(count):
                values[dst + 2 * inner] = values[src + 2 * mirror]
                values[dst + 2 * inner + 1] = values[src + 2 * mirror + 1]
                g = s.ngroups - 1
                while g >= 1:                    # the next index: an odometer
                    mirror -= mirrored[g][digits[g]] * stride[g]
                    digits[g] += 1
                    if digits[g] < s.radix[g]:
                        mirror += mirrored[g][digits[g]] * stride[g]
                        break
                    digits[g] = 0
                    mirror += mirrored[g][0] * stride[g]
                    g -= 1
    return 0
