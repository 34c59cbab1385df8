"""The game of a tuong-web page, without the page or the engine: levels,
limits of what a page may send, and the pure work on a game tree
(tools/records/tree.py) that tools/web/session.py runs, some of it off the
event loop: checking and describing every move of an imported or restored
tree, rewriting the moves in another notation, reading the first game of
a file, copying a tree for export.
"""
import base64
import binascii
import dataclasses
import string
import sys
from typing import Optional

from tuong.engine import levels
from tuong.engine.games import GAMES
from tuong.engine.rows import parse_rows
from tuong.protocol import book as books
from tuong.tools import records
from tuong.tools.match import referee
from tuong.tools.records import notation as notations
from tuong.tools.records.tree import GameTree
from tuong.tools.web import words

VARIANTS = tuple(GAMES)
NOTATIONS = ("wxf", "chinese", "vietnamese", "iccs", "coords")
LANGS = ("en", "vi", "zh-Hans", "zh-Hant")
MAX_MOVES = 1000                 # plies of one line of a restored or imported game
MAX_NODES = 5000                 # moves in a whole game tree
MAX_IMPORT = 2_000_000           # bytes of an imported file or text
MAX_TEXT = 2000                  # characters of a comment
HEADER_NAMES = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "Opening", "ECCO",
                "Annotator", "WhiteElo", "BlackElo", "TimeControl",
                # Time odds: each side's clock, as tuong-match and cutechess write them.
                "WhiteTimeControl", "BlackTimeControl")
SIDE_NAMES = {"xiangqi": ("Red", "Black"), "tictactoe": ("X", "O"),
              "dodgem": ("White", "Black"), "queens": ("First player", "Second player")}
MANUAL_ENDS = ("resignation", "time forfeit", "agreement", "illegal move")
# Emitted as a marker: the sender builds the state (tools/web/session.py's doc,
# "What goes out"); the Session and its parts send it, the server tests for it.
STATE = {"type": "state"}
# The rules a game ends by: mate, stalemate, the repetition rulings and the
# no-capture rule, as the referee applies them; never a cap on its length (the
# referee's 300 plies adjudicate a match, they are not a rule of Xiangqi).
GAME_RULES = referee.Rules(max_plies=sys.maxsize)


class Refused(Exception):
    """A message the session will not carry out; its text goes to the page,
    with `key` (the sentence's English template), `params` and `detail`
    (technical words after it) for the page's language (tools/web/words.py)."""

    def __init__(self, message, *, key=None, params=None, detail=None):
        super().__init__(message)
        self.key, self.params, self.detail = key or message, params or {}, detail


@dataclasses.dataclass(frozen=True)
class Level:
    """How hard the engine plays: nodes, depth, movetime or a clock; and,
    in a game, its strength (`elo`: UCI_LimitStrength with UCI_Elo, None
    for full strength; engine/levels.py)."""
    kind: str = "nodes"
    value: float = 20000
    base: float = 0.0
    inc: float = 0.0
    elo: Optional[int] = None

    RANGES = {"nodes": (1, 100_000_000), "depth": (1, 64), "movetime": (0.05, 600)}

    @classmethod
    def parse(cls, data):
        if not isinstance(data, dict):
            raise Refused("level must be an object")
        kind = data.get("kind")
        if not isinstance(kind, str):
            raise Refused("level kind must be nodes, depth, movetime or clock")
        elo = data.get("elo")
        if elo is not None:
            elo = int(number(elo, "elo", levels.MIN_ELO, levels.MAX_ELO))
        if kind == "clock":
            base, inc = number(data.get("base"), "base", 1, 36000), \
                number(data.get("inc", 0), "inc", 0, 600)
            return cls("clock", 0, base, inc, elo)
        if kind not in cls.RANGES:
            raise Refused("level kind must be nodes, depth, movetime or clock")
        low, high = cls.RANGES[kind]
        value = number(data.get("value"), kind, low, high)
        return cls(kind, int(value) if kind != "movetime" else value, elo=elo)

    def as_dict(self):
        if self.kind == "clock":
            return {"kind": "clock", "base": self.base, "inc": self.inc, "elo": self.elo}
        return {"kind": self.kind, "value": self.value, "elo": self.elo}


def number(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise Refused(f"{name} must be a number")
    if not low <= value <= high:
        raise Refused(f"{name} must be between {low:g} and {high:g}")
    return value


def grid_of(fen):
    """A FEN's placement as rows of cells, top row first ('' for empty)."""
    rows = parse_rows(fen.split()[0], string.ascii_letters, "board")
    return [["" if cell is None else cell for cell in row] for row in rows]


def _result_for(first_wins):
    return "1-0" if first_wins else "0-1"


def text_field(value, name, limit=200):
    if not isinstance(value, str) or len(value) > limit:
        raise Refused(f"{name} must be a string of at most {limit} characters",
                      key="{name} must be a string of at most {n} characters",
                      params={"name": name, "n": limit})
    return value


def file_bytes(data):
    """The bytes of a file the page sent as base64 (at most MAX_IMPORT of them)."""
    if not isinstance(data, str) or len(data) > MAX_IMPORT * 4 // 3 + 4:
        raise Refused(f"data must be base64 of at most {MAX_IMPORT} bytes")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Refused("data is not valid base64") from None


def _illegal_position(problem):
    key, params, detail = words.position_problem(problem)
    return Refused(f"not a legal position: {problem}", key=key, params=params, detail=detail)


def new_board(variant, fen=None):
    """A board of `variant` at `fen` (its start by default), under the
    Asian rules for Xiangqi; Refused for a position that is not legal."""
    if fen and not fen.strip():
        raise _illegal_position("the FEN is empty")
    if fen and variant == "xiangqi":
        problem = _setup_problem(fen)
        if problem:
            raise _illegal_position(problem)
    try:
        board = GAMES[variant](fen) if fen else GAMES[variant]()
    except (ValueError, TypeError) as error:
        raise _illegal_position(str(error)) from None
    if variant == "xiangqi":
        board.rules = "asian"
    return board


def _setup_problem(fen):
    """What the board's own FEN check lets through but no game can reach: a
    pawn beside its starting points before the river (pawns only go
    forward there), and generals facing each other (said as such, not as
    a check)."""
    try:
        rows = parse_rows(fen.split()[0], string.ascii_letters, "board")
    except ValueError:
        return None                      # the board says what is wrong
    if len(rows) != 10 or any(len(row) != 9 for row in rows):
        return None
    for index, row in enumerate(rows):
        rank = 9 - index
        for file, piece in enumerate(row):
            if piece in ("P", "p") and file % 2 == 1 and \
                    rank in ((3, 4) if piece == "P" else (5, 6)):
                side = "Red" if piece == "P" else "Black"
                return f"a {side} pawn cannot stand on {'abcdefghi'[file]}{rank} " \
                       "(before the river, pawns stand only on the files a, c, e, g and i)"
    found = [(piece, (file, 9 - index)) for index, row in enumerate(rows)
             for file, piece in enumerate(row) if piece in ("K", "k")]
    kings = dict(found)
    if len(found) == 2 and len(kings) == 2 and kings["K"][0] == kings["k"][0]:
        file, low, high = kings["K"][0], kings["K"][1], kings["k"][1]
        if all(rows[9 - rank][file] is None for rank in range(low + 1, high)):
            return "the generals face each other on an open file"
    return None


def judge(variant, board):
    """The result if the position on `board` ends the game, else None."""
    if variant == "xiangqi":
        verdict = referee.judge(board, GAME_RULES)
        return None if verdict is None else verdict._asdict()
    outcome = board.mover_outcome()
    if outcome is None:
        if board.rule_outcome() == 0:         # Dodgem: a position that recurs draws
            return {"result": "1/2-1/2", "termination": "repetition",
                    "reason": "Draw by repetition"}
        return None
    if outcome == 0:
        return {"result": "1/2-1/2", "termination": "game over", "reason": "Draw"}
    mover_first = board.turn == GAMES[variant]().turn
    first_wins = (outcome > 0) == mover_first
    # SIDE_NAMES is by FEN side (w, b), not by who moves first: in Dodgem
    # Black ('b') moves first.
    winner = board.turn if outcome > 0 else ("b" if board.turn == "w" else "w")
    name = SIDE_NAMES[variant][0 if winner == "w" else 1]
    return {"result": _result_for(first_wins), "termination": "game over",
            "reason": f"{name} wins"}


def _pieces(fen):
    return sum(c.isalpha() for c in fen.split()[0])


def describe(variant, board, node, notation):
    """Fill `node.data` from `board`, the position before its move (the
    move is then played on it): the move as written, the position after,
    whether it took something, and the result if it ends the game."""
    before = node.parent.data
    text = notations.write(board, node.move, notation) if variant == "xiangqi" else node.move
    board.push(node.move)
    fen = board.fen()
    capture = _pieces(fen) < _pieces(before["fen"])
    ply = before["ply"] + 1
    last_capture = ply if capture else before["last_capture"]
    node.data.update(text=text, fen=fen, capture=capture, ply=ply, last_capture=last_capture,
                     end=judge(variant, board))


def describe_root(variant, tree):
    board = new_board(variant, tree.start_fen)
    tree.root.data.update(fen=board.fen(), ply=0, last_capture=0, text=None, capture=False,
                          end=judge(variant, board))
    return board


def fill(variant, tree, notation, max_line=MAX_MOVES):
    """Check every move of `tree` on the board and describe it (depth
    first, one board pushed and popped: linear in the moves). Refused at
    the first illegal move or a line longer than `max_line`. Pure: runs
    off the event loop."""
    board = describe_root(variant, tree)
    stack = [(child, False) for child in reversed(tree.root.children)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            board.pop()
            continue
        if node.move not in board.legal_moves():
            raise Refused(f"illegal move {node.move!r} at ply {board.ply + 1}")
        if board.ply >= max_line:
            raise Refused(f"a line of more than {max_line} moves")
        describe(variant, board, node, notation)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.children))
    return tree


def texts(variant, tree, notation):
    """{node id: the move written in `notation`} for the whole tree (off
    the event loop: it only reads the tree)."""
    written = {}
    board = new_board(variant, tree.start_fen)
    stack = [(child, False) for child in reversed(list(tree.root.children))]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            board.pop()
            continue
        written[node.id] = notations.write(board, node.move, notation)
        board.push(node.move)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(list(node.children)))
    return written


def tree_from_saved(game):
    """A GameTree (moves not yet checked) and the cursor and play indices
    from a saved game: `nodes` as [[parent index, move, comment, mark,
    result], ...] in order (index 0 is the start position, entry i is
    node i + 1), or the older `moves` (one line)."""
    tree = GameTree(game.get("start_fen"))
    if game.get("comment") is not None:
        tree.root.comment = text_field(game["comment"], "restore: the first comment", MAX_TEXT)
    nodes = game.get("nodes")
    if nodes is None:
        moves = game.get("moves", [])
        if not isinstance(moves, list) or len(moves) > MAX_MOVES:
            raise Refused("restore: moves must be a list of moves")
        nodes = [[i, move] for i, move in enumerate(moves)]
    if not isinstance(nodes, list) or len(nodes) > MAX_NODES:
        raise Refused(f"restore: nodes must be a list of at most {MAX_NODES}")
    made = [tree.root]
    for entry in nodes:
        if not isinstance(entry, list) or not 2 <= len(entry) <= 5:
            raise Refused("restore: a node is [parent, move, comment, mark, result]")
        parent, move = entry[0], entry[1]
        comment, mark, result = (list(entry[2:]) + [None, None, None])[:3]
        if isinstance(parent, bool) or not isinstance(parent, int) or \
                not 0 <= parent < len(made):
            raise Refused("restore: a node's parent must come before it")
        if not isinstance(move, str) or len(move) > 8:
            raise Refused("restore: moves must be short strings")
        if comment is not None:
            comment = text_field(comment, "restore: a comment", MAX_TEXT)
        if mark is not None and mark not in ("!", "?", "!!", "??", "!?", "?!"):
            raise Refused("restore: a mark must be one of ! ? !! ?? !? ?!")
        node, made_now = tree.add(made[parent], move, comment, mark)
        if not made_now:
            raise Refused("restore: the same move twice from one position")
        if result is not None:
            node.data["result"] = manual_result(result)
        made.append(node)
    return tree, made


def manual_result(result):
    if not isinstance(result, dict) or result.get("result") not in records.RESULTS or \
            result.get("termination") not in MANUAL_ENDS:
        raise Refused("restore: a result is {result, termination, reason}")
    return {k: str(result.get(k, ""))[:200] for k in ("result", "termination", "reason")}


_BOOK: list[Optional[books.Book]] = []           # opened once, on first use


def opening_book():
    """The default opening book, opened once (None if it cannot be read)."""
    if not _BOOK:
        try:
            _BOOK.append(books.Book.open(books.DEFAULT_PATH))
        except (books.BookError, OSError):
            _BOOK.append(None)
    return _BOOK[0]

def copy_tree(source, export, parent, with_notes):
    """Copy the moves below `source` into `export` under `parent`, with the
    game's comments (and the annotation's, when asked)."""
    stack = [(source, parent)]
    while stack:
        node, copy = stack.pop()
        for child in node.children:
            # The record's own mark stays; the annotation's only fills in
            # where the record has none, and only when it is asked for.
            amark = child.data.get("amark") if with_notes else None
            made, _ = export.add(copy, child.move, child.comment, child.mark or amark)
            note = child.data.get("note") if with_notes else None
            if note:
                made.comment = f"{child.comment} {note}" if child.comment else note
            stack.append((child, made))


def first_game(job, notation):
    """(tree described, tags) of the first game a reader finds, the count of
    games, the problems. Pure: runs off the event loop. Only the first game
    is read; the others are only counted."""
    reader, *args = job
    count = None
    if reader is records.read_pgn:
        found, problems = reader(*args, limit=1)
        count = records.count_games(args[0])
    elif reader is records.read_bytes:
        data, name = args
        found, problems = reader(data, name, limit=1)
        if not (data[:2] == b"XQ" or name.lower().endswith((".xqf", ".fen", ".epd"))):
            count = records.count_games(records.decode(data))
    else:
        found, problems = reader(*args)
    if not found:
        return None, 0, problems
    game = record_game(found[0], notation)
    if game is None:
        return None, 1, [f"a game of more than {MAX_NODES} moves"]
    return game, count or len(found), problems


def record_game(record, notation):
    """(tree described, tags) of a record as the page studies it, or None
    for a game larger than a page keeps. Pure: runs off the event loop."""
    tree = record.tree
    if tree is None:                     # a position, or a reader without variations
        tree = GameTree(record.fen)
        tree.root.comment = record.intro
        node = tree.root
        for move, comment in zip(record.moves, record.comments + [None] * len(record.moves)):
            node, _ = tree.add(node, move, comment)
    tree.start_fen = record.fen
    if len(tree) > MAX_NODES + 1:
        return None
    fill("xiangqi", tree, notation)
    for node in tree.root.walk():        # as much as a page keeps (and restores)
        if node.comment and len(node.comment) > MAX_TEXT:
            node.comment = node.comment[:MAX_TEXT - 3] + "..."
    tags = {name: " ".join(value.split())[:200] for name, value in record.tags.items()
            if isinstance(value, str)}
    if "Red" in tags and tags.get("White", tags["Red"]) == tags["Red"]:
        # The page calls Red's player White (its header field): [Red] is that, where it stood.
        tags = {"White" if name == "Red" else name: value for name, value in tags.items()
                if name != "White"}
    return tree, tags
