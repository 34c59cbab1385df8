"""Game records: PGN in any notation and encoding, XQF, FEN; PGN out in any notation.

    tuong-pgn convert FILE... --to coords|ranks1|iccs|wxf|chinese|vietnamese [-o OUT]

reads PGN (UTF-8, GB2312/GBK/GB18030, Big5 or UTF-16, any line ends, moves in any notation
of tools/records/notation.py: the `[Format]` tag where given, detection otherwise),
XQF (.xqf, tools/records/xqf.py) and FEN/EPD files (a position a line), and writes
UTF-8 PGN with a `[Format]` tag naming the notation. Comments (all those
after a move are that move's), variations (nested too) and move marks (! ?
!! ?? !? ?!, or NAGs $1-$6) are kept: a Record's `tree` (tools/records/tree.py)
holds the whole game, its `moves` and `comments` the main line. A game with
a malformed or illegal move in its main line is reported on stderr by its
file, number, players, move number and text, and left out; a variation with
one is reported and left out of its game, which is written. The exit status
is 1 when anything was left out.
"""
import argparse
import dataclasses
import os
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

from tuong.engine.board import Board
from tuong.tools.records import notation as notations
from tuong.tools.records.pgn import _escape, _wrap, first_move_number
from tuong.tools.records.tree import GameTree, Node

# The [Format] tag's value for each notation, and the values read as one.
FORMAT_NAMES = {"coords": "Coords", "ranks1": "Coords1-10", "iccs": "ICCS", "wxf": "WXF",
                "chinese": "Chinese", "vietnamese": "Vietnamese"}
_FORMAT_INPUT = {value.lower(): key for key, value in FORMAT_NAMES.items()}
_FORMAT_INPUT.update({"uci": "coords", "ucci": "coords", "chn": "chinese", "cn": "chinese",
                      "vn": "vietnamese"})
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


@dataclasses.dataclass
class Record:
    """One game: tags, its moves in a0-i9, the comment after each move (or
    None), the result, and the notation it was read in."""
    tags: dict[str, str]
    moves: list[str]
    comments: list[str | None]
    result: str = "*"
    notation: str | None = None
    intro: str | None = None            # a comment before the first move
    # The whole game, variations included (its main line is moves, comments
    # and intro again); None from writers of plain move lists.
    tree: GameTree | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def fen(self) -> str | None:
        return self.tags.get("FEN")

    def title(self) -> str:
        red, black = self.tags.get("White", "?"), self.tags.get("Black", "?")
        return f"{red} - {black}"


@dataclasses.dataclass
class Problem:
    """Why one game of a file could not be read, or (game_kept) why part of
    it, a variation, was left out."""
    source: str
    game: int
    title: str
    message: str
    move_number: int | None = None
    text: str | None = None
    game_kept: bool = False             # the game was read; only a variation of it was not

    def __str__(self) -> str:
        # Game 0: the file itself (it could not be read at all).
        where = self.source if self.game == 0 else f"{self.source}, game {self.game} ({self.title})"
        if self.move_number is not None:
            where += f", move {self.move_number} {self.text!r}"
        return f"{where}: {self.message}"


# Characters that Xiangqi records are full of, in simplified and traditional
# forms: they tell a GB file from a Big5 one (both decode without error).
_RECORD_CHARS = set("炮砲马馬车車兵卒进進退平帅帥将將仕士相象"
                    "一二三四五六七八九前后後红紅黑胜勝负負和")


def decode(data: bytes) -> str:
    """Text of a file in UTF-8 (with or without BOM), a GB encoding
    (GB2312/GBK/GB18030) or Big5, whichever reads as a Xiangqi record."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):       # Notepad's "Unicode"
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    readings = []
    for encoding in ("gb18030", "big5"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        readings.append((sum(ch in _RECORD_CHARS for ch in text), encoding == "gb18030", text))
    if readings:
        return max(readings)[2]
    return data.decode("gb18030", errors="replace")


_TOKEN = re.compile(r'\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]'   # tag pair
                    # a value with bare quotes inside (real files have them): to
                    # the line's last quote before its closing bracket
                    r'|\[[ \t]*(\w+)[ \t]+"([^\n]*)"[ \t]*\]'
                    r"|\{[^}]*\}|;[^\n]*|[()]|\$\d+"                # comment, variation, NAG
                    # PGN's escape: a line for other programs (not inside a comment)
                    r"|(?m:^%[^\n]*)"
                    # a move number, in ASCII or full-width digits and points
                    r"|[\d０-９]+\s*[.．…]+(?![\d０-９])"
                    r"|[^\s{}();\[\]]+")
_NUMBER_END = (".", "．", "…")
MARKS = ("!", "?", "!!", "??", "!?", "?!")
_NAGS = {f"${i}": mark for i, mark in enumerate(MARKS, 1)}       # $1..$6, PGN's numbering


@dataclasses.dataclass
class _Game:
    """One game's PGN as read, its moves still text. `line` is the main
    line: a list of moves [text, comment, mark, variations], where
    variations (None if there are none) are the lines of alternatives to
    that move, each a list of the same kind."""
    tags: dict[str, str]
    line: list[list]
    result: str | None
    intro: str | None
    broken: str | None                   # why the game cannot be read at all
    strays: int                          # variations with no move to be an alternative to


def _games(text):
    """[_Game] of PGN text."""
    games = []
    tags, main, result, intro, texted = {}, [], None, None, False
    line, outer, before, strays = main, [], None, 0    # outer: the lines a variation is inside
    after_result = False                 # text between a result and the next game is no game's

    def flush():
        if tags or main or result or intro:
            games.append(_Game(tags, main, result, intro,
                               "a variation is not closed" if outer else None, strays))

    # Any line end (old Macs wrote a bare CR): a tag with bare quotes reads to its line's end.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if token[0] == "%":
            continue                     # an escaped line (no move starts with %)
        if m.lastindex:                  # a tag pair: only those have groups
            name, value = m.group(1, 2) if m.group(1) else m.group(3, 4)
            if texted or name in tags:   # a tag after movetext starts the next game
                flush()
                tags, main, result, intro, texted = {}, [], None, None, False
                line, outer, before, strays = main, [], None, 0
            tags[name] = value.replace('\\"', '"').replace("\\\\", "\\")
            after_result = False
            continue
        if token[0].isdigit() and token.rstrip().endswith(_NUMBER_END):
            after_result, texted = False, True
            continue                     # a move number
        if set(token) <= set(".．…"):
            continue                     # "1. ..." : Black's move follows
        # After a result, only a move starts the next game (no digits first: a
        # footer's "12.5" could pass for WXF's tandem pawns).
        if after_result and (token[0].isdigit() or not notations.looks_like_move(
                unicodedata.normalize("NFKC", token))):
            continue                     # e.g. the footer XQWizard writes after a game
        after_result = False             # the moves of a game with no tags or numbers
        texted = True
        if token == "(":
            variation = []
            if line:                     # an alternative to the line's last move
                if line[-1][3] is None:
                    line[-1][3] = []
                line[-1][3].append(variation)
            else:
                strays += 1
            outer.append(line)
            line, before = variation, None
        elif token == ")":
            if outer:
                line, before = outer.pop(), None
        elif token[0] == "$":
            if line and token in _NAGS:
                line[-1][2] = line[-1][2] or _NAGS[token]
        elif token[0] in "{;":
            comment = (token[1:-1] if token[0] == "{" else token[1:]).strip()
            if line:
                old = line[-1][1]
                line[-1][1] = f"{old} {comment}" if old else comment
            elif not outer:
                intro = f"{intro} {comment}" if intro else comment
            else:                        # before a variation's first move: kept as that move's
                before = f"{before} {comment}" if before else comment
        elif token in RESULTS:
            if outer:
                continue                 # a variation's own ending says nothing of the game's
            result = token
            flush()
            tags, main, result, intro, texted = {}, [], None, None, False
            line, outer, before, strays = main, [], None, 0
            after_result = True
        else:                            # a move and its mark; full-width forms as ASCII
            move = unicodedata.normalize("NFKC", token)
            text = move.rstrip("?!")
            if len(text) == len(move):
                line.append([move, before, None, None])
            elif text:
                mark = move[len(text):]
                line.append([text, before, mark if mark in MARKS else None, None])
            elif line and move in MARKS:     # a mark standing apart from its move
                line[-1][2] = line[-1][2] or move
            before = None
    flush()
    return games


def _replay(fen, texts, notation):
    """Moves (a0-i9) of texts; on failure (index, message)."""
    return _replay_on(Board(fen) if fen else Board(), texts, notation)


def _replay_on(board, texts, notation):
    """_replay from `board`, which is left after the moves that were read."""
    moves = []
    for i, text in enumerate(texts):
        try:
            move = notations.parse(board, text, notation)
            board.push(move)             # ValueError too when the game outgrows the history
        except ValueError as error:
            return None, (i, str(error))
        moves.append(move)
    return moves, None


def read_pgn(text: str, source: str = "<pgn>", notation: str | None = None,
             limit: int | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) from PGN text. A variation that does not read
    is left out of its game's tree, with a Problem (game_kept) saying so.
    With `limit`, reading stops once that many games are read (the moves
    of the later ones are not even looked at)."""
    records: list[Record] = []
    problems: list[Problem] = []
    for number, game in enumerate(_games(text), 1):
        if limit is not None and len(records) >= limit:
            break
        tags, line = game.tags, game.line
        texts = [move[0] for move in line]
        comments = [move[1] for move in line]
        if "Red" in tags:                  # Chinese programs name the players Red and Black
            tags.setdefault("White", tags["Red"])
        title = f"{tags.get('White', '?')} - {tags.get('Black', '?')}"
        fen = tags.get("FEN")
        if game.broken:
            problems.append(Problem(source, number, title, game.broken))
            continue
        try:
            if fen:
                Board(fen)
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
            problems.append(Problem(source, number, title, f"variation dropped: {message}",
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
    """(GameTree, dropped) of a _Game whose main line reads as `moves`: that
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
    stack = [(Board(fen) if fen else Board(), tree.root, game.line, moves)]
    while stack:
        board, node, line, line_moves = stack.pop()
        for (_, _, _, variations), move in zip(line, line_moves):
            for variation in variations or ():
                found, failure = _replay_on(board.copy(), [m[0] for m in variation], notation)
                if found is None:
                    index, message = failure
                    dropped.append((board.ply + index, variation[index][0], message))
                    continue
                branch = node
                for found_move, (_, comment, mark, _) in zip(found, variation):
                    branch, _ = tree.add(branch, found_move, comment, mark)
                stack.append((board.copy(), node, variation, found))
            board.push(move)
            node = next(child for child in node.children if child.move == move)
    return tree, dropped


def _move_number(ply, fen):
    """The move number of the move `ply` plies (from 0) into a game from `fen`."""
    return (ply + (1 if fen and fen.split()[1:2] == ["b"] else 0)) // 2 + first_move_number(fen)


def _candidates(texts):
    """The notations to try, the detected one first: a line without rank 0
    or 10 reads either way, and short Vietnamese lines look like WXF."""
    found = notations.detect(texts) or "wxf"
    pairs = {"coords": "ranks1", "ranks1": "coords", "wxf": "vietnamese", "vietnamese": "wxf"}
    return [found, pairs[found]] if found in pairs else [found]


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
              notation: str | None = None) -> tuple[list[Record], list[Problem]]:
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


def read_bytes(data: bytes, source: str = "<file>", notation: str | None = None,
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
    text = decode(data)
    if source.lower().endswith((".fen", ".epd")):
        return read_fen_lines(text, source)
    return read_pgn(text, source, notation, limit)


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


def format_pgn(record: Record, notation: str = "wxf", comments: Sequence[str | None] | None = None,
               marks: Sequence[str | None] | None = None, outro: str | None = None) -> str:
    """A record as PGN text in a notation (ends with a blank line).
    `comments` overrides the record's comments (one per move, or None);
    `marks` puts "??", "?", "?!" (or None) after the moves; `outro` is a
    comment before the result. With a record.tree, that is the game
    written, variations and all (its main line's comments and marks, or
    the overrides, which concern only the main line)."""
    tags = dict(record.tags)
    tags["Result"] = record.result
    tags["Format"] = FORMAT_NAMES[notation]
    tags.setdefault("Variant", "xiangqi")
    ordered = [k for k in _ROSTER] + [k for k in tags if k not in _ROSTER]
    lines = [f'[{key} "{_escape(tags.get(key, "?"))}"]' for key in ordered]
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


def _movetext(tree: GameTree, fen: str | None, notation: str,
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
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tuong-pgn", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("convert", help="PGN/XQF/FEN files in, PGN in a notation out")
    convert.add_argument("files", nargs="+", help="record files or folders")
    convert.add_argument("--to", choices=notations.NOTATIONS, default="wxf")
    convert.add_argument("--from", dest="notation", choices=notations.NOTATIONS,
                         help="the notation of the input moves (default: [Format] or detected)")
    convert.add_argument("-o", "--output", help="output file (default: standard output)")
    args = parser.parse_args(argv)

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    games = failures = dropped = 0
    try:
        for path in game_files(args.files):
            records, problems = read_file(path, args.notation)
            for record in records:
                out.write(format_pgn(record, args.to))
                games += 1
            for problem in problems:
                print(f"{'warning' if problem.game_kept else 'error'}: {problem}",
                      file=sys.stderr)
                dropped += problem.game_kept
                failures += not problem.game_kept
    finally:
        if args.output:
            out.close()
    print(f"{games} games written, {failures} left out"
          + (f", {dropped} variation problem(s)" if dropped else ""), file=sys.stderr)
    return 1 if failures or dropped else 0

