"""The network file: a quantised NNUE for engine/nnue.pyx. Plain Python
(the standard library only), so that the engine, the trainer and the tests
read and write the same format.

All integers little-endian:

    offset  size         field
    0       8            magic b"TUONGNN\\0"
    8       4  uint32    version (1; 2 for king buckets; 3 for a hidden layer)
    12      4  uint32    architecture hash: CRC-32 of the architecture's sentence
                         (ARCHITECTURE or BUCKETED: features, buckets, hidden size,
                         activation, layers)
    16      4  uint32    features (1260: piece-square features a perspective)
    20      4  uint32    hidden: accumulator values a perspective (H)
    24      4  uint32    QA: the accumulator's unit (255); activations clamp to [0, QA]
    28      4  uint32    QB: the output weights' unit (1024)
    32      4  uint32    scale: centipawns per unit of the float network's output
    versions 2 and 3:
    36      4  uint32    buckets B: the feature transformer has a block of 1260
                         features for each place of the perspective's own general
                         (engine/nnue.pyx: 6, the palace folded left-right)
    version 3 only:
    40      4  uint32    layer L: units of the hidden layer after the transformer (1..32)
    44      4  uint32    QH: the hidden layer's weights' unit (1024)
    then    4  uint32    description length D, then D bytes of UTF-8
            2H int16     feature-transformer biases
            2*1260*B*H   feature-transformer weights, int16, feature-major (B = 1 in
                         version 1)
            4*1260       piece-square path, int32, units of the output (QA * QB / scale
                         a centipawn); never bucketed
            4H int16     output weights: side to move's H, then the other side's H
            4  int32     output bias (units of QA * QB)
    version 3 only: the hidden layer, beside the output above (which it adds to):
            4LH int16    its weights, unit-major: unit j's side to move's H, then
                         the other side's H (units of QH)
            4L  int32    its biases (units of QA * QH)
            2L  int16    its output weights (units of QB)
            4  uint32    CRC-32 of every byte before it

The hidden layer's unit j is clamp(sum of the clipped accumulators times its
weights + its bias, 0, QA * QH), and the output's sum gets (the sum over j of
unit j times its output weight) / QH, summed in 64 bits. Each unit's own sum
is taken in 32 bits, so a unit with QA * sum |weights| + |bias| >= 2^31 is
refused.

A network without buckets or a hidden layer is written as version 1 (gen2
and every network before it), one with buckets only as version 2, so that
each file the engine ever read still loads.

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
from dataclasses import dataclass

from tuong.engine.files import NotAFileError, open_regular, read_regular

MAGIC = b"TUONGNN\0"
VERSION = 1                     # a file without buckets
BUCKETED_VERSION = 2
LAYERED_VERSION = 3             # a hidden layer after the transformer
FEATURES = 1260
BUCKETS = (1, 6)                # what the engine evaluates: none, or the folded palace
MAX_HIDDEN = 512
MAX_LAYER = 32                  # units of the hidden layer, at most
ARCHITECTURE = "tuong-nnue features=xiangqi-piece-square-{features} hidden={hidden} " \
               "activation=clipped-relu output=1 psqt=1"
BUCKETED = "tuong-nnue features=xiangqi-piece-square-{features} king-buckets={buckets} " \
           "hidden={hidden} activation=clipped-relu output=1 psqt=1"
LAYERED = "tuong-nnue features=xiangqi-piece-square-{features} king-buckets={buckets} " \
          "hidden={hidden} activation=clipped-relu layer={layer} activation=clipped-relu " \
          "output=1+skip psqt=1"
# One term of the output (the bias, a piece-square weight, one hidden
# unit at full activation) worth this many centipawns or more marks a
# broken network: it is a hundred pawns.
SANE_TERM_CP = 10_000
HEAD = struct.Struct("<8sIIIIIII")             # up to scale
BUCKETS_FIELD = struct.Struct("<I")
LAYER_FIELDS = struct.Struct("<II")            # layer, QH
TEXT_LENGTH = struct.Struct("<I")
# The largest network file read: the widest network with the most buckets
# and a description of up to 1 MiB (a larger file is refused before it is read).
MAX_FILE_BYTES = HEAD.size + 16 + 2**20 + \
    (2 + 2 * FEATURES * max(BUCKETS) * 2 + 4) * MAX_HIDDEN + 4 * FEATURES + 12 + \
    (4 * MAX_HIDDEN + 6) * MAX_LAYER


class NetworkError(ValueError):
    """A network file that cannot be used."""


def architecture_hash(features: int, hidden: int, buckets: int = 1, layer: int = 0) -> int:
    if layer:
        return zlib.crc32(LAYERED.format(features=features, hidden=hidden, buckets=buckets,
                                         layer=layer).encode())
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
    layer: int = 0            # units of the hidden layer after the transformer (0: none)
    qh: int = 1024            # the hidden layer's weights' unit
    layer_weights: bytes = b""    # int16[layer][2 * hidden]
    layer_bias: bytes = b""       # int32[layer]
    layer_out: bytes = b""        # int16[layer]


def version_of(net: Network) -> int:
    """The oldest format that holds the network."""
    if net.layer:
        return LAYERED_VERSION
    return VERSION if net.buckets == 1 else BUCKETED_VERSION


def encode(net: Network) -> bytes:
    """The bytes of a network file."""
    text = net.description.encode("utf-8")
    version = version_of(net)
    body = HEAD.pack(MAGIC, version,
                     architecture_hash(net.features, net.hidden, net.buckets, net.layer),
                     net.features, net.hidden, net.qa, net.qb, net.scale)
    if version >= BUCKETED_VERSION:
        body += BUCKETS_FIELD.pack(net.buckets)
    if version == LAYERED_VERSION:
        body += LAYER_FIELDS.pack(net.layer, net.qh)
    body += TEXT_LENGTH.pack(len(text)) + text
    body += net.ft_bias + net.ft_weights + net.psqt_weights + net.out_weights
    body += struct.pack("<i", net.out_bias)
    if version == LAYERED_VERSION:
        body += net.layer_weights + net.layer_bias + net.layer_out
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
    if version not in (VERSION, BUCKETED_VERSION, LAYERED_VERSION):
        raise NetworkError(f"{name}: format version {version}; this tuong reads versions "
                           f"{VERSION} to {LAYERED_VERSION}")
    at = HEAD.size
    buckets, layer, qh = 1, 0, 1024
    if version >= BUCKETED_VERSION:
        (buckets,) = BUCKETS_FIELD.unpack_from(data, at)
        at += BUCKETS_FIELD.size
    if version == LAYERED_VERSION:
        if len(data) < at + LAYER_FIELDS.size + 4:
            raise NetworkError(f"{name}: truncated ({len(data)} bytes, not even a header)")
        layer, qh = LAYER_FIELDS.unpack_from(data, at)
        at += LAYER_FIELDS.size
    (text_len,) = TEXT_LENGTH.unpack_from(data, at)
    at += TEXT_LENGTH.size
    if features != FEATURES or not 0 < hidden <= MAX_HIDDEN or hidden % 16 \
            or buckets not in BUCKETS \
            or (version != LAYERED_VERSION and (buckets == 1) != (version == VERSION)) \
            or (version == LAYERED_VERSION) != (0 < layer <= MAX_LAYER) \
            or arch != architecture_hash(features, hidden, buckets, layer):
        raise NetworkError(f"{name}: wrong architecture (hash {arch:#010x}, {features} features, "
                           f"{buckets} buckets, hidden {hidden}, layer {layer}); this tuong "
                           f"evaluates "
                           f"{ARCHITECTURE.format(features=FEATURES, hidden='16..512')}, "
                           f"that with king-buckets=6, and either with a hidden layer of "
                           f"1..{MAX_LAYER}")
    if not (0 < qa < 32768 and 0 < qb < 32768 and 0 < scale < 100000 and 0 < qh < 32768):
        raise NetworkError(f"{name}: quantisation out of range (QA {qa}, QB {qb}, scale {scale}"
                           f"{f', QH {qh}' if layer else ''})")
    sizes = [2 * hidden, 2 * features * buckets * hidden, 4 * features, 4 * hidden, 4,
             4 * layer * hidden, 4 * layer, 2 * layer, 4]
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
    for size in sizes[:-1]:
        parts.append(bytes(data[at:at + size]))
        at += size
    ft_bias, ft_weights, psqt, out_weights, bias, layer_weights, layer_bias, layer_out = parts
    (out_bias,) = struct.unpack("<i", bias)
    net = Network(hidden, ft_bias, ft_weights, psqt, out_weights, out_bias, qa=qa, qb=qb,
                  scale=scale, description=description, features=features, buckets=buckets,
                  layer=layer, qh=qh, layer_weights=layer_weights, layer_bias=layer_bias,
                  layer_out=layer_out)
    check_ranges(name, net)
    return net


def _ints(code: str, data: bytes) -> "array.array[int]":
    values = array.array(code, data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def check_ranges(name: str, net: Network) -> None:
    """Refuse weights that could overflow the engine's integer sums, or
    one of whose terms alone is worth SANE_TERM_CP or more."""
    hidden, qa = net.hidden, net.qa
    ft_bias, ft_weights, out_weights = (_ints("h", part) for part in
                                        (net.ft_bias, net.ft_weights, net.out_weights))
    psqt = _ints("i", net.psqt_weights)
    largest = [0] * hidden
    for f in range(len(ft_weights) // hidden):
        row = ft_weights[f * hidden:(f + 1) * hidden]
        largest = [max(m, abs(w)) for m, w in zip(largest, row)]
    if any(abs(b) + 32 * m > 32767 for b, m in zip(ft_bias, largest)):
        raise NetworkError(f"{name}: feature weights too large (an accumulator could overflow)")
    bound = qa * sum(abs(w) for w in out_weights) + abs(net.out_bias) + 32 * max(map(abs, psqt))
    if bound >= 2 ** 31:
        raise NetworkError(f"{name}: output weights too large (the sum could overflow)")
    if net.layer:
        weights, biases = _ints("h", net.layer_weights), _ints("i", net.layer_bias)
        width = 2 * hidden
        for j in range(net.layer):
            if qa * sum(map(abs, weights[j * width:(j + 1) * width])) + abs(biases[j]) \
                    >= 2 ** 31:
                raise NetworkError(f"{name}: hidden layer weights too large (unit {j}'s sum "
                                   f"could overflow)")
    # The engine clamps every evaluation below the mate scores; a network
    # one of whose terms alone is worth more than SANE_TERM_CP would spend
    # its life against that clamp, so it is refused as broken.
    per_cp = qa * net.qb / net.scale
    terms = {"output bias": abs(net.out_bias), "piece-square weight": max(map(abs, psqt)) / 2,
             "output weight": qa * max(map(abs, out_weights))}
    if net.layer:               # (the engine sums the layer's output in 64 bits)
        terms["hidden layer output weight"] = qa * max(map(abs, _ints("h", net.layer_out)))
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
