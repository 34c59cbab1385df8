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
        print(analysis.info.pv, analysis.result.move)

One call at a time: every operation holds the engine's lock to its end, so
calls from several threads take turns. analyse() returns an Analysis, the
search's lifetime: iterate it for the Infos the engine prints; `info` is the
latest main-line (multipv 1) Info, merged field by field as play() merges;
`wait()` reads to the end of the search and returns its PlayResult (also
`result` from then on); `stop()` stops the search and reads its move (safe to
call twice); leaving a `with` block calls stop(). An analysis still running
when the engine gets its next call (configure, new_game, play, analyse) is
stopped first and its move kept out of that call's answer, so no command
reaches an engine that is still searching. close() just ends the engine,
and an open analysis with it.

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
UnsupportedError and leaves the engine usable. Lines we do not understand
are ignored, and `info` lines are parsed field by field, so one odd token
does not lose the rest.

Notes per dialect (how the engines in /usr/games behave; tests/test_client.py
plays each):
- UCI: `setoption name UCI_Variant value xiangqi` when the option exists.
- UCCI: `ucci`/`ucciok`, `setoption <name> <value>`, `go time .. increment
  .. opptime .. oppincrement ..`. The spec counts time in seconds unless the
  engine declares `usemillisec` (we switch it on). Fairy-Stockfish 11 reads
  milliseconds without declaring the option, so it gets milliseconds too.
  There is no movetime in UCCI: we send `go time T movestogo 1`.
- xboard: `xboard`, `protover 2`, features until `done=1` (2 s for an
  engine that sends none), then per game `new`, `variant xiangqi`, `force`,
  `post`, `easy`; moves are sent incrementally in force mode, `ping` after
  them catches an `Illegal move` before `go`. maxqi (fairymax) uses ranks
  0-9 and has no `setboard`: bring it to a position by moves. It uses a
  fraction of an `st` time (and moves at once below 1 s), and it ignores
  `?` and SIGINT while it thinks, so stopping an analysis ends it (any
  engine that does not stop within STOP_GRACE is ended; its next call
  raises EngineTerminated saying why). xboard has no node limit.
- Fairy-Stockfish writes ranks 1-10 over UCI only; over UCCI and xboard it
  writes 0-9 (xboard numbers the ranks of a 10-rank board from 0). Over
  xboard, version 11 keeps an `sd` depth limit after `new` (the protocol
  says `new` clears it): give it one kind of limit per process.
"""
import atexit
import contextlib
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass, field, replace
from typing import List, Optional, Tuple

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
Position = Tuple[Optional[str], List[str]]

STARTUP_TIMEOUT = 10.0   # handshake; our engine imports Cython modules first
SYNC_TIMEOUT = 10.0      # isready / ping after a command
SEARCH_TIMEOUT = 60.0    # play/analyse when neither the limit nor the caller gives one
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

    def merged(self, newer):
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


def to_engine_move(move, ranks1):
    if not ranks1:
        return move
    return f"{move[0]}{int(move[1]) + 1}{move[2]}{int(move[3]) + 1}"


def from_engine_move(text, ranks1):
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


_LIVE = weakref.WeakSet()        # every started engine, for close_all()


def close_all():
    """Close every engine still running (at exit, on Ctrl-C)."""
    for engine in list(_LIVE):
        engine.close()


atexit.register(close_all)


def open_engine(command, protocol="uci", **kwargs):
    """Start an engine and complete its handshake. `command` is a string
    (split with shlex, so it may carry arguments) or a list."""
    classes = {"uci": UciEngine, "ucci": UcciEngine, "xboard": XboardEngine}
    if protocol not in classes:
        raise ValueError(f"unknown protocol {protocol!r}: use uci, ucci or xboard")
    return classes[protocol](command, **kwargs)


class Engine:
    """One engine process; a subclass speaks its dialect."""
    protocol = ""
    variant = "xiangqi"                     # UCI_Variant, as last configured

    def __init__(self, command, *, name=None, notation="auto", env=None, cwd=None,
                 startup_timeout=STARTUP_TIMEOUT, log=None, stderr=subprocess.DEVNULL):
        if notation not in ("auto", "ranks0", "ranks1"):
            raise ValueError(f"unknown notation {notation!r}: use ranks0, ranks1 or auto")
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.name = name or os.path.basename(self.argv[0])
        self.notation = notation
        self.log = log                      # callable(text) for an I/O transcript, or None
        self.id = {}                        # id name / author (xboard: myname)
        self.options = {}                   # lowercased name -> (name, declaration words)
        self.broken = None                  # the error that ended this engine
        self._lock = threading.Lock()       # close()'s, so it never waits for a search
        # One operation at a time. Reentrant: play() is an analysis run to its
        # end under one hold, and a call ends the open analysis under its own.
        self._busy = threading.RLock()
        self._analysis = None               # the search not yet over, if any
        self._lines = queue.Queue()         # (arrival time, line), None at EOF
        try:
            # A session of its own: a Ctrl-C in the terminal reaches only us, and
            # we end engines ourselves in a known order (see close()).
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr, text=True, bufsize=1, errors="replace",
                env=env, cwd=cwd, start_new_session=True)
        except OSError as e:
            raise EngineTerminated(f"{self.name}: cannot start {command!r}: {e}") from e
        _LIVE.add(self)
        threading.Thread(target=self._reader, daemon=True, name=f"{self.name}-stdout").start()
        try:
            with self._operation():
                self._handshake(time.monotonic() + startup_timeout)
        except BaseException:
            self.close()                    # e.g. UnsupportedError: do not leave it running
            raise
        if self.notation == "auto":
            self.notation = self._default_notation()

    # -- public API ---------------------------------------------------------

    def configure(self, options):
        """Set options by name (case-insensitive); an unknown name raises
        UnsupportedError before anything is sent."""
        with self._operation():
            for name in options:
                self._option(name)
            for name, value in options.items():
                self._setoption(name, value)
                if name.lower() == "uci_variant":
                    self.variant = str(value).lower()
            self._sync()

    def new_game(self):
        with self._operation():
            self._new_game()

    def play(self, position, limit, timeout=None):
        """Search `position` within `limit`; the PlayResult of the search."""
        with self._busy:
            return self._start(position, limit, timeout).wait()

    def analyse(self, position, limit, timeout=None) -> "Analysis":
        """Start searching `position`; the Analysis to read it from and stop it."""
        return self._start(position, limit, timeout)

    def close(self):
        """Ask the engine to quit, then terminate and kill it if it does not;
        always reaps the process. Safe to call twice and from any thread, even
        while another thread's call is waiting for the engine."""
        with self._lock:
            if self._analysis is not None:  # `quit` ends its search too
                self._analysis._end()
            if self.proc.returncode is None:
                try:
                    self._write(self.quit_command)
                    self.proc.wait(QUIT_GRACE)
                except (OSError, ValueError, subprocess.TimeoutExpired):
                    self._kill()
            self.proc.wait()
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        # stdout is the reader thread's to close: closing it here could block
        # on the reader's lock if a grandchild still holds the pipe open.
        _LIVE.discard(self)

    @property
    def alive(self):
        return self.broken is None and self.proc.poll() is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name} pid={self.proc.pid}>"

    # -- process and lines --------------------------------------------------

    quit_command, stop_command = "quit", "stop"

    def _reader(self):
        try:
            for line in self.proc.stdout:
                self._lines.put((time.monotonic(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(None)
            self.proc.stdout.close()

    def _write(self, line):
        if self.log:
            self.log(f"{self.name} < {line}")
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _send(self, line):
        if self.broken:
            raise EngineTerminated(f"{self.name} is not running ({self.broken})")
        try:
            self._write(line)
        except (OSError, ValueError) as e:      # broken pipe, or stdin closed
            raise EngineTerminated(f"{self.name} exited (writing {line!r}: {e})") from e

    def _read(self, deadline):
        """(arrival time, line) of the next line; EngineTimeout after the deadline."""
        remaining = deadline - time.monotonic()
        try:
            item = self._lines.get(timeout=max(remaining, 0)) if remaining > 0 \
                else self._lines.get_nowait()
        except queue.Empty:
            raise EngineTimeout(f"{self.name} did not answer in time") from None
        if item is None:
            self._lines.put(None)                # later reads see EOF too
            try:
                code = self.proc.wait(1.0)
            except subprocess.TimeoutExpired:
                code = "unknown"
            raise EngineTerminated(f"{self.name} exited (exit code {code})")
        if self.log:
            self.log(f"{self.name} > {item[1]}")
        return item

    def _kill(self):
        """SIGTERM then SIGKILL to the engine's process group (a wrapper
        script's children die too), then reap."""
        if self.proc.poll() is not None:      # reaped: its pid may belong to another
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(QUIT_GRACE)
                return
            except subprocess.TimeoutExpired:
                continue

    @contextlib.contextmanager
    def _operation(self, analysis=None):
        """A public call, or a step of `analysis`: it holds the engine's lock
        throughout, and a call first stops an analysis left running, so it
        never talks to an engine still searching. Any engine failure inside
        kills and reaps the process (a failed engine gets no polite `quit`);
        UnsupportedError does not."""
        with self._busy:
            if self._analysis is not None and self._analysis is not analysis:
                self._analysis._stop()
            if self.broken:
                raise EngineTerminated(f"{self.name} is not running ({self.broken})")
            try:
                yield
            except UnsupportedError:
                raise
            except EngineError as e:
                self.broken = str(e)
                self._kill()
                self.close()
                raise

    @property
    def ranks1(self):
        return self.notation == "ranks1"

    def _parse_move(self, text, context):
        move = from_engine_move(text, self.ranks1) if self.variant == "xiangqi" else \
            (text if _GAME_MOVE.fullmatch(text) else None)
        if move is None:
            raise EngineProtocolError(f"{self.name}: not a move: {text!r} in {context!r}")
        return move

    def _option(self, name):
        try:
            return self.options[name.lower()]
        except KeyError:
            known = ", ".join(sorted(n for n, _ in self.options.values())) or "none"
            raise UnsupportedError(f"{self.name} has no option {name!r} (it has: {known})") \
                from None

    def _default_notation(self):
        return "ranks0"

    def _start(self, position, limit, timeout):
        """Send a search; the Analysis that reads it. A dialect provides
        _prepare_search (commands up to `go`; returns the go line),
        _search_line (a line -> Info, PlayResult or None) and stop_command."""
        with self._operation():
            go = self._prepare_search(position, limit)
            deadline = self._deadline(position, limit, timeout)
            self._send(go)
            # Open until its move, even for play(): a play() interrupted
            # (Ctrl-C) leaves a search that the next call must stop.
            self._analysis = Analysis(self, deadline)
            return self._analysis

    def _deadline(self, position, limit, timeout):
        """A search's deadline: the caller's timeout, else one from the limit."""
        if timeout is None and limit.infinite:
            timeout = 7 * 24 * 3600.0           # an analysis ends when it is stopped
        if timeout is None:
            clock = limit.red_clock if red_to_move(position) else limit.black_clock
            timeout = (limit.movetime or clock or SEARCH_TIMEOUT) + 5.0
        return time.monotonic() + timeout


class Analysis:
    """One search of an engine, from `go` to its move (see the module
    docstring). Every step takes the engine's lock only while it reads, so a
    loop left between two Infos blocks nobody: the engine's next call stops
    the search."""

    def __init__(self, engine, deadline):
        self.engine = engine
        self.result = None              # the PlayResult, once the engine has moved
        self._info = Info()
        self._deadline = deadline
        self._started = time.monotonic()
        self._running = True
        self._stop_sent = False

    @property
    def info(self):
        """The latest main-line (multipv 1) Info, merged field by field."""
        return self._info

    def __iter__(self):
        return self

    def __next__(self):
        with self.engine._busy:
            while self._running:
                item = self._step()
                if isinstance(item, Info):
                    return item
        raise StopIteration

    def wait(self):
        """Read to the end of the search; its PlayResult, with `info`. After
        stop() (or another call stopped it), the move the engine stopped with."""
        with self.engine._busy:
            while self._running:
                self._step()
        if self.result is None:
            raise EngineTerminated(f"{self.engine.name} ended before its move "
                                   f"({self.engine.broken or 'closed'})")
        return self.result

    def request_stop(self):
        """Ask the engine to stop without waiting for the lock, from any
        thread: the thread reading the analysis (which holds the lock while
        it waits for a line) then reads the move and the iteration ends. For
        an infinite analysis whose next line may be seconds away."""
        if self._running and not self._stop_sent:
            self._stop_sent = True
            with self.engine._lock:
                if self.engine.proc.poll() is None and not self.engine.broken:
                    try:
                        self.engine._write(self.engine.stop_command)
                    except (OSError, ValueError):
                        pass

    def stop(self):
        """Stop the search if it is still running and read its move."""
        with self.engine._busy:
            self._stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _step(self):
        """Read one line of the search: the Info or PlayResult it holds, or None."""
        try:
            with self.engine._operation(self):
                arrived, line = self.engine._read(self._deadline)
                return self._take(line, arrived)
        except EngineError:
            self._end()
            raise

    def _stop(self):
        """stop() with the engine's lock held. An engine that does not stop
        (fairymax ignores `?`) is ended, and says why on its next call."""
        if not self._running:
            return
        engine = self.engine
        try:
            if not self._stop_sent:
                self._stop_sent = True
                engine._send(engine.stop_command)
            deadline = time.monotonic() + STOP_GRACE
            while self._running:
                arrived, line = engine._read(deadline)
                self._take(line, arrived)
        except EngineError as e:
            self._end()
            engine.broken = f"did not stop its search when asked ({e})"
            engine._kill()
            engine.close()

    def _take(self, line, arrived):
        item = self.engine._search_line(line, arrived - self._started)
        if isinstance(item, PlayResult):
            item.info = self._info
            self.result = item
            self._end()
            if self._stop_sent:
                # The stop may have crossed the engine's move: an idle engine
                # can answer it (UCCI's `nobestmove`). A sync reads past any
                # such answer, so that no line of this search is taken as
                # the next search's.
                self.engine._sync()
        elif isinstance(item, Info) and item.multipv in (None, 1):
            self._info = self._info.merged(item)
        return item

    def _end(self):
        self._running = False
        if self.engine._analysis is self:
            self.engine._analysis = None


def _value_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _declared_name(words):
    """The option name in `option name N type ...` (UCI) or `option N type ...` (UCCI)."""
    if words and words[0] == "name":
        words = words[1:]
    end = words.index("type") if "type" in words else len(words)
    return " ".join(words[:end]), words[end:]


def _int(text):
    try:
        return int(text)
    except ValueError:
        return None


class UciEngine(Engine):
    protocol = "uci"
    hello, ok = "uci", "uciok"

    def _handshake(self, deadline):
        self._send(self.hello)
        while True:
            _, line = self._read(deadline)
            words = line.split()
            if not words:
                continue
            if words[0] == "id" and len(words) > 2:
                self.id[words[1]] = " ".join(words[2:])
            elif words[0] == "option" and len(words) > 1:
                name, declaration = _declared_name(words[1:])
                if name:
                    self.options[name.lower()] = (name, declaration)
            elif words[0] == self.ok:
                break
        if "uci_variant" in self.options:
            self._setoption("UCI_Variant", "xiangqi")
        self._sync()

    def _default_notation(self):
        # Fairy-Stockfish writes ranks 1-10 over UCI (and 0-9 over UCCI).
        return "ranks1" if self.id.get("name", "").startswith("Fairy-Stockfish") else "ranks0"

    def _setoption(self, name, value):
        name, declaration = self._option(name)
        if "button" in declaration:
            self._send(f"setoption name {name}")
        else:
            self._send(f"setoption name {name} value {_value_text(value)}")

    def _sync(self):
        self._send("isready")
        deadline = time.monotonic() + SYNC_TIMEOUT
        while self._read(deadline)[1].strip() != "readyok":
            pass

    def _new_game(self):
        self._send("ucinewgame")
        self._sync()

    def _position_command(self, position):
        fen, moves = position
        text = f"position fen {engine_fen(fen)}" if fen else "position startpos"
        if moves:
            text += " moves " + " ".join(to_engine_move(m, self.ranks1) for m in moves)
        return text

    def _go_command(self, position, limit):
        words = ["go"]
        if limit.depth is not None:
            words += ["depth", str(limit.depth)]
        if limit.nodes is not None:
            words += ["nodes", str(limit.nodes)]
        if limit.movetime is not None:
            words += ["movetime", str(max(1, round(limit.movetime * 1000)))]
        if limit.red_clock is not None or limit.black_clock is not None:
            words += ["wtime", _ms(limit.red_clock), "btime", _ms(limit.black_clock),
                      "winc", _ms(limit.red_inc), "binc", _ms(limit.black_inc)]
        if limit.infinite:
            words.append("infinite")
        if len(words) == 1:
            raise ValueError("a Limit needs depth, nodes, movetime, clocks or infinite")
        return " ".join(words)

    def _prepare_search(self, position, limit):
        go = self._go_command(position, limit)      # a bad limit fails before sending
        self._send(self._position_command(position))
        return go

    def _search_line(self, line, elapsed):
        words = line.split()
        if words and words[0] == "info":
            return self._parse_info(words)
        if words and words[0] in ("bestmove", "nobestmove"):
            return self._best(words, line, elapsed)
        return None

    def _best(self, words, line, elapsed):
        if words[0] == "nobestmove" or len(words) < 2 or words[1] in ("(none)", "none", "0000"):
            return PlayResult(None, elapsed=elapsed)
        move = self._parse_move(words[1], line)
        ponder = None
        if len(words) >= 4 and words[2] == "ponder":
            ponder = from_engine_move(words[3], self.ranks1)
        return PlayResult(move, ponder, elapsed=elapsed)

    _INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps"}

    def _parse_info(self, words):
        info = Info()
        i = 1
        while i < len(words):
            word = words[i]
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if word in self._INT_FIELDS:
                setattr(info, word, _int(nxt))
                i += 2
            elif word == "time":
                ms = _int(nxt)
                info.time = ms / 1000 if ms is not None else None
                i += 2
            elif word == "score":
                i = self._parse_score(info, words, i + 1)
            elif word == "pv":
                i += 1
                while i < len(words):
                    move = from_engine_move(words[i], self.ranks1)
                    if move is None:
                        break
                    info.pv.append(move)
                    i += 1
            elif word == "string":
                info.string = " ".join(words[i + 1:])
                break
            else:
                i += 1
        return info

    def _parse_score(self, info, words, i):
        """`score cp N` / `score mate N` [lowerbound|upperbound]; UCCI also
        writes a bare `score N`. Returns the index after the score."""
        kind = words[i] if i < len(words) else ""
        if kind in ("cp", "mate"):
            value = _int(words[i + 1]) if i + 1 < len(words) else None
            setattr(info, kind, value)
            i += 2
        elif _int(kind) is not None:
            info.cp = _int(kind)
            i += 1
        if i < len(words) and words[i] in ("lowerbound", "upperbound"):
            info.bound = words[i][:5]
            i += 1
        return i


def _ms(seconds):
    return str(max(0, round((seconds or 0) * 1000)))


class UcciEngine(UciEngine):
    protocol = "ucci"
    hello, ok = "ucci", "ucciok"

    def _handshake(self, deadline):
        super()._handshake(deadline)
        self.millis = "usemillisec" in self.options or \
            self.id.get("name", "").startswith("Fairy-Stockfish")
        if "usemillisec" in self.options:
            self._setoption("usemillisec", True)
            self._sync()

    def _default_notation(self):
        return "ranks0"

    def _setoption(self, name, value):
        name, declaration = self._option(name)
        text = f"setoption {name}" if "button" in declaration else \
            f"setoption {name} {_value_text(value)}"
        self._send(text)

    def _new_game(self):
        if "newgame" in self.options:
            self._setoption("newgame", None)
        self._sync()

    def _time(self, seconds):
        if self.millis:
            return _ms(seconds)
        return str(max(0, int(seconds or 0)))    # whole seconds: never more than we have

    def _go_command(self, position, limit):
        words = ["go"]
        if limit.depth is not None:
            words += ["depth", str(limit.depth)]
        if limit.nodes is not None:
            words += ["nodes", str(limit.nodes)]
        if limit.movetime is not None:
            words += ["time", self._time(limit.movetime), "movestogo", "1"]
        elif limit.red_clock is not None or limit.black_clock is not None:
            red = red_to_move(position)
            own, opp = (limit.red_clock, limit.black_clock) if red else \
                (limit.black_clock, limit.red_clock)
            inc, oppinc = (limit.red_inc, limit.black_inc) if red else \
                (limit.black_inc, limit.red_inc)
            words += ["time", self._time(own), "increment", self._time(inc),
                      "opptime", self._time(opp), "oppincrement", self._time(oppinc)]
        if limit.infinite:
            words.append("infinite")
        if len(words) == 1:
            raise ValueError("a Limit needs depth, nodes, movetime, clocks or infinite")
        return " ".join(words)


_THINKING = re.compile(r"\s*(\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s*(.*)")
_RESULT = re.compile(r"(1-0|0-1|1/2-1/2)(\s|$)")


def _features(text):
    """`feature a=1 b="x y"` -> [("a", "1"), ("b", "x y")]."""
    return [(k, v.strip('"')) for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', text)]


class XboardEngine(Engine):
    protocol = "xboard"
    FEATURE_WAIT = 2.0      # the protocol's wait for an engine that sends no features

    def _handshake(self, deadline):
        self.features = {}
        self._ping = 0
        self._state = None          # the (fen, moves) the engine's board holds, if known
        self._limit_sent = None     # _limit_key of the limits sent since the last `new`
        self._send("xboard")
        self._send("protover 2")
        quiet_until = min(deadline, time.monotonic() + self.FEATURE_WAIT)
        while self.features.get("done") != "1":
            try:
                _, line = self._read(deadline if self.features else quiet_until)
            except EngineTimeout:
                if self.features:
                    raise
                break                       # protover 1: no features at all
            if line.startswith("feature"):
                for key, value in _features(line):
                    if key == "option":     # option="Name -spin 16 1 4096", may repeat
                        name = value.split(" -")[0].strip()
                        self.options[name.lower()] = (name, value[len(name):].split())
                    else:
                        self.features[key] = value
                    self._send(f"accepted {key}")
        if self.features.get("san") == "1":
            raise EngineProtocolError(f"{self.name} wants SAN moves (san=1); not supported")
        variants = self.features.get("variants")
        if variants is not None and "xiangqi" not in variants.split(","):
            raise UnsupportedError(f"{self.name} does not play xiangqi (variants={variants})")
        if "myname" in self.features:
            self.id["name"] = self.features["myname"]
        # memory and cores are commands of their own; offer them under UCI's names.
        if self.features.get("memory") == "1":
            self.options.setdefault("hash", ("Hash", ["-memory"]))
        if self.features.get("smp") == "1":
            self.options.setdefault("threads", ("Threads", ["-smp"]))
        self._sync()

    def _setoption(self, name, value):
        name, declaration = self._option(name)
        if declaration == ["-memory"]:
            self._send(f"memory {int(value)}")
        elif declaration == ["-smp"]:
            self._send(f"cores {int(value)}")
        elif "-button" in declaration or "-save" in declaration:
            self._send(f"option {name}")
        else:
            self._send(f"option {name}={_value_text(value)}")

    def _sync(self):
        """ping/pong when the engine has ping; an `Illegal move` before the
        pong means our move list and the engine's board disagree."""
        if self.features.get("ping") != "1":
            while not self._lines.empty():       # the best we can do without ping
                item = self._lines.get_nowait()
                if item is None:
                    self._lines.put(None)
                    break
                self._check_rejection(item[1])
            return
        self._ping += 1
        self._send(f"ping {self._ping}")
        deadline = time.monotonic() + SYNC_TIMEOUT
        while True:
            _, line = self._read(deadline)
            if line.strip() == f"pong {self._ping}":
                return
            self._check_rejection(line)

    def _check_rejection(self, line):
        """`Illegal move: X`, or an `Error (...): X` about a move (Fairy-Stockfish
        answers `Error (unkown command): h3e3` to a move it cannot parse)."""
        words = line.split()
        if line.startswith("Illegal move") or \
                (line.startswith("Error") and words and _MOVE.fullmatch(words[-1])):
            raise EngineProtocolError(f"{self.name} rejected a move we sent: {line!r}")

    def _new_game(self):
        for command in ("new", "variant xiangqi", "force", "post", "easy"):
            self._send(command)
        self._state = (None, [])
        self._limit_sent = None
        self._sync()

    def _set_position(self, position):
        fen, moves = position
        fen = engine_fen(fen) if fen and engine_fen(fen) != START_FEN else None
        if fen and self.features.get("setboard") != "1":
            raise UnsupportedError(f"{self.name} cannot take a FEN (no setboard); "
                                   "bring it to the position by moves from the start")
        self._send("force")
        known = self._state
        if known and known[0] == fen and moves[:len(known[1])] == known[1]:
            new_moves = moves[len(known[1]):]
        else:
            self._new_game()
            if fen:
                self._send(f"setboard {fen}")
            new_moves = moves
        prefix = "usermove " if self.features.get("usermove") == "1" else ""
        for move in new_moves:
            self._send(prefix + to_engine_move(move, self.ranks1))
        self._state = (fen, list(moves))

    @staticmethod
    def _limit_key(position, limit):
        red = red_to_move(position)
        clock = limit.red_clock if red else limit.black_clock
        return (limit.depth, limit.movetime, clock is not None,
                limit.red_inc if red else limit.black_inc)

    def _limit_commands(self, position, limit):
        if limit.nodes is not None:
            raise UnsupportedError(f"{self.name}: xboard has no node limit")
        red = red_to_move(position)
        own = limit.red_clock if red else limit.black_clock
        opp = limit.black_clock if red else limit.red_clock
        inc = limit.red_inc if red else limit.black_inc
        if limit.depth is None and limit.movetime is None and own is None:
            raise ValueError("a Limit needs depth, movetime or clocks")
        commands = []
        # Send sd/st/level once per game: `level` restarts an engine's time
        # control; a different limit starts from `new` (see _prepare_search).
        key = self._limit_key(position, limit)
        if key != self._limit_sent:
            self._limit_sent = key
            if limit.depth is not None:
                commands.append(f"sd {limit.depth}")
            if limit.movetime is not None:
                commands.append(f"st {limit.movetime:g}")
            elif own is None:
                # Depth alone: xboard has no "no clock", and the engine's default
                # time control would cut the search short; a day is no clock.
                commands.append("st 86400")
            if own is not None:
                base = max(1, int(own))
                commands.append(f"level 0 {base // 60}:{base % 60:02d} {inc:g}")
        if own is not None:
            commands += [f"time {max(0, round(own * 100))}",
                         f"otim {max(0, round((opp or 0) * 100))}"]
        return commands

    stop_command = "?"

    def _prepare_search(self, position, limit):
        if limit.infinite:
            raise UnsupportedError(f"{self.name}: the client has no infinite analysis over xboard")
        if self._limit_key(position, limit) != self._limit_sent:
            self._state = None   # a new kind of limit: `new` clears the old sd/st/level
        self._set_position(position)
        commands = self._limit_commands(position, limit)
        self._sync()
        for command in commands:
            self._send(command)
        return "go"

    def _search_line(self, line, elapsed):
        """An Info, a PlayResult, or None for a line to ignore."""
        text = line.strip()
        words = text.split()
        if not words:
            return None
        if words[0] == "move" or text.lower().startswith("my move is"):
            move = self._parse_move(words[-1], line)
            self._state = (self._state[0], self._state[1] + [move]) if self._state else None
            return PlayResult(move, elapsed=elapsed)
        if words[0] == "resign":
            self._state = None
            return PlayResult(None, elapsed=elapsed, resigned=True)
        if _RESULT.match(text):
            self._state = None
            return PlayResult(None, elapsed=elapsed, claim=text)
        self._check_rejection(text)
        m = _THINKING.fullmatch(line)
        if m:
            pv = []
            for word in m.group(5).split():
                move = from_engine_move(word, self.ranks1)
                if move:
                    pv.append(move)
            return Info(depth=int(m.group(1)), cp=int(m.group(2)), time=int(m.group(3)) / 100,
                        nodes=int(m.group(4)), pv=pv)
        return None
