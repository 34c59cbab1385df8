"""One game between two engines, judged by our own rules (engine.board),
never by what the engines say.

Rules applied after every move, in this order (2-4 are Board.outcome()'s,
engine/board.pyx, which judge() calls: a script that asks a Board how its
game ended gets the referee's answer):
  1. The move must be legal (Board.legal_moves); otherwise the mover forfeits.
  2. A side with no legal move loses ("checkmate" if in check, else
     "stalemate": in Xiangqi that is a loss too).
  3. Repetition: when a position (same pieces, same side to move) occurs
     for the 3rd time since the last capture, the moves since its 1st
     occurrence decide (engine/repetition.pyx): a side that checked with
     every one of its moves while the other did not loses (perpetual
     check); under the Asian rules (the default), otherwise a side that
     chased the same enemy piece with every move while the other did not
     chase throughout loses (perpetual chase); anything else draws. Rules
     "check-only" judge perpetual check alone.
  4. Move-count draws: `max_plies` in the game (300 by default, book moves
     included) or `no_capture_plies` plies without a capture (120: the
     board's halfmove clock, which counts from the start FEN's).
  5. Optional adjudication by agreed scores (cutechess's -resign / -draw).
Engine failures are forfeits with their reason: illegal move, a crash, a
move later than the clock allows (time forfeit), no answer at all under a
depth/node limit (stalled), output we cannot parse, resigning, a result
claim we do not agree with.

Clocks: the runner keeps them. `elapsed` is measured from sending `go` to
the arrival of the move line. An engine loses on time when it exceeds its
time left (or its movetime) by more than `margin` (100 ms by default,
cutechess's `timemargin`); that margin covers pipe and scheduler latency.
"""
import threading
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from tuong.engine.board import Board
from tuong.engine.outcome import NO_CAPTURE_PLIES, Outcome, loss_for
from tuong.protocol.client import (EngineProtocolError, EngineTerminated, EngineTimeout,
                             Limit)

RED, BLACK = "w", "b"
SIDE_NAME = {RED: "Red", BLACK: "Black"}
"""A side's name by its FEN letter: `{"w": "Red", "b": "Black"}`."""
MATE_CP = 100_000          # a mate, past every threshold a score is compared with
"""A mate as centipawns (100,000): past every threshold a decision compares
an engine's score with (the adjudication's, a draw offer's). Not a score
to average or store: the annotation's MATE_LOSS_CP, the book's BOOK_MATE_CP
and the training positions' COMMENT_MATE_CP are those."""


@dataclass
class TimeControl:
    """One engine's limit: a clock (base+inc), a fixed movetime, depth or nodes.
    Times in seconds."""
    base: Optional[float] = None
    """The clock at the start of the game (None: no clock)."""
    inc: float = 0.0
    """The increment added to the clock after each move."""
    movetime: Optional[float] = None
    """A fixed time per move (None: none)."""
    depth: Optional[int] = None
    """A depth limit in plies (None: none)."""
    nodes: Optional[int] = None
    """A node limit (None: none)."""
    margin: float = 0.1       # seconds an engine may exceed its time
    """How far an engine may exceed its time left (or its movetime) before it
    loses on time (cutechess's `timemargin`)."""
    stall: float = 60.0       # no answer for this long under depth/nodes only: forfeit
    """Under a depth or node limit alone: how long an engine may go without
    answering before it forfeits (stalled)."""

    @classmethod
    def parse(cls, settings: Mapping[str, str]) -> "TimeControl":
        """From cutechess-style settings (a dict of `key=value` texts):
        tc=40+0.4 (or tc=1:30+1), st=1, depth=N, nodes=N, timemargin=MS,
        stall=S. ValueError for a moves/time control (`tc=40/60`), a number
        that does not read, or no limit at all."""
        tc = cls()
        if "tc" in settings:
            base, _, inc = settings["tc"].partition("+")
            if "/" in base:
                raise ValueError(f"moves/time controls are not supported: tc={settings['tc']}")
            minutes, _, seconds = base.rpartition(":")
            tc.base = float(seconds) + 60 * float(minutes or 0)
            tc.inc = float(inc or 0)
        if "st" in settings:
            tc.movetime = float(settings["st"])
        if "depth" in settings:
            tc.depth = int(settings["depth"])
        if "nodes" in settings:
            tc.nodes = int(settings["nodes"])
        if "timemargin" in settings:
            tc.margin = int(settings["timemargin"]) / 1000
        if "stall" in settings:
            tc.stall = float(settings["stall"])
        if tc.base is None and tc.movetime is None and tc.depth is None and tc.nodes is None:
            raise ValueError("no time control: give tc=BASE+INC, st=SECONDS, depth=N or nodes=N")
        return tc

    def describe(self) -> str:
        """The PGN TimeControl tag: base+inc in seconds (`"40+0.4"`), or a
        fixed limit (`"1/move"`, `"depth 8"`, `"nodes 10000"`), joined by
        commas."""
        parts = []
        if self.base is not None:
            parts.append(f"{self.base:g}+{self.inc:g}")
        if self.movetime is not None:
            parts.append(f"{self.movetime:g}/move")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        return ", ".join(parts)


@dataclass
class Rules:
    """The rules a game is judged by (see the module docstring), and the
    optional adjudication (cutechess's `-resign` and `-draw`)."""
    repetition: str = "asian"                  # or "check-only"
    """The repetition rules: `"asian"` (perpetual check or chase loses) or
    `"check-only"` (perpetual check alone)."""
    max_plies: int = 300
    """A draw when the game reaches this many plies, book moves included."""
    no_capture_plies: int = NO_CAPTURE_PLIES
    """A draw after this many plies without a capture (Board.halfmove_clock)."""
    resign_movecount: Optional[int] = None     # -resign movecount=N score=S
    """Adjudicate a loss after this many moves of agreed scores (None: never)."""
    resign_score: int = 0
    """The score (centipawns) the loser's scores are at most minus, and the
    winner's at least."""
    draw_movenumber: Optional[int] = None      # -draw movenumber=M movecount=N score=S
    """Adjudicate draws from this move number on (None: never)."""
    draw_movecount: int = 0
    """After this many moves of both engines' scores within `draw_score`."""
    draw_score: int = 0
    """The bound (centipawns) of a drawn score."""


@dataclass
class Player:
    """One side of a game: its name, its engine and its limit."""
    name: str
    """The name written in the PGN (`[Red]`, `[Black]`)."""
    engine: object            # a protocol.client.Engine, or anything with .play()
    """A started `protocol.client.Engine`, or anything with its `play()`."""
    tc: TimeControl
    """The engine's limit."""


@dataclass
class MoveRecord:
    """One move of a Game, with what the engine said of it."""
    move: str
    """The move as a0-i9 text."""
    book: bool = False
    """Whether it came from the opening (or the engine's own book)."""
    cp: Optional[int] = None          # the mover's own score
    """The mover's own score in centipawns, from its view (None: none or a mate)."""
    mate: Optional[int] = None
    """The mover's mate score in moves (negative: being mated), or None."""
    depth: Optional[int] = None
    """The depth the engine reached, or None."""
    time: float = 0.0
    """Seconds the move took (0 for book moves)."""


@dataclass
class Game:
    """A game played by the Referee, as it went and how it ended."""
    red: str
    """Red's player's name."""
    black: str
    """Black's player's name."""
    fen: Optional[str]                # None: the initial position
    """The start position's FEN; None for the initial position."""
    moves: List[MoveRecord] = field(default_factory=list)
    """The moves played, book moves first."""
    result: str = "*"
    """`"1-0"`, `"0-1"`, `"1/2-1/2"`, or `"*"` (not over, or interrupted)."""
    termination: str = ""             # a short category: checkmate, time forfeit, ...
    """How it ended, in short: `checkmate`, `stalemate`, `perpetual check`,
    `perpetual chase`, `repetition`, `move limit`, `adjudication`, `time
    forfeit`, `stalled`, `crash`, `protocol error`, `illegal move`,
    `resignation`, `false claim`, `interrupted`."""
    reason: str = ""                  # a sentence for the PGN comment
    """The ending as a sentence, for the PGN comment (`"Red mates"`)."""
    forfeit: Optional[str] = None     # RED/BLACK when that engine failed (restart it)
    """`"w"` or `"b"` when that side's engine failed (restart it), else None."""
    time_controls: Tuple[str, str] = ("", "")   # Red's limit, Black's
    """Red's limit and Black's, as TimeControl.describe writes them."""

    def finish(self, result: str, termination: str, reason: str,
               forfeit: Optional[str] = None) -> "Game":
        """Set the result, the termination, the reason and the forfeit
        (see the fields); returns the game."""
        self.result, self.termination, self.reason, self.forfeit = \
            result, termination, reason, forfeit
        return self


def _mover_score(info):
    """An engine's score in centipawns, mates as +-MATE_CP, or None."""
    if info.mate is not None:
        return MATE_CP if info.mate > 0 else -MATE_CP
    return info.cp


def judge(board: Board, rules: Rules) -> Optional[Outcome]:
    """The Outcome (result, termination, reason: a NamedTuple) if the
    position on `board` (after its last move) ends the game by rules 2-4
    above, else None: `board.outcome()` with the move-count limits of
    `rules` (the board's own `rules` are the repetition rules). The
    termination is `checkmate`, `stalemate`, `repetition`, `perpetual
    check`, `perpetual chase` or `move limit`."""
    return board.outcome(no_capture_plies=rules.no_capture_plies, max_plies=rules.max_plies)


class Referee:
    """Plays one game; `play()` returns the finished Game.

    `red` and `black` are the Players; `opening` is `(FEN or None, book
    moves)`, the moves played first as book moves; `rules` the Rules
    (default: `Rules()`); `stop`, an Event that interrupts the game between
    two moves when set. ValueError for a bad FEN or an illegal book move."""

    def __init__(self, red: Player, black: Player,
                 opening: Tuple[Optional[str], Sequence[str]], rules: Optional[Rules] = None,
                 stop: Optional[threading.Event] = None) -> None:
        self.players = {RED: red, BLACK: black}
        """The Players by side (`"w"`, `"b"`)."""
        self.rules = rules or Rules()
        """The Rules the game is judged by."""
        self.stop = stop or threading.Event()
        """The Event that interrupts the game when set."""
        fen, book = opening
        self.board = Board(fen)
        """The game's board, as far as it has gone."""
        self.board.rules = self.rules.repetition
        self.start_fen = fen
        """The start position's FEN, or None for the initial position."""
        self.game = Game(red.name, black.name, fen,
                         time_controls=(red.tc.describe(), black.tc.describe()))
        """The Game as it goes; `play()` returns it finished."""
        # each engine's own scores, for adjudication
        self.scores: Dict[str, List[Optional[int]]] = {RED: [], BLACK: []}
        """Each side's engine's own scores (centipawns, mates as +-MATE_CP), for
        adjudication."""
        for move in book:
            self._push(move)
            self.game.moves.append(MoveRecord(move, book=True))
        self.clocks: Dict[str, Optional[float]] = \
            {side: p.tc.base for side, p in self.players.items()}
        """Each side's time left, in seconds (None without a clock)."""

    def play(self) -> Game:
        """Play the game to its end and return it (`result`, `termination`,
        `reason`, `forfeit`). An engine's failure (a crash, a timeout,
        garbage) is the game's forfeit, not an exception; a stop asked
        ends it as `"*"`, `interrupted`."""
        over = self._judge_position()
        while not over:
            if self.stop.is_set():
                return self.game.finish("*", "interrupted", "Game interrupted")
            over = self._turn()
        return self.game

    # -- one move -----------------------------------------------------------

    def _position(self):
        return (self.start_fen, [m.move for m in self.game.moves])

    def _limit(self, side):
        tc = self.players[side].tc
        # A clocked engine sees both clocks (an opponent without one shows none).
        clocks = {s: max(c, 0) if c is not None and tc.base is not None else None
                  for s, c in self.clocks.items()}
        return Limit(depth=tc.depth, nodes=tc.nodes, movetime=tc.movetime,
                     red_clock=clocks[RED], black_clock=clocks[BLACK],
                     red_inc=self.players[RED].tc.inc, black_inc=self.players[BLACK].tc.inc)

    def _allowance(self, side):
        """Seconds this move may take before it is late, or None (no clock)."""
        tc = self.players[side].tc
        allowed = [t for t in (self.clocks[side], tc.movetime) if t is not None]
        return min(allowed) + tc.margin if allowed else None

    def _turn(self):
        side = self.board.turn
        player, name = self.players[side], SIDE_NAME[side]
        allowance = self._allowance(side)
        timeout = allowance if allowance is not None else player.tc.stall
        try:
            result = player.engine.play(self._position(), self._limit(side), timeout=timeout)
        except EngineTimeout:
            if allowance is None:
                return self._forfeit(side, "stalled", f"{name}'s engine stopped answering "
                                     f"({player.tc.stall:g} s without a move)")
            return self._forfeit(side, "time forfeit", f"{name} loses on time")
        except EngineTerminated as e:
            return self._forfeit(side, "crash", f"{name}'s engine crashed: {e}")
        except EngineProtocolError as e:
            return self._forfeit(side, "protocol error", f"{name}'s engine answered garbage: {e}")
        if allowance is not None and result.elapsed > allowance:
            return self._forfeit(side, "time forfeit",
                                 f"{name} loses on time ({result.elapsed:.3f} s "
                                 f"for {allowance - player.tc.margin:.3f} s)")
        if player.tc.base is not None:
            self.clocks[side] += player.tc.inc - result.elapsed
        if result.resigned:
            return self._forfeit(side, "resignation", f"{name} resigns")
        if result.claim:
            if result.claim.startswith(loss_for(side)):
                return self._forfeit(side, "resignation", f"{name} resigns ({result.claim})")
            return self._forfeit(side, "false claim", f"{name} claims {result.claim!r}, "
                                 "which the referee does not see")
        if result.move is None:
            return self._forfeit(side, "illegal move", f"{name} says it has no move")
        if result.move not in self.board.legal_moves():
            return self._forfeit(side, "illegal move",
                                 f"{name} makes an illegal move: {result.move}")
        info = result.info
        self.scores[side].append(_mover_score(info))
        self._push(result.move)
        # An engine's own book move (tuong says `info string book move ..`) is
        # written {book} in the PGN, as cutechess writes it.
        book = bool(info.string and info.string.startswith("book move"))
        self.game.moves.append(MoveRecord(result.move, book=book, cp=info.cp, mate=info.mate,
                                          depth=info.depth, time=result.elapsed))
        return self._judge_position()

    def _forfeit(self, side, termination, reason):
        self.game.finish(loss_for(side), termination, reason, forfeit=side)
        return True

    def _push(self, move):
        self.board.push(move)               # ValueError for a bad book move

    # -- the rules ----------------------------------------------------------

    def _judge_position(self):
        """Finish the game if the position (after the last move) ends it."""
        verdict = judge(self.board, self.rules)
        if verdict:
            self.game.finish(*verdict)
            return True
        return self._adjudicate()

    def _adjudicate(self):
        """cutechess's -resign/-draw, but both engines must agree: a side
        loses when its last N scores are all <= -S and its opponent's last N
        are all >= S; a draw when, from move M on, both engines' last N
        scores are all within +-S. A move without a score breaks the run."""
        rules, scores = self.rules, self.scores
        n = rules.resign_movecount
        if n:
            for loser, winner in ((RED, BLACK), (BLACK, RED)):
                own, opp = scores[loser][-n:], scores[winner][-n:]
                if len(own) == n == len(opp) and None not in own + opp and \
                        all(s <= -rules.resign_score for s in own) and \
                        all(s >= rules.resign_score for s in opp):
                    self.game.finish(loss_for(loser), "adjudication",
                                     f"{SIDE_NAME[loser]} loses by adjudication")
                    return True
        n = rules.draw_movecount
        if rules.draw_movenumber is not None and n:
            last = scores[RED][-n:] + scores[BLACK][-n:]
            if self.board.ply // 2 >= rules.draw_movenumber and len(last) == 2 * n \
                    and None not in last and all(abs(s) <= rules.draw_score for s in last):
                self.game.finish("1/2-1/2", "adjudication", "Draw by adjudication")
                return True
        return False


def play_game(red: Player, black: Player, opening: Tuple[Optional[str], Sequence[str]],
              rules: Optional[Rules] = None, stop: Optional[threading.Event] = None) -> Game:
    """Play one game from `opening` = (fen or None, book moves) and return
    the finished Game: `Referee(red, black, opening, rules, stop).play()`.

    ```python
    from tuong.protocol.client import open_engine
    from tuong.tools.match.referee import Player, TimeControl, play_game

    with open_engine("tuong") as a, open_engine("tuong") as b:
        tc = TimeControl(depth=3)
        game = play_game(Player("a", a, tc), Player("b", b, tc), (None, ["h2e2"]))
        print(game.result, game.termination, len(game.moves))
    ```
    """
    return Referee(red, black, opening, rules, stop).play()
