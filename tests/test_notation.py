"""Notations both ways (tools/records/notation.py): the founding book's example, hand-
checked hard cases, round trips on random positions, WXF against pyffish."""
import random

import pytest

from conftest import random_board
from tuong.engine.board import Board
from tuong.tools.records import notation

BOOK_GAME = "P2-5 M8.7 M2.3 C3.1 X1-2 X9-8 X2.4 M2.3".split()
BOOK_MOVES = "h2e2 h9g7 h0g2 c6c5 i0h0 i9h9 h0h4 b9c7".split()
WRITTEN = ("wxf", "chinese", "vietnamese")


def test_the_books_example_game_both_ways():
    """VSCCP's suggestion 14: 1. P2-5 M8.7 2. M2.3 C3.1 3. X1-2 X9-8 4. X2.4 M2.3."""
    assert notation.write_line(None, BOOK_MOVES, "vietnamese") == BOOK_GAME
    assert notation.parse_line(None, BOOK_GAME, "vietnamese") == BOOK_MOVES
    assert notation.write_line(None, BOOK_MOVES, "chinese")[:4] == [
        "炮二平五", "马８进７", "马二进三", "卒３进１"]
    assert notation.write_line(None, BOOK_MOVES, "wxf")[:4] == ["C2=5", "H8+7", "H2+3", "P3+1"]


@pytest.mark.parametrize("fen, move, expected", [
    # two rooks on one file: front and rear
    ("3k5/9/9/9/9/4R4/9/4R4/9/4K4 w - - 0 1", "e4e8",
     {"wxf": "R++4", "chinese": "前车进四", "vietnamese": "Xt.4"}),
    ("3k5/9/9/9/9/4R4/9/4R4/9/4K4 w - - 0 1", "e2a2",
     {"wxf": "R-=9", "chinese": "后车平九", "vietnamese": "Xs-9"}),
    # Black's horses on its file 3 (c, from Black's right); c5 is its front one
    ("5k3/9/2n6/9/2n6/9/9/9/9/3K5 b - - 0 1", "c5d3",
     {"wxf": "H++4", "chinese": "前马进４", "vietnamese": "Mt.4"}),
    # three pawns on one file: front, middle, rear
    ("3k5/9/9/4P4/4P4/4P4/9/9/9/5K3 w - - 0 1", "e5d5",
     {"wxf": "25=6", "chinese": "中兵平六", "vietnamese": "Bg-6"}),
    ("3k5/9/9/4P4/4P4/4P4/9/9/9/5K3 w - - 0 1", "e6e7",
     {"wxf": "15+1", "chinese": "前兵进一", "vietnamese": "Bt.1"}),
    # pawns doubled on two files: the file is written too
    ("5k3/9/9/9/9/9/9/4p1p2/4p1p2/3K5 b - - 0 1", "g1h1",
     {"wxf": "17=8", "chinese": "前卒７平８", "vietnamese": "Ct7-8"}),
    # two pawns on one file
    ("3k5/9/9/4P4/9/9/4P4/9/9/5K3 w - - 0 1", "e6d6",
     {"wxf": "P+=6", "chinese": "前兵平六", "vietnamese": "Bt-6"}),
    # two rooks on one file, the other one could not make the same move (off
    # the board): WXF names the file, as Fairy-Stockfish does
    ("4R4/5k3/9/9/4R4/9/9/9/9/3K5 w - - 0 1", "e5e8",
     {"wxf": "R5+3", "chinese": "后车进三", "vietnamese": "Xs.3"}),
    # elephants on one file go by their file in every notation
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1", "c4e2",
     {"wxf": "E7-5", "chinese": "相七退五", "vietnamese": "T7/5"}),
    # advisors, king
    ("3k5/9/9/9/9/9/9/9/9/3AKA3 w - - 0 1", "d0e1",
     {"wxf": "A6+5", "chinese": "仕六进五", "vietnamese": "S6.5"}),
    ("3k5/9/9/9/9/9/9/9/9/4K4 b - - 0 1", "d9d8",
     {"wxf": "K4+1", "chinese": "将４进１", "vietnamese": "Tg4.1"}),
])
def test_hand_checked_cases(fen, move, expected):
    board = Board(fen)
    for name, text in expected.items():
        assert notation.write(board, move, name) == text, name
        assert notation.parse(board, text, name) == move, name


@pytest.mark.parametrize("text, name, move", [
    ("炮二平五", "chinese", "h2e2"),
    ("炮2平5", "chinese", "h2e2"),         # digits for Red too
    ("砲二平五", "chinese", "h2e2"),        # traditional and variant characters
    ("傌二進三", "chinese", "h0g2"),
    ("俥一進一", "chinese", "i0i1"),
    ("h2e2", "coords", "h2e2"),
    ("h3e3", "ranks1", "h2e2"),
    ("H2-E2", "iccs", "h2e2"),
    ("c2=5", "wxf", "h2e2"),               # lowercase
    ("N2+3", "wxf", "h0g2"),               # the N and B letters some write
    ("C2.5", "wxf", "h2e2"),               # the WXF standard's "." for sideways
    ("B7+5", "wxf", "c0e2"),
    ("Ｃ２＝５", "wxf", "h2e2"),             # full-width forms, as in PGN files
    ("Ｈ２－Ｅ２", "iccs", "h2e2"),
    ("ｈ２ｅ２", "coords", "h2e2"),
    ("Ｐ２－５", "vietnamese", "h2e2"),
])
def test_input_variants(text, name, move):
    assert notation.parse(Board(), text, name) == move


def test_black_in_full_width_and_ascii_digits():
    board = Board()
    board.push("h2e2")
    assert notation.parse(board, "马８进７", "chinese") == "h9g7"
    assert notation.parse(board, "馬8進7", "chinese") == "h9g7"


@pytest.mark.parametrize("fen, text, name, move", [
    # WXF writes these horses by their file (the front one could not make the
    # same move); the front/rear form reads too
    ("5k3/4N4/9/9/9/4N4/9/9/9/3K5 w - - 0 1", "H-+4", "wxf", "e4f6"),
    ("5k3/4N4/9/9/9/4N4/9/9/9/3K5 w - - 0 1", "-H+4", "wxf", "e4f6"),
    # elephants go by their file, but front/rear reads too
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1", "前相退五", "chinese", "c4e2"),
    ("3k5/9/9/9/9/2B6/9/9/9/2B1K4 w - - 0 1", "E+-5", "wxf", "c4e2"),
])
def test_front_and_rear_forms_read_where_the_file_is_written(fen, text, name, move):
    assert notation.parse(Board(fen), text, name) == move


def test_four_pawns_on_a_file_in_vietnamese_carry_their_file():
    board = Board("3k5/4P4/4P4/4P4/4P4/9/9/9/9/5K3 w - - 0 1")
    texts = notation.write_all(board, "vietnamese")
    assert texts["e8d8"] == "B15-6" and texts["e7d7"] == "B25-6"   # e8 is the front one
    assert all(notation.parse(board, t, "vietnamese") == m for m, t in texts.items())
    assert notation.write(board, "e7d7", "chinese") == "二兵平六"


def test_tandem_written_by_file_is_accepted_when_only_one_move_fits():
    board = Board("3k5/9/9/9/9/4R4/9/4R4/9/4K4 w - - 0 1")
    assert notation.parse(board, "R5+5", "wxf") == "e4e9"     # only the front rook reaches
    with pytest.raises(ValueError, match="ambiguous"):
        notation.parse(board, "R5=4", "wxf")                   # both rooks can


@pytest.mark.parametrize("text, name", [
    ("C2=5x", "wxf"), ("Z2=5", "wxf"), ("", "wxf"), ("炮二跳五", "chinese"), ("炮", "chinese"),
    ("P2+5", "vietnamese"), ("C2=2", "wxf"), ("h2h8", "coords"), ("H2-E9", "iccs"),
    ("h0e0", "ranks1"), ("R1+1", "nonesuch"),
])
def test_bad_text_is_a_clear_error(text, name):
    with pytest.raises(ValueError):
        notation.parse(Board(), text, name)


def test_writing_an_illegal_move_is_an_error():
    with pytest.raises(ValueError, match="illegal"):
        notation.write(Board(), "h2h8", "wxf")


def test_detect():
    assert notation.detect(["炮二平五", "马８进７"]) == "chinese"
    assert notation.detect(BOOK_GAME) == "vietnamese"
    assert notation.detect(["C2=5", "H8+7"]) == "wxf"
    assert notation.detect(["h2e2", "h9g7"]) == "coords"
    assert notation.detect(["h3e3", "h10g8"]) == "ranks1"
    assert notation.detect(["H2-E2", "H9-G7"]) == "iccs"


def _positions(count, seed):
    rng = random.Random(seed)
    return [random_board(rng, rng.randrange(0, 160)) for _ in range(count)]


def _round_trip(positions):
    moves = 0
    for board in positions:
        legal = board.legal_moves()
        for name in notation.NOTATIONS:
            texts = notation.write_all(board, name)
            assert len(set(texts.values())) == len(legal), (board.fen(), name)
            for move, text in texts.items():
                assert notation.parse(board, text, name) == move, (board.fen(), name, text)
        moves += len(legal)
    return moves


def test_round_trip_on_random_positions():
    assert _round_trip(_positions(500, seed=1)) > 10_000


@pytest.mark.slow
def test_round_trip_on_ten_thousand_random_positions():
    assert _round_trip(_positions(10_000, seed=2)) > 200_000


def _wxf_agrees_with_pyffish(games, seed):
    """Every move of random games: pyffish writes a whole game in one call
    (a call per move costs it milliseconds)."""
    sf = pytest.importorskip("pyffish")
    rng = random.Random(seed)
    checked = 0
    for _ in range(games):
        board, ours = Board(), []
        for _ in range(rng.randrange(40, 300)):
            legal = board.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            ours.append(notation.write(board, move, "wxf"))
            board.push(move)
        moves = [notation.to_engine_move(m, True) for m in board.move_stack]
        theirs = sf.get_san_moves("xiangqi", sf.start_fen("xiangqi"), moves,
                                  False, sf.NOTATION_XIANGQI_WXF)
        assert ours == theirs
        checked += len(ours)
    return checked


def test_wxf_agrees_with_pyffish():
    assert _wxf_agrees_with_pyffish(30, seed=3) > 3000


@pytest.mark.slow
def test_wxf_agrees_with_pyffish_on_a_thousand_games():
    assert _wxf_agrees_with_pyffish(1000, seed=4) > 100_000
