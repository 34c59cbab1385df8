"""The server's sentences in the page's language.

A refusal or a notice goes to the page with its English sentence as before
(`message` for an `error`, `text` for a `notice`) and beside it: `key`, the
English template it was made from (placeholders as `{name}`, the page's
t() form), `params`, the values put in, `detail`, the technical words after
the sentence (a parser's message, a FEN: never translated), and `local`,
the whole sentence in the session's language (the page's `settings`), with
the detail after it. A template not in CATALOG is said in English.

Also here: the names a game against the engine writes in the record when
the player gave none ("Player", "tuong (level 800)"), in the page's
language, and how a set-up position's problem (engine/board.pyx's words)
becomes a template.
"""
import re
from typing import Optional

from tuong.tools.web import hant

LANGS = ("en", "vi", "zh-Hans", "zh-Hant")
DEFAULT_PLAYER = "Player"        # what the page sends when the player gave no name
PLAYER_NAMES = {"en": "Player", "vi": "Người chơi", "zh-Hans": "棋手", "zh-Hant": "棋手"}
LEVEL_WORDS = {"en": "{engine} (level {elo})", "vi": "{engine} (cấp {elo})",
               "zh-Hans": "{engine} (等级 {elo})", "zh-Hant": "{engine} (等級 {elo})"}

# Values of params that are words: translated where they are put in.
WORDS = {
    "Red": ("Đỏ", "红方"), "Black": ("Đen", "黑方"),
    "Red king": ("Tướng Đỏ", "红帅"), "Black king": ("Tướng Đen", "黑将"),
    "Red advisor": ("Sĩ Đỏ", "红仕"), "Black advisor": ("Sĩ Đen", "黑士"),
    "Red elephant": ("Tượng Đỏ", "红相"), "Black elephant": ("Tượng Đen", "黑象"),
    "Red horse": ("Mã Đỏ", "红马"), "Black horse": ("Mã Đen", "黑马"),
    "Red rook": ("Xe Đỏ", "红车"), "Black rook": ("Xe Đen", "黑车"),
    "Red cannon": ("Pháo Đỏ", "红炮"), "Black cannon": ("Pháo Đen", "黑炮"),
    "Red pawn": ("Tốt Đỏ", "红兵"), "Black pawn": ("Tốt Đen", "黑卒"),
}

# English template -> (Vietnamese, simplified Chinese); traditional Chinese is
# the simplified through hant.traditional, unless HANT_OVERRIDES says otherwise.
CATALOG = {
    # Set-up positions
    "not a legal position: too many {piece}s: a set has {n}":
        ("thế cờ không hợp lệ: quá nhiều {piece}, một bộ cờ chỉ có {n}",
         "局面不合法：{piece}太多，一副棋只有 {n} 个"),
    "not a legal position: {piece} missing":
        ("thế cờ không hợp lệ: thiếu {piece}", "局面不合法：缺少{piece}"),
    "not a legal position: {piece} outside its palace at {where}":
        ("thế cờ không hợp lệ: {piece} ở {where}, ngoài cung",
         "局面不合法：{piece}在 {where}，出了九宫"),
    "not a legal position: {piece} off its palace diagonals at {where}":
        ("thế cờ không hợp lệ: {piece} ở {where}, không trên đường chéo của cung",
         "局面不合法：{piece}在 {where}，不在九宫斜线上"),
    "not a legal position: {piece} off its seven points at {where}":
        ("thế cờ không hợp lệ: {piece} ở {where}, không phải một trong bảy điểm của nó",
         "局面不合法：{piece}在 {where}，不在它的七个位置上"),
    "not a legal position: {piece} behind its starting rank at {where}":
        ("thế cờ không hợp lệ: {piece} ở {where}, sau hàng xuất phát của nó",
         "局面不合法：{piece}在 {where}，在它的起始线之后"),
    "not a legal position: a {piece} cannot stand on {where} (before the river, pawns stand "
    "only on the files a, c, e, g and i)":
        ("thế cờ không hợp lệ: {piece} không thể đứng ở {where} (trước sông, tốt chỉ đứng ở các "
         "cột a, c, e, g và i)",
         "局面不合法：{piece}不能在 {where}（过河之前，兵卒只在 a、c、e、g、i 线上）"),
    "not a legal position: the generals face each other on an open file":
        ("thế cờ không hợp lệ: hai tướng đối mặt trên một cột trống",
         "局面不合法：将帅在同一线上直接照面"),
    "not a legal position: the side not to move is in check":
        ("thế cờ không hợp lệ: bên không đến lượt đang bị chiếu",
         "局面不合法：不走棋的一方正被将军"),
    "not a legal position: the FEN is empty":
        ("thế cờ không hợp lệ: FEN trống", "局面不合法：FEN 是空的"),
    "not a legal position":
        ("thế cờ không hợp lệ", "局面不合法"),
    # Headers and names
    "headers must be an object of PGN tags":
        ("thông tin ván cờ phải là một đối tượng gồm các thẻ PGN", "棋局信息必须是 PGN 标签的对象"),
    "headers: {name} is not one of {names}":
        ("thông tin ván cờ: {name} không phải một trong {names}",
         "棋局信息：{name} 不是 {names} 之一"),
    "headers: Result must be one of {results}":
        ("thông tin ván cờ: Kết quả phải là một trong {results}",
         "棋局信息：结果必须是 {results} 之一"),
    "headers: {name} may not hold quotes, backslashes or new lines":
        ("thông tin ván cờ: {name} không được chứa dấu ngoặc kép, dấu gạch chéo ngược "
         "hay xuống dòng",
         "棋局信息：{name} 不能包含引号、反斜杠或换行"),
    "{name} must be a string of at most {n} characters":
        ("{name} phải là chuỗi tối đa {n} ký tự", "{name} 必须是不超过 {n} 个字符的文字"),
    "player may not hold quotes, backslashes or new lines":
        ("tên người chơi không được chứa dấu ngoặc kép, dấu gạch chéo ngược hay xuống dòng",
         "棋手名字不能包含引号、反斜杠或换行"),
    # Import
    "cannot import":
        ("không nhập được", "无法导入"),
    "nothing to import":
        ("không có gì để nhập", "没有可导入的内容"),
    "data is not valid base64":
        ("dữ liệu không phải base64 hợp lệ", "数据不是有效的 base64"),
    "import needs text or data (at most {n} bytes)":
        ("cần văn bản hoặc tệp để nhập (tối đa {n} byte)", "导入需要文本或文件（最多 {n} 字节）"),
    "{count} games in the file: the first ({white} - {black}) is loaded":
        ("{count} ván trong tệp: đã mở ván đầu tiên ({white} - {black})",
         "文件中有 {count} 局：已载入第一局（{white} - {black}）"),
    "some of the file was not read":
        ("một phần của tệp không đọc được", "文件有部分内容未能读取"),
    # Playing
    "illegal move {move} here":
        ("nước đi {move} không hợp lệ ở đây", "此处 {move} 是不合法的着法"),
    "the game is over":
        ("ván cờ đã kết thúc", "对局已结束"),
    "the game is over: no move to hint":
        ("ván cờ đã kết thúc: không có nước để gợi ý", "对局已结束：没有可提示的着法"),
    "it is the engine's turn":
        ("đang đến lượt máy", "轮到引擎走棋"),
    "{engine} is thinking":
        ("{engine} đang suy nghĩ", "{engine} 正在思考"),
    "{engine} is thinking: wait for its move or take back":
        ("{engine} đang suy nghĩ: hãy chờ nước đi hoặc đi lại",
         "{engine} 正在思考：请等它走棋或悔棋"),
    "the analysis has no line yet: ask again in a moment":
        ("phân tích chưa có biến nào: hãy hỏi lại sau giây lát", "分析还没有结果：请稍后再试"),
    "no hint: the engine gave no move":
        ("không có gợi ý: máy không đưa ra nước đi", "没有提示：引擎没有给出着法"),
    "no game to bring back":
        ("không có ván nào để mở lại", "没有可恢复的对局"),
    "a fallen flag is not taken back (the time is spent): go on as an analysis board, "
    "or start a new game":
        ("hết giờ thì không đi lại được (thời gian đã dùng): hãy tiếp tục như bàn phân tích, "
         "hoặc bắt đầu ván mới", "超时不能悔棋（时间已用完）：请作为分析棋盘继续，或开始新对局"),
    "that move is on the main line already":
        ("nước này đã ở biến chính", "这步棋已经在主线上"),
    "the start position cannot be deleted":
        ("không thể xóa thế cờ ban đầu", "起始局面不能删除"),
    "nothing to take back (or its place is gone)":
        ("không có gì để hoàn tác (hoặc chỗ của nó không còn)",
         "没有可撤销的操作（或它的位置已不存在）"),
    "cannot take back the deletion: the game would hold more than {n} moves, "
    "as many as a page keeps":
        ("không hoàn tác việc xóa được: ván cờ sẽ có hơn {n} nước, nhiều hơn một trang giữ được",
         "无法撤销删除：对局将超过 {n} 步，超出页面能保存的数量"),
    "the game holds {n} moves, as many as a page keeps: delete some variations first":
        ("ván cờ đã có {n} nước, bằng số một trang giữ được: hãy xóa bớt biến trước",
         "对局已有 {n} 步，达到页面能保存的上限：请先删除一些变着"),
    "a line of {n} moves is as long as a page keeps":
        ("một biến {n} nước là dài nhất một trang giữ được",
         "一条 {n} 步的棋路已是页面能保存的最长长度"),
    "resign and draw offers are for a game against the engine":
        ("xin thua và cầu hòa chỉ dành cho ván đấu với máy", "认输和提和只用于与引擎的对局"),
    "offer the draw on your own move":
        ("hãy cầu hòa khi đến lượt mình", "请在自己走棋时提和"),
    "offer the draw on your own move, not while {engine} thinks":
        ("hãy cầu hòa khi đến lượt mình, không phải khi {engine} đang nghĩ",
         "请在自己走棋时提和，不要在 {engine} 思考时提和"),
    "go to the end of the game to offer a draw":
        ("hãy đến cuối ván để cầu hòa", "请到对局的最后一步再提和"),
    "the analysis has no line yet: offer again in a moment":
        ("phân tích chưa có biến nào: hãy cầu hòa lại sau giây lát",
         "分析还没有结果：请稍后再提和"),
    "the engine could not judge the offer":
        ("máy không đánh giá được lời cầu hòa", "引擎无法判断和棋提议"),
    "{engine} declines the draw":
        ("{engine} từ chối hòa", "{engine} 拒绝和棋"),
    "{engine} does not play {variant}":
        ("{engine} không chơi {variant}", "{engine} 不下 {variant}"),
    "{engine} failed":
        ("{engine} gặp lỗi", "{engine} 出错"),
    "{engine} stopped; restarted":
        ("{engine} đã dừng; đã khởi động lại", "{engine} 已停止；已重新启动"),
    # Annotation
    "annotation is for Xiangqi games":
        ("chú giải chỉ dành cho ván cờ tướng", "注释只用于象棋对局"),
    "no moves to annotate":
        ("không có nước nào để chú giải", "没有可注释的着法"),
    "{engine} is playing this game: finish it, or choose '{engine} plays nobody', "
    "then annotate":
        ("{engine} đang chơi ván này: hãy chơi xong, hoặc chọn '{engine} không cầm bên nào', "
         "rồi chú giải", "{engine} 正在下这盘棋：请下完，或选择“{engine} 不执子”，再注释"),
    "an annotation is under way: wait for it to finish":
        ("đang chú giải: hãy chờ xong", "正在注释：请等它完成"),
    # A game of its own
    "a game against {engine} starts its own record from the board shown; "
    "the studied one comes back with Bring back":
        ("ván đấu với {engine} bắt đầu một biên bản riêng từ thế cờ đang xem; "
         "ván đang nghiên cứu được mở lại bằng Mở lại",
         "与 {engine} 的对局从当前局面开始一份新棋谱；研究中的棋谱可用“恢复”找回"),
    # The server
    "too many pages open (at most {n})":
        ("quá nhiều trang đang mở (tối đa {n})", "打开的页面太多（最多 {n} 个）"),
    "closed after being idle":
        ("đã đóng vì không hoạt động", "因长时间未操作已关闭"),
    "restore: the game could not be restored":
        ("mở lại: không mở lại được ván cờ", "恢复：无法恢复对局"),
    # The games database (tools/web/database.py)
    "the games database cannot be opened":
        ("không mở được cơ sở dữ liệu ván cờ", "无法打开对局数据库"),
    "{name} must be a whole number from {low} to {high}":
        ("{name} phải là số nguyên từ {low} đến {high}",
         "{name} 必须是 {low} 到 {high} 之间的整数"),
    "result must be one of {results}":
        ("kết quả phải là một trong {results}", "结果必须是 {results} 之一"),
    "the search cannot be answered":
        ("không tìm được theo các điều kiện này", "无法按这些条件搜索"),
    "{name} must be a list of 1 to {n} game ids":
        ("{name} phải là danh sách từ 1 đến {n} số hiệu ván",
         "{name} 必须是 1 到 {n} 个对局编号的列表"),
    "no such game in the database":
        ("không có ván này trong cơ sở dữ liệu", "数据库中没有这局棋"),
    "an import into the database is under way: wait for it to finish":
        ("đang nhập vào cơ sở dữ liệu: hãy chờ xong", "正在导入数据库：请等它完成"),
    "no list of games to choose from: import the file again":
        ("không có danh sách ván để chọn: hãy nhập lại tệp", "没有可选的对局列表：请重新导入文件"),
    "saved must be a game as the page keeps it":
        ("ván lưu không đúng dạng trang lưu giữ", "保存的对局格式不对"),
    "the game is too large to keep in the library":
        ("ván cờ quá lớn để lưu trong thư viện", "对局太大，无法存入棋谱库"),
    "position must be true or false":
        ("position phải là true hoặc false", "position 必须是 true 或 false"),
    "a position search is for Xiangqi games":
        ("tìm theo thế cờ chỉ dành cho cờ tướng", "按局面搜索只适用于象棋"),
}
HANT_OVERRIDES = {
    "the games database cannot be opened": "無法開啟對局資料庫",
    "no such game in the database": "資料庫中沒有這局棋",
    "no list of games to choose from: import the file again":
        "沒有可選的對局列表：請重新匯入檔案",
    "an import into the database is under way: wait for it to finish":
        "正在匯入資料庫：請等它完成",
    "not a legal position: the generals face each other on an open file":
        "局面不合法：將帥在同一線上直接照面",
}
_ZH_HANT_TABLE = str.maketrans({
    "线": "線", "宫": "宮", "过": "過", "签": "簽", "标": "標", "须": "須", "换": "換",
    "号": "號", "杠": "槓", "导": "導", "数": "數", "据": "據", "节": "節", "载": "載",
    "读": "讀", "处": "處", "结": "結", "轮": "輪", "请": "請", "还": "還", "没": "沒",
    "试": "試", "给": "給", "复": "復", "时": "時", "间": "間", "为": "為", "继": "繼",
    "续": "續", "开": "開", "这": "這", "经": "經", "删": "刪", "销": "銷", "页": "頁",
    "达": "達", "变": "變", "条": "條", "认": "認", "输": "輸", "与": "與", "断": "斷",
    "议": "議", "错": "錯", "启": "啟", "释": "釋", "执": "執", "谱": "譜", "个": "個",
    "闭": "閉", "关": "關", "长": "長", "后": "後", "点": "點", "图": "圖", "于": "於",
    "库": "庫", "盘": "盤", "编": "編", "择": "擇", "选": "選", "当": "當", "适": "適",
})


def _zh_hant(text: str) -> str:
    """The catalog's simplified sentence in traditional characters."""
    return hant.traditional(text).translate(_ZH_HANT_TABLE)


def _template(key: str, lang: str) -> str:
    if lang == "en" or key not in CATALOG:
        return key
    vi, hans = CATALOG[key]
    if lang == "vi":
        return vi
    if lang == "zh-Hant":
        return HANT_OVERRIDES.get(key) or _zh_hant(hans)
    return hans


def _word(value, lang: str) -> str:
    text = str(value)
    if lang == "en" or text not in WORDS:
        return text
    vi, hans = WORDS[text]
    return vi if lang == "vi" else hans if lang == "zh-Hans" else _zh_hant(hans)


def local(key: str, params: Optional[dict] = None, detail: Optional[str] = None,
          lang: str = "en") -> str:
    """The sentence of `key` with `params` in `lang`, the detail after it."""
    params = params or {}
    try:
        sentence = _template(key, lang).format(**{k: _word(v, lang) for k, v in params.items()})
    except (KeyError, IndexError, ValueError):
        sentence = key if not params else key.format(**params)
    if detail:
        sentence = f"{sentence}: {detail}"
    return sentence


def fields(key: str, params: Optional[dict], detail: Optional[str], lang: str) -> dict:
    """The fields a refusal or notice carries beside its English sentence."""
    out = {"key": key, "params": dict(params or {}), "local": local(key, params, detail, lang)}
    if detail:
        out["detail"] = detail
    return out


def notice(key: str, lang: str, detail: Optional[str] = None, **params) -> dict:
    """A `notice` message: `text` English (as before), and the fields above."""
    text = local(key, params, detail, "en")
    return {"type": "notice", "text": text, **fields(key, params, detail, lang)}


def player_name(player: str, lang: str) -> str:
    """The player's name in the record: theirs, or "Player" in `lang`."""
    return PLAYER_NAMES.get(lang, DEFAULT_PLAYER) if player in ("", DEFAULT_PLAYER) else player


def engine_label(engine: str, elo: Optional[int], lang: str) -> str:
    """The engine's name in the record, with its level, in `lang`."""
    if elo is None:
        return engine
    return LEVEL_WORDS.get(lang, LEVEL_WORDS["en"]).format(engine=engine, elo=elo)


def is_default_name(name: Optional[str], engine: str, player: str) -> bool:
    """Whether a record's player name is one tuong writes for a game against
    the engine (then it may be written again), not a record's own."""
    if name in (None, "", "?", player) or name in PLAYER_NAMES.values():
        return True
    return name == engine or bool(re.fullmatch(re.escape(engine) + r" \(\D*\s?\d+\)", name))


_POSITION = [
    (re.compile(r"too many (Red|Black) (\w+)s: a set has (\d+)"),
     "not a legal position: too many {piece}s: a set has {n}", ("piece", "n")),
    (re.compile(r"(Red|Black) (king) missing"),
     "not a legal position: {piece} missing", ("piece",)),
    (re.compile(r"(Red|Black) (\w+) outside its palace at (\w+)"),
     "not a legal position: {piece} outside its palace at {where}", ("piece", "where")),
    (re.compile(r"(Red|Black) (\w+) off its palace diagonals at (\w+)"),
     "not a legal position: {piece} off its palace diagonals at {where}", ("piece", "where")),
    (re.compile(r"(Red|Black) (\w+) off its seven points at (\w+)"),
     "not a legal position: {piece} off its seven points at {where}", ("piece", "where")),
    (re.compile(r"(Red|Black) (\w+) behind its starting rank at (\w+)"),
     "not a legal position: {piece} behind its starting rank at {where}", ("piece", "where")),
    (re.compile(r"a (Red|Black) (pawn) cannot stand on (\w+)"),
     "not a legal position: a {piece} cannot stand on {where} (before the river, pawns stand "
     "only on the files a, c, e, g and i)", ("piece", "where")),
]


def position_problem(problem: str) -> tuple[str, dict, Optional[str]]:
    """(key, params, detail) of why a set-up position is not legal (the
    board's or the set-up check's words)."""
    for pattern, key, names in _POSITION:
        found = pattern.fullmatch(problem) or pattern.match(problem)
        if found:
            side, piece, *rest = found.groups()
            return key, dict(zip(names, [f"{side} {piece}", *rest])), None
    for fixed in ("the generals face each other on an open file",
                  "the side not to move is in check", "the FEN is empty"):
        if problem == fixed:
            return f"not a legal position: {fixed}", {}, None
    return "not a legal position", {}, problem
