"""Differential test against Fairy-Stockfish's rules (pyffish): on positions
from seeded random playouts, the legal move sets, check status and game-over
status must be identical. pyffish writes ranks 1-10; we translate."""
import random

import pytest
from conftest import from_ranks1, need_module, read_bench_fens

from tuong.engine.board import START_FEN, Board

sf = need_module("pyffish")


def playout_positions(seed, count, starts, max_plies=160):
    """FENs met along random games, `count` of them in all."""
    rng = random.Random(seed)
    seen = 0
    while seen < count:
        board = Board(rng.choice(starts))
        for _ in range(rng.randint(1, max_plies)):
            moves = board.legal_moves()
            if not moves:
                break
            # Prefer captures half the time so that endgames are reached too.
            captures = [m for m in moves if board_piece_at(board, m[2:])]
            board.push(rng.choice(captures) if captures and rng.random() < 0.5
                       else rng.choice(moves))
            yield board
            seen += 1
            if seen >= count:
                return


def board_piece_at(board, square):
    placement = board.fen().split()[0].split("/")[9 - int(square[1])]
    f = 0
    for ch in placement:
        if ch.isdigit():
            f += int(ch)
        else:
            if f == ord(square[0]) - 97:
                return ch
            f += 1
    return None


def compare(board):
    fen = board.fen()
    theirs = sorted(from_ranks1(m) for m in sf.legal_moves("xiangqi", fen, []))
    ours = sorted(board.legal_moves())
    assert ours == theirs, fen
    assert board.in_check() == sf.gives_check("xiangqi", fen, []), fen
    assert board.is_game_over() == (not theirs), fen


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_from_start(seed):
    for board in playout_positions(seed, 600, [START_FEN]):
        compare(board)


@pytest.mark.parametrize("seed", range(2))
def test_random_playouts_from_bench(seed):
    for board in playout_positions(100 + seed, 600, read_bench_fens()):
        compare(board)


@pytest.mark.slow
def test_many_random_playouts():
    for board in playout_positions(7, 50_000, [START_FEN] + read_bench_fens()):
        compare(board)
