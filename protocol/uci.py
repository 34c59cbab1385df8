"""UCI: parsing commands into session calls, formatting search output.

Moves are the project's own a0-i9 strings, as Pikafish's UCI uses them.
"""
from tuong.engine import timeman
from tuong.protocol.text import clip, quote

AUTHOR = "the tuong authors"
MAX_DEPTH = 100


class Uci:
    ok = "uciok"

    def __init__(self, session):
        self.s = session
        self.out = session.out
        self.clock = None           # (soft, hard) to apply at ponderhit
        self.pondering = False      # the search is a `go ponder`, not yet hit
        self.commands = {
            "uci": self.cmd_uci, "isready": self.cmd_isready,
            "ucinewgame": self.cmd_newgame, "setoption": self.cmd_setoption,
            "position": self.cmd_position, "go": self.cmd_go, "stop": self.cmd_stop,
            "ponderhit": self.cmd_ponderhit, "quit": self.cmd_quit, "d": self.cmd_d,
            "eval": self.cmd_eval,
            "debug": lambda args: None, "register": lambda args: None,
        }

    def error(self, message):
        self.out(f"info string error: {clip(message)}")

    def warn(self, message):
        """Something odd that does not stop the command."""
        self.out(f"info string warning: {clip(message)}")

    def handle(self, words):
        handler = self.commands.get(words[0].lower())
        if handler is None:
            self.error(f"unknown command {quote(words[0])}")
        else:
            handler(words[1:])

    # -- handshake and state ------------------------------------------------
    def cmd_uci(self, args):
        self.out("id name tuong")
        self.out(f"id author {AUTHOR}")
        for line in self.s.options.uci_lines():
            self.out(line)
        self.out(self.ok)

    def cmd_isready(self, args):
        self.out("readyok")     # at once, even during a search

    def cmd_newgame(self, args):
        self.s.stop_search()            # a running search still gets its bestmove
        self.s.new_game()

    def cmd_quit(self, args):
        self.s.stop_search()
        self.s.quit = True

    def cmd_setoption(self, args):
        # setoption name <words..> [value <words..>]; names may hold spaces.
        lowered = [a.lower() for a in args]
        if not args or lowered[0] != "name":
            self.error("setoption: expected 'setoption name <name> [value <value>]'")
            return
        cut = lowered.index("value") if "value" in lowered else len(args)
        self.set_option(" ".join(args[1:cut]), " ".join(args[cut + 1:]))

    def set_option(self, name, value):
        try:
            if self.s.options.find(name).refused_while_searching and self.s.searching():
                self.error(f"{name} cannot change during a search; option unchanged")
                return
        except KeyError:
            pass                                     # options.set names the problem
        self.s.stop_search()
        try:
            self.s.options.set(name, value)
        except (KeyError, ValueError) as err:
            message = err.args[0] if err.args else str(err)
            self.error(f"{message}; option unchanged")

    def cmd_position(self, args):
        self.s.stop_search()
        problem = self.s.set_position(args)
        if problem:
            self.error(problem)

    def cmd_d(self, args):
        board = self.s.board
        for line in str(board).splitlines():
            self.out(line)
        self.out(f"Fen: {board.fen()}")
        self.out(f"Key: {board.hash:016X}")
        self.out(f"Side to move: {board.side_name}{', in check' if board.in_check() else ''}")

    def cmd_eval(self, args):
        for line in self.s.static_evaluation():
            self.out(line)

    # -- searching ----------------------------------------------------------
    def cmd_stop(self, args):
        self.s.stop_search()

    def cmd_ponderhit(self, args):
        # Only a ponder search turns into a normal one (as in Stockfish, a
        # `go infinite` still waits for `stop`).
        if self.pondering:
            self.pondering = False
            soft, hard = self.clock or (None, None)
            self.s.ponderhit(soft, hard)

    def cmd_go(self, args):
        if args and args[0].lower() == "perft":
            return self.perft(args[1:])
        try:
            go = parse_go(args, self.s.board)
        except ValueError as err:
            self.error(f"go: {err}; search not started")
            return
        self.start(go, ours=("wtime", "winc") if self.s.board.turn == "w" else ("btime", "binc"))

    # The `go` fields that are clocks: with any of them the move is timed.
    clocks = ("wtime", "btime")

    def start(self, go, ours):
        """Turn parsed `go` limits (times in ms) into a search. `ours` names
        our clock and our increment among them."""
        board = self.s.board
        overhead = self.s.options["Move Overhead"]
        soft = hard = None
        if "movetime" in go:
            # "Search exactly x ms": no soft stop, only the cut-off.
            hard = max(1, go["movetime"])
        elif any(clock in go for clock in self.clocks):
            if ours[0] not in go:
                # As Stockfish: a clock the GUI did not send is empty, so we
                # move at once rather than search without any limit.
                self.warn(f"go without {ours[0]} ({board.side_name} to move): "
                          f"our clock counts as empty, moving at once")
            soft, hard = timeman.budget(go.get(ours[0], 0), go.get(ours[1], 0),
                                        go.get("movestogo"), overhead)
        hold = go.get("infinite", False) or go.get("ponder", False)
        # Pondering runs without a clock; the budget starts at ponderhit.
        self.clock = (soft, hard) if go.get("ponder") else None
        self.pondering = go.get("ponder", False) and not go.get("infinite", False)
        if hold:
            soft = hard = None
        banned = go.get("banned", ())
        # A book move answers at once; never for infinite or ponder, which
        # are analysis and pondering, not our move (Session.book_move says
        # when else).
        choice = None if hold else self.s.book_move(board, banned)
        if choice is not None:
            self.s.stop_search()            # a running search still prints its move first
            self.out(f"info string {choice.describe()}")
            self.bestmove(choice)
            return
        self.s.start_search(board, on_info=self.info, on_done=self.bestmove, hold=hold,
                            pondering=self.pondering, depth=go.get("depth"), nodes=go.get("nodes"),
                            soft_ms=soft, hard_ms=hard, banned=tuple(banned),
                            multipv=self.s.options["MultiPV"])

    def info(self, info):
        """One search report (engine.report.SearchInfo) as an info line."""
        if info.mate is not None:
            score = f"mate {info.mate}"
        else:
            score = f"cp {info.score}"
        if info.bound in ("lower", "upper"):
            score += f" {info.bound}bound"
        self.out(f"info depth {info.depth} seldepth {info.seldepth} "
                 f"multipv {info.multipv} score {score} nodes {info.nodes} "
                 f"nps {info.nps} hashfull {info.hashfull} "
                 + (f"tbhits {info.tbhits} " if info.tbhits else "") +
                 f"time {info.time_ms} pv {' '.join(info.pv)}".rstrip())

    def bestmove(self, result):
        if result.best is None:
            # The game is over: how it ended for the side to move.
            score = f"mate {result.mate}" if result.mate is not None else f"cp {result.score or 0}"
            self.out(f"info depth 0 score {score}")
            self.out("bestmove (none)")
        elif result.ponder:
            self.out(f"bestmove {result.best} ponder {result.ponder}")
        else:
            self.out(f"bestmove {result.best}")

    def perft(self, args):
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 10:
            self.error("go perft needs a depth from 1 to 10")
            return

        def done(result):
            moves, finished = result
            total = sum(count for _, count in moves)
            self.out("")
            if not finished:
                self.out(f"info string perft stopped: {len(moves)} root moves counted")
            self.out(f"Nodes searched: {total}")

        # On the search thread, so that stop and quit interrupt it.
        self.s.start_perft(self.s.board, int(args[0]),
                           on_move=lambda move, count: self.out(f"{move}: {count}"),
                           on_done=done)


# go's keywords: name -> lowest value. Times may be negative (a GUI reports an
# overstepped clock that way); they are read as 0 by timeman. So are negative
# increments, and a movestogo of 0 or less is sudden death, as Stockfish reads
# them: GUIs send both, and refusing the whole `go` would leave them waiting
# for a bestmove that never comes.
GO_NUMBERS = {"depth": 1, "nodes": 1, "movetime": 0, "wtime": None, "btime": None,
              "winc": None, "binc": None, "movestogo": None, "mate": 1}
GO_FLAGS = ("infinite", "ponder")


def parse_go(args, board):
    """UCI `go` arguments -> dict of limits. ValueError names the first
    problem; a `go` with bad arguments does not search (half-understood
    limits could mean an endless search nobody asked for)."""
    go = {}
    i = 0
    while i < len(args):
        word = args[i].lower()
        if word in GO_FLAGS:
            go[word] = True
            i += 1
        elif word in GO_NUMBERS:
            if i + 1 >= len(args):
                raise ValueError(f"{word} needs a number")
            go[word] = read_number(word, args[i + 1], GO_NUMBERS[word])
            i += 2
        elif word == "searchmoves":
            moves = args[i + 1:]
            legal = set(board.legal_moves())
            bad = [m for m in moves if m not in legal]
            if bad or not moves:
                raise ValueError(f"searchmoves: not legal here: {quote(' '.join(bad))}"
                                 if bad else "searchmoves needs moves")
            go["banned"] = sorted(legal - set(moves))
            i = len(args)
        else:
            raise ValueError(f"unknown argument {quote(args[i])}")
    if "mate" in go:
        # Mate in N moves is found within 2N-1 plies.
        go["depth"] = min(go.get("depth", MAX_DEPTH), 2 * go.pop("mate") - 1)
    if "depth" in go:
        go["depth"] = min(go["depth"], MAX_DEPTH)
    return go


# The largest number `go` takes (ms or nodes): a signed 32-bit int, as most
# GUIs and engines keep these, 24.8 days or 2.1e9 nodes. Not a limit of our
# C: the search keeps its deadline in 64-bit nanoseconds and its node limit
# in 64 bits. A bound is still needed: past those (`go movetime 1e30`) the
# search could not even be prepared, and would answer with its first legal
# move; refused here, the command is an error naming the limit instead.
HIGHEST = 2**31 - 1


def read_number(name, text, lowest):
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} needs a whole number, not {quote(text)}") from None
    if lowest is not None and value < lowest:
        raise ValueError(f"{name} must be at least {lowest}, not {value}")
    if value > HIGHEST:
        raise ValueError(f"{name} must be at most {HIGHEST}, not {quote(text)}")
    return value
