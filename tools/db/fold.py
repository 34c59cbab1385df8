"""Text as the database compares it: traditional and simplified Chinese
characters are one (張雄飛 finds 张雄飞 and the other way round), case and
full-width forms do not count, and runs of spaces are one space.

The character table (traditional.txt beside this module) is derived from
OpenCC's TSCharacters.txt (Open Chinese Convert, Apache License 2.0): each
traditional character with a single-character simplified form.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

_TABLE_PATH = Path(__file__).with_name("traditional.txt")


@lru_cache(maxsize=1)
def _to_simplified() -> dict[int, str]:
    pairs = "".join(line.strip() for line in _TABLE_PATH.read_text(encoding="utf-8").splitlines()
                    if line.strip() and not line.startswith("#"))
    return {ord(pairs[i]): pairs[i + 1] for i in range(0, len(pairs) - 1, 2)}


def fold(text: str | None) -> str:
    """The form of `text` that searches compare: simplified characters,
    NFKC (full-width letters and digits as ASCII), lower case, spaces
    collapsed. None folds to ''.

    >>> fold("張雄飛") == fold("张雄飞")
    True
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_to_simplified()).casefold()
    return " ".join(text.split())
