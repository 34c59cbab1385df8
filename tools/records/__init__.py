"""Game records: PGN in any notation and encoding, XQF, FEN; PGN out in any notation.

    tuong-pgn convert FILE... --to coords|ranks1|iccs|wxf|chinese|vietnamese [-o OUT]
    tuong-pgn opening FILE... [--lang en|vi|zh-Hans|zh-Hant]   (ECCO codes, tools/db/ecco.py)

reads PGN (UTF-8, GB2312/GBK/GB18030, Big5 or UTF-16, tools/records/encoding.py: a
damaged byte costs one character and a warning; any line ends; moves in any notation
of tools/records/notation.py: the `[Format]` tag where given, detection otherwise),
XQF (.xqf, tools/records/xqf.py) and FEN/EPD files (a position a line), and writes
UTF-8 PGN with a `[Format]` tag naming the notation, `[Game "Chinese Chess"]`,
`[Red]`/`[Black]` (`[White]` is read as `[Red]`) and every other tag in its order.
Comments (all those after a move are that move's), variations (nested too) and move marks (! ?
!! ?? !? ?!, or NAGs $1-$6) are kept: a Record's `tree` (tools/records/tree.py)
holds the whole game, its `moves` and `comments` the main line. A game with
a malformed or illegal move in its main line is reported on stderr by its
file, number, players, move number and text, and left out; a variation with
one is reported and left out of its game, which is written. The exit status
is 1 when anything was left out.
"""
import dataclasses
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence

from tuong.engine.board import Board
from tuong.tools.cli import ArgumentParser, check_output, plural
from tuong.tools.records import notation as notations
from tuong.tools.records.notation import NOTATIONS, Notation
from tuong.tools.records.encoding import decode as decode   # its home was here
from tuong.tools.records.encoding import read as read_encoded
from tuong.tools.records.movetext import MARKS as MARKS
from tuong.tools.records.movetext import RESULTS as RESULTS
from tuong.tools.records.movetext import games as _games
from tuong.tools.records.pgn import _escape, _wrap, first_move_number
from tuong.tools.records.tree import GameTree, Node

# The [Format] tag's value for each notation, and the values read as one.
FORMAT_NAMES: dict[Notation, str] = {
    "coords": "Coords", "ranks1": "Coords1-10", "iccs": "ICCS", "wxf": "WXF",
    "chinese": "Chinese", "vietnamese": "Vietnamese"}
"""The `[Format]` tag's value written for each notation (`"wxf"` -> `"WXF"`);
read back case-insensitively, with `uci`, `ucci`, `chn`, `cn` and `vn` too."""
_FORMAT_INPUT: dict[str, Notation] = {value.lower(): key for key, value in FORMAT_NAMES.items()}
_FORMAT_INPUT.update({"uci": "coords", "ucci": "coords", "chn": "chinese", "cn": "chinese",
                      "vn": "vietnamese"})
# The tags written first when a record lacks them (its own stay where they are): PGN's
# roster, with Red's player as [Red], as Xiangqi programs (XQWizard, xqbase, cchess) write
# it; [White] (cutechess's name, and tuong's inside) is read as the same tag.
_ROSTER = ("Event", "Site", "Date", "Round", "Red", "Black", "Result")
GAME_TAG = ("Game", "Chinese Chess")
"""The tag every written game carries, `[Game "Chinese Chess"]`, as Xiangqi programs write it."""
# Tags the moves (or the notation written) decide, not kept by a program that edits a game.
DERIVED_TAGS = ("FEN", "SetUp", "PlyCount", "Format")
"""Tags the moves (or the notation written) decide, which a program editing a
game does not keep as read: `FEN`, `SetUp`, `PlyCount`, `Format`."""
_LINE_ENDS = re.compile(r"[\r\n]+")                  # no tag value spans lines


@dataclasses.dataclass
class Record:
    """One game: tags, its moves in a0-i9, the comment after each move (or
    None), the result, and the notation it was read in. The readers
    (read_pgn, read_file, ...) make them; format_pgn writes one.

    Red is the first player: its name is the `[Red]` tag (`red`), and a
    record read from a chess program's `[White]` has both tags."""
    tags: dict[str, str]
    """The PGN tags in file order, `{"Event": ..., "Red": ..., "Black": ...,
    "Result": ..., "FEN": ...}`; `White` repeats `Red` (see `red`)."""
    moves: list[str]
    """The main line's moves as a0-i9 text (`"h2e2"`), from the start position (`fen`)."""
    comments: list[str | None]
    """The comment after each move of `moves` (same length), or None."""
    result: str = "*"
    """`"1-0"` (Red won), `"0-1"` (Black won), `"1/2-1/2"` or `"*"` (unknown)."""
    notation: str | None = None
    """The notation the moves were read in (a name of notation.NOTATIONS:
    `"wxf"`, `"chinese"`, ...), or None (XQF, FEN, a record built here)."""
    intro: str | None = None            # a comment before the first move
    """The comment before the first move, or None."""
    # The whole game, variations included (its main line is moves, comments
    # and intro again); None from writers of plain move lists.
    tree: GameTree | None = dataclasses.field(default=None, compare=False, repr=False)
    """The whole game, variations, comments and marks included (its main line
    is `moves`, `comments` and `intro` again); None for a record made from a
    plain move list."""

    @property
    def fen(self) -> str | None:
        """The start position's FEN (the `[FEN]` tag), or None for the initial position."""
        return self.tags.get("FEN")

    @property
    def red(self) -> str | None:
        """Red's player: the [Red] tag, or [White] as chess programs write it."""
        return self.tags.get("Red", self.tags.get("White"))

    def title(self) -> str:
        """`"Red's player - Black's player"`, `?` for a missing name."""
        return f"{self.red or '?'} - {self.tags.get('Black', '?')}"


def kept_tag(name: str) -> bool:
    """Whether a program that edits a game keeps a tag of its record as it was
    read: any well-formed name but those the moves decide (DERIVED_TAGS)."""
    return name.isascii() and name.isidentifier() and len(name) <= 40 and \
        name not in DERIVED_TAGS


@dataclasses.dataclass
class Problem:
    """Why one game of a file could not be read, or (game_kept) why part of
    it, a variation, was left out."""
    source: str
    """The file (or the `source` name given to the reader)."""
    game: int
    """The game's number in the file, from 1; 0 for the file itself (it
    could not be read, or had damaged bytes)."""
    title: str
    """The game's players, `"Red - Black"`."""
    message: str
    """What went wrong (`"illegal move"`, ...)."""
    move_number: int | None = None
    """The move number of the move that did not read, if one."""
    text: str | None = None
    """That move's text as written, if one."""
    game_kept: bool = False             # the game was read; only a variation of it was not
    """True when the game was read and only part of it (a variation) left
    out; False when the game was left out."""

    def __str__(self) -> str:
        # Game 0: the file itself (it could not be read at all).
        where = self.source if self.game == 0 else f"{self.source}, game {self.game} ({self.title})"
        if self.move_number is not None:
            where += f", move {self.move_number} {self.text!r}"
        return f"{where}: {self.message}"


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
    if looks_like_fen_lines(text):
        return read_fen_lines(text, source)
    return read_pgn(text, source, notation, limit)


def read_fen_lines(text: str, source: str = "<fen>") -> tuple[list[Record], list[Problem]]:
    """Positions, one FEN (or EPD) a line, as records without moves."""
    records, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
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


def read_file(path: str | os.PathLike[str],
              notation: Notation | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) of a PGN, XQF or FEN/EPD file."""
    source = os.path.basename(str(path))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        return [], [Problem(source, 0, "file", f"cannot read: {error.strerror}")]
    return read_bytes(data, source, notation)


def count_games(text: str) -> int:
    """How many games PGN text holds (read no further than its tokens)."""
    return len(_games(text))


def read_bytes(data: bytes, source: str = "<file>", notation: Notation | None = None,
               limit: int | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) of a file's bytes: XQF (by its signature or a
    .xqf name), FEN/EPD (by a .fen/.epd name), else PGN."""
    if data[:2] == b"XQ" or source.lower().endswith(".xqf"):
        from tuong.tools.records import xqf
        dropped: list[tuple[int, str, str]] = []
        try:
            tags, tree, result = xqf.read_xqf_tree(data, source, dropped)
        except ValueError as error:
            return [], [Problem(source, 1, "XQF", str(error))]
        tags.setdefault("Result", result)
        record = Record(tags, tree.root.tip().moves(),
                        [node.comment for node in tree.main_line()],
                        result, "xqf", tags.pop("Comment", None), tree)
        return [record], [Problem(source, 1, record.title(), f"variation dropped: {why}",
                                  _move_number(ply, record.fen), move, game_kept=True)
                          for ply, move, why in dropped]
    decoded = read_encoded(data)
    text, warning = decoded.text, decoded.warning()
    if source.lower().endswith((".fen", ".epd")) or looks_like_fen_lines(text):
        records, problems = read_fen_lines(text, source)
    else:
        records, problems = read_pgn(text, source, notation, limit)
    if warning:                          # the file's own (game 0): its text, not a game
        problems.append(Problem(source, 0, "file", warning, game_kept=True))
    return records, problems


def game_files(paths: Iterable[str]) -> Iterator[str]:
    """The record files named, folders searched (PGN, XQF, FEN, EPD)."""
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.lower().endswith((".pgn", ".xqf", ".fen", ".epd")):
                        yield os.path.join(root, name)
        else:
            yield path


# -- writing -----------------------------------------------------------------
def _comment(text):
    return "{" + text.replace("}", ")") + "}"


def format_pgn(record: Record, notation: Notation = "wxf",
               comments: Sequence[str | None] | None = None,
               marks: Sequence[str | None] | None = None, outro: str | None = None) -> str:
    """A record as PGN text in a notation (ends with a blank line).
    `comments` overrides the record's comments (one per move, or None);
    `marks` puts "??", "?", "?!" (or None) after the moves; `outro` is a
    comment before the result. With a record.tree, that is the game
    written, variations and all (its main line's comments and marks, or
    the overrides, which concern only the main line).

    Raises ValueError for a `notation` that is not one of `NOTATIONS`
    (`"unknown notation 'WXF': one of coords, ranks1, ..."`), and for a move
    of the record that is not legal where it is played."""
    if notation not in FORMAT_NAMES:
        raise ValueError(f"unknown notation {notation!r}: one of {', '.join(NOTATIONS)}")
    lines = [f'[{key} "{_escape(_LINE_ENDS.sub(" ", value))}"]'
             for key, value in _tags_written(record, notation)]
    if record.tree is not None:
        tokens = _movetext(record.tree, record.fen, notation, comments, marks)
    else:
        texts = notations.write_line(record.fen, record.moves, notation)
        comments = record.comments if comments is None else comments
        black_first = record.fen is not None and record.fen.split()[1:2] == ["b"]
        first = first_move_number(record.fen)
        tokens = [_comment(record.intro)] if record.intro else []
        for i, text in enumerate(texts):
            ply = i + (1 if black_first else 0)
            if ply % 2 == 0:
                tokens.append(f"{ply // 2 + first}.")
            elif i == 0:
                tokens.append(f"{ply // 2 + first}...")
            tokens.append(text + ((marks[i] if marks else None) or ""))
            if i < len(comments) and comments[i]:
                tokens.append(_comment(comments[i]))
    if outro:
        tokens.append(_comment(outro))
    tokens.append(record.result)
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n\n"


def _tags_written(record: Record, notation: Notation) -> list[tuple[str, str]]:
    """The tags of a record as written: every tag it has, in its order, with
    [White] as [Red] (once, where the first of them stood), the result and the
    notation its own; [Game "Chinese Chess"] first and the roster's tags
    that it lacks ("?") before the next of the roster it has."""
    values = dict(record.tags)
    values.update(Result=record.result, Format=FORMAT_NAMES[notation])
    values.setdefault("Variant", "xiangqi")
    pairs: list[tuple[str, str]] = []
    for key, value in values.items():
        if key == "White" and values.get("Red", value) == value:
            key = "Red"
        if key == "Red" and any(name == "Red" for name, _ in pairs):
            continue                     # [Red] and [White] for the same player
        pairs.append((key, str(value)))
    present = {key for key, _ in pairs}
    written: list[tuple[str, str]] = [] if GAME_TAG[0] in present else [GAME_TAG]
    absent = [key for key in _ROSTER if key not in present]
    after_roster = len(written)          # where the roster's last tags go
    for key, value in pairs:
        if key in _ROSTER:               # the roster's missing tags that come before it
            before = _ROSTER[:_ROSTER.index(key)]
            written += [(name, "?") for name in absent if name in before]
            absent = [name for name in absent if name not in before]
        written.append((key, value))
        if key in _ROSTER:
            after_roster = len(written)
    written[after_roster:after_roster] = [(name, "?") for name in absent]
    return written


def _movetext(tree: GameTree, fen: str | None, notation: Notation,
              comments: Sequence[str | None] | None,
              marks: Sequence[str | None] | None) -> list[str]:
    """The PGN tokens of a tree's moves: each move, then its alternatives in
    parentheses, e.g. 1. C2=5 (1. P7+1 H8+7) 1... H8+7. A move number is
    written before Red's moves, and before Black's at the start of a line
    and after variations (1... H8+7). `comments` and `marks` override the
    main line's, by its index."""
    main = {node: i for i, node in enumerate(tree.main_line())}

    def words(node: Node) -> tuple[str | None, str | None]:
        """The comment and mark written with a node's move."""
        comment, mark, i = node.comment, node.mark, main.get(node)
        if i is not None and comments is not None:
            comment = comments[i] if i < len(comments) else None
        if i is not None and marks is not None:
            mark = marks[i] if i < len(marks) else None
        return comment, mark

    tokens = [_comment(tree.root.comment)] if tree.root.comment else []
    if not tree.root.children:
        return tokens
    first_ply = 1 if fen is not None and fen.split()[1:2] == ["b"] else 0   # ply 0: Red's
    first = first_move_number(fen)
    # The lines still to write, the next on top: (the line's first node, the
    # board before it, its ply, whether it opens a variation), or ")" that
    # closes one. An explicit stack: nesting can go as deep as a tree.
    stack: list[tuple[Node, Board, int, bool] | str] = [
        (tree.root.children[0], Board(fen) if fen else Board(), first_ply, False)]
    while stack:
        entry = stack.pop()
        if isinstance(entry, str):
            tokens[-1] += entry
            continue
        node, board, ply, opens = entry
        numbered = True                  # a line's first move has its number, Black's too
        while True:
            if ply % 2 == 0 or numbered:
                number = f"{ply // 2 + first}." if ply % 2 == 0 else f"{ply // 2 + first}..."
                tokens.append("(" + number if opens else number)
            move, (comment, mark) = node.move, words(node)
            assert move is not None      # only the root has no move
            tokens.append(notations.write(board, move, notation) + (mark or ""))
            if comment:
                tokens.append(_comment(comment))
            siblings = node.parent.children if node.parent is not None else [node]
            alternatives = siblings[1:] if siblings[0] is node else []
            if alternatives:             # write them, then go on with this line
                if node.children:
                    after = board.copy()
                    after.push(move)
                    stack.append((node.children[0], after, ply + 1, False))
                for alternative in reversed(alternatives):
                    stack.append(")")
                    stack.append((alternative, board.copy(), ply, True))
                break
            board.push(move)
            if not node.children:
                break
            node, ply, numbered, opens = node.children[0], ply + 1, False, False
    return tokens


# -- tuong-pgn -----------------------------------------------------------------
def _print_openings(paths: Sequence[str], lang: str) -> int:
    """tuong-pgn opening: one line a game, CODE<TAB>name ('?' for none)."""
    from tuong.tools.db import ecco
    model, failures = ecco.shipped(), 0
    for path in game_files(paths):
        records, problems = read_file(path)
        for record in records:
            code = model.classify(record.moves, record.fen)
            print(f"{code}\t{model.name(code, lang)}" if code else "?\t")
        for problem in problems:
            if not problem.game_kept:
                print(f"error: {problem}", file=sys.stderr)
                failures += 1
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The `tuong-pgn` command line (`argv`: its arguments, default
    sys.argv's); returns the exit status: 1 when anything was left out."""
    parser = ArgumentParser(prog="tuong-pgn", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("convert", help="PGN/XQF/FEN files in, PGN in a notation out")
    convert.add_argument("files", nargs="+", help="record files or folders")
    convert.add_argument("--to", choices=notations.NOTATIONS, default="wxf",
                         help="the notation of the output moves (default: wxf)")
    convert.add_argument("--from", dest="notation", choices=notations.NOTATIONS,
                         help="the notation of the input moves (default: [Format] or detected)")
    convert.add_argument("-o", "--output", help="output file (default: standard output)")
    opening = commands.add_parser(
        "opening", help="each game's ECCO code and name, learned from master games "
                        "(a record's own [ECCO] tag is not read)")
    opening.add_argument("files", nargs="+", help="record files or folders")
    opening.add_argument("--lang", choices=("en", "vi", "zh-Hans", "zh-Hant"), default="zh-Hans",
                         help="the language of the names (default: zh-Hans)")
    args = parser.parse_args(argv)
    if args.command == "opening":
        return _print_openings(args.files, args.lang)
    if args.output:                      # refused before any file is read
        check_output(parser, args.output, "-o")

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    games = failures = dropped = damaged = 0
    try:
        for path in game_files(args.files):
            records, problems = read_file(path, args.notation)
            for record in records:
                out.write(format_pgn(record, args.to))
                games += 1
            for problem in problems:
                print(f"{'warning' if problem.game_kept else 'error'}: {problem}",
                      file=sys.stderr)
                # A damaged byte (the file's own warning, game 0) costs a character,
                # not a game nor a variation: said, and the run still succeeds.
                damaged += problem.game == 0 and problem.game_kept
                dropped += problem.game_kept and problem.game != 0
                failures += not problem.game_kept
    finally:
        if args.output:
            out.close()
    print(f"{plural(games, 'game')} written, {failures} left out"
          + (f", {plural(dropped, 'variation problem')}" if dropped else "")
          + (f", {plural(damaged, 'file')} with damaged bytes" if damaged else ""),
          file=sys.stderr)
    return 1 if failures or dropped else 0

