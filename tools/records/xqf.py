"""XQF in: an XQStudio game record, shaped as PGN games are.

XQF is the binary format of XQStudio (象棋演播室), in which most Chinese
Xiangqi collections circulate. A file is a 1024-byte header (signature "XQ",
a version byte, keys, the 32 pieces' squares, the result and Pascal strings
for the title, event, date, site and players) followed by the move tree:
records of (from, to, flags, reserved) with an optional comment, in
pre-order, a node's next move before its alternatives. Version 10 (XQStudio
1.0) and older store all of it as is; versions 11 to 18 obfuscate the piece
squares, the move squares and the comments with keys derived from header
bytes 3-15 (readable by anyone: it is obfuscation, not protection).

read_xqf(data, name) -> (tags, moves, result), as
tuong.tools.records.pgn.read_annotated_games gives per game:
  tags    PGN tags: Event (XQF's event, else its title), Site, Date (as
          YYYY.MM.DD when it reads as a date, else the text as written),
          Round ("?": XQF has none), White (Red), Black, Result; Title when
          the file has both a title and an event; Annotator (XQF's
          commentator) when present; FEN + SetUp "1" when the game does not
          start from the initial position with Red to move; Comment: the
          comment on the initial position, when there is one (a tag rather
          than dropped, since endgame collections put the problem's
          statement there). Missing roster tags are "?".
          XQF has no opening classification, so no ECCO/Opening tags.
  moves   the main line, [(move, comment or None)], moves as "h2e2"
          (files a-i from Red's left, ranks 0-9 from Red's back rank)
  result  "1-0", "0-1", "1/2-1/2" or "*", from the header's result byte

read_xqf_tree(data, name, dropped=None) -> (tags, tree, result) gives the
whole game, variations included, as a GameTree (tools/records/tree.py) of
moves as "h2e2" with their comments (root.comment: the Comment tag).
Every variation move is checked legal along its path; a variation with a
bad one is left out with what hangs off it, and named in `dropped`.

Text is GB18030 (a superset of the GB2312/GBK that XQStudio wrote), decoded
with errors="replace": a damaged name or comment should not lose a game.
The main line is replayed on tuong's Board; any problem with the file or
its main line (not XQF, truncated, an unknown version, a bad square, an
empty origin, an illegal move, ...) raises ValueError naming the file
and, for a move, its number (plies counted from 1) and its squares.
"""
import os
import re

from tuong.engine.board import Board
from tuong.engine.rows import xiangqi_placement
from tuong.tools.records.tree import GameTree

HEADER_SIZE = 0x400
NEWEST_VERSION = 18                    # XQStudio 1.8; 11 and up are obfuscated
# The 32 piece bytes, in XQF's fixed order: Red then Black.
PIECE_ORDER = "RNBAKABNRCCPPPPP" + "rnbakabnrccppppp"
RESULTS = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2",
           4: "1/2-1/2"}               # 4 is not in the spec but real files carry it as a draw
# Pascal strings: (offset of the length byte, most bytes the field holds, field).
# The title may run on into the unused 64 bytes after it (real files do).
STRINGS = [(0x50, 127, "Title"), (0xD0, 63, "Event"), (0x110, 15, "Date"),
           (0x120, 15, "Site"), (0x130, 15, "Red"), (0x140, 15, "Black"),
           (0x1D0, 15, "Annotator")]           # the commentator (讲评人)
KEY_MASK_TEXT = b"[(C) Copyright Mr. Dong Shiwei.]"   # XQStudio's fixed 32-byte key stream base
CAPTURED = 0xFF                        # the square byte of a piece not on the board
MOVE_FROM_BIAS, MOVE_TO_BIAS = 0x18, 0x20


def read_xqf_file(
        path: str | os.PathLike[str]) -> tuple[dict[str, str], list[tuple[str, str | None]], str]:
    """read_xqf on the bytes of the file at `path`, named by its path."""
    with open(path, "rb") as f:
        return read_xqf(f.read(), str(path))


def read_xqf(data: bytes,
             name: str = "<xqf>") -> tuple[dict[str, str], list[tuple[str, str | None]], str]:
    """(tags, moves, result) of the XQF file `data`; ValueError if it is not
    a sound XQF file (the message starts with `name`)."""
    tags, tree, result = read_xqf_tree(data, name)
    comments = [node.comment for node in tree.main_line()]
    return tags, list(zip(tree.root.tip().moves(), comments)), result


def read_xqf_tree(data: bytes, name: str = "<xqf>",
                  dropped: list[tuple[int, str, str]] | None = None
                  ) -> tuple[dict[str, str], GameTree, str]:
    """(tags, tree, result) of the XQF file `data`: read_xqf's tags and
    result, and the whole game as a GameTree (root.comment: the Comment
    tag). ValueError as read_xqf for the file and its main line; a variation
    with a bad move is left out with what hangs off it, and (ply of that
    move from 0, the move as "h2e2" or its square bytes, why) is appended
    to `dropped`."""
    def fail(what):
        raise ValueError(f"{name}: {what}")

    data = bytes(data)
    if len(data) < 2 or data[:2] != b"XQ":
        fail("not an XQF file (it does not start with 'XQ')")
    if len(data) < HEADER_SIZE:
        fail(f"truncated: {len(data)} bytes, less than the {HEADER_SIZE}-byte header")
    version = data[2]
    if not 1 <= version <= NEWEST_VERSION:
        fail(f"unsupported XQF version {version} (this reader knows 1 to {NEWEST_VERSION})")
    keys = _Keys(data) if version > 10 else None
    if keys and keys.checksum != 0:
        fail("corrupt header: the obfuscation keys do not sum to 0 (mod 256)")

    texts = {}
    for offset, capacity, field in STRINGS:
        length = data[offset]
        if length > capacity:
            fail(f"corrupt header: the {field} field claims {length} bytes, "
                 f"more than its {capacity}")
        texts[field] = _decode(data[offset + 1:offset + 1 + length])
    if data[0x33] not in RESULTS:
        fail(f"corrupt header: unknown result code {data[0x33]}")
    result = RESULTS[data[0x33]]
    tags = {"Event": texts["Event"] or texts["Title"] or "?",
            "Site": texts["Site"] or "?",
            "Date": _pgn_date(texts["Date"]) if texts["Date"] else "?",
            "Round": "?", "White": texts["Red"] or "?", "Black": texts["Black"] or "?",
            "Result": result}
    if texts["Event"] and texts["Title"] and texts["Title"] != texts["Event"]:
        tags["Title"] = texts["Title"]
    if texts["Annotator"]:
        tags["Annotator"] = texts["Annotator"]

    board = _initial_squares(data, version, keys, fail)
    root, strays = _move_records(data, keys, fail)
    if root.comment:
        tags["Comment"] = root.comment
    line = []
    node = root
    while node.children:
        node = node.children[0]
        line.append(node)

    # Who moves first: the owner of the first move's piece (version 10 files
    # leave the "who plays" byte at 0 even when Black starts). With no
    # moves, that byte, unless it leaves the other side in check: diagrams
    # of a mate show the mated side in check with the byte left at Red.
    if line:
        first = board.get(line[0].src)
        sides = [first is None or first.isupper()]    # an empty origin fails below
    else:
        sides = [data[0x32] == 0, data[0x32] != 0]
    for red_first in sides:
        fen = _fen(board, red_first)
        try:
            replay = Board(fen)
            break
        except ValueError as e:
            problem = e
    else:
        fail(f"impossible starting position {_fen(board, sides[0])!r}: {problem}")
    if fen != Board.start_fen:
        tags["FEN"], tags["SetUp"] = fen, "1"

    start = replay.copy()
    tree = GameTree(None if fen == Board.start_fen else fen)
    tree.root.comment = root.comment
    node_in_tree = tree.root
    for ply, record in enumerate(line, 1):
        move = _square_name(record.src) + _square_name(record.dst)
        piece = board.get(record.src)
        if piece is None:
            fail(f"move {ply} ({move}): no piece on its origin {move[:2]}")
        if piece.isupper() != (replay.turn == "w"):
            fail(f"move {ply} ({move}): moves a {'Red' if piece.isupper() else 'Black'} "
                 f"piece out of turn")
        if move not in replay.legal_moves():
            fail(f"move {ply} ({move}): illegal in {replay.fen()}")
        try:
            replay.push(move)
        except ValueError as e:                      # e.g. a game too long to hold
            fail(f"move {ply} ({move}): {e}")
        board[record.dst] = board.pop(record.src)
        node_in_tree, _ = tree.add(node_in_tree, move, record.comment)

    dropped = [] if dropped is None else dropped
    for stray in strays:
        dropped.append((0, _record_text(stray), "a second tree of moves after the game's"))
    _add_variations(tree, start, root, dropped)
    return tags, tree, result


def _add_variations(tree, board, root, dropped):
    """Add the variations of the move records under `root` to `tree`, which
    holds their main line; `board` is the start position. A variation whose
    moves are not all legal is left out, with what hangs off it, and noted
    in `dropped`."""
    # Lines still to look into: (the board before the line's first move, its
    # node in the tree, the record there); the line is the record's first
    # children, all in the tree; the other children are variations.
    stack = [(board, tree.root, root)]
    while stack:
        board, node, record = stack.pop()
        while record.children:
            following, *alternatives = record.children
            for alternative in alternatives:
                moves, failure = _legal_line(board.copy(), alternative)
                if failure:
                    dropped.append(failure)
                    continue
                first, _ = tree.add(node, moves[0][0], alternative.comment)
                branch = first
                for move, step in moves[1:]:
                    branch, _ = tree.add(branch, move, step.comment)
                after = board.copy()
                after.push(moves[0][0])
                stack.append((after, first, alternative))
            move = _record_text(following)
            board.push(move)
            node = next(c for c in node.children if c.move == move)
            record = following


def _legal_line(board, record):
    """([(move, record)] of the line from `record` down its first children,
    replayed on `board`; or None and (ply, move, why) for its first bad move."""
    moves = []
    while True:
        move = _record_text(record)
        ply = board.ply
        if max(record.src, record.dst) >= 90:
            return None, (ply, move, "a square off the board")
        if move not in board.legal_moves():
            return None, (ply, move, f"illegal in {board.fen()}")
        try:
            board.push(move)
        except ValueError as e:                      # e.g. a line too long to hold
            return None, (ply, move, str(e))
        moves.append((move, record))
        if not record.children:
            return moves, None
        record = record.children[0]


class _Keys:
    """The obfuscation of versions 11-18, from header bytes 3-15: an offset
    for the piece squares, one each for a move's from and to bytes, one for
    comment lengths, and a 32-byte stream subtracted from every byte after
    the header (by file offset mod 32)."""

    def __init__(self, header):
        mask, sums = header[3], header[12:16]     # KeysSum, KeyXY, KeyXYf, KeyXYt
        self.checksum = sum(sums) % 256

        def scramble(seed, factor):
            return (54 * seed * seed + 221) * factor % 256

        self.piece = scramble(sums[1], sums[1])
        self.src = scramble(sums[2], self.piece)
        self.dst = scramble(sums[3], self.src)
        self.comment = (sums[0] * 256 + sums[1]) % 32000 + 767
        quad = [(sums[i] & mask) | header[8 + i] for i in range(4)]
        self.stream = bytes(KEY_MASK_TEXT[i] & quad[i % 4] for i in range(32))


def _initial_squares(data, version, keys, fail):
    """{xqf square: piece letter} of the starting position."""
    raw = data[0x10:0x30]
    if keys is None:
        squares = list(raw)
    else:
        if version >= 12:        # the bytes are also rotated by the key
            rotated = [0] * 32
            for i in range(32):
                rotated[(keys.piece + 1 + i) % 32] = raw[i]
            raw = rotated
        squares = [(b - keys.piece) % 256 for b in raw]
    board = {}
    for piece, square in zip(PIECE_ORDER, squares):
        if square == CAPTURED or (keys is not None and square >= 90):
            continue                 # off the board (obfuscated files write any byte >= 90)
        if square >= 90:
            fail(f"corrupt header: the square byte {square} of a piece {piece} is off the board")
        if square in board:
            fail(f"corrupt header: {board[square]} and {piece} both on {_square_name(square)}")
        board[square] = piece
    return board


class _Record:
    """A move record of the file: its squares (XQF's bytes, less the bias
    and keys: 0-89 on the board), its comment, and the records that follow
    it (the first continues its line, the others are alternatives to it)."""
    __slots__ = ("src", "dst", "comment", "children")

    def __init__(self, src, dst, comment):
        self.src, self.dst, self.comment = src, dst, comment
        self.children = []


def _move_records(data, keys, fail):
    """(the initial position's record, with the move tree under it; the
    records after that tree's end that the root's "variation" flag calls
    for, which are no moves of this game), after checking that the whole
    tree is there and that the main line's squares are on the board."""
    pos = HEADER_SIZE
    stream = keys.stream if keys else bytes(32)

    def read(count, what):
        nonlocal pos
        if pos + count > len(data):
            fail(f"truncated: the data ends inside {what} at byte {pos}")
        chunk = data[pos:pos + count]
        out = bytes((b - stream[(pos + i) % 32]) % 256 for i, b in enumerate(chunk))
        pos += count
        return out

    # Pre-order: a record's next move (has_next) comes right after it; an
    # alternative to it (has_variation) after that move's whole subtree.
    # `waiting` holds the records whose next child is still to come, the
    # one that comes first on top; the root's siblings go under `outside`.
    root = outside = None
    waiting, index, main = [None], 0, True           # main: is this record on the main line?
    while waiting:
        parent = waiting.pop()
        what = "the initial position's record" if index == 0 else f"move record {index}"
        src, dst, flags, _ = read(4, what)
        if keys is None:
            has_next, has_variation = flags & 0xF0, flags & 0x0F
            has_comment = True                       # a length is always there, maybe 0
        else:
            has_next, has_variation, has_comment = flags & 0x80, flags & 0x40, flags & 0x20
        comment = None
        if has_comment:
            length = int.from_bytes(read(4, f"the comment length of {what}"), "little")
            length = length - keys.comment if keys else length
            if length < 0:
                fail(f"corrupt data: {what} has a comment of {length} bytes")
            if length > len(data) - pos:      # cut short, or a damaged length
                fail(f"truncated: the data ends inside the comment of {what} "
                     f"({length} bytes, {len(data) - pos} left)")
            comment = _decode(read(length, f"the comment of {what}")) or None
        src = (src - MOVE_FROM_BIAS - (keys.src if keys else 0)) % 256
        dst = (dst - MOVE_TO_BIAS - (keys.dst if keys else 0)) % 256
        record = _Record(src, dst, comment)
        if index == 0:
            root = record
        else:
            if parent is None:
                parent = outside = outside or _Record(0, 0, None)
            if main and (src >= 90 or dst >= 90):
                fail(f"move {index}: a square off the board (bytes {src}, {dst})")
            parent.children.append(record)
        if has_variation:
            waiting.append(parent)
        if has_next:
            waiting.append(record)
        main = main and bool(has_next)               # the main line comes first, unbroken
        index += 1
    if pos != len(data):          # XQStudio's files end with their tree
        fail(f"corrupt data: {len(data) - pos} bytes after the end of the move tree")
    return root, outside.children if outside else []


def _record_text(record):
    """A record's move as "h2e2", or its square bytes when it is off the board."""
    if max(record.src, record.dst) >= 90:
        return f"({record.src}, {record.dst})"
    return _square_name(record.src) + _square_name(record.dst)


def _square_name(square):
    """XQF's square byte (file * 10 + rank, from Red's bottom left) as 'e0'."""
    return "abcdefghi"[square // 10] + str(square % 10)


def _fen(board, red_first):
    squares = [board.get(sq % 9 * 10 + sq // 9) for sq in range(90)]   # XQF: file * 10 + rank
    return xiangqi_placement(squares) + (" w" if red_first else " b") + " - - 0 1"


def _decode(raw):
    return raw.decode("gb18030", errors="replace").replace("\x00", "").strip()


def _pgn_date(text):
    """'1997年11月16日', '1999.12.09' -> '1997.11.16', '1999.12.09'; a lone
    year -> 'YYYY.??.??'; anything else as written."""
    m = re.fullmatch(r"(\d{4})\D{1,2}(\d{1,2})\D{1,2}(\d{1,2})\D?", text)
    if m:
        return f"{m[1]}.{int(m[2]):02d}.{int(m[3]):02d}"
    m = re.fullmatch(r"(\d{4})\D?", text)
    return f"{m[1]}.??.??" if m else text
