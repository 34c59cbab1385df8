"""The opening's family from a game's first moves, both wings as one."""
import pytest

from tuong.engine.board import Board
from tuong.tools.records.opening_names import NAMES, family, opening_name


@pytest.mark.parametrize("moves, expected", [
    (["h2e2"], "central-cannon"),
    (["b2e2"], "central-cannon"),                       # the other wing
    (["h2e2", "h7e7"], "same-cannons"),                 # 炮二平五 炮8平5
    (["b2e2", "b7e7"], "same-cannons"),                 # 炮八平五 炮2平5
    (["h2e2", "b7e7"], "opposite-cannons"),             # 炮二平五 炮2平5
    (["h2e2", "h9g7", "h0g2", "b9c7"], "screen-horses"),
    (["h2e2", "b9c7", "h0g2", "h9g7"], "screen-horses"),
    (["h2e2", "h9g7", "h0g2", "i9h9"], "central-cannon"),
    (["c3c4"], "pawn"),                                 # 兵七进一
    (["c3c4", "b7c7"], "pawn-cannon"),                  # 兵七进一 炮2平3
    (["g3g4", "h7g7"], "pawn-cannon"),                  # 兵三进一 炮8平7
    (["c0e2", "h7e7"], "elephant-cannon"),
    (["g0e2", "g6g5"], "elephant"),
    (["b0c2"], "horse"), (["h2f2"], "advisor-cannon"), (["b2d2"], "advisor-cannon"),
    (["h2d2"], "palace-cannon"), (["e3e4"], "central-pawn"),
    (["a3a4"], None), ([], None),
])
def test_families(moves, expected):
    board = Board()
    for move in moves:
        assert move in board.legal_moves(), move       # the table's moves are real moves
        board.push(move)
    assert family(moves) == expected


def test_every_name_in_every_language():
    for name, words in NAMES.items():
        assert len(words) == 4 and all(words), name       # en, vi, zh-Hans, zh-Hant
    assert opening_name(["h2e2", "h7e7"], "zh-Hans") == "顺炮"
    assert opening_name(["h2e2", "h7e7"], "zh-Hant") == "順炮"
    assert opening_name(["c3c4"], "vi") == "Tiên nhân chỉ lộ"
