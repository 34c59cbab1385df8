"""The network file: a quantised NNUE for engine/nnue.pyx. Plain Python
(the standard library only), so that the engine, the trainer and the tests
read and write the same format.

All integers little-endian:

    offset  size         field
    0       8            magic b"TUONGNN\\0"
    8       4  uint32    version (1, or 2 for king buckets)
    12      4  uint32    architecture hash: CRC-32 of the architecture's sentence
                         (ARCHITECTURE or BUCKETED: features, buckets, hidden size,
                         activation, layers)
    16      4  uint32    features (1260: piece-square features a perspective)
    20      4  uint32    hidden: accumulator values a perspective (H)
    24      4  uint32    QA: the accumulator's unit (255); activations clamp to [0, QA]
    28      4  uint32    QB: the output weights' unit (1024)
    32      4  uint32    scale: centipawns per unit of the float network's output
    version 2 only:
    36      4  uint32    buckets B: the feature transformer has a block of 1260
                         features for each place of the perspective's own general
                         (engine/nnue.pyx: 6, the palace folded left-right)
    then    4  uint32    description length D, then D bytes of UTF-8
            2H int16     feature-transformer biases
            2*1260*B*H   feature-transformer weights, int16, feature-major (B = 1 in
                         version 1)
            4*1260       piece-square path, int32, units of the output (QA * QB / scale
                         a centipawn); never bucketed
            4H int16     output weights: side to move's H, then the other side's H
            4  int32     output bias (units of QA * QB)
            4  uint32    CRC-32 of every byte before it

A network without buckets is written as version 1 (gen2 and every network
before it), so that each file the engine ever read still loads.

A file that is missing, cut short, too long, of another version or
architecture, or whose checksum does not match is refused with a
NetworkError naming the problem; so is one whose weights could overflow
the engine's integers (an accumulator beyond int16 with 32 pieces on the
board, the output's sum beyond int32), or one term of whose output alone
is worth SANE_TERM_CP centipawns or more.
"""
import array
import os
import struct
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from tuong.engine.files import NotAFileError, open_regular, read_regular

MAGIC = b"TUONGNN\0"
VERSION = 1                     # a file without buckets
BUCKETED_VERSION = 2
FEATURES = 1260
BUCKETS = (1, 6)                # what the engine evaluates: none, or the folded palace
MAX_HIDDEN = 512
ARCHITECTURE = "tuong-nnue features=xiangqi-piece-square-{features} hidden={hidden} " \
               "activation=clipped-relu output=1 psqt=1"
BUCKETED = "tuong-nnue features=xiangqi-piece-square-{features} king-buckets={buckets} " \
           "hidden={hidden} activation=clipped-relu output=1 psqt=1"
# One term of the output (the bias, a piece-square weight, one hidden
# unit at full activation) worth this many centipawns or more marks a
# broken network: it is a hundred pawns.
SANE_TERM_CP = 10_000
HEAD = struct.Struct("<8sIIIIIII")             # up to scale
BUCKETS_FIELD = struct.Struct("<I")
TEXT_LENGTH = struct.Struct("<I")
# The largest network file read: the widest network with the most buckets
# and a description of up to 1 MiB (a larger file is refused before it is read).
MAX_FILE_BYTES = HEAD.size + 8 + 2**20 + \
    (2 + 2 * FEATURES * max(BUCKETS) * 2 + 4) * MAX_HIDDEN + 4 * FEATURES + 12


class NetworkError(ValueError):
    """A network file that cannot be used."""


def architecture_hash(features: int, hidden: int, buckets: int = 1) -> int:
    if buckets == 1:
        return zlib.crc32(ARCHITECTURE.format(features=features, hidden=hidden).encode())
    return zlib.crc32(BUCKETED.format(features=features, hidden=hidden,
                                      buckets=buckets).encode())


@dataclass
class Network:
    hidden: int
    ft_bias: bytes            # int16[hidden]
    ft_weights: bytes         # int16[features][hidden]
    psqt_weights: bytes       # int32[features]
    out_weights: bytes        # int16[2 * hidden]
    out_bias: int
    qa: int = 255
    qb: int = 1024
    scale: int = 400
    description: str = ""
    features: int = FEATURES
    buckets: int = 1          # feature blocks by the perspective's general (1: none)


def encode(net: Network) -> bytes:
    """The bytes of a network file."""
    text = net.description.encode("utf-8")
    version = VERSION if net.buckets == 1 else BUCKETED_VERSION
    body = HEAD.pack(MAGIC, version, architecture_hash(net.features, net.hidden, net.buckets),
                     net.features, net.hidden, net.qa, net.qb, net.scale)
    if version == BUCKETED_VERSION:
        body += BUCKETS_FIELD.pack(net.buckets)
    body += TEXT_LENGTH.pack(len(text)) + text
    body += net.ft_bias + net.ft_weights + net.psqt_weights + net.out_weights
    body += struct.pack("<i", net.out_bias)
    return body + struct.pack("<I", zlib.crc32(body))


def write(path: str | os.PathLike[str], net: Network) -> None:
    with open(path, "wb") as f:
        f.write(encode(net))


def is_network_file(path: str | os.PathLike[str]) -> bool:
    """Whether the file starts as a network file does (for EvalFile's choice
    between a network and a weights file)."""
    try:
        with open_regular(path) as f:
            return f.read(len(MAGIC)) == MAGIC
    except (OSError, NotAFileError):
        return False


def decode(data: bytes, name: str = "network") -> Network:
    """A Network from a file's bytes; NetworkError naming the problem."""
    if len(data) < HEAD.size + 8:
        raise NetworkError(f"{name}: truncated ({len(data)} bytes, not even a header)")
    magic, version, arch, features, hidden, qa, qb, scale = HEAD.unpack_from(data)
    if magic != MAGIC:
        raise NetworkError(f"{name}: not a tuong network file")
    if version not in (VERSION, BUCKETED_VERSION):
        raise NetworkError(f"{name}: format version {version}; this tuong reads versions "
                           f"{VERSION} and {BUCKETED_VERSION}")
    at = HEAD.size
    buckets = 1
    if version == BUCKETED_VERSION:
        (buckets,) = BUCKETS_FIELD.unpack_from(data, at)
        at += BUCKETS_FIELD.size
    (text_len,) = TEXT_LENGTH.unpack_from(data, at)
    at += TEXT_LENGTH.size
    if features != FEATURES or not 0 < hidden <= MAX_HIDDEN or hidden % 16 \
            or buckets not in BUCKETS or (buckets == 1) != (version == VERSION) \
            or arch != architecture_hash(features, hidden, buckets):
        raise NetworkError(f"{name}: wrong architecture (hash {arch:#010x}, {features} features, "
                           f"{buckets} buckets, hidden {hidden}); this tuong evaluates "
                           f"{ARCHITECTURE.format(features=FEATURES, hidden='16..512')} "
                           f"and that with king-buckets=6")
    if not (0 < qa < 32768 and 0 < qb < 32768 and 0 < scale < 100000):
        raise NetworkError(f"{name}: quantisation out of range (QA {qa}, QB {qb}, scale {scale})")
    sizes = [2 * hidden, 2 * features * buckets * hidden, 4 * features, 4 * hidden, 4, 4]
    expected = at + text_len + sum(sizes)
    if len(data) < expected:
        raise NetworkError(f"{name}: truncated ({len(data)} bytes of {expected})")
    if len(data) > expected:
        raise NetworkError(f"{name}: {len(data) - expected} bytes too many")
    (checksum,) = struct.unpack_from("<I", data, expected - 4)
    if zlib.crc32(data[:expected - 4]) != checksum:
        raise NetworkError(f"{name}: corrupt (checksum mismatch)")
    try:
        description = data[at:at + text_len].decode("utf-8")
    except UnicodeDecodeError:
        raise NetworkError(f"{name}: the description is not UTF-8") from None
    at += text_len
    parts = []
    for size in sizes[:4]:
        parts.append(bytes(data[at:at + size]))
        at += size
    (out_bias,) = struct.unpack_from("<i", data, at)
    check_ranges(name, hidden, qa, qb, scale, parts, out_bias)
    # parts: the four byte fields, in order (mypy cannot count a *list)
    return Network(hidden, *parts, out_bias=out_bias, qa=qa, qb=qb,  # type: ignore[misc, arg-type]
                   scale=scale, description=description, features=features, buckets=buckets)


def check_ranges(name: str, hidden: int, qa: int, qb: int, scale: int, parts: Sequence[bytes],
                 out_bias: int) -> None:
    """Refuse weights that could overflow the engine's integer sums, or
    one of whose terms alone is worth SANE_TERM_CP or more."""
    ft_bias, ft_weights, psqt, out_weights = (array.array(code, part) for code, part in
                                              zip("hhih", parts))
    if sys.byteorder == "big":
        for values in (ft_bias, ft_weights, psqt, out_weights):
            values.byteswap()
    largest = [0] * hidden
    for f in range(len(ft_weights) // hidden):
        row = ft_weights[f * hidden:(f + 1) * hidden]
        largest = [max(m, abs(w)) for m, w in zip(largest, row)]
    if any(abs(b) + 32 * m > 32767 for b, m in zip(ft_bias, largest)):
        raise NetworkError(f"{name}: feature weights too large (an accumulator could overflow)")
    bound = qa * sum(abs(w) for w in out_weights) + abs(out_bias) + 32 * max(map(abs, psqt))
    if bound >= 2 ** 31:
        raise NetworkError(f"{name}: output weights too large (the sum could overflow)")
    # The engine clamps every evaluation below the mate scores; a network
    # one of whose terms alone is worth more than SANE_TERM_CP would spend
    # its life against that clamp, so it is refused as broken.
    per_cp = qa * qb / scale
    terms = {"output bias": abs(out_bias), "piece-square weight": max(map(abs, psqt)) / 2,
             "output weight": qa * max(map(abs, out_weights))}
    for term, units in terms.items():
        if units / per_cp >= SANE_TERM_CP:
            raise NetworkError(f"{name}: {term} worth {units / per_cp:.0f} cp, too large "
                               f"(no term may reach {SANE_TERM_CP} cp)")


def read(path: str | os.PathLike[str]) -> Network:
    """The Network in a file; NetworkError if it is missing or bad."""
    try:
        data = read_regular(path, MAX_FILE_BYTES, "a network file")
    except OSError as e:
        raise NetworkError(f"{path}: cannot read: {e.strerror or e}") from None
    except NotAFileError as e:
        raise NetworkError(f"{path}: {e}") from None
    return decode(data, str(path))
