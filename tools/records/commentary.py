"""A sentence about each move, built from what the board and the engine know.

The founding book's suggestion 13: follow a game and, after each move, say
why it was chosen. Nothing here is invented: every clause comes from a fact
computed on the position (tests check each kind on hand-made positions).

- what moved, in the players' notation, and what it took;
- check, checkmate (the opponent has no legal move);
- threats: an opposing piece the move now attacks and could take with no
  legal recapture on its square, a move it now threatens that would leave
  the opponent without a legal move (a mate when it gives check), both found
  by letting the mover move again, so only when the move gives no check;
- a piece it saves: one the opponent could take for nothing before the move
  and cannot after it (not claimed after a check, which only delays it);
- the engine's view: the evaluation before and after, a mate in N, and for a
  marked move the better move and what it would have done;
- a rule result: the repetition verdict the move brings about.

Templates exist in English, Vietnamese and Chinese, simplified and traditional
(`lang` "en", "vi", "zh-Hans" or "zh-Hant": LANGS), one table of them per
language (TEMPLATES); the traditional table is the simplified one through a
small character map (traditional()).
"""
import dataclasses
from typing import Optional

from tuong.engine.board import Board
from tuong.engine.outcome import Verdict
from tuong.engine.rows import xiangqi_squares
from tuong.tools.records import notation as notations

_FEN_KIND = {"K": "K", "A": "A", "B": "E", "N": "H", "R": "R", "C": "C", "P": "P"}
_VALUE = {"K": 10000, "R": 900, "C": 450, "H": 400, "E": 200, "A": 200, "P": 100}

LANGS = ("en", "vi", "zh-Hans", "zh-Hant")

# Piece names: KIND, or KIND_red / KIND_black where the sides' pieces are named apart.
NAMES = {
    "en": {"K": "king", "A": "advisor", "E": "elephant", "H": "horse", "R": "rook",
           "C": "cannon", "P": "pawn", "red": "Red", "black": "Black"},
    "vi": {"K": "Tướng", "A": "Sĩ", "E": "Tượng", "H": "Mã", "R": "Xe", "C": "Pháo",
           "P_red": "Binh", "P_black": "Chốt", "red": "Đỏ", "black": "Đen"},
    "zh-Hans": {"K_red": "帅", "K_black": "将", "A_red": "仕", "A_black": "士",
                "E_red": "相", "E_black": "象", "H": "马", "R": "车", "C": "炮",
                "P_red": "兵", "P_black": "卒", "red": "红方", "black": "黑方"},
}
MARK_NAMES = {"en": {"??": "A blunder", "?": "A mistake", "?!": "An inaccuracy"},
              "vi": {"??": "Sai lầm nghiêm trọng", "?": "Sai lầm", "?!": "Nước thiếu chính xác"},
              "zh-Hans": {"??": "严重失误", "?": "失误", "?!": "缓着"}}

# The sentences' pieces. Fields: {side} {other} (the players), {piece} {victim},
# {move} (in the facts' notation), {square} (e5) or {file} (the owner's file, as
# Chinese players count it: 七路, ３路), {targets} {pieces} (items joined by "and"),
# {before} {after} {n} (scores, moves to mate), {mark} {why} {best} {played},
# {reason} {loser} (a repetition verdict). "sep" joins the sentences.
TEMPLATES = {
    "en": {
        "moves": "{side} moves the {piece} ({move})",
        "takes": "{side}'s {piece} takes the {victim} ({move})",
        "checkmate": ", checkmate",
        "no_move": ": {other} has no legal move and loses",
        "check": ", check",
        "stop": ".",
        "and": " and ",
        "target": "the {piece} on {square}",
        "threats": "It attacks {targets}, with no recapture possible.",
        "mate_threat": "It threatens mate with {move}.",
        "no_move_threat": "It threatens {move}, after which {other} would have no legal move.",
        "saved": "the {piece} on {square}",
        "saved_moved": "the {piece} (now on {square})",
        "saves": "It saves {pieces}, which could have been taken for nothing.",
        "evaluation": "Evaluation {before} -> {after} (Red's view).",
        "mates": "{side} mates in {n}.",
        "mated": "{side} is mated in {n}.",
        "better": "{mark}: {move} was better ({why}; {best} instead of {played}).",
        "why_takes": "it takes the {piece}",
        "why_mates": "it mates",
        "why_no_move": "it leaves no legal move",
        "why_check": "it gives check",
        "why_attacks": "it attacks the {piece}",
        "why_saves": "it saves the {piece}",
        "why_and": ", ",
        "why_else": "it keeps a better position",
        "repetition": "{reason}.",
        "perpetual check": "{reason}.",
        "perpetual chase": "{reason}.",
        "sep": " ",
    },
    "vi": {
        "moves": "{side} đi {piece} ({move})",
        "takes": "{piece} {side} ăn {victim} ({move})",
        "checkmate": ", chiếu hết",
        "no_move": ": {other} hết nước đi và thua",
        "check": ", chiếu tướng",
        "stop": ".",
        "and": " và ",
        "target": "{piece} ở {square}",
        "threats": "Đe dọa ăn {targets} mà không bị ăn lại.",
        "mate_threat": "Đe dọa chiếu hết bằng {move}.",
        "no_move_threat": "Đe dọa {move}, sau đó {other} hết nước đi.",
        "saved": "{piece} ở {square}",
        "saved_moved": "{piece} (nay ở {square})",
        "saves": "Cứu {pieces} khỏi bị ăn không.",
        "evaluation": "Đánh giá {before} -> {after} (phía Đỏ).",
        "mates": "{side} chiếu hết sau {n} nước.",
        "mated": "{side} bị chiếu hết sau {n} nước.",
        "better": "{mark}: {move} tốt hơn ({why}; {best} thay vì {played}).",
        "why_takes": "ăn {piece}",
        "why_mates": "chiếu hết",
        "why_no_move": "khiến đối phương hết nước đi",
        "why_check": "chiếu tướng",
        "why_attacks": "đe dọa ăn {piece}",
        "why_saves": "cứu {piece}",
        "why_and": ", ",
        "why_else": "giữ thế cờ tốt hơn",
        "repetition": "Hòa do lặp lại nước đi.",
        "perpetual check": "{loser} thua vì chiếu mãi.",
        "perpetual chase": "{loser} thua vì đuổi bắt mãi.",
        "sep": " ",
    },
    "zh-Hans": {
        "moves": "{side}走{piece}（{move}）",
        "takes": "{side}{piece}吃{victim}（{move}）",
        "checkmate": "，将死{other}",
        "no_move": "，{other}无子可动，困毙告负",
        "check": "，将军",
        "stop": "。",
        "and": "和",
        "target": "{file}路{piece}",
        "threats": "威胁白吃{targets}。",
        "mate_threat": "伏{move}绝杀。",
        "no_move_threat": "伏{move}困毙{other}。",
        "saved": "{file}路{piece}",
        "saved_moved": "{piece}（已移至{file}路）",
        "saves": "保住{pieces}，免遭白吃。",
        "evaluation": "评分 {before} -> {after}（红方视角）。",
        "mates": "{side}{n}步成杀。",
        "mated": "{side}{n}步内被杀。",
        "better": "{mark}：应走{move}（{why}；评分{best}，实战{played}）。",
        "why_takes": "吃{piece}",
        "why_mates": "将死对方",
        "why_no_move": "困毙对方",
        "why_check": "将军",
        "why_attacks": "捉{piece}",
        "why_saves": "保住{piece}",
        "why_and": "、",
        "why_else": "局面更好",
        "repetition": "重复局面判和。",
        "perpetual check": "{loser}长将判负。",
        "perpetual chase": "{loser}长捉判负。",
        "sep": "",
    },
}

# Simplified -> traditional (Taiwan) for the characters the Chinese words above
# (and annotate's) use; each has one traditional form in these words (复: 重複).
# Every other character they use is written the same in both scripts.
HANT = str.maketrans("帅将马车红无动毙负军胁绝杀评视应实战对内长复严误缓着损",
                     "帥將馬車紅無動斃負軍脅絕殺評視應實戰對內長複嚴誤緩著損")


def traditional(text):
    """Simplified Chinese `text` in traditional characters (see HANT)."""
    return text.translate(HANT)


for _table in (NAMES, MARK_NAMES, TEMPLATES):
    _table["zh-Hant"] = {key: traditional(text) for key, text in _table["zh-Hans"].items()}


@dataclasses.dataclass
class Facts:
    """What a move did, from the board alone."""
    text: str                       # the move in the chosen notation
    red: bool                       # the mover
    piece: str                      # K A E H R C P
    captured: Optional[str] = None
    check: bool = False
    no_reply: bool = False          # the opponent has no legal move: it has lost
    threats: list = dataclasses.field(default_factory=list)   # [(kind, square)]
    mate_threat: Optional[str] = None   # a move the mover threatens that leaves no reply
    mate_threat_check: bool = False # ... and gives check: a mate, not a stalemate
    saved: list = dataclasses.field(default_factory=list)     # [(kind, square now, moved?)]
    verdict: Optional[Verdict] = None   # Board.repetition_verdict() after the move


def _pieces(fen):
    """square name -> (red?, kind) of a FEN's placement."""
    return {"abcdefghi"[sq % 9] + str(sq // 9): (ch.isupper(), _FEN_KIND[ch.upper()])
            for sq, ch in enumerate(xiangqi_squares(fen.split()[0])) if ch is not None}


def _with_side(fen, red):
    """The position with `red` (or Black) to move, or None if that is not a
    legal position (the other side in check)."""
    fields = fen.split()
    fields[1] = "w" if red else "b"
    try:
        return Board(" ".join(fields))
    except ValueError:
        return None


def _free_captures(board):
    """{square: kind} of the opposing pieces the side to move can take so that
    nothing can legally take back on that square."""
    pieces, free = _pieces(board.fen()), {}
    for move in board.legal_moves():
        target = move[2:]
        if target not in pieces or target in free:
            continue
        board.push(move)
        recaptures = any(m[2:] == target for m in board.legal_moves())
        board.pop()
        if not recaptures:
            free[target] = pieces[target][1]
    return free


def _mating_move(board):
    """A move after which the opponent has no legal move, or None."""
    for move in board.legal_moves():
        board.push(move)
        mated = not board.legal_moves()
        board.pop()
        if mated:
            return move
    return None


def _ranked(squares):
    return sorted(squares.items(), key=lambda item: (-_VALUE[item[1]], item[0]))


def facts(board, move, notation="wxf"):
    """The Facts of a legal move of `board` (a Board or FEN; left unchanged)."""
    board = Board(board) if isinstance(board, str) else board.copy()
    before = board.fen()
    pieces = _pieces(before)
    red = board.turn == "w"
    text = notations.write(board, move, notation)
    result = Facts(text, red, pieces[move[:2]][1],
                   captured=pieces[move[2:]][1] if move[2:] in pieces else None)
    # What the opponent could take for nothing before the move (it moves again).
    opponent_before = _with_side(before, not red)
    hanging_before = _free_captures(opponent_before) if opponent_before else {}
    already = _free_captures(board)          # what the mover could take already
    board.push(move)
    after = board.fen()
    result.check = board.in_check()
    result.no_reply = not board.legal_moves()
    result.verdict = board.repetition_verdict()
    if not result.no_reply:
        hanging_after = _free_captures(board)
        # After a check the opponent must answer it first: nothing is saved by that.
        for square, kind in _ranked(hanging_before) if not result.check else ():
            now = move[2:] if square == move[:2] else square
            if now not in hanging_after:
                result.saved.append((kind, now, now != square))
        mover_again = None if result.check else _with_side(after, red)
        if mover_again is not None:
            threats = _free_captures(mover_again)
            result.threats = [(kind, sq) for sq, kind in _ranked(threats)
                              if sq not in already][:2]
            mate = _mating_move(mover_again)
            if mate:
                result.mate_threat = notations.write(mover_again, mate, notation)
                mover_again.push(mate)
                result.mate_threat_check = mover_again.in_check()
    return result


# -- words ------------------------------------------------------------------
def _name(kind, red, lang):
    names = NAMES[lang]
    return names.get(kind + ("_red" if red else "_black")) or names[kind]


def _file(square, red):
    """The file of a square as its owner counts it from its right: Red in
    Chinese numerals, Black in full-width digits (as the Chinese notation)."""
    column = "abcdefghi".index(square[0])
    return "九八七六五四三二一"[column] if red else "１２３４５６７８９"[column]


def _at(template, kind, square, red, lang):
    """A piece of `red`'s (or Black's) and where it stands, by `template`."""
    return template.format(piece=_name(kind, red, lang), square=square, file=_file(square, red))


def score_text(score):
    """A score from Red's view: ("cp", n), ("mate", n) or ("end", result) ->
    "+0.35" / "#3" / "#-2" / "1-0"."""
    kind, value = score
    if kind == "end":
        return value
    if kind == "mate":
        return f"#{value}"
    return f"{value / 100:+.2f}"


def sentence(f, lang="en", before=None, after=None, mate=None, mark=None, better=None):
    """The commentary for one move in `lang` (one of LANGS). `before`/`after`:
    the engine's scores around it (Red's view, see score_text) or None; `mate`:
    a mate in N (positive: the mover mates; negative: the mover is mated) or
    None; `mark`: "??", "?" or "?!" or None; `better`: (Facts of the better
    move, its score text, the played move's score text) for a marked move."""
    words = TEMPLATES[lang]
    side = NAMES[lang]["red" if f.red else "black"]
    other = NAMES[lang]["black" if f.red else "red"]
    piece = _name(f.piece, f.red, lang)
    parts = [_what(f, lang, side, piece, other)]
    if f.threats:
        parts.append(words["threats"].format(targets=words["and"].join(
            _at(words["target"], kind, square, not f.red, lang) for kind, square in f.threats)))
    if f.mate_threat:
        parts.append(words["mate_threat" if f.mate_threat_check else "no_move_threat"]
                     .format(move=f.mate_threat, other=other))
    if f.saved:
        parts.append(words["saves"].format(pieces=words["and"].join(
            _at(words["saved_moved" if moved else "saved"], kind, square, f.red, lang)
            for kind, square, moved in f.saved)))
    if before is not None and after is not None and not f.no_reply:
        parts.append(words["evaluation"].format(before=score_text(before),
                                                after=score_text(after)))
    if mate is not None and not f.no_reply:
        parts.append(words["mates" if mate > 0 else "mated"].format(side=side, n=abs(mate)))
    if f.verdict:
        parts.append(_verdict(f.verdict, lang))
    if mark and better:
        best, best_score, played_score = better
        parts.append(words["better"].format(mark=MARK_NAMES[lang][mark], move=best.text,
                                            why=_why(best, lang), best=best_score,
                                            played=played_score))
    return words["sep"].join(parts)


def _what(f, lang, side, piece, other):
    """What moved, what it took, and check or the end of the game."""
    words = TEMPLATES[lang]
    if f.captured:
        text = words["takes"].format(side=side, piece=piece, move=f.text,
                                     victim=_name(f.captured, not f.red, lang))
    else:
        text = words["moves"].format(side=side, piece=piece, move=f.text)
    if f.no_reply:
        text += words["checkmate" if f.check else "no_move"].format(other=other)
    elif f.check:
        text += words["check"]
    return text + words["stop"]


def _why(f, lang):
    """What the better move does, in a few words."""
    words, bits = TEMPLATES[lang], []
    if f.captured:
        bits.append(words["why_takes"].format(piece=_name(f.captured, not f.red, lang)))
    if f.no_reply:
        bits.append(words["why_mates" if f.check else "why_no_move"])
    elif f.check:
        bits.append(words["why_check"])
    if f.threats:
        bits.append(words["why_attacks"].format(piece=_name(f.threats[0][0], not f.red, lang)))
    if f.saved:
        bits.append(words["why_saves"].format(piece=_name(f.saved[0][0], f.red, lang)))
    return words["why_and"].join(bits) or words["why_else"]


def _verdict(verdict: Verdict, lang):
    """The repetition rule's verdict (Board.repetition_verdict()) as a sentence."""
    words = TEMPLATES[lang]
    loser = NAMES[lang]["red" if verdict.result == "0-1" else "black"]
    return words.get(verdict.rule, words["repetition"]).format(reason=verdict.reason,
                                                               loser=loser)
