"""The quick reading of moves (tools/records/placement.py, notation._direct)
against the long way (describing every legal move): the same move for every
text, or the same error, on random games, the openings' positions and made-up
positions crowded with pieces of a kind on a file (front/middle/rear, numbered
pawns, pawns doubled on two files); and LineReader against parse and push."""
import random

import pytest

from conftest import random_plies
from tuong.engine.board import Board
from tuong.tools.records import notation, read_pgn
from tuong.tools.records.placement import Placement

WRITTEN = ("wxf", "chinese", "vietnamese")
OPENINGS = "tools/data/openings.pgn"


def _outcome(board, text, name, direct):
    """The move a text names, or the error's type and message."""
    try:
        return notation._parse(board, text, name, None, direct)
    except Exception as error:           # the same type and words both ways
        return type(error).__name__, str(error)


def _same(board, text, name):
    """Both ways agree on `text`; whether the quick way answered alone."""
    quick = _outcome(board, text, name, True)
    assert quick == _outcome(board, text, name, False), (board.fen(), text, name)
    try:
        read = notation._READERS[name][0](notation.unicodedata.normalize(
            "NFKC", text.strip()) if name != "chinese" else text.strip())
    except ValueError:
        return False
    return notation._direct(board, Placement(board.fen()), read) is not None


# -- positions ---------------------------------------------------------------
def _games(count, seed):
    """Boards along random games, every few plies."""
    rng = random.Random(seed)
    for _ in range(count):
        board = Board()
        for ply in random_plies(rng, board, rng.randrange(20, 200)):
            if ply % 7 == 3:
                yield board.copy()


def _openings():
    records, _ = read_pgn(open(OPENINGS, encoding="utf-8").read())
    for record in records:
        board = Board(record.fen) if record.fen else Board()
        for move in record.moves:
            board.push(move)
            yield board.copy()


_ADVISOR = [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)]
_ELEPHANT = [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)]


def _crowded(count, seed):
    """Made-up legal positions with pieces of a kind sharing files: pawns on
    one or two files, both rooks (horses, cannons) on one file."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        cells: dict[tuple[int, int], str] = {}

        def put(letter, f, r, red, cells=cells):
            cells.setdefault((f, r), letter if red else letter.lower())

        for red in (True, False):
            own = (lambda f, r: (f, r)) if red else (lambda f, r: (f, 9 - r))
            put("K", *own(rng.choice((3, 4, 5)), rng.randrange(3)), red)
            for _ in range(rng.randrange(3)):
                put("A", *own(*rng.choice(_ADVISOR)), red)
            for _ in range(rng.randrange(3)):
                put("B", *own(*rng.choice(_ELEPHANT)), red)
            files = rng.sample(range(9), rng.choice((1, 2, 2, 3)))
            for _ in range(rng.randrange(6)):
                put("P", *own(rng.choice(files), rng.randrange(3, 10)), red)
            for letter in "RNC":
                file = rng.randrange(9)
                for _ in range(rng.randrange(3)):
                    f = file if rng.random() < 0.7 else rng.randrange(9)
                    put(letter, *own(f, rng.randrange(10)), red)
        rows = []
        for r in range(9, -1, -1):
            row = "".join(cells.get((f, r), "1") for f in range(9))
            for n in range(9, 1, -1):
                row = row.replace("1" * n, str(n))
            rows.append(row)
        fen = "/".join(rows) + f" {rng.choice('wb')} - - 0 1"
        try:
            board = Board(fen)
        except ValueError:
            continue
        if board.legal_moves():
            made += 1
            yield board


# -- texts ---------------------------------------------------------------------
_CN_SWAPS = str.maketrans({"马": "馬", "车": "車", "进": "進", "后": "後", "将": "將",
                           "帅": "帥", "炮": "砲"})
_FULL = str.maketrans("１２３４５６７８９一二三四五六七八九", "123456789１２３４５６７８９")


def _texts(board, name):
    """Every legal move's text, its file and tandem forms, and variant spellings."""
    view = notation._View(board.fen())
    for move, text in notation.write_all(board, name).items():
        yield move, text
        forms = (notation._file_form(view, move), notation._tandem_form(view, move))
        for form in forms:
            if name == "wxf":
                yield None, notation._write_wxf(form)
            elif name == "chinese":
                yield None, notation._write_chinese(form, view.red)
            else:
                yield None, notation._write_vietnamese(form, view.red)
        if name == "chinese":
            yield move, text.translate(_CN_SWAPS)
            yield None, text.translate(_FULL)
        elif name == "wxf":
            yield move, " " + text.lower().replace("=", ".") + " "


def _random_text(rng, name):
    """A text of a notation's shape, right or wrong for the position."""
    digit = str(rng.randrange(1, 10))
    if name == "wxf":
        head = rng.choice([rng.choice("KAEHRCPBN") + rng.choice("123456789+-"),
                           rng.choice("+-") + rng.choice("RHCP"),
                           str(rng.randrange(1, 6)) + digit])
        return head + rng.choice("+-=.") + str(rng.randrange(1, 10))
    if name == "chinese":
        piece = rng.choice("帅将仕士相象马馬车車炮兵卒")
        number = rng.choice(["一二三四五六七八九", "１２３４５６７８９"])
        head = rng.choice([piece + rng.choice(number),
                           rng.choice("前中后後一二三四五") + piece,
                           rng.choice("前中后一二三") + rng.choice([piece, ""])
                           + rng.choice(number)])
        return head + rng.choice("进進退平") + rng.choice(number)
    letter = rng.choice(["Tg", "S", "T", "M", "X", "P", "B", "C"])
    head = rng.choice([letter + digit, letter + rng.choice("tgs"),
                       letter + rng.choice("tgs") + digit,
                       letter + str(rng.randrange(1, 6)) + digit])
    return head + rng.choice("./-") + str(rng.randrange(1, 10))


def _check_positions(boards, seed, random_texts=20):
    """Both ways on every text of every board; (texts, answered quickly)."""
    rng = random.Random(seed)
    checked = quick = 0
    for board in boards:
        for name in WRITTEN:
            for move, text in _texts(board, name):
                quick += _same(board, text, name)
                checked += 1
                if move is not None:
                    assert notation.parse(board, text, name) == move, (board.fen(), text)
            for _ in range(random_texts):
                quick += _same(board, _random_text(rng, name), name)
                checked += 1
    return checked, quick


def test_random_games_read_the_same_both_ways():
    checked, quick = _check_positions(_games(8, seed=1), seed=2)
    assert checked > 20_000 and quick > checked // 2


def test_openings_read_the_same_both_ways():
    boards = list(_openings())
    checked, quick = _check_positions(random.Random(3).sample(boards, min(100, len(boards))),
                                      seed=4, random_texts=5)
    assert checked > 20_000 and quick > checked // 2


def test_crowded_files_read_the_same_both_ways():
    """Tandem pieces: front/middle/rear, numbered pawns, two crowded files,
    texts naming a tandem piece by its file, and the ambiguous."""
    checked, quick = _check_positions(_crowded(200, seed=5), seed=6, random_texts=40)
    assert checked > 20_000 and quick > checked // 4


@pytest.mark.parametrize("text", [
    "", " ", "R", "R2", "R2+", "R2+0", "R2+10", "X2.4x", "Z2+3", "2+3", "+R", "R++",
    "66+1", "炮二平", "炮二平十", "前前进一", "中马", "马二进", "二进三", "前车进一二",
    "炮二平五五", "兵", "Tg5.", "Xt", "Bg6", "h2e2e", "H2-E2", "炮２平５",
    "xyz", "1-0", "*", "\u3000炮二平五\u3000", "Ｃ２＝５", "馬８進７"])
def test_malformed_and_odd_texts_fail_the_same_way(text):
    for board in (Board(), Board("3k5/9/9/4P4/4P4/4P4/9/9/9/5K3 w - - 0 1")):
        for name in WRITTEN:
            _same(board, text, name)


def test_coordinate_forms_stay_legal_moves_only():
    board = Board()
    legal = set(board.legal_moves())
    for text in ("h2e2", "a0a1", "a0a2", "i9i8", "e0e1"):
        expected = text in legal
        try:
            assert notation.parse(board, text, "coords") == text and expected
        except ValueError as error:
            assert not expected and str(error) == f"illegal move {text!r} in {board.fen()}"
    assert notation.parse(board, "H2-E2", "iccs") == "h2e2"
    assert notation.parse(board, "h3e3", "ranks1") == "h2e2"


def test_line_reader_follows_parse_and_push():
    """LineReader's kept placement against parse and push from the board's FEN,
    move after move, and after the board changed under it."""
    rng = random.Random(7)
    for _ in range(20):
        board = Board()
        moves = list(random_plies(rng, board, rng.randrange(40, 160)))
        moves = board.move_stack
        for name in WRITTEN:
            texts = notation.write_line(None, moves, name)
            assert notation.parse_line(None, texts, name) == moves
            reader = notation.LineReader(Board(), name)
            for move, text in zip(moves, texts):
                assert reader.push(text) == move
            assert reader.board.move_stack == moves
    board = Board()
    reader = notation.LineReader(board, "wxf")
    reader.push("C2=5")
    board.pop()                          # changed under the reader: it reads the board again
    board.push("b2e2")
    assert reader.push("H8+7") == "h9g7" and Placement(board.fen()).cells == reader._placement.cells


def test_a_failed_push_leaves_the_reader_in_step():
    reader = notation.LineReader(Board(), "chinese")
    with pytest.raises(ValueError, match="no legal move"):
        reader.push("炮二进九")
    assert reader.push("炮二平五") == "h2e2" and reader.push("马８进７") == "h9g7"
