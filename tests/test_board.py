"""The Python board API: FEN in and out, rejection of bad input, push/pop,
and the incremental Zobrist key."""
import random

import pytest
from conftest import read_bench_fens, read_perft_reference

from tuong.engine.board import START_FEN, Board


def test_start_position_round_trip():
    board = Board()
    assert board.fen() == START_FEN
    assert board.turn == "w"
    assert len(board.legal_moves()) == 44
    assert not board.in_check() and not board.is_game_over()


@pytest.mark.parametrize("fen", [fen for fen, _ in read_perft_reference()] + read_bench_fens())
def test_fen_round_trip(fen):
    assert Board(fen).fen().split()[:2] == fen.split()[:2]


def test_fen_tolerates_missing_fields_and_r_for_red():
    placement = START_FEN.split()[0]
    assert Board(placement).fen() == START_FEN
    assert Board(placement + " r").turn == "w"
    assert Board(placement + " b").turn == "b"
    assert Board(START_FEN.replace(" 0 1", " 3 17")).fen().endswith(" 17")


@pytest.mark.parametrize("number", ["99999999999999999999999999", "2147483648", "1000001",
                                    "5" * 5000, "\u00b2", "\uff11\uff12", "0", "-3", "x"])
def test_a_move_number_out_of_range_counts_as_one(number):
    # A huge one once escaped as OverflowError (the C int that keeps it).
    board = Board(START_FEN.replace(" 0 1", f" 0 {number}"))
    assert board.fen() == START_FEN
    board.push("h2e2")
    board.push("h9g7")
    assert board.fen().endswith(" 2")


BAD_FENS = [
    ("", "empty"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w", "9 ranks"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/9/RNBAKABNR w", "11 ranks"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/8/RNBAKABNR w", "8 files"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/91/RNBAKABNR w", "has 10 files"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", "more than 9 files"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5Q1/9/RNBAKABNR w", "unknown piece letter 'Q'"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w", "Red king missing"),
    ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "Black king missing"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBAKABNR w", "too many Red kings"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNK w",
     "Red king outside its palace at i0"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/A8/RNB1KABNR w",
     "Red advisor outside its palace at a1"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/3A5/RNB1KABNR w",
     "Red advisor off its palace diagonals at d1"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/B8/P1P1P1P1P/1C5C1/9/RN1AKABNR w",
     "Red elephant off its seven points at a4"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/3B5/P1P1P1P1P/1C5C1/9/RN1AKABNR w",
     "Red elephant off its seven points at d4"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/P8/RNBAKABNR w",
     "Red pawn behind its starting rank at a1"),
    ("rnbakabnr/p8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
     "Black pawn behind its starting rank at a8"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/1R7/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "too many Red rooks"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/p8/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "too many Black pawns"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move must be"),
    ("4k4/9/9/9/9/9/9/9/9/4K4 w", "the side not to move is in check"),
    ("3k5/9/9/9/9/9/9/9/4r4/4K4 b", "the side not to move is in check"),
]


@pytest.mark.parametrize("fen,message", BAD_FENS)
def test_bad_fen_is_rejected_with_its_reason(fen, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        Board(fen)


def test_side_to_move_may_be_in_check():
    board = Board("3k5/9/9/9/9/9/9/9/4r4/4K4 w")
    assert board.in_check()
    assert board.legal_moves()


def test_bad_moves_leave_the_board_unchanged():
    board = Board()
    before = (board.fen(), board.hash)
    for move in ["", "h2", "h2e2e", "z2e2", "h2e", "j0j1", "h2h2x", "e0e2", "h2e3", "a3a5", "a6a5",
                 42, None]:
        with pytest.raises(ValueError):
            board.push(move)
        assert (board.fen(), board.hash) == before
    with pytest.raises(IndexError):
        board.pop()


def test_push_pop_and_move_stack():
    board = Board()
    board.push("h2e2")
    board.push("h9g7")
    assert board.move_stack == ["h2e2", "h9g7"]
    assert board.turn == "w"
    assert board.pop() == "h9g7"
    assert board.pop() == "h2e2"
    assert board.fen() == START_FEN


def test_flying_general_is_respected():
    # Kings on one file with one piece between: that piece may not leave it.
    board = Board("4k4/9/9/9/4P4/9/9/9/9/4K4 w")
    assert [m for m in board.legal_moves() if m.startswith("e5")] == ["e5e6"]
    assert "e0d0" in board.legal_moves()


def test_checkmate_and_no_legal_move_is_game_over():
    # The rook checks on the d-file; e9 would face the red king.
    mated = Board("3k5/9/9/9/9/9/9/9/9/3RK4 b")
    assert mated.in_check() and mated.is_game_over() and mated.legal_moves() == []
    # Not in check yet no legal move: that loses too (no stalemate in Xiangqi).
    stuck = Board("3k5/4P4/3P5/9/9/9/9/9/9/5K3 b")
    assert not stuck.in_check() and stuck.is_game_over()


def test_copy_is_independent():
    board = Board()
    other = board.copy()
    other.push("h2e2")
    assert board.fen() == START_FEN and other.move_stack == ["h2e2"]


def _random_games(seed, games, plies):
    rng = random.Random(seed)
    starts = [START_FEN] + read_bench_fens() + [fen for fen, _ in read_perft_reference()]
    for _ in range(games):
        board = Board(rng.choice(starts))
        for _ in range(plies):
            moves = board.legal_moves()
            if not moves:
                break
            yield board, rng.choice(moves)


def test_incremental_hash_and_unmake_restore_exactly():
    checked = 0
    for board, move in _random_games(seed=1, games=60, plies=120):
        fen, key = board.fen(), board.hash
        board.push(move)
        assert board.hash == board._computed_hash()
        board.pop()
        assert board.fen() == fen and board.hash == key
        board.push(move)
        checked += 1
    assert checked > 3000


def test_hash_depends_on_side_and_position_only():
    a, b = Board(), Board()
    for move in ("h2e2", "h9g7", "b0c2"):
        a.push(move)
    for move in ("b0c2", "h9g7", "h2e2"):
        b.push(move)
    assert a.hash == b.hash and a.fen().split()[:2] == b.fen().split()[:2]
    assert Board(START_FEN).hash != Board(START_FEN.replace(" w ", " b ")).hash


def test_gives_check_is_recorded():
    board = Board("3k5/9/9/9/9/9/9/9/9/4K3R w")
    board.push("i0i9")
    assert board.gives_check() and board.in_check()
