"""What the engine client's parts and its callers share: the search limit,
the parsed output, the errors, the deadlines, and moves and positions as
each engine writes them."""
import re
from dataclasses import dataclass, field, replace
from typing import List, Optional, Tuple

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
Position = Tuple[Optional[str], List[str]]

STARTUP_TIMEOUT = 10.0   # handshake; our engine imports Cython modules first
SYNC_TIMEOUT = 10.0      # isready / ping after a command
SEARCH_TIMEOUT = 60.0    # play/analyse when neither the limit nor the caller gives one
# Put among an engine's lines to wake a reader waiting for one (a stop asked
# from another thread shortens its deadline): an empty line, which every
# dialect ignores, and not one the engine wrote.
WAKE = (0.0, "")
QUIT_GRACE = 1.0         # how long `quit` may take before we terminate, then kill
STOP_GRACE = 2.0         # how long a search may take to stop when an analysis is stopped


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
    """How long to search. Times in seconds; clocks are the time left."""
    depth: Optional[int] = None
    nodes: Optional[int] = None
    movetime: Optional[float] = None
    red_clock: Optional[float] = None
    black_clock: Optional[float] = None
    red_inc: float = 0.0
    black_inc: float = 0.0
    infinite: bool = False     # until stopped (UCI and UCCI `go infinite`)


@dataclass
class Info:
    """One parsed `info` (or xboard thinking) line; absent fields stay None.
    Scores are from the engine's side to move; `time` is in seconds."""
    depth: Optional[int] = None
    seldepth: Optional[int] = None
    multipv: Optional[int] = None
    cp: Optional[int] = None
    mate: Optional[int] = None
    bound: Optional[str] = None          # "lower" / "upper" / None (exact)
    nodes: Optional[int] = None
    nps: Optional[int] = None
    time: Optional[float] = None
    pv: List[str] = field(default_factory=list)
    string: Optional[str] = None

    def merged(self, newer: "Info") -> "Info":
        """This info updated by the fields a newer line carries."""
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
    ponder: Optional[str] = None
    info: Info = field(default_factory=Info)
    elapsed: float = 0.0
    resigned: bool = False
    claim: Optional[str] = None


_MOVE = re.compile(r"([a-i])(\d{1,2})([a-i])(\d{1,2})")
# A move of the small games (UCI_Variant other than xiangqi): one cell
# (tic-tac-toe, queens) or a car's from and to (Dodgem); files a-o, ranks 1-16.
_GAME_MOVE = re.compile(r"[a-p]\d{1,2}([a-p]\d{1,2})?")


def to_engine_move(move: str, ranks1: bool) -> str:
    if not ranks1:
        return move
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def from_engine_move(text: str, ranks1: bool) -> Optional[str]:
    """The engine's move text as a0-i9, or None if it is not a board move."""
    m = _MOVE.fullmatch(text)
    if not m:
        return None
    shift = 1 if ranks1 else 0
    r1, r2 = int(m.group(2)) - shift, int(m.group(4)) - shift
    if not (0 <= r1 <= 9 and 0 <= r2 <= 9):
        return None
    return f"{m.group(1)}{r1}{m.group(3)}{r2}"


def engine_fen(fen):
    """A FEN as every engine here accepts it: side `w`/`b`, six fields."""
    fields = fen.split()
    if len(fields) > 1 and fields[1] == "r":
        fields[1] = "w"
    defaults = ["w", "-", "-", "0", "1"]
    return " ".join(fields + defaults[len(fields) - 1:])


def red_to_move(position):
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
