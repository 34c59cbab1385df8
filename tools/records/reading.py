"""Game records from text: PGN (read_pgn, in any notation: the `[Format]` tag
where given, detection otherwise) and positions, one FEN or EPD a line
(read_fen_lines); read_text tells the two apart. The files and streams they
come from are tools/records/files.py's."""
import re

from tuong.engine.board import Board
from tuong.tools.records import notation as notations
from tuong.tools.records.movetext import RESULTS
from tuong.tools.records.movetext import games as _games
from tuong.tools.records.notation import Notation
from tuong.tools.records.pgn import first_move_number
from tuong.tools.records.record import FORMAT_NAMES, Problem, Record
from tuong.tools.records.tree import GameTree, Node

# A byte-order mark opens the text a Windows editor saved (read as "utf-8",
# not "utf-8-sig"): no move, no position, only a sign of where it came from.
BOM = "\ufeff"

# The [Format] tag's values read as a notation (lowercased), FORMAT_NAMES's and others.
_FORMAT_INPUT: dict[str, Notation] = {value.lower(): key for key, value in FORMAT_NAMES.items()}
_FORMAT_INPUT.update({"uci": "coords", "ucci": "coords", "chn": "chinese", "cn": "chinese",
                      "vn": "vietnamese"})


def _replay(fen, texts, notation):
    """Moves (a0-i9) of texts; on failure (index, message)."""
    return _replay_on(notations.board_at(fen), texts, notation)


def _replay_on(board, texts, notation):
    """_replay from `board`, which is left after the moves that were read."""
    moves, reader = [], notations.LineReader(board, notation)
    for i, text in enumerate(texts):
        try:
            move = reader.push(text)     # ValueError too when the game outgrows the history
        except ValueError as error:
            return None, (i, str(error))
        moves.append(move)
    return moves, None


def read_pgn(text: str, source: str = "<pgn>", notation: Notation | None = None,
             limit: int | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) from PGN text. A variation that does not read
    is left out of its game's tree, with a Problem (game_kept) saying so.
    With `limit`, only the first `limit` games are read, whether they read
    or not (the moves of the later ones are not even looked at)."""
    records: list[Record] = []
    problems: list[Problem] = []
    text = text.removeprefix(BOM)      # pasted from a file a Windows editor saved
    for number, game in enumerate(_games(text), 1):
        if limit is not None and number > limit:
            break
        tags, line = game.tags, game.line
        texts = [move[0] for move in line]
        comments = [move[1] for move in line]
        if "Red" in tags:                  # Chinese programs name the players Red and Black
            tags.setdefault("White", tags["Red"])
        title = f"{tags.get('White', '?')} - {tags.get('Black', '?')}"    # White: Red too
        fen = tags.get("FEN")
        if game.broken:
            problems.append(Problem(source, number, title, game.broken))
            continue
        try:
            if fen:
                notations.board_at(fen)
        except ValueError as error:
            problems.append(Problem(source, number, title, f"bad FEN: {error}"))
            continue
        chosen = notation or _FORMAT_INPUT.get(tags.get("Format", "").strip().lower())
        candidates = [chosen] if chosen else _candidates(texts)
        moves, failure = None, (-1, "no notation fits its moves")
        for candidate in candidates:
            moves, failed = _replay(fen, texts, candidate)
            if moves is not None:
                chosen = candidate
                break
            failure = max(failure, failed)      # the reading that went furthest
        if moves is None:
            index, message = max(failure, (0, failure[1]))
            problems.append(Problem(source, number, title, message,
                                    _move_number(index, fen) if texts else None,
                                    texts[index] if texts else None))
            continue
        tree, dropped = _tree(fen, game, moves, chosen)
        for ply, text, message in dropped:
            problems.append(Problem(source, number, title, message,
                                    _move_number(ply, fen), text, game_kept=True))
        if game.strays:
            problems.append(Problem(source, number, title,
                                    f"variation dropped: {game.strays} before any move "
                                    "(an alternative to nothing)", game_kept=True))
        result = game.result if game.result and game.result != "*" else tags.get("Result", "*")
        records.append(Record(tags, moves, comments, result if result in RESULTS else "*",
                              chosen, game.intro, tree))
    return records, problems


def _tree(fen, game, moves, notation):
    """(GameTree, dropped) of a GameText whose main line reads as `moves`: that
    line, then its variations, read in `notation` and replayed from where
    they branch off. A variation that does not read is left out with what
    is nested in it; dropped has (ply of its bad move, the move's text, why)."""
    tree = GameTree(fen)
    tree.root.comment = game.intro
    node = tree.root
    for move, (_, comment, mark, _) in zip(moves, game.line):
        node, _ = tree.add(node, move, comment, mark)
    dropped = []
    if not any(move[3] for move in game.line):
        return tree, dropped              # most games: no board work to do
    # Lines still to look into: (the board and node before the line's
    # first move, the line, its moves in a0-i9); their moves are in the tree.
    stack = [(notations.board_at(fen), tree.root, game.line, moves)]
    while stack:
        board, node, line, line_moves = stack.pop()
        for (_, _, _, variations), move in zip(line, line_moves):
            for variation in variations or ():
                found, failure = _replay_on(board.copy(), [m[0] for m in variation], notation)
                if found is None:
                    index, message = failure
                    dropped.append((board.ply + index, variation[index][0],
                                    f"variation dropped: {message}"))
                    continue
                branch = node
                for index, (found_move, (text, comment, mark, _)) in enumerate(
                        zip(found, variation)):
                    branch, made = tree.add(branch, found_move, comment, mark)
                    if not made:         # a move the game has already: its words join it
                        lost = _merge(branch, comment, mark)
                        if lost:
                            dropped.append((board.ply + index, text, lost))
                stack.append((board.copy(), node, variation, found))
            board.push(move)
            node = next(child for child in node.children if child.move == move)
    return tree, dropped


def _merge(node: Node, comment: str | None, mark: str | None) -> str | None:
    """Give `node` the comment and mark of a variation that repeats its move:
    the comment after its own, the mark where it has none. What could not
    be kept (a second mark), said; else None."""
    if comment and comment != node.comment:
        node.comment = f"{node.comment} {comment}" if node.comment else comment
    if mark and node.mark and mark != node.mark:
        return f"mark {mark} dropped: a variation repeats the move, which has {node.mark}"
    node.mark = node.mark or mark
    return None


def _move_number(ply, fen):
    """The move number of the move `ply` plies (from 0) into a game from `fen`."""
    return (ply + (1 if fen and fen.split()[1:2] == ["b"] else 0)) // 2 + first_move_number(fen)


def _candidates(texts):
    """The notations to try, the detected one first: a line without rank 0
    or 10 reads either way, and short Vietnamese lines look like WXF."""
    found = notations.detect(texts) or "wxf"
    pairs = {"coords": "ranks1", "ranks1": "coords", "wxf": "vietnamese", "vietnamese": "wxf"}
    return [found, pairs[found]] if found in pairs else [found]


_FEN_LINE = re.compile(r"\s*[1-9A-Za-z+]+(?:/[1-9A-Za-z+]+){9}\s+[wbr](?:\s|;|$)")


def looks_like_fen_lines(text: str) -> bool:
    """Whether text is positions, one FEN or EPD a line (# comment lines and
    blank lines aside), as a pasted EPD file is, rather than PGN."""
    lines = (line for line in text.splitlines() if line.strip() and
             not line.lstrip().startswith("#"))
    found = False
    for line in lines:                   # PGN: over at its first line
        if not _FEN_LINE.match(line):
            return False
        found = True
    return found


def read_text(text: str, source: str = "<text>", notation: Notation | None = None,
              limit: int | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) of pasted text: positions (one FEN or EPD a
    line, see looks_like_fen_lines) or PGN."""
    text = text.removeprefix(BOM)
    if looks_like_fen_lines(text):
        return read_fen_lines(text, source)
    return read_pgn(text, source, notation, limit)


def read_fen_lines(text: str, source: str = "<fen>") -> tuple[list[Record], list[Problem]]:
    """Positions, one FEN (or EPD) a line, as records without moves."""
    records, problems = [], []
    for number, line in enumerate(text.removeprefix(BOM).splitlines(), 1):
        line = line.split(";")[0].strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        fen = " ".join(fields[:2] + (fields[2:6] if len(fields) >= 6 else ["-", "-", "0", "1"]))
        try:
            Board(fen)
        except ValueError as error:
            problems.append(Problem(source, number, "line", f"bad FEN: {error}"))
            continue
        records.append(Record({"FEN": fen, "SetUp": "1"}, [], [], "*", None))
    return records, problems



def count_games(text: str) -> int:
    """How many games PGN text holds (read no further than its tokens)."""
    return len(_games(text))
