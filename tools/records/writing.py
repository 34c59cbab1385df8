"""Game records out: format_pgn writes a record as UTF-8 PGN in any notation,
its tags in order (`[Game "Chinese Chess"]` and the roster's first), its
variations, comments and marks."""
import re
from collections.abc import Sequence

from tuong.engine.board import Board
from tuong.tools.records import notation as notations
from tuong.tools.records.notation import NOTATIONS, Notation
from tuong.tools.records.pgn import _escape, _wrap, first_move_number
from tuong.tools.records.record import FORMAT_NAMES, GAME_TAG, Record
from tuong.tools.records.tree import GameTree, Node

# The tags written first when a record lacks them (its own stay where they are): PGN's
# roster, with Red's player as [Red], as Xiangqi programs (XQWizard, xqbase, cchess) write
# it; [White] (cutechess's name, and tuong's inside) is read as the same tag.
_ROSTER = ("Event", "Site", "Date", "Round", "Red", "Black", "Result")
_LINE_ENDS = re.compile(r"[\r\n]+")                  # no tag value spans lines


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

