"""A game record and its tags: `Record` (tags, the main line's moves and
comments, the whole game as a tree, and the methods that edit that tree),
`Problem` (why a game, or part of it, was not read) and the tags that every
reader and writer of tools/records/ shares. The package (tools/records/__init__.py)
exports them all."""
import dataclasses
import itertools
from collections.abc import Mapping, Sequence

from tuong.engine.board import Board
from tuong.tools.records import notation as notations
from tuong.tools.records.movetext import MARKS, RESULTS
from tuong.tools.records.notation import Notation
from tuong.tools.records.tree import GameTree, Node

# The [Format] tag's value for each notation (reading.py reads them back, and more).
FORMAT_NAMES: dict[Notation, str] = {
    "coords": "Coords", "ranks1": "Coords1-10", "iccs": "ICCS", "wxf": "WXF",
    "chinese": "Chinese", "vietnamese": "Vietnamese"}
"""The `[Format]` tag's value written for each notation (`"wxf"` -> `"WXF"`);
read back case-insensitively, with `uci`, `ucci`, `chn`, `cn` and `vn` too."""
GAME_TAG = ("Game", "Chinese Chess")
"""The tag every written game carries, `[Game "Chinese Chess"]`, as Xiangqi programs write it."""
# Tags the moves (or the notation written) decide, not kept by a program that edits a game.
DERIVED_TAGS = ("FEN", "SetUp", "PlyCount", "Format")
"""Tags the moves (or the notation written) decide, which a program editing a
game does not keep as read: `FEN`, `SetUp`, `PlyCount`, `Format`."""


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
        """Red's player: the [Red] tag, or [White] as chess programs write it.
        Setting it sets both tags (None removes both)."""
        return self.tags.get("Red", self.tags.get("White"))

    @red.setter
    def red(self, name: str | None) -> None:
        for tag in ("Red", "White"):
            if name is None:
                self.tags.pop(tag, None)
            else:
                self.tags[tag] = name

    @property
    def black(self) -> str | None:
        """Black's player: the [Black] tag. Setting it sets the tag (None removes it)."""
        return self.tags.get("Black")

    @black.setter
    def black(self, name: str | None) -> None:
        if name is None:
            self.tags.pop("Black", None)
        else:
            self.tags["Black"] = name

    def title(self) -> str:
        """`"Red's player - Black's player"`, `?` for a missing name."""
        return f"{self.red or '?'} - {self.black or '?'}"

    @classmethod
    def from_board(cls, board: Board, tags: Mapping[str, str] | None = None,
                   result: str | None = None) -> "Record":
        """A record of the game played on `board`: its start position (the
        `[FEN]` and `[SetUp]` tags unless it is the initial one) and its
        moves as the main line of a `tree`, to edit (add_variation,
        set_comment, set_mark) and write (format_pgn). `tags` are copied
        first (`{"Event": ..., "Red": ..., "Black": ...}`; `[White]` is read
        as `[Red]`); `result` is `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"`, by
        default the `[Result]` of `tags` where it gives one (`"1-0"`,
        `"0-1"` or `"1/2-1/2"`), else the board's: a loss for the side to
        move when it has no move (checkmate or stalemate), else `"*"` (a
        draw by the rules is the caller's to say). Raises ValueError for
        another `result`.

        ```python
        board = Board()
        for move in ["h2e2", "h9g7"]:
            board.push(move)
        record = Record.from_board(board, {"Red": "Me", "Black": "tuong"})
        ```
        """
        start = board.copy()
        while start.ply:
            start.pop()
        fen: str | None = start.fen()
        tags = dict(tags or {})
        if "White" in tags:
            tags.setdefault("Red", tags["White"])
        if "Red" in tags:
            tags.setdefault("White", tags["Red"])
        if fen == Board.start_fen:
            fen = None
            for tag in ("FEN", "SetUp"):
                tags.pop(tag, None)
        else:
            tags.update(FEN=str(fen), SetUp="1")
        given = tags.get("Result")
        if result is None and given in RESULTS and given != "*":
            result = given                  # the tags' own word, as the caller gave it
        if result is None:                  # no move left loses (stalemate too, in Xiangqi)
            result = "*" if not board.is_game_over() else \
                "0-1" if board.turn == "w" else "1-0"
        elif result not in RESULTS:
            raise ValueError(f"a result is one of {', '.join(RESULTS)}: not {result!r}")
        tags["Result"] = result
        moves = board.move_stack
        tree = GameTree(fen)
        tree.add_line(tree.root, moves)
        return cls(tags, moves, [None] * len(moves), result, None, None, tree)

    def add_variation(self, at: "Node | int", moves: Sequence[str]) -> Node:
        """Play `moves` (a0-i9 text) from the position at `at` into the
        tree: the first one becomes a variation, an alternative to the move
        played there, when there is one (a move the tree has there already
        is followed, not added twice), else it continues the line. `at` is a
        node of `tree`, or a ply of the main line (0: the start position, 1:
        after the first move, ...). Returns the node of the last move (`at`'s
        own node when `moves` is empty).

        The moves are checked on a board first: ValueError naming the first
        that is not legal, and the tree is left as it was; IndexError for a
        ply past the main line's end, ValueError for a node of another tree.
        A record without a tree (made from a move list) gets one first."""
        node = self._node(at)
        board = notations.board_at(self.fen)
        for move in node.moves():
            board.push(move)
        for number, move in enumerate(moves, 1):
            try:
                board.push(move)
            except (ValueError, TypeError) as error:
                raise ValueError(f"move {number} of the variation, {move!r}, is not legal "
                                 f"there: {error}") from None
        assert self.tree is not None
        last = self.tree.add_line(node, list(moves))
        self._follow_tree()
        return last

    def set_comment(self, at: "Node | int", comment: str | None) -> None:
        """The comment after the move at `at` (a node of `tree`, or a ply of
        the main line; 0, the start position: the comment before any move,
        `intro`); None or "" removes it. A main-line comment is in
        `comments` too. IndexError for a ply past the main line's end."""
        node = self._node(at)
        node.comment = comment or None
        assert self.tree is not None
        self.tree.version += 1
        self._follow_tree()

    def set_mark(self, at: "Node | int", mark: str | None) -> None:
        """The mark of the move at `at` (a node of `tree`, or a ply of the
        main line from 1): one of MARKS (`"!"`, `"?"`, `"!!"`, `"??"`,
        `"!?"`, `"?!"`), written after the move, or None to remove it.
        ValueError for another mark or for the start position (no move to
        mark); IndexError for a ply past the main line's end."""
        if mark is not None and mark not in MARKS:
            raise ValueError(f"a mark is one of {' '.join(MARKS)}: not {mark!r}")
        node = self._node(at)
        if node.parent is None:
            raise ValueError("the start position has no move to mark")
        node.mark = mark
        assert self.tree is not None
        self.tree.version += 1

    def _node(self, at: "Node | int") -> Node:
        """The node of `tree` that `at` names (a node, or a ply of the main
        line), the tree made first if the record has none."""
        tree = self._tree()
        if isinstance(at, Node):
            if tree.nodes.get(at.id) is not at:
                raise ValueError("the node is not in this record's tree")
            return at
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise ValueError(f"a ply is a number from 0: not {at!r}")
        line = [tree.root] + tree.main_line()
        if at >= len(line):
            raise IndexError(f"ply {at} is past the main line's end ({len(line) - 1} moves)")
        return line[at]

    def _tree(self) -> GameTree:
        """`tree`, made from the moves, comments and intro if there is none."""
        if self.tree is None:
            tree = GameTree(self.fen)
            tree.root.comment = self.intro
            node = tree.root
            for move, comment in itertools.zip_longest(self.moves, self.comments):
                if move is None:
                    break
                node, _ = tree.add(node, move, comment)
            self.tree = tree
        return self.tree

    def _follow_tree(self) -> None:
        """`moves`, `comments` and `intro` as the tree's main line has them."""
        assert self.tree is not None
        line = self.tree.main_line()
        self.moves = [node.move for node in line if node.move is not None]
        self.comments = [node.comment for node in line]
        self.intro = self.tree.root.comment


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
