"""Game records: PGN in any notation and encoding, XQF, FEN; PGN out in any notation.

    tuong-pgn convert FILE... --to coords|ranks1|iccs|wxf|chinese|vietnamese [-o OUT]

reads PGN (UTF-8 or GB2312/GBK/GB18030, any line ends, moves in any notation
of tools/records/notation.py: the `[Format]` tag where given, detection otherwise),
XQF (.xqf, tools/records/xqf.py) and FEN/EPD files (a position a line), and writes
UTF-8 PGN with a `[Format]` tag naming the notation. Comments are kept (the
first after a move is that move's), variations and NAGs are skipped. A game
with a malformed or illegal move is reported on stderr by its file, number,
players, move number and text, and left out; the other games are written,
and the exit status is 1.
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
from tuong.tools.records.pgn import _escape, _wrap

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

    @property
    def fen(self) -> str | None:
        return self.tags.get("FEN")

    def title(self) -> str:
        red, black = self.tags.get("White", "?"), self.tags.get("Black", "?")
        return f"{red} - {black}"


@dataclasses.dataclass
class Problem:
    """Why one game of a file could not be read."""
    source: str
    game: int
    title: str
    message: str
    move_number: int | None = None
    text: str | None = None

    def __str__(self) -> str:
        where = f"{self.source}, game {self.game} ({self.title})"
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
                    r"|\d+\s*\.+(?![\d])"                            # move number
                    r"|[^\s{}();\[\]]+")


_ESCAPE_LINE = re.compile(r"(?m)^%.*$")  # PGN's escape mechanism: a line for other programs


def _games(text):
    """(tags, [token, ...], intro, problem or None) per game of PGN text; a
    token is ("move", text, comment) or ("result", text)."""
    games = []
    tags, tokens, intro, depth, texted = {}, [], None, 0, False
    after_result = False                 # text between a result and the next game is no game's

    def flush():
        if tags or tokens or intro:
            games.append((tags, tokens, intro, "a variation is not closed" if depth else None))

    for m in _TOKEN.finditer(_ESCAPE_LINE.sub("", text)):
        token = m.group(0)
        if m.group(1) or m.group(3):
            name, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if texted or name in tags:   # a tag after movetext starts the next game
                flush()
                tags, tokens, intro, depth, texted = {}, [], None, 0, False
            tags[name] = value.replace('\\"', '"').replace("\\\\", "\\")
            after_result = False
            continue
        is_number = token[0].isdigit() and token.rstrip().endswith(".")
        if after_result and not is_number:
            continue                     # e.g. the footer XQWizard writes after a game
        after_result, texted = False, True
        if token == "(":
            depth += 1
        elif token == ")":
            depth = max(0, depth - 1)
        elif depth or token[0] == "$" or is_number:
            continue
        elif token[0] in "{;":
            comment = (token[1:-1] if token[0] == "{" else token[1:]).strip()
            if tokens and tokens[-1][0] == "move":
                kind, move, old = tokens[-1]
                tokens[-1] = (kind, move, f"{old} {comment}" if old else comment)
            elif not tokens:
                intro = f"{intro} {comment}" if intro else comment
        elif token in RESULTS:
            tokens.append(("result", token))
            flush()
            tags, tokens, intro, depth, texted = {}, [], None, 0, False
            after_result = True
        elif token.rstrip("?!"):         # a move, without the marks after it; full-width
            move = unicodedata.normalize("NFKC", token).rstrip("?!")   # forms as ASCII
            tokens.append(("move", move, None))
    flush()
    return games


def _replay(fen, texts, notation):
    """Moves (a0-i9) of texts; on failure (index, message)."""
    board = Board(fen) if fen else Board()
    moves = []
    for i, text in enumerate(texts):
        try:
            move = notations.parse(board, text, notation)
            board.push(move)             # ValueError too when the game outgrows the history
        except ValueError as error:
            return None, (i, str(error))
        moves.append(move)
    return moves, None


def read_pgn(text: str, source: str = "<pgn>",
             notation: str | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) from PGN text."""
    records, problems = [], []
    for number, (tags, tokens, intro, broken) in enumerate(_games(text), 1):
        texts = [t[1] for t in tokens if t[0] == "move"]
        comments = [t[2] for t in tokens if t[0] == "move"]
        ending = [t[1] for t in tokens if t[0] == "result"]
        if "Red" in tags:                  # Chinese programs name the players Red and Black
            tags.setdefault("White", tags["Red"])
        title = f"{tags.get('White', '?')} - {tags.get('Black', '?')}"
        fen = tags.get("FEN")
        if broken:
            problems.append(Problem(source, number, title, broken))
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
            ply = index + (1 if fen and fen.split()[1:2] == ["b"] else 0)
            problems.append(Problem(source, number, title, message,
                                    ply // 2 + 1 if texts else None,
                                    texts[index] if texts else None))
            continue
        result = ending[0] if ending and ending[0] != "*" else tags.get("Result", "*")
        records.append(Record(tags, moves, comments, result if result in RESULTS else "*",
                              chosen, intro))
    return records, problems


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


def read_bytes(data: bytes, source: str = "<file>",
               notation: str | None = None) -> tuple[list[Record], list[Problem]]:
    """([Record], [Problem]) of a file's bytes: XQF (by its signature or a
    .xqf name), FEN/EPD (by a .fen/.epd name), else PGN."""
    if data[:2] == b"XQ" or source.lower().endswith(".xqf"):
        from tuong.tools.records import xqf
        try:
            tags, moves, result = xqf.read_xqf(data, source)
        except ValueError as error:
            return [], [Problem(source, 1, "XQF", str(error))]
        tags.setdefault("Result", result)
        return [Record(tags, [m for m, _ in moves], [c for _, c in moves], result, "xqf",
                       tags.pop("Comment", None))], []
    text = decode(data)
    if source.lower().endswith((".fen", ".epd")):
        return read_fen_lines(text, source)
    return read_pgn(text, source, notation)


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
    comment before the result."""
    tags = dict(record.tags)
    tags["Result"] = record.result
    tags["Format"] = FORMAT_NAMES[notation]
    tags.setdefault("Variant", "xiangqi")
    ordered = [k for k in _ROSTER] + [k for k in tags if k not in _ROSTER]
    lines = [f'[{key} "{_escape(tags.get(key, "?"))}"]' for key in ordered]
    texts = notations.write_line(record.fen, record.moves, notation)
    comments = record.comments if comments is None else comments
    black_first = record.fen is not None and record.fen.split()[1:2] == ["b"]
    tokens = [_comment(record.intro)] if record.intro else []
    for i, text in enumerate(texts):
        ply = i + (1 if black_first else 0)
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}.")
        elif i == 0:
            tokens.append(f"{ply // 2 + 1}...")
        tokens.append(text + ((marks[i] if marks else None) or ""))
        if i < len(comments) and comments[i]:
            tokens.append(_comment(comments[i]))
    if outro:
        tokens.append(_comment(outro))
    tokens.append(record.result)
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n\n"


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
    games = failures = 0
    try:
        for path in game_files(args.files):
            records, problems = read_file(path, args.notation)
            for record in records:
                out.write(format_pgn(record, args.to))
                games += 1
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
            failures += len(problems)
    finally:
        if args.output:
            out.close()
    print(f"{games} games written, {failures} left out", file=sys.stderr)
    return 1 if failures else 0

