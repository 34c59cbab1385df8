"""PGN out (our games) and in (opening books, replays), and EPD books.

Games are written as cutechess writes them, with Xiangqi tags: moves in
a0-i9 coordinates, `[Variant "xiangqi"]`, `[FEN]` + `[SetUp "1"]` when the
game does not start from the initial position, a `{score/depth time}`
comment per engine move (`{book}` for book moves), and the reason the game
ended both in `[Termination]` and in a final comment before the result.
"""
import datetime
import os
import re
from typing import Protocol, Sequence

from tuong.protocol.client import START_FEN


class PlayedMove(Protocol):
    """What format_game reads of a game's move (the match referee's
    MoveRecord is one): the move, whether it came from a book, and what the
    engine said of it. Records sit below the match, so the referee's types
    are described here, not imported."""

    @property
    def move(self) -> str: ...          # a0-i9 text

    @property
    def book(self) -> bool: ...

    @property
    def cp(self) -> int | None: ...     # the mover's score, centipawns

    @property
    def mate(self) -> int | None: ...   # the mover's mate in moves (negative: being mated)

    @property
    def depth(self) -> int | None: ...

    @property
    def time(self) -> float: ...        # seconds


class PlayedGame(Protocol):
    """What format_game reads of a finished game (the match referee's Game
    is one): the players, the start, the moves, each side's clock and how
    the game ended."""

    @property
    def red(self) -> str: ...

    @property
    def black(self) -> str: ...

    @property
    def fen(self) -> str | None: ...    # None: the initial position

    @property
    def moves(self) -> Sequence[PlayedMove]: ...

    @property
    def result(self) -> str: ...

    @property
    def termination(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def time_controls(self) -> tuple[str, str]: ...    # Red's, Black's


_MOVE = re.compile(r"[a-i]\d[a-i]\d")
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def _comment(record):
    if record.book:
        return "book"
    parts = []
    if record.mate is not None:
        parts.append(f"{'+' if record.mate > 0 else '-'}M{abs(record.mate)}")
    elif record.cp is not None:
        parts.append(f"{record.cp / 100:+.2f}")
    if parts and record.depth is not None:
        parts[0] += f"/{record.depth}"
    parts.append(f"{record.time:.3f}s")
    return " ".join(parts)


def _is_start(fen):
    """Is this the initial position (Red, written `w` or `r`, to move)?"""
    board = START_FEN.split()[0]
    return fen is None or fen.split()[:2] in ([board, "w"], [board, "r"])


def first_move_number(fen: str | None) -> int:
    """The number of the first move after `fen`: its sixth field (the full-move
    number), else 1."""
    fields = fen.split() if fen else []
    return int(fields[5]) if len(fields) > 5 and fields[5].isascii() and \
        fields[5].isdigit() and int(fields[5]) >= 1 else 1


def format_game(game: PlayedGame, round_: int | str = 1, event: str = "tuong-match",
                site: str = "?", date: datetime.date | None = None) -> str:
    """A finished game (a match referee's Game) as PGN text, ending with a
    blank line: the tags Event, Site, Date, Round, White (Red's player) and
    Black, Result, Variant, FEN and SetUp when the game did not start from
    the initial position, the time control (one per side at odds), PlyCount
    and Termination; then the moves in a0-i9 coordinates, each followed by a
    `{score/depth time}` comment as cutechess writes it, and the reason the
    game ended as a last comment. Red is `White` here, as the match tools
    (cutechess, XBoard) read it; `format_pgn` writes a Record with
    `[Red]`."""
    date = date or datetime.date.today()
    tags: list[tuple[str, str | None]] = [
        ("Event", event), ("Site", site), ("Date", date.strftime("%Y.%m.%d")),
        ("Round", str(round_)), ("White", game.red), ("Black", game.black),
        ("Result", game.result), ("Variant", "xiangqi")]
    if not _is_start(game.fen):
        tags += [("FEN", game.fen), ("SetUp", "1")]
    red_tc, black_tc = game.time_controls
    # An odds game names each side's clock, as cutechess does.
    tags += [("TimeControl", red_tc)] if red_tc == black_tc else \
        [("WhiteTimeControl", red_tc), ("BlackTimeControl", black_tc)]
    tags += [("PlyCount", str(len(game.moves))), ("Termination", game.termination)]
    lines = [f'[{key} "{_escape(value)}"]' for key, value in tags]

    black_first = game.fen is not None and game.fen.split()[1:2] == ["b"]
    first = first_move_number(game.fen)
    tokens = []
    for i, record in enumerate(game.moves):
        ply = i + (1 if black_first else 0)
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + first}.")
        elif i == 0:
            tokens.append(f"{ply // 2 + first}...")
        tokens.append(record.move)
        tokens.append("{" + _comment(record) + "}")
    if game.reason:
        tokens.append("{" + game.reason.replace("}", ")") + "}")
    tokens.append(game.result)
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n\n"


def _escape(value):
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def _wrap(tokens, width=79):
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


def read_games(text: str) -> list[tuple[dict[str, str], list[str], str]]:
    """[(tags, moves, result)] from PGN text whose moves are a0-i9
    coordinates. Comments, variations, NAGs and move numbers are skipped; a
    game without a result token ends at the next tag pair ("*")."""
    return [(tags, [move for move, _ in moves], result)
            for tags, moves, result in read_annotated_games(text)]


def read_annotated_games(
        text: str) -> list[tuple[dict[str, str], list[tuple[str, str | None]], str]]:
    """As read_games, but each move comes with the comment that follows it
    (its text without braces, or None): [(tags, [(move, comment)], result)]."""
    games: list[tuple[dict[str, str], list[tuple[str, str | None]], str]]
    tags: dict[str, str]
    moves: list[tuple[str, str | None]]
    games, tags, moves = [], {}, []
    token_re = re.compile(r'\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]|\{[^}]*\}|;[^\n]*|[()]'
                          r'|\$\d+|\d+\.(?:\.\.)?|[^\s{}();\[]+')
    last_commentable = False
    depth = 0                                # inside variations (nested; skipped whole)
    for m in token_re.finditer(text):
        token = m.group(0)
        if token in ("(", ")"):
            depth = max(0, depth + (1 if token == "(" else -1))
            last_commentable = False
            continue
        if depth and not m.group(1):
            continue                         # a variation's moves, comments and numbers
        if m.group(1):                       # a tag pair (a variation left open ends here)
            depth = 0
            if moves:
                games.append((tags, moves, "*"))
                tags, moves = {}, []
            tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
            last_commentable = False
        elif token[0] == "{":
            if last_commentable:             # the first comment after a move is its own
                moves[-1] = (moves[-1][0], token[1:-1].strip())
                last_commentable = False
        elif token[0] in ";$" or token[0].isdigit() and token.endswith("."):
            continue                         # comment, NAG, move number
        elif token in _RESULTS:
            games.append((tags, moves, token))
            tags, moves = {}, []
            last_commentable = False
        elif _MOVE.fullmatch(token):
            moves.append((token, None))
            last_commentable = True
        else:
            raise ValueError(f"not an a0-i9 coordinate move in PGN: {token!r}")
    if moves or tags:
        games.append((tags, moves, "*"))
    return games


def read_openings(path: str | os.PathLike[str],
                  fmt: str | None = None) -> list[tuple[str | None, list[str]]]:
    """Openings as [(fen or None, moves)] from an EPD/FEN file (one position a
    line, EPD operations after the 4th field ignored) or a PGN file of move
    sequences. The format comes from `fmt` or the file's extension."""
    with open(path, encoding="utf-8-sig") as f:      # a BOM (Windows editors) is no move
        text = f.read()
    fmt = fmt or ("pgn" if str(path).lower().endswith(".pgn") else "epd")
    if fmt == "pgn":
        # The start position named by a FEN tag is the start, as the PGN writer leaves it.
        openings = [(None if _is_start(tags.get("FEN")) else tags.get("FEN"), moves)
                    for tags, moves, _ in read_games(text)]
    elif fmt in ("epd", "fen"):
        openings = []
        for line in text.splitlines():
            line = line.split(";")[0].strip()
            if line and not line.startswith("#"):
                fields = line.split()
                if len(fields) < 2:
                    raise ValueError(f"{path}: not a FEN/EPD line: {line!r}")
                fen = " ".join(fields[:2] + (fields[2:6] if len(fields) >= 6 and
                                            fields[4].isdigit() else ["-", "-", "0", "1"]))
                openings.append((None if _is_start(fen) else fen, []))
    else:
        raise ValueError(f"unknown opening format {fmt!r}: use epd or pgn")
    if not openings:
        raise ValueError(f"{path}: no openings found")
    return openings
