"""Static exchange evaluation on hand-built positions: horse legs, cannon
screens that appear and vanish during the exchange, kings that may only
take last. SEE(move) is found as the largest threshold it accepts."""
import pytest

from tuong.engine.board import Board
from tuong.engine.board import static_exchange_at_least

KINGS = {"e9": "k", "d0": "K"}


def fen(pieces, side="w"):
    """A FEN from {square: letter}, with both kings added."""
    grid = {**KINGS, **pieces}
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for file in "abcdefghi":
            letter = grid.get(f"{file}{rank}")
            if letter:
                row += (str(empty) if empty else "") + letter
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + " " + side


def see(board, move):
    low, high = -2000, 2000
    while low < high:
        middle = (low + high + 1) // 2
        if static_exchange_at_least(board, move, middle):
            low = middle
        else:
            high = middle - 1
    return low


CASES = [
    ({"e3": "R", "e6": "p"}, "e3e6", 100),                          # a free pawn
    ({"e3": "R", "e6": "p", "c5": "n"}, "e3e6", -800),              # horse retakes over leg d5
    ({"e3": "R", "e6": "p", "c5": "n", "d5": "P"}, "e3e6", 100),    # ... not with the leg blocked
    ({"e3": "R", "e6": "p", "e7": "n", "e8": "c"}, "e3e6", -800),   # cannon over a screen
    ({"e3": "R", "e6": "p", "e8": "c"}, "e3e6", 100),               # cannon without one
    ({"e4": "P", "e6": "p", "e3": "R", "e7": "c"}, "e4e5", 0),      # PxP, RxP; the screen is gone
    # rook retakes, cannon has no screen
    ({"e5": "P", "e6": "p", "h6": "r", "e2": "C"}, "e5e6", 0),
    # ... now it has: no RxP
    ({"e5": "P", "e6": "p", "h6": "r", "e2": "C", "e3": "N"}, "e5e6", 100),
    ({"a0": "R", "a6": "n", "a9": "r"}, "a0a6", -500),              # rook for horse
    ({"e4": "P", "e7": "c", "e6": "p", "d6": "r"}, "e4e5", -100),   # a quiet push into PxP
    # no elephant retakes across the river
    ({"e8": "r", "e6": "P", "c4": "B", "g4": "B"}, "e8e6", 100),
    # ... but on its own bank it does
    ({"c2": "R", "c5": "p", "e7": "b"}, "c2c5", -800),
]


def test_elephant_cannot_retake_across_the_river():
    """The rook takes the pawn on e6; the elephant on c4 would need to cross
    the river to retake, so the capture wins a pawn outright."""
    board = Board("3k5/4r4/9/4P4/9/2B6/9/9/9/4K4 b")
    assert static_exchange_at_least(board, "e8e6", 0)
    assert static_exchange_at_least(board, "e8e6", 100)
    assert not static_exchange_at_least(board, "e8e6", 101)


@pytest.mark.parametrize("pieces, move, value", CASES)
def test_exchange_values(pieces, move, value):
    board = Board(fen(pieces))
    before = board.fen()
    assert see(board, move) == value
    assert board.fen() == before and board.hash == board._computed_hash()


def test_king_takes_only_when_nothing_retakes():
    assert see(Board(fen({"d1": "p", "a8": "r"})), "d0d1") == 100
    assert see(Board(fen({"d1": "p", "d5": "r"})), "d0d1") <= 0   # the rook would retake
