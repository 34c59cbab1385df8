"""PGN text as games whose moves are still text: tags, the main line with
its comments, marks and variations (nested), the result.

Tolerant of what real files hold: tag values with bare quotes inside, moves
in full-width characters, footers after a result (XQWizard's), comments
before a game's tags (a file's "; exported by ..."), move numbers in any
digits. tools/records/reading.py reads the moves on a board.
"""
import dataclasses
import re
import unicodedata

from tuong.tools.records import notation as notations

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
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
_POINTS = frozenset(_NUMBER_END)
MARKS = ("!", "?", "!!", "??", "!?", "?!")
_NAGS = {f"${i}": mark for i, mark in enumerate(MARKS, 1)}       # $1..$6, PGN's numbering


_MOVES: dict[str, tuple[str, str | None]] = {}     # _move's answers: games repeat their moves


def _move(token: str) -> tuple[str, str | None]:
    """(the move, its mark or None) of a move's token, full-width forms as
    ASCII; ("", the mark or None) of a token that is marks alone."""
    move = unicodedata.normalize("NFKC", token)
    text = move.rstrip("?!")
    if len(text) == len(move):
        found: tuple[str, str | None] = (move, None)
    elif text:
        mark = move[len(text):]
        found = (text, mark if mark in MARKS else None)
    else:
        found = ("", move if move in MARKS else None)
    if len(_MOVES) >= 20_000:
        _MOVES.clear()
    _MOVES[token] = found
    return found


@dataclasses.dataclass
class GameText:
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


def games(text: str) -> list[GameText]:
    """[GameText] of PGN text: each game's tags, and its moves as text."""
    found: list[GameText] = []
    tags: dict[str, str] = {}
    main: list[list] = []
    result: str | None = None
    intro: str | None = None
    before: str | None = None
    texted = False
    outer: list[list[list]] = []         # the lines a variation is inside
    line, strays = main, 0
    after_result = False                 # text between a result and the next game is no game's

    def flush() -> None:
        if tags or main or result or intro:
            found.append(GameText(tags, main, result, intro,
                                  "a variation is not closed" if outer else None, strays))

    # Any line end (old Macs wrote a bare CR): a tag with bare quotes reads to its line's end.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        known = _MOVES.get(token)
        if known is not None and not after_result:
            # A move read before (what a token is, its text alone says): the
            # checks below all passed it by, and after_result alone could stop it.
            texted = True
            if known[0]:
                line.append([known[0], before, known[1], None])
            elif line and known[1]:
                line[-1][2] = line[-1][2] or known[1]
            before = None
            continue
        if token[0] == "%":
            continue                     # an escaped line (no move starts with %)
        if m.lastindex:                  # a tag pair: only those have groups
            name, value = m.group(1, 2) if m.group(1) else m.group(3, 4)
            # Comments alone before a game's tags (a file's "; exported by ...") are
            # no game: they open the game that follows, as its first comment.
            preamble = not (tags or main or result or outer or strays)
            if texted and preamble:
                texted = False
            elif texted or name in tags:     # a tag after movetext starts the next game
                flush()
                tags, main, result, intro, texted = {}, [], None, None, False
                line, outer, before, strays = main, [], None, 0
            tags[name] = value.replace('\\"', '"').replace("\\\\", "\\")
            after_result = False
            continue
        if token[0].isdigit() and token.rstrip().endswith(_NUMBER_END):
            after_result, texted = False, True
            continue                     # a move number
        if token[0] in _POINTS and set(token) <= _POINTS:
            continue                     # "1. ..." : Black's move follows
        # After a result, only a move starts the next game (no digits first: a
        # footer's "12.5" could pass for WXF's tandem pawns).
        if after_result and (token[0].isdigit() or not notations.looks_like_move(
                unicodedata.normalize("NFKC", token))):
            continue                     # e.g. the footer XQWizard writes after a game
        after_result = False             # the moves of a game with no tags or numbers
        texted = True
        if token == "(":
            variation: list[list] = []
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
            text, mark = _MOVES.get(token) or _move(token)
            if text:
                line.append([text, before, mark, None])
            elif line and mark:          # a mark standing apart from its move
                line[-1][2] = line[-1][2] or mark
            before = None
    flush()
    return found
