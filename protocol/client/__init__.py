"""Drive any Xiangqi engine process (UCI, UCCI or xboard) from Python.

In the spirit of python-chess's `chess.engine`, synchronous and small:

    from tuong.protocol.client import open_engine, Limit

    with open_engine("/usr/games/fairy-stockfish", protocol="uci") as engine:
        engine.configure({"Hash": 64})
        result = engine.play((None, ["h2e2"]), Limit(movetime=0.2))
        print(result.move, result.info.cp, result.info.depth)
        for info in engine.analyse((None, []), Limit(depth=8)):
            print(info.depth, info.cp, info.pv)
        with engine.analyse((None, []), Limit(depth=40)) as analysis:
            for info in analysis:
                if info.depth == 10:
                    break           # leaving the block stops the search
        print(analysis.info.pv, analysis.wait().move)
        analysis = engine.analyse((None, []), Limit(depth=8), multipv=3)
        analysis.wait()                 # to the end of the search
        for info in analysis.lines:     # the three best moves, best first
            if info.score is not None:
                print(info.pv[0], info.score.red(), info.score.black())

One call at a time: every operation holds the engine's lock to its end, so
calls from several threads take turns. analyse() returns an Analysis, the
search's lifetime: iterate it for the Infos the engine prints; `info` is the
latest main-line (multipv 1) Info, merged field by field as play() merges;
`lines` the latest Info of each line of a search of several
(`analyse(..., multipv=N)`, best first); `wait()` reads to the end of the
search and returns its PlayResult (also `result` from then on); `stop()`
stops the search and reads its move (safe to call twice); leaving a `with`
block calls stop(). An analysis still running when the engine gets its next
call (configure, new_game, play, analyse) is stopped first and its move
kept out of that call's answer, so no command reaches an engine that is
still searching. close() just ends the engine, and an open analysis with it.

Scores are from the side to move in the position searched, in every
dialect (`Info.cp`, `Info.mate`); `Info.score` is a PovScore that knows that
side (`Info.turn`, filled by the client from the position it sent), so
`info.score.red()` is Red's view whoever moves, as python-chess's
`PovScore.white()`.

A position is `(start FEN or None for the initial position, [moves])`.
Callers always see moves as a0-i9 (files a-i from Red's left, ranks 0-9
from Red's back rank). Fairy-Stockfish over UCI writes ranks 1-10; the
`notation` argument ("ranks0", "ranks1", or "auto", which picks ranks1 for
Fairy-Stockfish over UCI) makes the translation at the edge.

Failure contract: every read has a deadline. An engine that exits
(EngineTerminated), does not answer in time (EngineTimeout) or answers
something we cannot use (EngineProtocolError) is killed and reaped before
the exception propagates, so a failed engine never lingers; later calls on
it raise EngineTerminated. A capability the engine lacks (a FEN for an
xboard engine without setboard, a node limit over xboard) raises
UnsupportedError and leaves the engine usable. A position that is not one
(PositionRefused, an EngineProtocolError that leaves the engine usable too)
is never searched: in Xiangqi the client checks the FEN and the moves with
tuong's own board before sending anything (a general outside its palace,
the side not to move in check, an illegal move), and in every dialect it
reads the engine's answer to the position before `go` (UCI and UCCI:
`isready` after `position`, and tuong's `info string error: ...` before
`readyok`; xboard: `ping` after the moves, and `Illegal move`, `Error (...)`
or `tellusererror Illegal position` before `pong`). A search's `info` lines
describe the move played: PlayResult.info is the engine's last main-line
report before its move. Lines we do not understand
are ignored, and `info` lines are parsed field by field, so one odd token
does not lose the rest.

Notes per dialect (how the engines in /usr/games behave; tests/test_client.py
plays each):

- UCI: `setoption name UCI_Variant value xiangqi` when the option exists;
  `analyse(..., multipv=N)` sets `MultiPV` for its search.
- UCCI: `ucci`/`ucciok`, `setoption <name> <value>`, `go time .. increment
  .. opptime .. oppincrement ..`. The spec counts time in seconds unless the
  engine declares `usemillisec` (we switch it on). Fairy-Stockfish 11 reads
  milliseconds without declaring the option, so it gets milliseconds too.
  There is no movetime in UCCI: we send `go time T movestogo 1`. MultiPV
  only where the engine declares the option (Fairy-Stockfish; tuong's UCCI
  has none, so more than one line raises UnsupportedError).
- xboard: `xboard`, `protover 2`, features until `done=1` (2 s for an
  engine that sends none), then per game `new`, `variant xiangqi`, `force`,
  `post`, `easy`; moves are sent incrementally in force mode, `ping` after
  them catches an `Illegal move` before `go`. maxqi (fairymax) uses ranks
  0-9 and has no `setboard`: bring it to a position by moves. It uses a
  fraction of an `st` time (and moves at once below 1 s), and it ignores
  `?` and SIGINT while it thinks, so stopping an analysis ends it (any
  engine that does not stop within STOP_GRACE is ended; its next call
  raises EngineTerminated saying why). xboard has no node limit and no
  MultiPV (more than one line raises UnsupportedError). Its thinking
  output scores from the engine's side, which is the side to move: the
  client only has an engine think on its own move (`go`), never in
  `analyze` mode, so `Info.turn` is the side to move here too.
- Fairy-Stockfish writes ranks 1-10 over UCI only; over UCCI and xboard it
  writes 0-9 (xboard numbers the ranks of a 10-rank board from 0). Over
  xboard, version 11 keeps an `sd` depth limit after `new` (the protocol
  says `new` clears it): give it one kind of limit per process.
"""
import subprocess
from typing import IO, Callable, Literal, Mapping, Optional, Sequence, Union

from tuong.protocol.client.analysis import Analysis
from tuong.protocol.client.common import (
    QUIT_GRACE, SEARCH_TIMEOUT, START_FEN, STARTUP_TIMEOUT, STOP_GRACE, SYNC_TIMEOUT, EngineError,
    EngineProtocolError, EngineTerminated, EngineTimeout, Info, Limit, PlayResult, Position,
    PositionRefused, PovScore, Protocol, Score, Side, UnsupportedError, engine_fen,
    from_engine_move, red_to_move, to_engine_move)
from tuong.protocol.client.engine import Engine, close_all
from tuong.protocol.client.ucci import UcciEngine
from tuong.protocol.client.uci import UciEngine
from tuong.protocol.client.xboard import XboardEngine

__all__ = [
    "Analysis", "Engine", "EngineError", "EngineProtocolError", "EngineTerminated",
    "EngineTimeout", "Info", "Limit", "PlayResult", "Position", "PositionRefused", "PovScore",
    "Protocol", "QUIT_GRACE", "SEARCH_TIMEOUT", "Score", "Side",
    "START_FEN", "STARTUP_TIMEOUT", "STOP_GRACE", "SYNC_TIMEOUT", "UcciEngine", "UciEngine",
    "UnsupportedError", "XboardEngine", "close_all", "engine_fen", "from_engine_move",
    "open_engine", "red_to_move", "to_engine_move",
]


def open_engine(command: Union[str, Sequence[str]],
                protocol: Protocol = "uci", *,
                name: Optional[str] = None,
                notation: Literal["auto", "ranks0", "ranks1"] = "auto",
                env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
                startup_timeout: float = STARTUP_TIMEOUT,
                log: Optional[Callable[[str], None]] = None,
                stderr: Union[int, IO[bytes], None] = subprocess.DEVNULL) -> Engine:
    """Start an engine and complete its handshake. `command` is a string
    (split with shlex, so it may carry arguments) or a list. `name` labels
    it in errors and the transcript (default: the program's name);
    `notation` how it writes ranks (auto: found out); `env`, `cwd` and
    `stderr` go to the process; `log` gets every line sent and read.

    The command `"tuong"` (or `["tuong"]`) alone, when no `tuong` is on
    PATH (a virtual environment that is not activated), starts the tuong of
    the running interpreter: `[sys.executable, "-m", "tuong.protocol"]`.
    `protocol` is one of `"uci"`, `"ucci"`, `"xboard"` (ValueError for
    another).

    Returns the Engine, its handshake done. Raises EngineTerminated when
    the program cannot be started or exits, EngineTimeout when it does not
    finish its handshake within `startup_timeout` seconds, UnsupportedError
    when it cannot play Xiangqi (see Engine)."""
    classes = {"uci": UciEngine, "ucci": UcciEngine, "xboard": XboardEngine}
    if protocol not in classes:
        raise ValueError(f"unknown protocol {protocol!r}: use uci, ucci or xboard")
    return classes[protocol](command, name=name, notation=notation, env=env, cwd=cwd,
                             startup_timeout=startup_timeout, log=log, stderr=stderr)
