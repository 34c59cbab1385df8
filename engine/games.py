"""The games the engine plays, by the name UCI_Variant gives them. Each is
a GameBoard subclass: Board(fen=None) starts from its start position."""
from tuong.engine.board import Board
from tuong.engine.dodgem import DodgemBoard
from tuong.engine.queens import QueensBoard
from tuong.engine.tictactoe import TicTacToeBoard

GAMES = {"xiangqi": Board, "tictactoe": TicTacToeBoard, "dodgem": DodgemBoard,
         "queens": QueensBoard}


def board_class(name):
    """The board class of a game; KeyError naming the choices."""
    try:
        return GAMES[name.lower()]
    except KeyError:
        raise KeyError(f"no game {name!r}: choose from {', '.join(GAMES)}") from None
