"""Traditional Chinese for a zh-Hant page: the Xiangqi words tuong writes.

The notation (tools/records/notation.py), the book's commentary and the
annotation's notes write simplified characters (车, 马, 进, 后 ...); a page
in traditional Chinese gets them as 車, 馬, 進, 後. The table covers every
simplified character those writers use (commentary.HANT and the notation's
own); any other character is written the same in both scripts. Only text
tuong writes goes through it: a record's own comments and headers are
never changed.
"""
from tuong.tools.records import commentary

_MORE = {
    "进": "進", "后": "後", "过": "過", "顺": "順", "风": "風", "飞": "飛", "宫": "宮",
    "门": "門", "两": "兩", "为": "為", "这": "這", "个": "個", "们": "們", "还": "還",
    "边": "邊", "么": "麼", "从": "從", "时": "時", "着": "著", "胜": "勝", "败": "敗",
    "级": "級", "说": "說", "请": "請", "让": "讓", "开": "開", "关": "關", "单": "單",
}
HANT: dict[int, int | str] = dict(commentary.HANT)
HANT.update({ord(simple): full for simple, full in _MORE.items()})


def traditional(text: str) -> str:
    """`text` (tuong's simplified Chinese words) in traditional characters."""
    return text.translate(HANT)


def for_lang(text, lang: str):
    """`text` as a page in `lang` shows it: traditional for zh-Hant, else as
    it is (None stays None)."""
    if text is None or lang != "zh-Hant":
        return text
    return traditional(text)


def movetext(pgn: str) -> str:
    """A PGN with its moves in traditional characters: the tag lines and the
    comments ({...} and ; to the end of the line) are the record's words and
    stay as they are."""
    out, i, n = [], 0, len(pgn)
    at_line_start = True
    while i < n:
        ch = pgn[i]
        if at_line_start and ch == "[":
            end = pgn.find("\n", i)
            end = n if end < 0 else end
            out.append(pgn[i:end])
            i = end
            continue
        if ch in "{;":
            end = pgn.find("}" if ch == "{" else "\n", i + 1)
            end = n if end < 0 else end + (1 if ch == "{" else 0)
            out.append(pgn[i:end])
            i = end
            at_line_start = False
            continue
        out.append(traditional(ch))
        at_line_start = ch == "\n"
        i += 1
    return "".join(out)
