"""ECCO opening codes learned from tagged games, not from rules.

A model is built from games that carry an `[ECCO]` tag: for each line a
game begins with (its first moves, up to MAX_PLY plies), the codes of the
games that begin so are counted, and the line keeps its most frequent
code. A game is classified by the longest of its beginnings the model
knows: the longer the shared line, the more specific the code. Lines are
move orders, not positions (ECCO codes follow the order the moves came
in: on the corpus, classifying by positions, transpositions meeting, was
right 10 points less often), and a line and its mirror image are one (a
cannon to the centre from the left is the same opening). A line whose code
is its shorter line's is not stored. A game that leaves the known lines at
once (an unusual first move) has no code.

Names: a code's Chinese name is learned too (the opening-study records'
line names of that code, else the opening folder its games are filed in);
the ECCO letters' families are named in English, Vietnamese and Chinese
(FAMILIES). The shipped model (ecco.bin beside this module) was built from
the Chinese Chess Practical Dataset (Yvonne761/Chinese-Chess-Practical-
Dataset, CC BY 4.0); docs/guide/database.md gives its held-out accuracy.
"""
from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tuong.engine.board import Board
from tuong.engine.rows import mirror_move
from tuong.tools.db.store import signed_key

MAX_PLY = 20
"""The longest beginning (in plies) the model learns and reads."""
MODEL_PATH = Path(__file__).with_name("ecco.bin")
"""The shipped model: ecco.bin beside this module."""
_MAGIC = b"TUONG-ECCO1\n"

FAMILIES = {
    "A": ("Openings other than the Central Cannon", "Các khai cuộc không Pháo đầu",
          "非中炮类开局", "非中炮類開局"),
    "B": ("Central Cannon against defences other than Screen Horses",
          "Pháo đầu đối các thế thủ khác Bình phong mã", "中炮对非屏风马", "中炮對非屏風馬"),
    "C": ("Central Cannon against Screen Horses", "Pháo đầu đối Bình phong mã",
          "中炮对屏风马", "中炮對屏風馬"),
    "D": ("Central Cannon against Same or Opposite Direction Cannons",
          "Pháo đầu đối Thuận pháo hoặc Nghịch pháo", "顺炮与列炮", "順炮與列炮"),
    "E": ("Pawn Opening", "Tiên nhân chỉ lộ", "仙人指路", "仙人指路"),
}
"""The ECCO letters' families: (English, Vietnamese, simplified Chinese, traditional Chinese)."""
LANG_INDEX = {"en": 0, "vi": 1, "zh-Hans": 2, "zh-Hant": 3}
"""A language's place in FAMILIES' names."""
_START = Board().fen()


@dataclass
class Model:
    """A learned classifier: position key to code, and code to Chinese name."""
    codes: dict[int, str]
    """line_keys' key of a game's beginning to the ECCO code it was learned to mean."""
    names: dict[str, str]
    """An ECCO code to its learned Chinese name (traditional characters)."""

    def classify(self, moves: Sequence[str], fen: str | None = None) -> str | None:
        """The ECCO code of a game from its moves (coordinates), None when
        even its first move is unknown (or it does not start from the start)."""
        if fen is not None and Board(fen).fen() != _START:
            return None
        found = None
        for key in line_keys(moves):
            found = self.codes.get(key, found)
        return found

    def name(self, code: str, lang: str = "zh-Hant") -> str:
        """The name of `code`: its learned Chinese name (traditional or
        simplified as `lang` asks; for English and Vietnamese, the family's
        name), else its family's name."""
        family = FAMILIES.get(code[:1])
        index = LANG_INDEX.get(lang, 0)
        learned = self.names.get(code)
        if learned and index >= 2:
            return learned if index == 3 else _simplified(learned)
        return family[index] if family else code


def _simplified(text: str) -> str:
    from tuong.tools.db.fold import _to_simplified
    return text.translate(_to_simplified())


def line_keys(moves: Sequence[str], max_ply: int = MAX_PLY) -> list[int]:
    """The keys of a game's beginnings, the empty one first: a hash of the
    moves in the orientation that makes the first move off the centre file
    the smaller of it and its mirror (so a line and its mirror share keys)."""
    digest = hashlib.blake2b(b"", digest_size=8).digest()
    keys = [signed_key(int.from_bytes(digest, "little"))]
    mirrored = None
    for move in moves[:max_ply]:
        image = mirror_move(move)
        if mirrored is None and image != move:
            mirrored = image < move
        digest = hashlib.blake2b(digest + (image if mirrored else move).encode(),
                                 digest_size=8).digest()
        keys.append(signed_key(int.from_bytes(digest, "little")))
    return keys


def build(games: Iterable[tuple[Sequence[str], str]], names: dict[str, str] | None = None,
          max_ply: int = MAX_PLY) -> Model:
    """A Model from (moves from the start, ECCO code) pairs."""
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    children: dict[int, set[int]] = defaultdict(set)
    for moves, code in games:
        keys = line_keys(moves, max_ply)
        for parent, key in zip([None, *keys], keys):
            counts[key][code] += 1
            if parent is not None:
                children[parent].add(key)
    codes: dict[int, str] = {}
    root = line_keys(())[0]
    stack: list[tuple[int, str | None]] = [(root, None)]
    while stack:                       # keep a line only where its code changes
        key, inherited = stack.pop()
        code = counts[key].most_common(1)[0][0]
        if code != inherited:
            codes[key] = code
        stack.extend((child, code) for child in children.get(key, ()))
    return Model(codes, dict(names or {}))


def save(model: Model, path: str | Path = MODEL_PATH) -> None:
    """Write `model` compactly: keys and code numbers, zlib-compressed."""
    table = sorted(set(model.codes.values()))
    index = {code: i for i, code in enumerate(table)}
    header = json.dumps({"codes": table, "names": model.names}, ensure_ascii=False).encode()
    body = b"".join(struct.pack("<qH", key, index[code])
                    for key, code in sorted(model.codes.items()))
    Path(path).write_bytes(_MAGIC + struct.pack("<I", len(header)) + header
                           + zlib.compress(body, 9))


def load(path: str | Path = MODEL_PATH) -> Model:
    """The model written by save(). Raises ValueError for another file."""
    data = Path(path).read_bytes()
    if not data.startswith(_MAGIC):
        raise ValueError(f"{path}: not an ECCO model")
    at = len(_MAGIC)
    (size,) = struct.unpack_from("<I", data, at)
    header = json.loads(data[at + 4:at + 4 + size])
    body = zlib.decompress(data[at + 4 + size:])
    table = header["codes"]
    codes = {key: table[code] for key, code in struct.iter_unpack("<qH", body)}
    return Model(codes, header["names"])


@lru_cache(maxsize=1)
def shipped() -> Model:
    """The model shipped with tuong (ecco.bin)."""
    return load(MODEL_PATH)


def classify(moves: Sequence[str], fen: str | None = None) -> str | None:
    """The ECCO code of a game by the shipped model (see Model.classify)."""
    return shipped().classify(moves, fen)
