"""The engine process every dialect shares: starting it, its lines, the
one lock that lets one call talk to it at a time, and ending it."""
import atexit
import contextlib
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from typing import (
    IO, Any, Callable, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union)

from tuong.protocol.client.analysis import Analysis
from tuong.protocol.client.common import (
    _GAME_MOVE, QUIT_GRACE, SEARCH_TIMEOUT, STARTUP_TIMEOUT, WAKE, EngineError, EngineProtocolError,
    EngineTerminated, EngineTimeout, Limit, PlayResult, Position, PositionRefused, Protocol,
    UnsupportedError, _int, engine_fen, from_engine_move, red_to_move)

_LIVE: "weakref.WeakSet[Engine]" = weakref.WeakSet()   # every started engine, for close_all()
_E = TypeVar("_E", bound="Engine")


def close_all() -> None:
    """Close every engine still running (at exit, on Ctrl-C)."""
    for engine in list(_LIVE):
        engine.close()


atexit.register(close_all)


def _tuong_command(argv: List[str]) -> List[str]:
    """`argv` itself, except `["tuong"]` when no `tuong` is on PATH (a virtual
    environment that is not activated): then the tuong of the running
    interpreter, `[sys.executable, "-m", "tuong.protocol"]`."""
    if argv == ["tuong"] and shutil.which("tuong") is None:
        return [sys.executable, "-m", "tuong.protocol"]
    return argv


class Engine:
    """One engine process; a subclass speaks its dialect (UciEngine,
    UcciEngine, XboardEngine). Made by `open_engine`, which takes the same
    arguments; a context manager that closes the engine.

    Starting it runs the handshake (within `startup_timeout` seconds) and
    fills `id` and `options`. Raises ValueError for an unknown `notation`,
    EngineTerminated when the program cannot be started or exits,
    EngineTimeout when it does not finish its handshake in time, and
    UnsupportedError when it cannot play Xiangqi (an xboard engine whose
    `variants` lack xiangqi); the process is ended before the error
    propagates.

    ```python
    with open_engine("tuong") as engine:
        print(engine.name, engine.id.get("name"), sorted(engine.options))
    ```
    """
    protocol: ClassVar[Protocol]
    """The dialect: `"uci"`, `"ucci"` or `"xboard"` (each subclass its own)."""
    variant = "xiangqi"                     # UCI_Variant, as last configured
    """The game, as `UCI_Variant` was last configured (`"xiangqi"` unless changed)."""

    def __init__(self, command: Union[str, Sequence[str]], *, name: Optional[str] = None,
                 notation: str = "auto", env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None, startup_timeout: float = STARTUP_TIMEOUT,
                 log: Optional[Callable[[str], None]] = None,
                 stderr: Union[int, IO[bytes], None] = subprocess.DEVNULL) -> None:
        if notation not in ("auto", "ranks0", "ranks1"):
            raise ValueError(f"unknown notation {notation!r}: use ranks0, ranks1 or auto")
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.name: str = name or os.path.basename(argv[0])
        """The label of the engine in errors and the transcript: the `name`
        given to open_engine, else the program's file name (`"tuong"`). The
        name the engine gives itself is `id["name"]`."""
        self.argv: List[str] = _tuong_command(argv)
        """The command line the engine was started with, as a list
        (`[sys.executable, "-m", "tuong.protocol"]` for a `"tuong"` not on PATH)."""
        self.notation: str = notation
        """How the engine writes ranks: `"ranks0"` (0-9) or `"ranks1"`
        (1-10), found out after the handshake when `"auto"` was asked."""
        self.log = log                      # callable(text) for an I/O transcript, or None
        """Called with every line sent (`"name < line"`) and read
        (`"name > line"`), or None."""
        self.id: Dict[str, str] = {}        # id name / author (xboard: myname)
        """What the engine says of itself: `{"name": ..., "author": ...}` from
        UCI/UCCI `id` lines; xboard's `myname` feature as `"name"`."""
        self.options: Dict[str, Tuple[str, List[str]]] = {}
        """The options the engine declared, by lowercased name: `(name as
        declared, the declaration's words)`, e.g. `"hash": ("Hash", ["type",
        "spin", "default", "16", "min", "1", "max", "33554432"])`. `configure`
        takes these names in any case. An xboard engine's `memory` and `smp`
        features appear as `Hash` and `Threads`."""
        self.broken: Optional[str] = None   # the error that ended this engine
        """Why the engine was ended after a failure (the error's text), or None."""
        self._lock = threading.Lock()       # close()'s, so it never waits for a search
        # One operation at a time. Reentrant: play() is an analysis run to its
        # end under one hold, and a call ends the open analysis under its own.
        self._busy = threading.RLock()
        self._analysis = None               # the search not yet over, if any
        # MultiPV: the engine's own value (what configure() set and the engine
        # took; None: never set, its declared default or 1), and the one
        # analyse(multipv=) set for its search, until set back (None: the
        # engine holds its own).
        self._own_multipv: Any = None
        self._search_multipv: Optional[int] = None
        # (arrival time, line), None at EOF
        self._lines: "queue.Queue[Optional[Tuple[float, str]]]" = queue.Queue()
        try:
            # A session of its own: a Ctrl-C in the terminal reaches only us, and
            # we end engines ourselves in a known order (see close()).
            self.proc: "subprocess.Popen[str]" = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr, text=True, bufsize=1, errors="replace",
                env=env, cwd=cwd, start_new_session=True)
            """The engine's process (its pid; its return code once it has exited)."""
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

    def configure(self, options: Dict[str, Any]) -> None:
        """Set options by name (case-insensitive, as in `options`) to their
        values (bools are sent as `true`/`false`). An unknown name raises
        UnsupportedError before anything is sent, and so does a value the
        engine says it refused (tuong's `info string error: ...`), after
        the others are set: a match must not play on with the engine's old
        value (say, its own network instead of the one asked for). Setting
        `UCI_Variant` changes `variant`. Raises EngineTerminated or
        EngineTimeout if the engine exits or does not answer."""
        with self._operation():
            for name in options:
                self._option(name)
            refusals: List[str] = []
            unsynced = False                # options sent since the last sync
            for name, value in options.items():
                lines = name.lower() == "multipv"
                if lines and unsynced:      # the refusals of the options before it
                    refusals += self._refusals()
                self._setoption(name, value)
                unsynced = True
                if name.lower() == "uci_variant":
                    self.variant = str(value).lower()
                if lines:
                    # A sync of its own: the value becomes the engine's own (what a
                    # search of other lines sets back) only if the engine takes it; a
                    # refused one leaves the engine's value as it was.
                    refused = self._refusals()
                    refusals += refused
                    unsynced = False
                    if not refused:
                        self._own_multipv, self._search_multipv = value, None
            refusals += self._refusals()
        if refusals:
            raise UnsupportedError(f"{self.name} refused an option: {'; '.join(refusals)}")

    def new_game(self) -> None:
        """Tell the engine a new game starts (`ucinewgame`; xboard `new`):
        it clears what it learned of the last one. Raises EngineTerminated
        or EngineTimeout if the engine exits or does not answer."""
        with self._operation():
            self._new_game()

    def play(self, position: Position, limit: Limit,
             timeout: Optional[float] = None) -> PlayResult:
        """Search `position`, `(start FEN or None, moves)`, within `limit`;
        returns the PlayResult of the search (its `move` None if the engine
        resigned or has none). `timeout` (seconds) bounds the wait: by
        default the limit's movetime or clock plus 5 s, and SEARCH_TIMEOUT
        (60 s) plus 5 for a depth or node limit; an engine past it is ended
        (EngineTimeout). An infinite limit is for analyse(), which can be
        stopped: ValueError here. A FEN or move that is not legal raises
        PositionRefused before anything is sent; a limit the engine cannot
        take (nodes over xboard) UnsupportedError; an engine that exits
        EngineTerminated, one that answers nonsense EngineProtocolError."""
        if limit.infinite:
            raise ValueError("play() with an infinite limit would never end: use analyse() "
                             "and stop it")
        with self._busy:
            return self._start(position, limit, timeout).wait()

    def analyse(self, position: Position, limit: Limit,
                timeout: Optional[float] = None,
                multipv: Optional[int] = None) -> Analysis:
        """Start searching `position`, `(start FEN or None, moves)`, within
        `limit`; returns the Analysis to read it from (iterate it for each
        Info) and stop it. `timeout` as for play(); an infinite limit runs
        until stopped.

        `multipv` asks for that many lines, the best moves each with its
        own score and pv (`Analysis.lines`, best first): the engine's
        MultiPV option is set for this search, and set back to its own
        value (what configure() gave it, if the engine took it; else its
        declared default, or 1 where it declares none) before the next
        search without `multipv`. UCI engines have the option; a UCCI
        engine only if it declares one (Fairy-Stockfish and tuong do,
        ElephantEye does not); xboard has none. Raises ValueError for a `multipv` below 1,
        UnsupportedError (the engine stays usable) for more than one line
        from an engine without the option, or more than it declares it
        takes; otherwise as play() does, except for the infinite limit."""
        if multipv is not None and (isinstance(multipv, bool) or not isinstance(multipv, int)
                                    or multipv < 1):
            raise ValueError(f"multipv is a number of lines, 1 or more: not {multipv!r}")
        return self._start(position, limit, timeout, multipv)

    def close(self) -> None:
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
                if self.proc.stdin is not None:     # always: the engine's stdin is a pipe
                    self.proc.stdin.close()
            except OSError:
                pass
        # stdout is the reader thread's to close: closing it here could block
        # on the reader's lock if a grandchild still holds the pipe open.
        _LIVE.discard(self)

    @property
    def alive(self) -> bool:
        """Whether the engine is running and usable (not ended by a failure,
        not closed)."""
        return self.broken is None and self.proc.poll() is None

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(self, *exc: object) -> None:
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
        if self.log and item is not WAKE:
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
        UnsupportedError and PositionRefused do not."""
        with self._busy:
            if self._analysis is not None and self._analysis is not analysis:
                self._analysis._stop()
            if self.broken:
                raise EngineTerminated(f"{self.name} is not running ({self.broken})")
            try:
                yield
            except (UnsupportedError, PositionRefused):
                raise
            except EngineError as e:
                self.broken = str(e)
                self._kill()
                self.close()
                raise

    @property
    def ranks1(self) -> bool:
        """Whether the engine numbers ranks 1-10 (`notation == "ranks1"`)."""
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

    # -- what each dialect provides (uci.py, ucci.py, xboard.py) ----------------

    def _handshake(self, deadline):
        raise NotImplementedError

    def _setoption(self, name, value):
        raise NotImplementedError

    def _sync(self):
        """Read up to the engine's answer to a sync (isready, ping); the
        lines read before it."""
        raise NotImplementedError

    def _refusal(self, line):
        """Whether a line answering setoption says the value was refused."""
        return False

    def _new_game(self):
        raise NotImplementedError

    def _prepare_search(self, position, limit):
        """The commands up to `go`; returns the go line."""
        raise NotImplementedError

    def _search_line(self, line, elapsed):
        """A line of a search -> Info, PlayResult or None."""
        raise NotImplementedError

    def _check_position(self, position):
        """In Xiangqi, PositionRefused for a FEN or a move that tuong's own
        board refuses (a general outside its palace, the side not to move in
        check, an illegal or malformed move), before anything is sent: the
        engine keeps its last good position and nothing of it is searched.
        Other games are left to the engine, whose refusal the dialect reads
        after `position` (_position_refused)."""
        if self.variant != "xiangqi":
            return
        from tuong.engine.board import Board
        fen, moves = position
        try:
            board = Board(engine_fen(fen)) if fen else Board()
        except ValueError as e:
            raise PositionRefused(f"{self.name}: not sent: the FEN {fen!r} is not a legal "
                                  f"Xiangqi position ({e})") from None
        for number, move in enumerate(moves, 1):
            try:
                board.push(move)
            except (ValueError, TypeError) as e:
                raise PositionRefused(f"{self.name}: not sent: move {number} {move!r} of the "
                                      f"position is illegal ({e})") from None

    def _position_refused(self, position, refusals):
        """PositionRefused if the engine answered `position` with refusals
        (its lines, read up to the sync after it). The engine stays usable."""
        if refusals:
            fen, moves = position
            raise PositionRefused(
                f"{self.name} refused the position ({fen or 'the initial position'}, "
                f"{len(moves)} moves): {'; '.join(line.strip() for line in refusals)}")

    def _start(self, position, limit, timeout, multipv=None):
        """Send a search; the Analysis that reads it. A dialect provides
        _prepare_search (commands up to `go`; returns the go line),
        _search_line (a line -> Info, PlayResult or None) and stop_command.
        A position refused (_check_position, or by the engine) raises
        PositionRefused and sends no `go`; `multipv` lines the engine cannot
        give, UnsupportedError (_lines_option)."""
        self._check_position(position)
        with self._operation():
            self._set_lines(multipv)
            go = self._prepare_search(position, limit)
            deadline = self._deadline(position, limit, timeout)
            self._send(go)
            # Open until its move, even for play(): a play() interrupted
            # (Ctrl-C) leaves a search that the next call must stop.
            self._analysis = Analysis(self, deadline,
                                      "red" if red_to_move(position) else "black")
            return self._analysis

    def _lines_option(self, multipv):
        """The engine's MultiPV option as declared, `(name, declaration)`, for
        a search of `multipv` lines; None when it has none and one line is
        asked. UnsupportedError for more lines than the engine can give."""
        found = self.options.get("multipv")
        if found is None:
            if multipv > 1:
                raise UnsupportedError(f"{self.name} has no MultiPV option: it searches one "
                                       f"line, not {multipv}")
            return None
        words = found[1]
        if "max" in words[:-1] and _int(words[words.index("max") + 1]) is not None \
                and multipv > int(words[words.index("max") + 1]):
            raise UnsupportedError(f"{self.name} searches at most "
                                   f"{words[words.index('max') + 1]} lines (MultiPV), "
                                   f"not {multipv}")
        return found

    def _set_lines(self, multipv):
        """Set MultiPV for a search of `multipv` lines (None: the engine's
        own value, set back if a search changed it). A value the engine
        refuses raises UnsupportedError."""
        if multipv is None and self._search_multipv is None:
            return
        option = self._lines_option(multipv or 1)
        if option is None:
            return
        name, words = option
        own = self._own_multipv
        if own is None:
            own = _int(words[words.index("default") + 1]) \
                if "default" in words[:-1] else None
        current = self._search_multipv if self._search_multipv is not None else own
        if multipv is None:                     # set back the engine's own value
            self._search_multipv = None
            if own is None:                     # none declared, none configured: one line,
                own = 1                         # what a search without `multipv` asks for
            if current != own:
                self._setoption(name, own)
                self._lines_refused()
            return
        if multipv != current:
            self._search_multipv = multipv
            self._setoption(name, multipv)
            self._lines_refused()

    def _refusals(self):
        """Sync; the lines read before the answer that refuse an option (stripped)."""
        return [line.strip() for line in self._sync() if self._refusal(line)]

    def _lines_refused(self):
        refusals = self._refusals()
        if refusals:
            raise UnsupportedError(f"{self.name} refused MultiPV: {'; '.join(refusals)}")

    def _deadline(self, position, limit, timeout):
        """A search's deadline: the caller's timeout, else one from the limit."""
        if timeout is None and limit.infinite:
            timeout = 7 * 24 * 3600.0           # an analysis ends when it is stopped
        if timeout is None:
            clock = limit.red_clock if red_to_move(position) else limit.black_clock
            timeout = (limit.movetime or clock or SEARCH_TIMEOUT) + 5.0
        return time.monotonic() + timeout
