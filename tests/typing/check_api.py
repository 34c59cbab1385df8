"""The public API as a library user writes against it. tests/test_typing.py
has mypy check this file (the engine's stubs, engine/*.pyi, and the hints of
the Python modules), so a stub or hint that drifts from what users write
fails there. By hand: `python tests/test_typing.py` (a plain `python -m mypy`
does not find tuong through setuptools' editable install; that script gives
mypy a tuong/ tree of links, as the test does).

Not a test module (pytest collects test_*.py only). Run as a script it
plays a few moves, writes and reads them back, probes the shipped book and
searches a ply; it never starts an engine: play() below is only
type-checked."""
import random
from typing import TYPE_CHECKING, Literal

import tuong

from tuong.engine.board import (START_FEN, Board, Outcome, Verdict, evaluate,
                                 static_exchange_at_least)
from tuong.engine.egtb import name_of, parse_name
from tuong.engine.egtbfile import Tablebases
from tuong.engine.game import GameBoard
from tuong.engine.games import GAMES
from tuong.engine.report import SearchInfo
from tuong.engine.search import Searcher, SearchResult
from tuong.protocol.book import DEFAULT_PATH, Book, BookMove, Choice
from tuong.protocol.client import (Analysis, Info, Limit, PlayResult, PovScore, Score, Side,
                                   open_engine)
from tuong.tools import records
from tuong.tools.records import notation
from tuong.tools.records.tree import GameTree

if TYPE_CHECKING:
    from typing_extensions import assert_type


def replay(moves: list[str], fen: str | None = None) -> Board:
    board = Board(fen)
    for move in moves:
        board.push(move)
    return board


def state(board: Board) -> tuple[str, list[str], bool, Outcome | None]:
    fen: str = board.fen()
    legal: list[str] = board.legal_moves()
    over: bool = board.is_game_over()
    return fen, legal, over, board.outcome()


def ending(board: Board) -> str:
    """How the game stands, as a script reads it."""
    outcome = board.outcome(no_capture_plies=120, max_plies=None)
    if outcome is None:
        clock: int = board.halfmove_clock
        return f"move {board.fullmove_number}, {clock} plies without a capture"
    if TYPE_CHECKING:
        assert_type(outcome.result, Literal["1-0", "0-1", "1/2-1/2"])
        assert_type(outcome.winner, Literal["w", "b"] | None)
    return f"{outcome.result} ({outcome.termination}): {outcome.reason}"


def rules_verdict(board: Board) -> str | None:
    verdict: Verdict | None = board.repetition_verdict()
    return None if verdict is None else f"{verdict.rule}: {verdict.result}"


def take_back(board: Board) -> str:
    last = board.pop()
    if TYPE_CHECKING:
        assert_type(last, str)
        assert_type(board.copy(), Board)
        assert_type(board.move_stack, list[str])
        assert_type(board.repetition_verdict(), Verdict | None)
        assert_type(board.is_capture(last), bool)
        assert_type(board.is_check(), bool)
        assert_type(evaluate(board), int)
    return last


def any_game(name: str, fen: str | None = None) -> GameBoard:
    """Code written for every game: the board classes by name."""
    board = GAMES[name](fen)
    board.push(board.legal_moves()[0])
    print(board.game, board.turn, board.side_name, board.fen())
    return board


def best_move(board: GameBoard, depth: int) -> str | None:
    infos: list[SearchInfo] = []
    result: SearchResult = Searcher(hash_mb=1).search(board, depth=depth, on_info=infos.append)
    if TYPE_CHECKING:
        assert_type(result.pv, list[str])
        assert_type(infos[-1].score, int | None)
    return result.best


def in_notation(board: Board, style: notation.Notation = "wxf") -> dict[str, str]:
    return notation.write_all(board, style)


def read_record(text: str) -> list[records.Record]:
    games, problems = records.read_pgn(text)
    for problem in problems:
        print(f"left out: {problem}")
    return games


def variations(record: records.Record) -> list[list[str]]:
    """Every line of a record's tree, as a user walks it."""
    tree: GameTree | None = record.tree
    if tree is None:
        return [record.moves]
    return [node.moves() for node in tree.root.walk() if not node.children]


def book_moves(book: Book, board: Board) -> list[str]:
    moves: list[BookMove] = book.probe(board.fen(), board.legal_moves())
    choice: Choice | None = book.choose(board.fen(), board.legal_moves(), random.Random(1))
    if choice is not None:
        print(choice.describe())
    return [m.move for m in moves]


def table_value(tables: Tablebases, board: Board) -> int | None:
    value: int | None = tables.probe_fen(board.fen())
    return value


def play(command: str, board: Board) -> str | None:
    """Type-level only: never called here (it would start an engine)."""
    with open_engine(command, "uci") as engine:
        result: PlayResult = engine.play((board.fen(), []), Limit(depth=5, movetime=0.5))
    return result.move


def best_lines(command: str, fen: str | None) -> list[tuple[str, Score | None]]:
    """Type-level only: the three best moves and Red's view of their scores."""
    with open_engine(command, "uci") as engine:
        analysis: Analysis = engine.analyse((fen, []), Limit(depth=6), multipv=3)
        analysis.wait()
        lines: list[Info] = analysis.lines
    return [(info.pv[0], info.score.red() if info.score else None) for info in lines]


def red_view(info: Info, mate_score: int = 10_000) -> int | None:
    score = info.score
    if TYPE_CHECKING:
        assert_type(score, PovScore | None)
        assert_type(info.turn, Side | None)
    if score is None:
        return None
    if TYPE_CHECKING:
        assert_type(score.relative, Score)
        assert_type(score.pov("black").is_mate(), bool)
    return score.red().score(mate_score=mate_score)


def edited(board: Board) -> str:
    """A game built from a board, named, annotated and written."""
    record = records.Record.from_board(board, {"Event": "analysis"})
    record.red, record.black = "Me", "tuong"
    node = record.add_variation(0, ["c3c4"])
    record.set_comment(node, "the pawn opening")
    record.set_mark(1, "!")
    return records.format_pgn(record, "wxf")


def players(path: str) -> list[tuple[str | None, str | None]]:
    problems: list[records.Problem] = []
    return [(game.red, game.black) for game in records.iter_games(path, problems=problems)]


def version() -> str:
    found: str = tuong.__version__
    return found


def main() -> None:
    board = replay(["h2e2", "h9g7"])
    fen, legal, over, outcome = state(board)
    assert not over and outcome is None and len(legal) > 0, fen
    assert take_back(board) == "h9g7"
    assert ending(board) == "move 1, 1 plies without a capture", ending(board)
    assert rules_verdict(board) is None
    assert static_exchange_at_least(Board(START_FEN), "h2h9") in (True, False)
    wxf = in_notation(board)
    assert wxf["h9g7"] == "H8+7", wxf["h9g7"]
    pgn = '[Format "WXF"]\n\n1. C2=5 H8+7 *\n'
    assert read_record(pgn)[0].moves == ["h2e2", "h9g7"]
    with_variation = '[Format "WXF"]\n\n1. C2=5 (1. P7+1) H8+7 *\n'
    assert variations(read_record(with_variation)[0]) == [["h2e2", "h9g7"], ["c3c4"]]
    assert name_of(parse_name("KRvK")) == "KRvK"
    print(book_moves(Book.open(DEFAULT_PATH), Board())[:3])
    print(best_move(Board(), 1))
    any_game("tictactoe")
    assert red_view(Info(cp=-40, turn="black")) == 40
    assert red_view(Info(mate=-2, turn="red")) == -9998
    assert "C2=5!" in edited(replay(["h2e2"])) and version()


if __name__ == "__main__":
    main()
