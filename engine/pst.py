"""Material values and piece-square tables, in centipawns, from Red's side.

Material starts from the book's values (pawn 10, advisor 20, elephant 20,
horse 40, cannon 45, rook 90) scaled by ten. The king's material is left out:
both kings are always on the board, and losing one is a mate score.

Each table is drawn as Red sees the board: the first row is rank 9 (Black's
back rank), the last row rank 0. Black's tables are these mirrored top to
bottom, so the evaluation is exactly colour-symmetric. Every table is also
left-right symmetric.
"""

MATERIAL = {"K": 0, "A": 200, "B": 200, "N": 400, "R": 900, "C": 450, "P": 100}

_ZERO = [[0] * 9 for _ in range(10)]

PIECE_SQUARE = {
    # The king is safest at home; stepping up exposes him.
    "K": [[0] * 9 for _ in range(7)] + [
        [0, 0, 0, -20, -25, -20, 0, 0, 0],
        [0, 0, 0, -10, -10, -10, 0, 0, 0],
        [0, 0, 0, 0, 5, 0, 0, 0, 0],
    ],
    "A": [[0] * 9 for _ in range(7)] + [
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 5, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
    ],
    "B": [[0] * 9 for _ in range(5)] + [
        [0, 0, -5, 0, 0, 0, -5, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [-5, 0, 0, 0, 8, 0, 0, 0, -5],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
    ],
    # Horses want to come forward and to the centre, and hate the rim.
    "N": [
        [4, 8, 16, 12, 4, 12, 16, 8, 4],
        [4, 10, 28, 16, 8, 16, 28, 10, 4],
        [12, 14, 16, 20, 18, 20, 16, 14, 12],
        [8, 24, 18, 24, 20, 24, 18, 24, 8],
        [6, 16, 14, 18, 16, 18, 14, 16, 6],
        [4, 12, 16, 14, 12, 14, 16, 12, 4],
        [2, 6, 8, 6, 10, 6, 8, 6, 2],
        [4, 2, 8, 8, 4, 8, 8, 2, 4],
        [0, 2, 4, 4, -2, 4, 4, 2, 0],
        [0, -4, 0, 0, 0, 0, 0, -4, 0],
    ],
    # Rooks like open, advanced files and the ribs beside the palace.
    "R": [
        [14, 14, 12, 18, 16, 18, 12, 14, 14],
        [16, 20, 18, 24, 26, 24, 18, 20, 16],
        [12, 12, 12, 18, 18, 18, 12, 12, 12],
        [12, 18, 16, 22, 22, 22, 16, 18, 12],
        [12, 14, 12, 18, 18, 18, 12, 14, 12],
        [12, 16, 14, 20, 20, 20, 14, 16, 12],
        [6, 10, 8, 14, 14, 14, 8, 10, 6],
        [4, 8, 6, 14, 12, 14, 6, 8, 4],
        [8, 4, 8, 16, 8, 16, 8, 4, 8],
        [-2, 10, 6, 14, 12, 14, 6, 10, -2],
    ],
    # Cannons are strongest early, on the central file and at the back.
    "C": [
        [6, 4, 0, -10, -12, -10, 0, 4, 6],
        [2, 2, 0, -4, -14, -4, 0, 2, 2],
        [2, 2, 0, -10, -8, -10, 0, 2, 2],
        [0, 0, -2, 4, 10, 4, -2, 0, 0],
        [0, 0, 0, 2, 8, 2, 0, 0, 0],
        [-2, 0, 4, 2, 6, 2, 4, 0, -2],
        [0, 0, 0, 2, 4, 2, 0, 0, 0],
        [4, 0, 8, 6, 10, 6, 8, 0, 4],
        [0, 2, 4, 6, 6, 6, 4, 2, 0],
        [0, 0, 2, 6, 6, 6, 2, 0, 0],
    ],
    # Pawns are worth little at home and much once across the river,
    # most of all near the enemy palace; a pawn on the last rank is spent.
    "P": [
        [0, 3, 6, 9, 12, 9, 6, 3, 0],
        [18, 36, 56, 80, 120, 80, 56, 36, 18],
        [14, 26, 42, 60, 80, 60, 42, 26, 14],
        [10, 20, 30, 34, 40, 34, 30, 20, 10],
        [6, 12, 18, 18, 20, 18, 18, 12, 6],
        [2, 0, 8, 0, 8, 0, 8, 0, 2],
        [0, 0, -2, 0, 4, 0, -2, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
    ],
}


def red_value(letter, file, rank):
    """Material plus piece-square bonus of a Red piece (uppercase letter)."""
    return MATERIAL[letter] + PIECE_SQUARE[letter][9 - rank][file]
