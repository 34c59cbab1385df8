"""The opening's name, from a game's first moves: the families every Xiangqi
player knows, in English, Vietnamese and Chinese.

This is not ECCO: the ECCO codes' classification belongs to xqbase's tools
and no public copy of its rules with a licence that allows reuse was found,
so the names here come from the common, factual family names (中炮, 仙人指路,
飞相局, ...) recognised from the first moves, with both wings counted as one
(a cannon to the centre from either side is the Central Cannon). A line that
fits no family has no name rather than a guessed one.
"""
from __future__ import annotations

from tuong.engine.rows import mirror_move

# name: (English, Vietnamese, simplified Chinese, traditional Chinese)
NAMES = {
    "central-cannon": ("Central Cannon", "Pháo đầu", "中炮", "中炮"),
    "same-cannons": ("Central Cannon: Same Direction Cannons", "Pháo đầu đối Thuận pháo",
                     "顺炮", "順炮"),
    "opposite-cannons": ("Central Cannon: Opposite Direction Cannons",
                         "Pháo đầu đối Nghịch pháo", "列炮", "列炮"),
    "screen-horses": ("Central Cannon against Screen Horses", "Pháo đầu đối Bình phong mã",
                      "中炮对屏风马", "中炮對屏風馬"),
    "pawn": ("Pawn Opening", "Tiên nhân chỉ lộ", "仙人指路", "仙人指路"),
    "pawn-cannon": ("Pawn Opening against Cannon Behind Pawn", "Tiên nhân chỉ lộ đối Tốt để pháo",
                    "仙人指路对卒底炮", "仙人指路對卒底炮"),
    "elephant": ("Elephant Opening", "Phi tượng cục", "飞相局", "飛相局"),
    "elephant-cannon": ("Elephant Opening against Central Cannon", "Phi tượng đối Pháo đầu",
                        "飞相对中炮", "飛相對中炮"),
    "horse": ("Horse Opening", "Khởi mã cục", "起马局", "起馬局"),
    "advisor-cannon": ("Advisor Corner Cannon", "Sĩ giác pháo", "士角炮", "士角炮"),
    "palace-cannon": ("Palace Crossing Cannon", "Quá cung pháo", "过宫炮", "過宮炮"),
    "central-pawn": ("Central Pawn Opening", "Trung binh", "中兵局", "中兵局"),
}
LANG_INDEX = {"en": 0, "vi": 1, "zh-Hans": 2, "zh-Hant": 3}

# Red's first move on its right wing (the h-file side); the left wing is its mirror.
FIRST = {"h2e2": "central-cannon", "g3g4": "pawn", "g0e2": "elephant", "h0g2": "horse",
         "h2f2": "advisor-cannon", "h2d2": "palace-cannon", "e3e4": "central-pawn"}


def family(moves: list[str]) -> str | None:
    """The opening family of a game from the start position (its moves in
    a0-i9), or None."""
    if not moves:
        return None
    first = moves[0]
    mirrored = first not in FIRST
    if mirrored:
        first = mirror_move(first)
    name = FIRST.get(first)
    if name is None:
        return None
    # Black's replies, seen as if Red had played on its right wing.
    replies = [mirror_move(m) if mirrored else m for m in moves[1::2][:3]]
    if name == "central-cannon" and replies:
        if replies[0] == "h7e7":
            return "same-cannons"                   # 炮二平五 炮8平5
        if replies[0] == "b7e7":
            return "opposite-cannons"               # 炮二平五 炮2平5
        if {"h9g7", "b9c7"} <= set(replies[:2]):
            return "screen-horses"                  # 马8进7 and 马2进3
    if name == "pawn" and replies and replies[0] == "h7g7":
        return "pawn-cannon"                        # 兵三进一 炮8平7
    if name == "elephant" and replies and replies[0] in ("h7e7", "b7e7"):
        return "elephant-cannon"
    return name


def opening_name(moves: list[str], lang: str = "en") -> str | None:
    """The opening's name in a language (en, vi, zh-Hans, zh-Hant), or None."""
    found = family(moves)
    return None if found is None else NAMES[found][LANG_INDEX.get(lang, 0)]
