"""xboard / CECP v2: enough for XBoard (and maxqi-style opponents) to play
whole games and matches.

Coordinates: on boards with exactly 10 ranks CECP counts ranks from 0, so
XBoard's xiangqi moves are already our a0-i9 strings (`h2e2`); maxqi sends
and expects the same. No translation is needed at this edge.

Unlike UCI, the engine here owns the game: it keeps the board, decides when
it is on move, plays its move onto the board and announces the end of the
game (`1-0 {Red wins}` / `0-1 {Black wins}`: in xiangqi Red is XBoard's
white and a side with no legal move has lost). Commands that change the
game abandon a running search (its move is never sent), except `?`, which
makes it move now.
"""
import re

from tuong.engine import levels, timeman
from tuong.protocol.text import clip, quote

MOVE = re.compile(r"^[a-i][0-9][a-i][0-9]$")
MATE_SCORE = 100000          # CECP: mate in N is shown as 100000 + N

FEATURES = ('feature ping=1 setboard=1 usermove=1 san=0 time=1 draw=0 sigint=0 sigterm=0 '
            'reuse=1 analyze=0 colors=0 nps=0 debug=1 smp=1 myname="tuong" variants="xiangqi" '
            'option="Hash -spin 16 1 4096" option="Move Overhead -spin 10 0 5000" '
            'option="Clear Hash -button" option="Repetition -combo *asian /// check-only" '
            'option="EvalFile -file <default>" option="OwnBook -check 0" '
            'option="BookFile -file <default>" option="BookDepth -spin 20 0 1000" '
            'option="UCI_LimitStrength -check 0" '
            f'option="UCI_Elo -spin {levels.DEFAULT_ELO} {levels.MIN_ELO} {levels.MAX_ELO}" '
            'option="Skill Level -spin 20 0 20" done=1')

# Commands we accept and have nothing to do for (no pondering, no ICS; our
# book is the OwnBook option: `bk`, a GUI's book hint, is ignored). Not
# `cores`: we announce smp=1, and it sets the Threads option.
IGNORED = {"xboard", "accepted", "rejected", "random", "hard", "easy", "computer",
           "name", "rating", "ics", "memory", "egtpath", "nps", "draw",
           "hint", "bk", "white", "black", ".", "exit", "otim"}


def shown(text):
    """Input as echoed in CECP errors: short, ASCII, unquoted."""
    return quote(text)[1:-1]


class XBoard:
    def __init__(self, session):
        self.s = session
        self.out = session.out
        self.current = "?"             # the command being handled, for errors
        self.engine_side = "b"         # "w", "b", or None (force mode)
        # After a setboard we refused, no position is ours until the next new,
        # variant or good setboard: CECP has us answer every move Illegal move
        # then, rather than play on in a game the GUI no longer shows.
        self.no_position = False
        self.post = False
        self.depth = None              # sd
        self.move_ms = None            # st
        self.mps, self.base_ms, self.inc_ms = 40, 5 * 60_000, 0   # level 40 5 0
        self.time_ms = None            # our clock, from `time`
        self.commands = {
            "protover": self.cmd_protover, "new": self.cmd_new, "variant": self.cmd_variant,
            "setboard": self.cmd_setboard, "usermove": self.cmd_usermove, "go": self.cmd_go,
            "playother": self.cmd_playother, "force": self.cmd_force, "level": self.cmd_level,
            "st": self.cmd_st, "sd": self.cmd_sd, "time": self.cmd_time, "?": self.cmd_movenow,
            "ping": self.cmd_ping, "post": lambda args: self.set_post(True),
            "nopost": lambda args: self.set_post(False), "result": self.cmd_result,
            "undo": lambda args: self.take_back(1), "remove": lambda args: self.take_back(2),
            "option": self.cmd_option, "quit": self.cmd_quit, "cores": self.cmd_cores,
        }

    def error(self, message):
        self.out(f"Error ({clip(message)}): {self.current}")

    def handle(self, words):
        self.current = shown(" ".join(words))
        command = words[0]
        if command in self.commands:
            self.commands[command](words[1:])
        elif command in IGNORED:
            pass
        elif MOVE.match(command):
            self.cmd_usermove(words)       # a move without `usermove`
        else:
            self.out(f"Error (unknown command): {shown(command)}")

    # -- handshake -----------------------------------------------------------
    def cmd_protover(self, args):
        self.out(FEATURES)

    def cmd_option(self, args):
        name, _, value = " ".join(args).partition("=")

        def apply():
            try:
                self.s.options.set(name, value)
            except (KeyError, ValueError) as err:
                self.error(err.args[0] if err.args else str(err))
        # XBoard sends its settings dialog's options whenever the user presses
        # OK: one that comes while we think on our move waits for the move,
        # never cancels it (we would lose on time).
        self.s.after_search(apply)

    def cmd_cores(self, args):
        """CECP's thread count (we announce smp=1): the Threads option."""
        if len(args) != 1:
            self.error("cores needs a number")
        elif self.s.searching():
            self.error("cores cannot change during a search")
        else:
            try:
                self.s.options.set("Threads", args[0])
            except ValueError as err:
                self.error(err.args[0])

    def cmd_quit(self, args):
        self.s.stop_search(discard=True)
        self.s.quit = True

    # -- the game ------------------------------------------------------------
    def cmd_new(self, args):
        self.s.new_game()
        self.engine_side, self.depth, self.time_ms = "b", None, None
        self.no_position = False

    def cmd_variant(self, args):
        if [a.lower() for a in args] != ["xiangqi"]:
            self.error("unsupported variant")
            return
        self.s.stop_search(discard=True)
        self.s.board = self.s.new_board()
        self.no_position = False

    def cmd_setboard(self, args):
        self.s.stop_search(discard=True)
        try:
            self.s.board = self.s.new_board(" ".join(args))
            self.no_position = False
        except ValueError as err:
            self.no_position = True
            self.out(f"tellusererror Illegal position: {clip(str(err))}")

    def cmd_usermove(self, args):
        if len(args) != 1:
            self.error("usermove needs one move")
            return
        self.s.stop_search(discard=True)
        if self.no_position:
            self.out(f"Illegal move (no position): {shown(args[0])}")
            return
        try:
            self.s.board.push(args[0])
        except ValueError:
            self.out(f"Illegal move: {shown(args[0])}")
            return
        if self.s.board.is_game_over():
            self.announce_result()
        elif self.engine_side == self.s.board.turn:
            self.think()

    def cmd_go(self, args):
        self.s.stop_search(discard=True)
        if self.no_position:
            self.error("no position: setboard was refused")
            return
        self.engine_side = self.s.board.turn
        self.think()

    def cmd_playother(self, args):
        self.s.stop_search(discard=True)
        self.engine_side = "b" if self.s.board.turn == "w" else "w"

    def cmd_force(self, args):
        self.s.stop_search(discard=True)
        self.engine_side = None

    def cmd_result(self, args):
        self.s.stop_search(discard=True)
        self.engine_side = None

    def take_back(self, count):
        self.s.stop_search(discard=True)
        if self.s.board.ply < count:
            self.error("no move to take back")
            return
        for _ in range(count):
            self.s.board.pop()

    def announce_result(self):
        """The side to move has no legal move: it has lost."""
        if self.s.board.turn == "w":
            self.out("0-1 {Black wins}")
        else:
            self.out("1-0 {Red wins}")

    # -- clocks --------------------------------------------------------------
    def cmd_level(self, args):
        # level MPS BASE INC; BASE is minutes or minutes:seconds, INC seconds.
        try:
            mps, base, inc = args
            minutes, _, seconds = base.partition(":")
            base_ms = int((float(minutes) * 60 + float(seconds or 0)) * 1000)
            mps, inc_ms = int(mps), int(float(inc) * 1000)
            if mps < 0 or base_ms < 0 or inc_ms < 0:
                raise ValueError
        except (ValueError, OverflowError):
            self.error("level needs MPS BASE INC, e.g. level 40 5 0")
            return
        self.mps, self.base_ms, self.inc_ms, self.move_ms = mps, base_ms, inc_ms, None

    def cmd_st(self, args):
        try:
            move_ms = int(float(args[0]) * 1000)
            if move_ms <= 0:
                raise ValueError
        except (ValueError, OverflowError, IndexError):
            self.error("st needs seconds per move")
            return
        self.move_ms = move_ms

    def cmd_sd(self, args):
        try:
            self.depth = max(1, min(int(args[0]), 100))
        except (ValueError, IndexError):
            self.error("sd needs a depth")

    def cmd_time(self, args):
        try:
            self.time_ms = int(float(args[0]) * 10)      # centiseconds
        except (ValueError, OverflowError, IndexError):
            self.error("time needs centiseconds")

    # -- thinking ------------------------------------------------------------
    def think(self):
        board = self.s.board
        if board.is_game_over():
            self.announce_result()
            return
        choice = self.s.book_move(board)
        if choice is not None:
            # CECP has no info line: `#` starts a line the GUI ignores (debug output).
            self.out(f"# {choice.describe()}")
            self.play(choice)
            return
        overhead = self.s.options["Move Overhead"]
        if self.move_ms:
            soft, hard = timeman.fixed(self.move_ms, overhead)
        else:
            left = self.time_ms if self.time_ms is not None else self.base_ms
            movestogo = None
            if self.mps:
                our_moves_made = int(board.fen().split()[5]) - 1
                movestogo = self.mps - our_moves_made % self.mps
            soft, hard = timeman.budget(left, self.inc_ms, movestogo, overhead)
        self.s.start_search(board, on_info=self.thinking, on_done=self.play,
                            depth=self.depth, soft_ms=soft, hard_ms=hard)

    def thinking(self, info):
        """One search report (engine.report.SearchInfo) as a thinking line
        (with `post`; the best line only)."""
        if not self.post or info.multipv != 1:
            return
        mate = info.mate
        if mate is not None:
            score = MATE_SCORE + mate if mate > 0 else -MATE_SCORE + mate
        else:
            score = info.score
        self.out(f"{info.depth} {score} {info.time_ms // 10} "
                 f"{info.nodes} {' '.join(info.pv)}".rstrip())

    def play(self, result):
        """The search ended (worker thread, session lock held): make the move."""
        if result.best is None:
            self.announce_result()
            return
        self.s.board.push(result.best)
        self.out(f"move {result.best}")
        if self.s.board.is_game_over():
            self.announce_result()

    def cmd_movenow(self, args):
        self.s.stop_search()            # delivered: the move is played

    def cmd_ping(self, args):
        # Owed after our move if we are thinking on it (CECP's rule).
        reply = f"pong {args[0]}" if args else "pong"
        self.s.after_search(lambda: self.out(reply))

    def set_post(self, on):
        self.post = on
