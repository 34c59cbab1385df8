"""The engine process: one session, three dialects.

+------------------------------------------------------------------------------+
| Command                        | Reply                              | During  |
|                                |                                    | search  |
|--------------------------------+------------------------------------+---------|
| UCI                            |                                    |         |
| uci                            | id name, id author, option.., uciok| -       |
| isready                        | readyok, at once                   | answered|
| setoption name N [value V]     | - / info string error: ..          | stops   |
|   (Threads)                    | info string error: .. (refused)    | refused |
| ucinewgame                     | - ; empties the hash               | stops   |
| position startpos|fen F        | - ; bad FEN: error, old position;  | stops   |
|   [moves M..]                  |   illegal move: error, stop before |         |
| go [depth|nodes|movetime|wtime | info depth .. pv .. per iteration, | restarts|
|   btime|winc|binc|movestogo N] |   then bestmove M [ponder P] or    |         |
|   [searchmoves M..]            |   bestmove (none); bad args: error |         |
|   (a clock, not ours)          | info string warning; moves at once | restarts|
|   (OwnBook on, a book position)| info string book move M (..), then | restarts|
|                                |   bestmove M at once (not for      |         |
|                                |   infinite or ponder; xboard: # ..)|         |
| go infinite / go ponder ..     | bestmove only after stop/ponderhit | restarts|
| go perft N                     | M: count .., Nodes searched: N     | stops   |
| stop                           | bestmove (held or when it ends)    | answered|
| ponderhit                      | - ; the clock starts now (ignored  | answered|
|                                |   unless pondering)                |         |
| d                              | board, Fen:, Key:, side to move    | answered|
| debug, register                | - (ignored)                        | answered|
| quit                           | - ; the search is stopped          | answered|
| end of input                   | - ; a search with a limit ends     | answered|
|                                |   first, any other is stopped      |         |
| UCCI (as UCI, except:)         |                                    |         |
| ucci                           | id.., option N type.., ucciok      | -       |
| setoption N [V]                | - / info string error: ..          | stops   |
| banmoves M..                   | - ; left out by the next go        | next    |
| go [ponder|draw] depth D|      | info depth D score S time T nodes  | restarts|
|   nodes N|time T [movestogo M| |   N pv .., then bestmove M [ponder |         |
|   increment I] [opptime ..]    |   P] or nobestmove                 |         |
| stop                           | bestmove / nobestmove if idle      | answered|
| quit, bye                      | bye                                | answered|
| xboard                         |                                    |         |
| xboard, protover 2             | feature .. done=1                  | -       |
| ping N                         | pong N; after our move if we are   | answered|
|                                |   thinking on our move (CECP rule) |         |
| new, variant xiangqi, setboard | - / tellusererror Illegal position | aborts  |
| usermove M (or bare M)         | Illegal move: M / our move M, and  | aborts  |
|                                |   1-0 {Red wins} etc. at the end   |         |
| go, playother, force, result   | (go: move M [+ result])            | aborts  |
| undo, remove                   | - / Error (no move to take back)   | aborts  |
| level, st, sd, time, option    | - / Error (..): cmd                | next    |
| ?                              | move M, at once                    | answered|
| post, nopost                   | - ; thinking lines on / off        | answered|
| quit                           | -                                  | aborts  |
| hard, easy, otim, computer ..  | - (ignored)                        | answered|
| Any dialect: anything else     | info string error: unknown command | answered|
|                                |   (xboard: Error (unknown command))|         |
+------------------------------------------------------------------------------+
"answered": handled at once while the search goes on. "stops": the search is
stopped and its bestmove printed first. "aborts": stopped and its move
dropped. "restarts": stops the running search (its bestmove is printed),
then starts the new one. "next": stored for the next search.

The protocol loop never searches and the search never prints: `go` hands a
copy of the board to a worker thread and returns, so the loop keeps reading
(isready, stop, ping are answered during a search). The searcher reports
each iteration as one typed record (engine.report.SearchInfo), which every
dialect reads; the dialect formats every line. Output goes through one
locked, flushed writer because both threads print.
"""
import random
import threading
import time
from dataclasses import dataclass, replace
from typing import Optional

from tuong.engine import evalfile, levels
from tuong.engine.games import GAMES
from tuong.protocol import ucci, uci, xboard
from tuong.protocol.book import DEFAULT_PATH as DEFAULT_BOOK_PATH
from tuong.protocol.book import Book, BookError, game_ply
from tuong.protocol.tablebases import RootTables
from tuong.protocol.options import DEFAULT_BOOK_FILE, engine_options
from tuong.protocol.text import Output, quote

TABLE_WAIT = 5.0        # s a depth or nodes search waits for its tables to be read


@dataclass
class UnsearchedResult:
    """A result made without a search, shaped like the searcher's
    SearchResult, in two cases:
    - the game is already over (game_over()): best is None, and score/mate
      say how it ended for the side to move (mate 0: lost; score 0: drawn;
      a positive score: won);
    - the search failed (start_search's fallback): best is the first legal
      move, so that a GUI waiting for a move still gets one, and score and
      mate are unknown (None); best is None only if there is no legal move."""
    best: Optional[str] = None
    ponder: Optional[str] = None
    score: Optional[int] = None
    mate: Optional[int] = 0
    depth: int = 0
    nodes: int = 0

    @classmethod
    def game_over(cls, board):
        outcome = board.mover_outcome()
        if outcome is not None and outcome < 0:
            return cls()
        return cls(score=0 if not outcome else 1, mate=None)


class Session:
    """Game state, options and the search thread, shared by the dialects."""

    def __init__(self, out=None, searcher=None):
        self.out = out if out is not None else Output()
        self._searcher = searcher
        self.game = "xiangqi"
        self.repetition = "asian"
        # The evaluation: the shipped network (or weights), loaded here once,
        # before the first board (option EvalFile loads another: set_eval_file).
        evalfile.load()
        self.board = self.new_board()
        # The opening book: read when OwnBook is turned on or BookFile set
        # (load_book), never at start-up, where it is off.
        self.book = None
        self._book_path = None          # the BookFile value self.book was read for
        self.rng = random.Random()      # the book's weighted choice
        self.tablebases = RootTables(self.error)   # option TablebasePath
        self.options = engine_options(self)
        self.dialect = None
        self.quit = False
        self._thread = None
        # The running search ends by itself once released: it has a depth,
        # node or time limit (or is a perft, or has nothing to search).
        # Protocol thread only.
        self._bounded = False
        # Guards the four fields below. Re-entrant, so that a callback run
        # under it (on_done) may still call back into the session.
        self._lock = threading.RLock()
        self._held = False              # bestmove waits for stop/ponderhit
        self._result = None             # finished result, held back
        self._on_done = None            # None once delivered (or discarded)
        self._after_done = []           # e.g. xboard pongs owed after our move
        # A weakened search's move waits on this for the time a player of its
        # level would take; stop_search sets it.
        self._patience = threading.Event()

    # -- the searcher --------------------------------------------------------
    @property
    def searcher(self):
        # Imported on first use so `uci`/`ucci`/`xboard` answer at once.
        if self._searcher is None:
            from tuong.engine.search import Searcher
            self._searcher = Searcher(hash_mb=self.options["Hash"],
                                      threads=self.options["Threads"])
        return self._searcher

    def new_game(self):
        self.stop_search(discard=True)
        self.searcher.clear()
        self.board = self.new_board()

    def new_board(self, fen=None):
        """A board of the game being played (from its start, or a FEN:
        ValueError if bad), under the repetition rules in force."""
        board = GAMES[self.game](fen)
        if hasattr(board, "rules"):
            board.rules = self.repetition
        return board

    def set_game(self, name):
        """Play another game (UCI_Variant): from its start position."""
        self.stop_search()
        self.game = name.lower()
        self.board = self.new_board()

    def set_repetition(self, rules):
        """The repetition rules (option Repetition): asian or check-only."""
        self.repetition = rules
        if hasattr(self.board, "rules"):
            self.board.rules = rules

    def set_eval_file(self, path):
        """Load the evaluation (option EvalFile: a network or a weights file;
        empty or <default>: the shipped one). ValueError naming the problem
        if the file is missing or bad; then nothing changes."""
        from tuong.protocol.options import DEFAULT_EVAL_FILE
        evalfile.load(None if path in ("", DEFAULT_EVAL_FILE) else path)
        # The board's incremental score was summed from the old tables, and
        # the hash holds the old evaluation's scores.
        if hasattr(self.board, "_rescore"):
            self.board._rescore()
        if self._searcher is not None:
            self._searcher.clear()

    # -- the opening book ------------------------------------------------------
    def set_own_book(self, on):
        """Option OwnBook: turned on, BookFile's book is read now (if it was
        not), so that a bad default book is reported here, not at `go`."""
        if on and self._book_path != self.options["BookFile"]:
            self.load_book(self.options["BookFile"])

    def set_book_file(self, path):
        """Option BookFile: read at once, even with OwnBook off, so that a
        bad file is reported when it is set."""
        self.load_book(path)

    def load_book(self, path):
        """Read the book `path` names (<default>: the shipped one; empty:
        none). A missing or broken file is an error line and the engine goes
        on without a book: not with the old one, since a GUI that chose a
        book must not get another book's moves without knowing."""
        self._book_path, self.book = path, None
        if not path:
            return
        try:
            self.book = Book.open(DEFAULT_BOOK_PATH if path == DEFAULT_BOOK_FILE else path)
        except BookError as err:
            self.error(f"BookFile {err}; playing without a book")

    def book_move(self, board, banned=()):
        """The book's Choice for `board`, or None (then the caller searches):
        only with OwnBook on, in Xiangqi, before BookDepth plies of the game,
        and among the legal moves not in `banned` (searchmoves, banmoves)."""
        if not self.options["OwnBook"] or self.game != "xiangqi" or self.book is None:
            return None
        fen = board.fen()
        if game_ply(fen) >= self.options["BookDepth"]:
            return None
        excluded = set(banned)
        legal = [move for move in board.legal_moves() if move not in excluded]
        try:
            return self.book.choose(fen, legal, self.rng)
        except Exception as err:       # a book must never cost the GUI its move: search
            self.error(f"book probe failed ({err!r}); searching")
            return None

    def static_evaluation(self):
        """Lines for the `eval` command: the static evaluation of the
        position and which evaluation gave it."""
        from tuong.engine.board import Board, evaluate, evaluate_hand_crafted
        if not isinstance(self.board, Board):
            return [f"Static evaluation: none ({self.game} is searched to its end)"]
        side = self.board.side_name
        lines = [f"Static evaluation: {evaluate(self.board):+d} cp ({side} to move, "
                 f"from the side to move's view) by the {evalfile.describe()}"]
        if evalfile.describe() != "hand-crafted evaluation":
            lines.append(f"Hand-crafted evaluation: {evaluate_hand_crafted(self.board):+d} cp")
        return lines

    # -- the search thread ---------------------------------------------------
    def searching(self):
        """True from `go` until the result has been delivered (or dropped)."""
        with self._lock:
            return self._on_done is not None

    def start_search(self, board, *, on_info, on_done, hold=False, pondering=False, **limits):
        """Search a copy of `board` on a worker thread and return at once.

        on_info(SearchInfo) per finished iteration; on_done(result) exactly once,
        on the worker thread with the session lock held -- at the end of the
        search, or, if `hold`, at release() (stop/ponderhit) if that is later.
        `pondering`: a held search that is our next move (go ponder), not an
        analysis. limits: depth, nodes, soft_ms, hard_ms, multipv, banned.
        The search is prepared here, on the caller's thread, so a stop or a
        ponderhit that comes before the worker starts still applies to it.
        """
        self.stop_search()
        board = board.copy()
        over = board.is_game_over()
        failure = table = None
        if not over and self.game == "xiangqi":
            start = time.monotonic()
            try:
                self._prepare_tables(board, hold, limits)
                banned = tuple(limits.get("banned", ()))
                # A pondered table position too (the table's move waits for the
                # ponderhit like a search's), but not an analysis (`go infinite`),
                # which wants the search's lines.
                if not hold or pondering:
                    table = self.tablebases.root_move(board, banned)
                losing = self.tablebases.losing_moves(board, banned)
                if losing:
                    limits["banned"] = banned + losing
            except Exception as err:       # a table must never cost the GUI its move
                self.error(f"tablebase probe failed ({err!r}); searching")
            # the clock runs from the go: the tables' time is off the search's
            spent = int((time.monotonic() - start) * 1000)
            for key in ("soft_ms", "hard_ms"):
                if limits.get(key):
                    limits[key] = max(1, limits[key] - spent)
        level = self.strength() if self.game == "xiangqi" and not over and table is None \
            else None
        if level is not None:
            # The level's own lines: a MultiPV a GUI left raised would spread its
            # node budget over more lines and play another level.
            limits["multipv"] = level.candidates
            limits["nodes"] = min(limits["nodes"], level.search_nodes) if limits.get("nodes") \
                else level.search_nodes
        if not over and table is None:
            try:
                self.searcher.prepare(board, **limits)
            except Exception as err:       # still answer: the worker falls back
                failure = err
        bounded = over or table is not None or any(
            limits.get(limit) for limit in ("depth", "nodes", "soft_ms", "hard_ms"))

        def guarded_info(info):
            try:
                on_info(info)
            except Exception as err:       # a formatting bug must not kill the search
                self.error(f"info callback failed: {err!r}")

        def search():
            if over:
                return UnsearchedResult.game_over(board)
            if failure is not None:
                raise failure
            if table is not None:          # a won or lost table position: the table's move
                guarded_info(table[0])
                return table[1]
            if level is not None:
                return self._weakened(board, level, limits, hold, guarded_info)
            return self.searcher.run(on_info=guarded_info)

        def fallback():
            # Still answer: a GUI waiting for a move must get one.
            moves = board.legal_moves()
            return UnsearchedResult(best=moves[0] if moves else None, mate=None if moves else 0)

        self._patience = threading.Event()
        self._start_worker(search, fallback, on_done, hold, bounded)

    # -- playing strength ------------------------------------------------------
    def strength(self):
        """The engine.levels.Level in force, or None at full strength."""
        if self.options["UCI_LimitStrength"]:
            return levels.level_for_elo(self.options["UCI_Elo"])
        elo = levels.elo_for_skill(self.options["Skill Level"])
        return None if elo is None else levels.level_for_elo(elo)

    def _weakened(self, board, level, limits, hold, on_info):
        """Run the prepared (MultiPV, node-limited) search and play the move
        a player of `level` chooses among its lines, after the time such a
        player takes when there is a clock (not when pondering or analysing).
        The chosen line is reported last, as the main line (multipv 1), so
        that the last info before bestmove is the move played (a GUI or a
        client that keeps the best line's score shows the played move's).
        On the worker thread."""
        from tuong.engine.search import SearchResult
        started = time.monotonic()
        lines = levels.Lines()

        def report(info):
            lines(info)
            on_info(info)

        result = self.searcher.run(on_info=report)
        candidates = levels.complete(lines, result.depth, self.searcher, board, level, on_info,
                                     limits.get("banned", ())) \
            if result.best is not None else []
        if not candidates:
            return result
        line = levels.choose(candidates, level, self.rng, board.fen(),
                              history=board.move_stack)
        searched_ms = int((time.monotonic() - started) * 1000)
        # A player's thinking time is a clock's share, not a depth's: xboard
        # has no depth without a clock (`sd 3` comes with `st 86400`, a day).
        if not hold and not limits.get("depth"):
            wait = levels.think_ms(level, limits.get("soft_ms") or limits.get("hard_ms"),
                                   self.rng) / 1000 - (time.monotonic() - started)
            if wait > 0:
                self._patience.wait(wait)
        pv = list(line.pv)
        # The nodes and time of the whole search (not of the line's
        # iteration); the player's thinking time is not the search's.
        nodes = max(line.nodes, result.nodes)
        spent = max(line.time_ms, searched_ms)
        on_info(replace(line, multipv=1, nodes=nodes, time_ms=spent,
                        nps=nodes * 1000 // spent if spent else line.nps))
        return SearchResult(best=pv[0], ponder=pv[1] if len(pv) > 1 else None,
                            score=line.score, mate=line.mate, depth=line.depth,
                            nodes=result.nodes, pv=pv)

    def _prepare_tables(self, board, hold, limits):
        """Install the tables this search can use, waiting for their reading
        as long as the search may: a quarter of its hard limit (the caller
        takes the time spent off the limits), three quarters if the position is in
        a table (its move then comes from the table, at once), at most
        TABLE_WAIT s for a depth or nodes search, not at all for ponder or
        infinite (read meanwhile, the tables come in at the next go)."""
        hard = limits.get("hard_ms")
        if hold or not any(limits.get(k) for k in ("depth", "nodes", "soft_ms", "hard_ms")):
            budget = 0
        elif hard:
            share = 0.75 if self.tablebases.holds(board) else 0.25
            budget = min(TABLE_WAIT, hard * share / 1000)
        else:
            budget = TABLE_WAIT
        self.tablebases.prepare(board, budget)

    def start_perft(self, board, depth, *, on_move, on_done):
        """`go perft`: a divide on the worker thread, as a search that stop
        and quit interrupt. on_done((moves, finished))."""
        self.stop_search()
        failure = None
        try:
            self.searcher.prepare_perft(board, depth)
        except Exception as err:           # still answer, as a search does
            failure = err

        def perft():
            if failure is not None:
                raise failure
            return self.searcher.run_perft(on_move)

        self._start_worker(perft, lambda: ([], False), on_done, False, True)

    def _start_worker(self, work, fallback, on_done, hold, bounded):
        self._bounded = bounded
        with self._lock:
            self._held, self._result, self._on_done = hold, None, on_done

        def run():
            try:
                result = work()
            except Exception as err:
                self.error(f"search failed: {err!r}")
                result = fallback()
            with self._lock:
                if self._held:
                    self._result = result
                else:
                    self._deliver(result)

        self._thread = threading.Thread(target=run, name="search", daemon=True)
        self._thread.start()

    def _deliver(self, result):
        """Call on_done once, then whatever waited for it. Lock held."""
        on_done, self._on_done = self._on_done, None
        after, self._after_done = self._after_done, []
        for callback in ([lambda: on_done(result)] if on_done else []) + after:
            try:
                callback()
            except Exception as err:
                self.error(f"internal error after search: {err!r}")

    def release(self):
        """stop/ponderhit: a held result is delivered now; a running search
        delivers its own when it ends. Returns True if the search had ended."""
        with self._lock:
            self._held = False
            if self._result is not None:
                result, self._result = self._result, None
                self._deliver(result)
                return True
            return False

    def ponderhit(self, soft_ms, hard_ms):
        """The pondered move was played: keep searching, now on the clock."""
        if not self.release() and self._thread is not None:
            # None/None means "no clock" (a ponder without one): stop() ends it.
            self.searcher.set_limits(soft_ms=soft_ms, hard_ms=hard_ms)
            self._bounded = self._bounded or bool(soft_ms or hard_ms)

    def stop_search(self, discard=False):
        """End a running search and wait for the thread. The result is
        delivered (bestmove) unless `discard` (xboard abandons it)."""
        if discard:
            with self._lock:
                self._on_done = None
        self.release()
        thread = self._thread
        if thread is not None:
            # The search was prepared before its thread started, so one stop
            # reaches it whenever it comes.
            self.searcher.stop()
            self._patience.set()
            thread.join()
        self._thread = None

    def after_search(self, callback):
        """Run callback once the current result is delivered, or now."""
        with self._lock:
            if self._on_done is not None:
                self._after_done.append(callback)
                return
        callback()

    # -- positions (UCI and UCCI share this) ---------------------------------
    def probe(self, words):
        """UCCI's `probe startpos|fen F.. [moves M..]`: what the table holds for
        that position (Searcher.probe), the current position unchanged.
        ValueError with a message for a bad position or during a search."""
        if self.searching():
            raise ValueError("probe: not during a search")
        kept = self.board
        try:
            problem = self.set_position(words)
            board = self.board
        finally:
            self.board = kept
        if problem:
            raise ValueError(f"probe: {problem.split(';')[0]}")
        return self.searcher.probe(board)

    def set_position(self, words):
        """`position startpos|fen F.. [moves M..]` (words after `position`).
        A bad FEN keeps the old position; an illegal move keeps the position
        before it. Returns an error message or None."""
        if not words:
            return "position needs startpos or fen"
        rest = words[1:]
        cut = rest.index("moves") if "moves" in rest else len(rest)
        fen_words, moves = rest[:cut], rest[cut + 1:]
        if words[0] == "startpos":
            if fen_words:
                return f"position startpos: unexpected {quote(' '.join(fen_words))}"
            board = self.new_board()
        elif words[0] == "fen":
            try:
                board = self.new_board(" ".join(fen_words))
            except ValueError as err:
                return f"bad FEN ({err}); position unchanged"
        else:
            return f"position: expected startpos or fen, got {quote(words[0])}"
        self.board = board
        for number, move in enumerate(moves, 1):
            try:
                board.push(move)
            except ValueError:
                return (f"illegal move {quote(move)} (move {number} after the FEN); "
                        f"position set to before it: {board.fen()}")
        return None

    # -- the loop ------------------------------------------------------------
    def error(self, message):
        if self.dialect is not None:
            self.dialect.error(message)
        else:
            self.out(f"info string error: {message}")

    def handle_line(self, line):
        """One line of input. The first command picks the dialect; anything
        unexpected becomes an error line and the loop goes on."""
        words = line.split()
        if not words:
            return
        if self.dialect is None:
            first = words[0].lower()
            kind = {"ucci": ucci.Ucci, "xboard": xboard.XBoard,
                    "protover": xboard.XBoard}.get(first, uci.Uci)
            self.dialect = kind(self)
        try:
            self.dialect.handle(words)
        except Exception as err:
            self.error(f"internal error on {quote(words[0])}: {err!r}")

    def run(self, stream):
        """Read lines of bytes until quit or end of input."""
        try:
            for raw in iter(stream.readline, b""):
                # Garbage bytes become U+FFFD; CR, LF, tabs and blanks go.
                self.handle_line(raw.decode("utf-8", errors="replace"))
                if self.quit:
                    break
            else:
                self.end_of_input()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop_search(discard=True)

    def end_of_input(self):
        """End of input is `quit` once the work asked for is done: a script
        that pipes `go depth 10` and closes its input still gets its
        bestmove. A search with no end of its own (infinite, ponder) is
        stopped, and still answers; so is one with no limit at all (a bare
        `go`, or a ponderhit without a clock), which would never end."""
        thread = self._thread
        with self._lock:
            held = self._held
        if thread is not None and not held and self._bounded:
            thread.join()
        self.stop_search()
