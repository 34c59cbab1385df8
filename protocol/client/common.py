"""What the engine client's parts and its callers share: the search limit,
the parsed output, the errors, the deadlines, and moves and positions as
each engine writes them."""
import functools
import re
from dataclasses import dataclass, field, replace
from typing import List, Literal, Optional, Tuple

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
"""The initial position's FEN, as every engine here reads it."""
Protocol = Literal["uci", "ucci", "xboard"]
"""The dialect an engine speaks, as `open_engine` takes it: a type checker
rejects any other text (`"UCI"`), which raises ValueError at run time."""
Side = Literal["red", "black"]
"""A side of the board, as `Info.turn` and `PovScore` name it: `"red"` (who
moves first, `w` in a FEN) or `"black"`."""
Position = Tuple[Optional[str], List[str]]
"""A position as the client sends it: `(start FEN, moves)`. The FEN is None
for the initial position; the moves (a0-i9 text, `"h2e2"`) are played from it."""

STARTUP_TIMEOUT = 10.0   # handshake; our engine imports Cython modules first
"""Seconds an engine has to finish its handshake (`uciok`, `ucciok`, `done=1`)."""
SYNC_TIMEOUT = 10.0      # isready / ping after a command
"""Seconds an engine has to answer a sync (`isready`, `ping`) after a command."""
SEARCH_TIMEOUT = 60.0    # play/analyse when neither the limit nor the caller gives one
"""Seconds a depth or node limited search may take (plus 5) when the caller gives no timeout."""
# Put among an engine's lines to wake a reader waiting for one (a stop asked
# from another thread shortens its deadline): an empty line, which every
# dialect ignores, and not one the engine wrote.
WAKE = (0.0, "")
QUIT_GRACE = 1.0         # how long `quit` may take before we terminate, then kill
"""Seconds an engine has to exit after `quit` before it is terminated, then killed."""
STOP_GRACE = 2.0         # how long a search may take to stop when an analysis is stopped
"""Seconds a search has to answer `stop` with its move before the engine is ended."""


class EngineError(Exception):
    """Base of every error the client raises about an engine."""


class EngineTerminated(EngineError):
    """The engine process exited (crashed, or was closed)."""


class EngineTimeout(EngineError):
    """The engine did not answer before the deadline."""


class EngineProtocolError(EngineError):
    """The engine answered something we cannot use (a malformed move, ...)."""


class UnsupportedError(EngineError):
    """The engine cannot do what was asked (e.g. take a FEN); it stays usable."""


class PositionRefused(EngineProtocolError):
    """The position asked for was refused, so nothing was searched: a FEN or
    a move the client found illegal in Xiangqi before sending anything, or
    one the engine itself refused after `position` / `setboard` (tuong's
    `info string error: ...`, an xboard engine's `Illegal move` or
    `tellusererror Illegal position`). Unlike the other protocol errors it
    leaves the engine running and usable; the message says what was refused.
    A subclass of EngineProtocolError, so that a caller that ends a game on
    an engine's bad answer (tuong-match's referee) ends it here too."""


@dataclass(frozen=True)
class Limit:
    """How long to search: any mix of the fields below (the engine stops at
    the first reached); none given is the engine's own default. Times are in
    seconds; clocks are the time left.

    ```python
    Limit(depth=8)
    Limit(movetime=0.5)
    Limit(red_clock=60, black_clock=60, red_inc=1, black_inc=1)
    ```
    """
    depth: Optional[int] = None
    """Plies to search (`go depth`; xboard `sd`)."""
    nodes: Optional[int] = None
    """Nodes to search (`go nodes`); an xboard engine raises UnsupportedError."""
    movetime: Optional[float] = None
    """Seconds for this move (`go movetime`; UCCI `go time T movestogo 1`; xboard `st`)."""
    red_clock: Optional[float] = None
    """Red's time left, in seconds (`wtime`)."""
    black_clock: Optional[float] = None
    """Black's time left, in seconds (`btime`)."""
    red_inc: float = 0.0
    """Red's increment per move, in seconds (`winc`)."""
    black_inc: float = 0.0
    """Black's increment per move, in seconds (`binc`)."""
    infinite: bool = False     # until stopped (UCI and UCCI `go infinite`)
    """Search until stopped (UCI and UCCI `go infinite`): for `Engine.analyse`
    only; `Engine.play` raises ValueError."""


@functools.total_ordering
@dataclass(frozen=True, eq=True)
class Score:
    """A score from one side's point of view, as python-chess's
    `chess.engine.Score`: centipawns (`cp`) or a mate (`mate`). Scores
    compare as the side whose view they are would rank them: a mate it
    gives above any centipawns, sooner above later; a mate it gets below
    any, later above sooner. `-score` is the same score seen by the other
    side.

    ```python
    Score(cp=35).score()                    # 35
    Score(mate=3).score(mate_score=10000)   # 9997
    Score(mate=-2) < Score(cp=-900) < Score(mate=5) < Score(mate=1)   # True
    -Score(mate=3) == Score(mate=-3)        # True
    ```

    Raises ValueError unless exactly one of `cp` and `mate` is given (`mate`
    for `mate_given`).
    """
    cp: Optional[int] = None
    """Centipawns (positive: good for this side); None for a mate."""
    mate: Optional[int] = None
    """Mate in this many moves: positive, this side mates; negative, it is
    mated; 0, it is mated on the board (no move left). None without a mate."""
    mate_given: bool = False
    """True for the side that has mated (the other side's `mate` 0): then
    `mate` is 0 and the score is the best there is."""

    def __post_init__(self) -> None:
        if (self.cp is None) == (self.mate is None):
            raise ValueError(f"a Score is centipawns or a mate, one of them: cp={self.cp!r}, "
                             f"mate={self.mate!r}")
        if self.mate_given and self.mate != 0:
            raise ValueError(f"mate_given is a mate delivered: mate 0, not {self.mate!r}")

    def is_mate(self) -> bool:
        """Whether this is a mate score (given or got)."""
        return self.mate is not None

    def score(self, mate_score: Optional[int] = None) -> Optional[int]:
        """The score as one number: the centipawns; a mate is None unless
        `mate_score` is given, then `mate_score - N` for a mate in N (the
        sooner, the higher), `-mate_score + N` for being mated in N, and
        `mate_score` (`-mate_score`) for a mate given (got) on the board."""
        if self.cp is not None:
            return self.cp
        if mate_score is None:
            return None
        assert self.mate is not None
        if self.mate_given:
            return mate_score
        return mate_score - self.mate if self.mate > 0 else -mate_score - self.mate

    def __neg__(self) -> "Score":
        if self.cp is not None:
            return Score(cp=-self.cp)
        if self.mate == 0:
            return Score(mate=0, mate_given=not self.mate_given)
        assert self.mate is not None
        return Score(mate=-self.mate)

    def _rank(self) -> Tuple[int, int]:
        """A key that orders scores from worst to best for this side."""
        if self.cp is not None:
            return (2, self.cp)
        assert self.mate is not None
        if self.mate_given:
            return (4, 0)
        if self.mate > 0:
            return (3, -self.mate)
        return (1, -self.mate) if self.mate < 0 else (0, 0)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self._rank() < other._rank()

    def __str__(self) -> str:
        if self.cp is not None:
            return f"{self.cp:+d}"
        if self.mate_given:
            return "#+0"
        return f"#{self.mate:+d}" if self.mate else "#-0"


_SIDES: dict[object, Side] = {"red": "red", "black": "black", "w": "red", "b": "black"}


def _side(color: object, what: str) -> Side:
    """`color` as a Side: "red" or "black" as they are, a FEN's "w" or "b" as
    those; ValueError for anything else (`what` names it)."""
    try:
        return _SIDES[color]
    except (KeyError, TypeError):           # TypeError: not even text (a list)
        raise ValueError(f"{what} is 'red' or 'black' ('w' or 'b'), not {color!r}") from None


@dataclass(frozen=True)
class PovScore:
    """A score and the side whose view it is, as python-chess's `PovScore`:
    `relative` is from the side to move in the position searched (`turn`),
    as every engine reports it; `red()`, `black()` and `pov(side)` give it
    from a side of your choosing. A side is `"red"` or `"black"`, or as a
    FEN, `Board.turn` and `Outcome.winner` write it, `"w"` (Red) or `"b"`
    (Black): `turn` is kept as `"red"` or `"black"`.

    ```python
    score = PovScore(Score(cp=-40), "black")    # Black to move, 40 cp down
    score.red(), score.black()                 # Score(cp=40), Score(cp=-40)
    score.pov("w")                             # Score(cp=40): board.turn's view
    ```

    Raises ValueError for a `turn` other than `"red"`, `"black"`, `"w"` and `"b"`.
    """
    relative: Score
    """The score from the side to move's point of view, as the engine gave it."""
    turn: Side
    """The side to move in the position searched: `"red"` or `"black"` (given
    as `"w"` or `"b"`, it is kept as the name)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "turn", _side(self.turn, "turn"))

    def pov(self, color: Literal["red", "black", "w", "b"]) -> Score:
        """The score from `color`'s point of view: `"red"` or `"black"`, or
        `"w"` or `"b"` as `Board.turn` and `Outcome.winner` write them
        (`info.score.pov(board.turn)`); ValueError for another."""
        return self.relative if _side(color, "a side") == self.turn else -self.relative

    def red(self) -> Score:
        """The score from Red's point of view (positive: good for Red)."""
        return self.pov("red")

    def black(self) -> Score:
        """The score from Black's point of view (positive: good for Black)."""
        return self.pov("black")

    def is_mate(self) -> bool:
        """Whether this is a mate score."""
        return self.relative.is_mate()

    def __str__(self) -> str:
        return f"{self.relative} ({self.turn} to move)"


@dataclass
class Info:
    """One parsed `info` (or xboard thinking) line; absent fields stay None.
    `cp` and `mate` are from the side to move in the position searched
    (`turn`), in every dialect (xboard's thinking output too: the engine
    thinks for the side to move); `score` gives them with that side, to
    read from Red's or Black's view. `time` is in seconds."""
    depth: Optional[int] = None
    """The depth reached, in plies."""
    seldepth: Optional[int] = None
    """The selective depth: the longest line searched, in plies."""
    multipv: Optional[int] = None
    """Which line of a MultiPV search this is (1: the best); None if not said."""
    cp: Optional[int] = None
    """The score in centipawns, from the side to move's point of view; None
    with a mate score."""
    mate: Optional[int] = None
    """Mate in this many moves (positive: the side to move mates; negative:
    it is mated); None without one."""
    bound: Optional[str] = None          # "lower" / "upper" / None (exact)
    """`"lower"` or `"upper"` when the score is a bound (a fail high or low);
    None when it is exact."""
    nodes: Optional[int] = None
    """Nodes searched so far."""
    nps: Optional[int] = None
    """Nodes per second."""
    time: Optional[float] = None
    """Seconds searched so far."""
    pv: List[str] = field(default_factory=list)
    """The principal variation: moves as a0-i9 text, from the searched position."""
    string: Optional[str] = None
    """The text of an `info string` line (UCI, UCCI), else None."""
    turn: Optional[Side] = None
    """The side to move in the position searched (`"red"` or `"black"`),
    whose view `cp` and `mate` are from: the client fills it from the
    position it sent; None for an Info made otherwise."""

    @property
    def score(self) -> Optional[PovScore]:
        """The score (`cp` or `mate`) with the side whose view it is
        (`turn`): `info.score.red()` is Red's view. None without a score or
        without `turn`.

        ```python
        info = Info(cp=-40, turn="black")
        info.score.red().score()           # 40
        ```
        """
        if self.turn is None or (self.cp is None and self.mate is None):
            return None
        relative = Score(mate=self.mate) if self.mate is not None else Score(cp=self.cp)
        return PovScore(relative, self.turn)

    def merged(self, newer: "Info") -> "Info":
        """This info updated by the fields that `newer` (a later line's Info)
        carries, those not None nor empty; a new score (cp or mate) replaces
        the old score and its bound. Returns a new Info; neither is changed."""
        changes = {k: v for k, v in vars(newer).items() if v is not None and v != []}
        if newer.cp is not None or newer.mate is not None:   # a new score replaces both
            changes.setdefault("cp", None)
            changes.setdefault("mate", None)
            changes.setdefault("bound", None)
        return replace(self, **changes)


@dataclass
class PlayResult:
    """What a search ended with. `move` is None when the engine resigned,
    claimed a result (xboard), or said it has no move; `elapsed` runs from
    sending `go` to reading the answer, in seconds."""
    move: Optional[str]
    """The move played, as a0-i9 text (`"h2e2"`); None if the engine resigned,
    claimed a result or had no move."""
    ponder: Optional[str] = None
    """The reply the engine expects (`bestmove ... ponder ...`), or None."""
    info: Info = field(default_factory=Info)
    """The engine's last main-line report before its move (its score, depth and line)."""
    elapsed: float = 0.0
    """Seconds from sending `go` to reading the move."""
    resigned: bool = False
    """Whether the engine resigned (xboard `resign`)."""
    claim: Optional[str] = None
    """A result the engine claimed (xboard: `1-0`, `0-1`, `1/2-1/2`), else None."""


_MOVE = re.compile(r"([a-i])(\d{1,2})([a-i])(\d{1,2})")
# A move of the small games (UCI_Variant other than xiangqi): one cell
# (tic-tac-toe, queens) or a car's from and to (Dodgem); files a-o, ranks 1-16.
_GAME_MOVE = re.compile(r"[a-p]\d{1,2}([a-p]\d{1,2})?")


def to_engine_move(move: str, ranks1: bool) -> str:
    """`move` (a0-i9 text, `"h2e2"`) as the engine writes it: unchanged, or,
    when `ranks1` (the engine numbers ranks 1-10, as Fairy-Stockfish does over
    UCI), with both ranks plus one (`"h3e3"`). The move is not checked."""
    if not ranks1:
        return move
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def from_engine_move(text: str, ranks1: bool) -> Optional[str]:
    """The engine's move `text` as a0-i9 (`ranks1`: the engine numbers ranks
    1-10); None if it is not a board move (a null move, a rank off the
    board). Raises nothing."""
    m = _MOVE.fullmatch(text)
    if not m:
        return None
    shift = 1 if ranks1 else 0
    r1, r2 = int(m.group(2)) - shift, int(m.group(4)) - shift
    if not (0 <= r1 <= 9 and 0 <= r2 <= 9):
        return None
    return f"{m.group(1)}{r1}{m.group(3)}{r2}"


def engine_fen(fen: str) -> str:
    """`fen` as every engine here accepts it: side `w`/`b` (`r` becomes
    `w`), six fields (missing ones filled from `w - - 0 1`). The placement
    is not checked."""
    fields = fen.split()
    if len(fields) > 1 and fields[1] == "r":
        fields[1] = "w"
    defaults = ["w", "-", "-", "0", "1"]
    return " ".join(fields + defaults[len(fields) - 1:])


def red_to_move(position: Position) -> bool:
    """Whether Red moves next in `position`, `(start FEN or None, moves)`:
    the FEN's side (`w`/`r` Red), flipped by an odd number of moves. Nothing
    is checked."""
    fen, moves = position
    red = fen is None or len(fen.split()) < 2 or fen.split()[1] in ("w", "r")
    return red != (len(moves) % 2 == 1)


def _value_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _int(text):
    try:
        return int(text)
    except ValueError:
        return None


def _ms(seconds):
    return str(max(0, round((seconds or 0) * 1000)))
