"""The games the engine plays, by the name UCI_Variant gives them. Each is
a GameBoard subclass: Board(fen=None) starts from its start position."""
from tuong.engine.board import Board
from tuong.engine.game import GameBoard
from tuong.engine.dodgem import DodgemBoard
from tuong.engine.queens import QueensBoard
from tuong.engine.tictactoe import TicTacToeBoard

GAMES = {"xiangqi": Board, "tictactoe": TicTacToeBoard, "dodgem": DodgemBoard,
         "queens": QueensBoard}
"""The board class (a GameBoard subclass) of each game, by the name
`UCI_Variant` gives it: `"xiangqi"` (Board), `"tictactoe"`, `"dodgem"`,
`"queens"`. `GAMES[name](fen=None)` is a board at the game's start (or at
`fen`)."""


def board_class(name: str) -> type[GameBoard]:
    """The board class of the game `name` (any case: `"Xiangqi"`); KeyError
    naming the choices for a game there is not."""
    try:
        return GAMES[name.lower()]
    except KeyError:
        raise KeyError(f"no game {name!r}: choose from {', '.join(GAMES)}") from None
