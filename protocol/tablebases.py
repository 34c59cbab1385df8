"""The endgame tables in the engine (option TablebasePath): which tables the
search probes, and the move at the root.

The search probes tables from C without the GIL, so they must be in memory
(engine/egtbprobe.pyx's install): at each `go`, the tables the position can reach
by captures (a subset of its material, in either colouring) are wanted, but
only when the position has at most two pieces more than the largest table:
in a middlegame no capture sequence the search sees ends in a table, and
nothing is read. A table is read once, on a thread of its own (a large one
takes seconds to decompress): `go` waits for the reading only as long as its
time allows (`prepare`'s budget), searches with the tables that are in, and
installs the others at a later `go` (never under a running search).

At the root a position in a table that is won or lost is played from the
table: the fastest win, the slowest loss, reported as `score mate N` with
the table's line. A drawn one is left to the search, which applies the
repetition rules (a table draw assumes that any cycle draws), but among the
moves that keep the draw only: the search probes the tables only after
captures and would not see a quiet move that loses.
"""
import threading
import time
from collections import Counter
from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from tuong.engine import egtbprobe
from tuong.engine.egtb import parse_name
from tuong.engine.egtbfile import TableError, Tablebases, canonical, material
from tuong.engine.report import SearchInfo
from tuong.engine.search import SearchResult

if TYPE_CHECKING:
    from tuong.engine.board import Board

PV_LIMIT = 30                      # plies of the table's line shown at the root


def _parts(name):
    red, black = name.split("v")
    return Counter(red), Counter(black)


def _within(small, large):
    return all(large[k] >= n for k, n in small.items())


class RootTables:
    """The tables of one engine process."""

    def __init__(self, report_error: Callable[[str], object]) -> None:
        self.report_error = report_error
        self.tables: Tablebases | None = None    # None: off
        self.installed: frozenset[str] = frozenset()
        self.probes = 0                  # root probes answered (info tbhits)
        self._reported: set[str] = set()
        self._lock = threading.Lock()
        self._read_one = threading.Condition(self._lock)   # notified after each table
        self._queue: list[str] = []      # names the reader is to read, in order
        # (tables, {material: wanted}) as wanted() found them
        self._wanted: tuple[Tablebases | None, dict[str, list[str]]] = (None, {})
        self._reading = False            # a reader thread is running

    def set_path(self, path: str | None) -> None:
        """Option TablebasePath; empty turns the tables off. A bad folder is
        reported and the engine goes on without tables."""
        tables = None
        if path:
            try:
                tables = Tablebases(path)
            except TableError as error:
                self.report_error(f"TablebasePath {error}; playing without tables")
        old = self.tables
        if tables is not None and old is not None and (old.path, old.names) == (path, tables.names):
            return                       # the same folder again: keep the tables read from it
        egtbprobe.install([])
        self.installed = frozenset()
        with self._lock:                 # the reader reads for the current folder only
            self._queue = []
            self.tables = tables
        if tables is not None and not tables.names:
            self.report_error(f"TablebasePath {path}: no tables (*.tutb) in it")

    def wanted(self, board: "Board") -> list[str]:
        """The tables `board`'s position can reach by captures, in the order
        they are read: its own, those one capture away (what the root move
        needs), then the others by size."""
        if self.tables is None:
            return []
        name, pieces = material(board.fen())
        if len(pieces) > self.tables.max_pieces + 2:
            return []
        if self._wanted[0] is not self.tables:   # the answer depends on the material only
            self._wanted = (self.tables, {})
        if name not in self._wanted[1]:
            self._wanted[1][name] = self._reachable(name, len(pieces))
        return self._wanted[1][name]

    def _reachable(self, name, count):
        red, black = _parts(name)
        found = []
        for table in self.tables.names:
            t_red, t_black = _parts(table)
            if (_within(t_red, red) and _within(t_black, black)) or \
                    (_within(t_red, black) and _within(t_black, red)):
                found.append(table)
        return sorted(found, key=lambda n: (count - len(parse_name(n)),
                                            self.tables.file_size(n), n))

    def holds(self, board: "Board") -> bool:
        """Is `board`'s position in one of the folder's tables?"""
        return self.tables is not None and \
            canonical(material(board.fen())[0])[0] in self.tables.names

    def prepare(self, board: "Board", budget: float | None = None) -> None:
        """Install the tables `board`'s position can reach by captures, those
        read by now or within `budget` seconds (None: as long as it takes);
        the rest are read meanwhile for a later `go`. For a position in a
        table the wait ends once its own table and those one capture away
        are in: the root move needs no more."""
        wanted = self.wanted(board)
        # self.tables is set wherever `wanted` is not empty (mypy cannot see it)
        missing = [n for n in wanted if not self.tables.attempted(n)]  # type: ignore[union-attr]
        if missing:
            pieces = len(material(board.fen())[1])
            needed = [n for n in wanted if len(parse_name(n)) >= pieces - 1] \
                if self.holds(board) else wanted
            deadline = None if budget is None else time.monotonic() + budget
            with self._read_one:
                self._queue = missing
                if not self._reading:
                    self._reading = True
                    threading.Thread(target=self._read, daemon=True,
                                     name="tablebase-reader").start()
                while self._reading and not all(
                        self.tables.attempted(n) for n in needed):  # type: ignore[union-attr]
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        break
                    self._read_one.wait(left)
        ready = frozenset(n for n in wanted
                          if self.tables.loaded(n) is not None)  # type: ignore[union-attr]
        for problem in self._new_problems():
            self.report_error(f"TablebasePath: {problem}; that table is not used")
        if ready != self.installed:
            egtbprobe.install([self.tables.loaded(n)  # type: ignore[union-attr, misc]
                          for n in sorted(ready)])
            self.installed = ready

    def _read(self):
        while True:
            with self._read_one:
                self._read_one.notify_all()
                if not self._queue:
                    self._reading = False
                    return
                name, tables = self._queue.pop(0), self.tables
            try:
                tables.table(name)       # keeps it (or its problem) in `tables`
            except Exception as error:   # a reader that died would leave every go waiting
                tables.problems[name] = f"{name}: could not be read ({error!r})"
                tables.tables[name] = None

    def _new_problems(self):
        problems = self.tables.problems.copy() if self.tables is not None else {}
        fresh = [p for n, p in problems.items() if n not in self._reported]
        self._reported |= set(problems)
        return fresh

    def value(self, board: "Board") -> int | None:
        """The table's value byte for `board`, or None (also while its table
        is still being read)."""
        if self.tables is None:
            return None
        value = self.tables.probe_fen(board.fen(), load=False)
        self.probes += value is not None
        return value

    def root_move(self, board: "Board",
                  banned: Container[str] = ()) -> tuple[SearchInfo, SearchResult] | None:
        """(SearchInfo, SearchResult) for a won or lost table position, else
        None (also while a table that one of its moves leads to is unread)."""
        self.probes = 0
        value = self.value(board)
        if value in (None, 0, 255):
            return None
        line = self._line(board, banned)
        if not line:
            return None
        # The score is the chosen move's: with moves banned (searchmoves,
        # banmoves) it may be slower than the root's, or only a draw, which
        # the search plays.
        board.push(line[0])
        after = self.value(board)
        board.pop()
        if after in (None, 0, 255):
            return None
        plies = after           # the opponent's distance after it, and this move
        mate = (plies + 1) // 2 if plies % 2 else -(plies // 2)
        info = SearchInfo(depth=plies or 1, seldepth=plies or 1, multipv=1, score=None,
                          mate=mate, bound=None, nodes=0, nps=0, hashfull=0, time_ms=0,
                          pv=line, tbhits=self.probes)
        return info, SearchResult(best=line[0], ponder=line[1] if len(line) > 1 else None,
                                  score=None, mate=mate, depth=plies, pv=line)

    def losing_moves(self, board: "Board", banned: Container[str] = ()) -> tuple[str, ...]:
        """In a drawn table position, the moves (not already in `banned`)
        that lose, for the search to leave out; else ()."""
        if self.tables is None or self.value(board) != 0:
            return ()
        allowed = [move for move in board.legal_moves() if move not in banned]
        losing = []
        for move in allowed:
            board.push(move)
            after = self.value(board)
            board.pop()
            if after not in (None, 0, 255) and (after - 1) % 2:   # the opponent wins
                losing.append(move)
        # searchmoves may have left only losing moves: then those are searched
        return tuple(losing) if len(losing) < len(allowed) else ()

    def _line(self, board, banned):
        """The table's best play from `board`: the fastest win, the slowest loss."""
        scratch, line = board.copy(), []
        while len(line) < PV_LIMIT:
            best, best_rank, unknown = None, None, False
            for move in scratch.legal_moves():
                if not line and move in banned:
                    continue
                scratch.push(move)
                after = self.value(scratch)
                scratch.pop()
                if after is None:
                    # a capture into a table not read yet (or unreadable): the
                    # best move may be that one, so the root is left to the search
                    unknown = True
                    break
                if after == 255:
                    continue
                rank = _rank(after)
                if best_rank is None or rank > best_rank:
                    best, best_rank = move, rank
            if unknown and not line:
                return []
            if best is None or unknown:
                break
            line.append(best)
            scratch.push(best)
            if self.value(scratch) in (0, None) or scratch.is_game_over():
                break
        return line


def _rank(after):
    """How good a move is for its mover, from the opponent's value after it:
    a quick win best, then slower wins, a draw, slow losses, quick losses."""
    if after == 0:
        return 0
    plies = after - 1
    if plies % 2 == 0:                   # the opponent is lost
        return 1000 - plies
    return -1000 + plies
