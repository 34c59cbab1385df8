"""Reference rules of the three small games and exact solvers for them,
written from the rules text of the issue (not from the engine's code), for
tests/test_games.py.

A position is a tuple (cells, side): `cells` a tuple of one-letter strings,
rank by rank from the bottom (index rank * width + file), '.' an empty
cell; `side` the FEN's side letter. Every game has:

    start()            the start position
    parse(fen)         a position from a valid FEN
    fen(pos)           its FEN
    moves(pos)         {move text: position after it}; empty when the game is over
    result(pos)        at the end of the game: +1, 0 or -1 for the side to move

The solvers return values from the side to move.
"""
import functools

FILES = "abcdefghijklmno"


def square(file, rank):
    return f"{FILES[file]}{rank + 1}"


def parse_rows(text):
    """FEN rows (top first) -> cells from the bottom and the width."""
    rows = []
    for row in text.split("/"):
        cells, run = [], ""
        for ch in row + "/":
            if ch.isdigit():
                run += ch
                continue
            if run:
                cells += ["."] * int(run)
                run = ""
            if ch != "/":
                cells.append(ch)
        rows.append(cells)
    return tuple(c for row in reversed(rows) for c in row), len(rows[0])


def fen_rows(cells, width):
    rows = []
    for rank in reversed(range(len(cells) // width)):
        text, run = "", 0
        for ch in cells[rank * width:(rank + 1) * width]:
            if ch == ".":
                run += 1
                continue
            if run:
                text, run = text + str(run), 0
            text += ch
        rows.append(text + (str(run) if run else ""))
    return "/".join(rows)


@functools.lru_cache(maxsize=None)
def perft(game, pos, depth):
    """Brute-force leaf count of the move tree (memoised on the position:
    each distinct subtree is counted once)."""
    if depth == 0:
        return 1
    children = game.moves(pos)
    if depth == 1:
        return len(children)
    return sum(perft(game, child, depth - 1) for child in children.values())


def reachable(game, roots):
    """Every position reachable from `roots`, ends of the game included."""
    seen, todo = set(), list(roots)
    while todo:
        pos = todo.pop()
        if pos in seen:
            continue
        seen.add(pos)
        todo.extend(game.moves(pos).values())
    return seen


def random_position(game, rng, plies, start=None):
    """The position after up to `plies` random moves (fewer if the game
    ends), and the moves played."""
    pos, played = start or game.start(), []
    for _ in range(plies):
        children = game.moves(pos)
        if not children:
            break
        move = rng.choice(sorted(children))
        played.append(move)
        pos = children[move]
    return pos, played


class Game:
    """FEN both ways for a square board; each game gives START and its rules."""
    START = None

    @classmethod
    def start(cls):
        return cls.parse(cls.START)

    @staticmethod
    def parse(fen):
        rows, side = fen.split()
        return (parse_rows(rows)[0], side)

    @staticmethod
    def size(pos):
        return int(round(len(pos[0]) ** 0.5))

    @classmethod
    def fen(cls, pos):
        return f"{fen_rows(pos[0], cls.size(pos))} {pos[1]}"


# -- tic-tac-toe ---------------------------------------------------------------
class TicTacToe(Game):
    START = "3/3/3 w"
    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
             (0, 4, 8), (2, 4, 6)]

    @classmethod
    def line_of(cls, cells):
        """'X' or 'O' if that player has three in a row, else None."""
        for a, b, c in cls.LINES:
            if cells[a] != "." and cells[a] == cells[b] == cells[c]:
                return cells[a]
        return None

    @classmethod
    def moves(cls, pos):
        cells, side = pos
        if cls.line_of(cells) or "." not in cells:
            return {}
        piece, other = ("X", "b") if side == "w" else ("O", "w")
        return {square(i % 3, i // 3): (cells[:i] + (piece,) + cells[i + 1:], other)
                for i in range(9) if cells[i] == "."}

    @classmethod
    def result(cls, pos):
        # The last mover made the line, or the board is full without one.
        return -1 if cls.line_of(pos[0]) else 0


@functools.lru_cache(maxsize=None)
def ttt_solve(pos):
    """Exact value of a tic-tac-toe position for the side to move, with the
    length of the game: 1000 - plies for a win in `plies`, -(1000 - plies)
    for a loss, 0 for a draw. Larger is better: a quicker win, a slower loss."""
    children = TicTacToe.moves(pos)
    if not children:
        return -1000 if TicTacToe.result(pos) else 0
    best = -10 ** 6
    for child in children.values():
        v = -ttt_solve(child)
        v = v - 1 if v > 0 else v + 1 if v < 0 else 0
        best = max(best, v)
    return best


def ttt_positions():
    """Every position reachable from the empty board, game ends included."""
    return reachable(TicTacToe, [TicTacToe.start()])


# -- Dodgem --------------------------------------------------------------------
class Dodgem(Game):
    """Black ('B', side 'b') moves right/up/down and leaves past file c;
    White ('W', side 'w') moves left/right/up and leaves past rank 3."""
    START = "B2/B2/1WW b"
    STEPS = {"b": [(1, 0), (0, 1), (0, -1)], "w": [(-1, 0), (1, 0), (0, 1)]}
    CAR = {"b": "B", "w": "W"}
    OTHER = {"b": "w", "w": "b"}

    @classmethod
    def moves(cls, pos):
        cells, side = pos
        car, other = cls.CAR[side], cls.OTHER[side]
        if car not in cells or cls.CAR[other] not in cells:
            return {}                   # someone has taken both cars off
        out = {}
        for i, ch in enumerate(cells):
            if ch != car:
                continue
            f, r = i % 3, i // 3
            for df, dr in cls.STEPS[side]:
                nf, nr = f + df, r + dr
                leaves = (side == "b" and nf == 3) or (side == "w" and nr == 3)
                if not leaves and not (0 <= nf < 3 and 0 <= nr < 3 and cells[nr * 3 + nf] == "."):
                    continue
                after = list(cells)
                after[i] = "."
                if not leaves:
                    after[nr * 3 + nf] = car
                out[square(f, r) + square(nf, nr)] = (tuple(after), other)
        return out

    @classmethod
    def result(cls, pos):
        # Over: the other side has taken its cars off, or we cannot move.
        return -1


def dodgem_all_positions():
    """Every placement of at most two cars of each colour, either side to
    move, except both sides off the board."""
    from itertools import combinations
    out = set()
    for nb in range(3):
        for nw in range(3):
            if nb == nw == 0:
                continue
            for bs in combinations(range(9), nb):
                rest = [i for i in range(9) if i not in bs]
                for ws in combinations(rest, nw):
                    cells = ["."] * 9
                    for i in bs:
                        cells[i] = "B"
                    for i in ws:
                        cells[i] = "W"
                    for side in "bw":
                        if (nb == 0 and side == "b") or (nw == 0 and side == "w"):
                            continue    # the side to move has already won: impossible
                        out.add((tuple(cells), side))
    return out


def dodgem_solve(positions):
    """Retrograde analysis of Dodgem with "a repeated position is a draw".

    Returns {position: (value, plies)}: value +1 / -1 (win / loss for the
    side to move, in `plies` plies with the quickest win and the slowest
    loss) or 0 (a draw, plies None).

    Method: positions without moves are lost. Then, round after round, a
    position is won if some move reaches a lost position, lost if every
    move reaches a won one, each labelled in the round it becomes decided
    (so that wins are the quickest and losses the slowest). What is never
    labelled is a draw: from it the side to move has a move to another
    unlabelled position (no move to a lost one, not all to won ones), so
    both sides can stay among unlabelled positions for ever and the game
    can only end by repetition. A labelled win never needs repetition: the
    winner's strategy strictly lowers the distance, so along it no position
    recurs and the opponent cannot claim one either. The values are those
    of a position reached with no history (a FEN), which is how the tests
    give positions to the engine.
    """
    positions = set(positions)
    children = {p: list(Dodgem.moves(p).values()) for p in positions}
    for kids in children.values():
        positions.update(kids)
    for p in positions:
        children.setdefault(p, list(Dodgem.moves(p).values()))
    value = {p: (-1, 0) for p in positions if not children[p]}
    plies = 0
    while True:
        plies += 1
        new = {}
        for p in positions:
            if p in value:
                continue
            kid_values = [value.get(c) for c in children[p]]
            if any(v is not None and v[0] == -1 and v[1] == plies - 1 for v in kid_values):
                new[p] = (1, plies)
            elif all(v is not None and v[0] == 1 for v in kid_values) and \
                    max(v[1] for v in kid_values) == plies - 1:
                new[p] = (-1, plies)
        if not new:
            break
        value.update(new)
    for p in positions:
        value.setdefault(p, (0, None))
    return value


# -- queens ----------------------------------------------------------------------
class Queens(Game):
    """'*' stone, 'Q'/'q' queens of the first/second player, 'X'/'x' cells
    they claim, '.' empty and unclaimed. Side 'w' places 'Q'."""
    START = "8/8/8/8/8/8/8/8 w"
    DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]

    @classmethod
    def place(cls, pos, index):
        cells, side = pos
        n = cls.size(pos)
        queen, claim = ("Q", "X") if side == "w" else ("q", "x")
        after = list(cells)
        after[index] = queen
        f0, r0 = index % n, index // n
        for df, dr in cls.DIRS:
            f, r = f0 + df, r0 + dr
            while 0 <= f < n and 0 <= r < n and cells[r * n + f] != "*":
                if after[r * n + f] == ".":
                    after[r * n + f] = claim
                f, r = f + df, r + dr
        return (tuple(after), "b" if side == "w" else "w")

    @classmethod
    def moves(cls, pos):
        n = cls.size(pos)
        return {square(i % n, i // n): cls.place(pos, i)
                for i, ch in enumerate(pos[0]) if ch == "."}

    @staticmethod
    def margin(pos):
        """First player's claimed cells (queens included) minus the second's."""
        cells = pos[0]
        return sum(ch in "QX" for ch in cells) - sum(ch in "qx" for ch in cells)

    @classmethod
    def result(cls, pos):
        m = cls.margin(pos) * (1 if pos[1] == "w" else -1)
        return (m > 0) - (m < 0)


@functools.lru_cache(maxsize=None)
def queens_solve(pos):
    """Final cell margin from the side to move under perfect play (each side
    maximises its own final margin)."""
    children = Queens.moves(pos)
    if not children:
        return Queens.margin(pos) * (1 if pos[1] == "w" else -1)
    return max(-queens_solve(child) for child in children.values())


def queens_score(margin):
    """The engine's score of a finished game with this margin for the side
    to move."""
    return 0 if margin == 0 else (10000 + 10 * margin if margin > 0 else -10000 + 10 * margin)


GAMES = {"tictactoe": TicTacToe, "dodgem": Dodgem, "queens": Queens}
