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

Templates exist in English and Vietnamese (`lang` "en" or "vi").
"""
import dataclasses
from typing import Optional

from tuong.engine.board import Board
from tuong.engine.rows import xiangqi_squares
from tuong.tools.records import notation as notations

_FEN_KIND = {"K": "K", "A": "A", "B": "E", "N": "H", "R": "R", "C": "C", "P": "P"}
_VALUE = {"K": 10000, "R": 900, "C": 450, "H": 400, "E": 200, "A": 200, "P": 100}

NAMES = {
    "en": {"K": "king", "A": "advisor", "E": "elephant", "H": "horse", "R": "rook",
           "C": "cannon", "P": "pawn", "red": "Red", "black": "Black"},
    "vi": {"K": "Tướng", "A": "Sĩ", "E": "Tượng", "H": "Mã", "R": "Xe", "C": "Pháo",
           "P_red": "Binh", "P_black": "Chốt", "red": "Đỏ", "black": "Đen"},
}
MARK_NAMES = {"en": {"??": "A blunder", "?": "A mistake", "?!": "An inaccuracy"},
              "vi": {"??": "Sai lầm nghiêm trọng", "?": "Sai lầm", "?!": "Nước thiếu chính xác"}}


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
    verdict: Optional[dict] = None  # Board.repetition_verdict() after the move


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
    if lang == "vi" and kind == "P":
        return names["P_red" if red else "P_black"]
    return names[kind]


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
    """The commentary for one move. `before`/`after`: the engine's scores
    around it (Red's view, see score_text) or None; `mate`: a mate in N
    (positive: the mover mates; negative: the mover is mated) or None;
    `mark`: "??", "?" or "?!" or None; `better`: (Facts of the better move,
    its score text, the played move's score text) for a marked move."""
    side = NAMES[lang]["red" if f.red else "black"]
    other = NAMES[lang]["black" if f.red else "red"]
    piece = _name(f.piece, f.red, lang)
    parts = [_what(f, lang, side, piece, other)]
    if lang == "en":
        if f.threats:
            parts.append("It attacks " + " and ".join(
                f"the {_name(k, not f.red, lang)} on {sq}" for k, sq in f.threats) +
                ", with no recapture possible.")
        if f.mate_threat:
            parts.append(f"It threatens mate with {f.mate_threat}." if f.mate_threat_check else
                         f"It threatens {f.mate_threat}, after which {other} would have no "
                         f"legal move.")
        if f.saved:
            parts.append("It saves " + " and ".join(
                f"the {_name(k, f.red, lang)} " + (f"(now on {sq})" if moved else f"on {sq}")
                for k, sq, moved in f.saved) + ", which could have been taken for nothing.")
        if before is not None and after is not None and not f.no_reply:
            parts.append(f"Evaluation {score_text(before)} -> {score_text(after)} (Red's view).")
        if mate is not None and not f.no_reply:
            parts.append(f"{side} mates in {mate}." if mate > 0 else
                         f"{side} is mated in {-mate}.")
        if f.verdict:
            parts.append(_verdict(f.verdict, lang))
        if mark and better:
            best, best_score, played_score = better
            parts.append(f"{MARK_NAMES[lang][mark]}: {best.text} was better "
                         f"({_why(best, lang)}; {best_score} instead of {played_score}).")
    else:
        if f.threats:
            parts.append("Đe dọa ăn " + " và ".join(
                f"{_name(k, not f.red, lang)} ở {sq}" for k, sq in f.threats) +
                " mà không bị ăn lại.")
        if f.mate_threat:
            parts.append(f"Đe dọa chiếu hết bằng {f.mate_threat}." if f.mate_threat_check else
                         f"Đe dọa {f.mate_threat}, sau đó {other} hết nước đi.")
        if f.saved:
            parts.append("Cứu " + " và ".join(
                f"{_name(k, f.red, lang)} " + (f"(nay ở {sq})" if moved else f"ở {sq}")
                for k, sq, moved in f.saved) + " khỏi bị ăn không.")
        if before is not None and after is not None and not f.no_reply:
            parts.append(f"Đánh giá {score_text(before)} -> {score_text(after)} (phía Đỏ).")
        if mate is not None and not f.no_reply:
            parts.append(f"{side} chiếu hết sau {mate} nước." if mate > 0 else
                         f"{side} bị chiếu hết sau {-mate} nước.")
        if f.verdict:
            parts.append(_verdict(f.verdict, lang))
        if mark and better:
            best, best_score, played_score = better
            parts.append(f"{MARK_NAMES[lang][mark]}: {best.text} tốt hơn "
                         f"({_why(best, lang)}; {best_score} thay vì {played_score}).")
    return " ".join(parts)


def _what(f, lang, side, piece, other):
    if lang == "en":
        text = (f"{side}'s {piece} takes the {_name(f.captured, not f.red, lang)} ({f.text})"
                if f.captured else f"{side} moves the {piece} ({f.text})")
        if f.no_reply:
            text += ", checkmate" if f.check else f": {other} has no legal move and loses"
        elif f.check:
            text += ", check"
        return text + "."
    text = (f"{piece} {side} ăn {_name(f.captured, not f.red, lang)} ({f.text})"
            if f.captured else f"{side} đi {piece} ({f.text})")
    if f.no_reply:
        text += ", chiếu hết" if f.check else f": {other} hết nước đi và thua"
    elif f.check:
        text += ", chiếu tướng"
    return text + "."


def _why(f, lang):
    """What the better move does, in a few words."""
    bits = []
    if lang == "en":
        if f.captured:
            bits.append(f"it takes the {_name(f.captured, not f.red, lang)}")
        if f.no_reply:
            bits.append("it mates" if f.check else "it leaves no legal move")
        elif f.check:
            bits.append("it gives check")
        if f.threats:
            bits.append(f"it attacks the {_name(f.threats[0][0], not f.red, lang)}")
        if f.saved:
            bits.append(f"it saves the {_name(f.saved[0][0], f.red, lang)}")
        return ", ".join(bits) or "it keeps a better position"
    if f.captured:
        bits.append(f"ăn {_name(f.captured, not f.red, lang)}")
    if f.no_reply:
        bits.append("chiếu hết" if f.check else "khiến đối phương hết nước đi")
    elif f.check:
        bits.append("chiếu tướng")
    if f.threats:
        bits.append(f"đe dọa ăn {_name(f.threats[0][0], not f.red, lang)}")
    if f.saved:
        bits.append(f"cứu {_name(f.saved[0][0], f.red, lang)}")
    return ", ".join(bits) or "giữ thế cờ tốt hơn"


def _verdict(verdict, lang):
    rule, result = verdict["rule"], verdict["result"]
    if lang == "en":
        return verdict["reason"] + "."
    loser = "Đỏ" if result == "0-1" else "Đen"
    if rule == "perpetual check":
        return f"{loser} thua vì chiếu mãi."
    if rule == "perpetual chase":
        return f"{loser} thua vì đuổi bắt mãi."
    return "Hòa do lặp lại nước đi."
