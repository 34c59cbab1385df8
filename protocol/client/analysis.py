"""One search of an engine, from `go` to its move: the one state machine
that reads it, stops it and settles it, for every dialect."""
import threading
import time
from typing import TYPE_CHECKING, Dict, List, Optional

from tuong.protocol.client.common import (STOP_GRACE, WAKE, EngineError, EngineTerminated,
                                          Info, PlayResult, Side)

if TYPE_CHECKING:
    from tuong.protocol.client.engine import Engine

class Analysis:
    """One search of an engine, from `go` to its move (see the module
    docstring). Every step takes the engine's lock only while it reads, so a
    loop left between two Infos blocks nobody: the engine's next call stops
    the search.

    Made by `Engine.analyse(position, limit)`, never by the caller
    (`deadline` is a `time.monotonic()` time). Iterating it raises what the
    engine's calls raise (EngineTerminated, EngineTimeout,
    EngineProtocolError); the engine is then ended.

    ```python
    with engine.analyse((None, []), Limit(depth=6)) as analysis:
        for info in analysis:
            print(info.depth, info.cp, info.pv[:3])
    result = analysis.wait()           # the PlayResult (analysis.result: None while it runs)
    print(result.move)
    ```

    A search of several lines (`analyse(..., multipv=3)`) keeps the latest
    Info of each in `lines`, best first; `wait()` then `lines` is the
    blocking form:

    ```python
    analysis = engine.analyse((None, []), Limit(depth=6), multipv=3)
    analysis.wait()
    for info in analysis.lines:
        if info.score is not None:     # None until the engine gave a score
            print(info.multipv, info.pv[0], info.score.red())
    ```
    """

    def __init__(self, engine: "Engine", deadline: float, turn: Optional[Side] = None) -> None:
        self.engine = engine
        """The engine searching."""
        self.turn: Optional[Side] = turn
        """The side to move in the position searched (`"red"` or `"black"`),
        given to every Info of the search as its `turn`."""
        self.result: Optional[PlayResult] = None   # once the engine has moved
        """The search's PlayResult once the engine has moved (after the
        iteration ends, wait() or stop()); None before."""
        self._info = Info(turn=turn)
        # The latest Info of each line, by its multipv. Never changed once made:
        # _add_line makes the next one whole, so `lines`, read from any thread
        # while the search runs, sees one or the other, never one being made.
        self._lines: Dict[int, Info] = {}
        self._deadline = deadline
        self._started = time.monotonic()
        self._running = True
        self._stop_sent = False
        # Held while a stop is asked (from any thread) and while the move is
        # taken: a stop either reaches the search, and the move's reader then
        # syncs past any answer to it, or it sees the search ended and sends
        # nothing (an idle engine may answer a stop: UCCI's `nobestmove`).
        self._stopping = threading.Lock()

    @property
    def info(self) -> Info:
        """The latest main-line (multipv 1) Info, merged field by field."""
        return self._info

    @property
    def lines(self) -> List[Info]:
        """The latest Info of each line of the search, best first (multipv
        1, 2, ...; the engine ranks them), each merged field by field as
        `info` is; the first is `info`. As many as `multipv` asked once the
        engine has reported them (fewer if the position has fewer legal
        moves); a line whose first move a better line has taken since it was
        reported (a search stopped mid-iteration) is left out until reported
        again, so no two lines start with the same move. Only lines with a
        score or a pv count: empty before the first. Search to the end with
        `wait()` (or iterate) before reading it for the final lines; another
        thread may read it while one reads the search."""
        lines = self._lines                 # one whole set of lines (see _add_line)
        return [lines[k] for k in sorted(lines)]

    def __iter__(self) -> "Analysis":
        return self

    def __next__(self) -> Info:
        with self.engine._busy:
            while self._running:
                item = self._step()
                if isinstance(item, Info):
                    return item
        raise StopIteration

    def wait(self) -> PlayResult:
        """Read to the end of the search; returns its PlayResult, with `info`.
        After stop() (or another call stopped it), the move the engine
        stopped with. Raises EngineTerminated if the engine ended before its
        move, EngineTimeout past the search's deadline."""
        with self.engine._busy:
            while self._running:
                self._step()
        if self.result is None:
            raise EngineTerminated(f"{self.engine.name} ended before its move "
                                   f"({self.engine.broken or 'closed'})")
        return self.result

    def request_stop(self) -> None:
        """Ask the engine to stop without waiting for the lock, from any
        thread: the thread reading the analysis (which holds the lock while
        it waits for a line) then reads the move and the iteration ends. For
        an infinite analysis whose next line may be seconds away."""
        with self._stopping:
            if not self._running or self._stop_sent:
                return
            self._stop_sent = True
            # The engine has STOP_GRACE to move, as with stop().
            self._deadline = min(self._deadline, time.monotonic() + STOP_GRACE)
            with self.engine._lock:
                if self.engine.proc.poll() is None and not self.engine.broken:
                    try:
                        self.engine._write(self.engine.stop_command)
                    except (OSError, ValueError):
                        pass
        self.engine._lines.put(WAKE)     # a reader waiting on the old deadline takes the new

    def stop(self) -> None:
        """Stop the search if it is still running and read its move (then in
        `result`). Safe to call twice. An engine that does not stop within
        STOP_GRACE is ended, and its next call raises EngineTerminated
        saying why; stop() itself raises nothing."""
        with self.engine._busy:
            self._stop()

    def __enter__(self) -> "Analysis":
        return self

    def __exit__(self, *exc: object) -> None:
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
            with self._stopping:
                send, self._stop_sent = not self._stop_sent, True
            if send:
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
            with self._stopping:
                self.result = item
                self._end()
                stopped = self._stop_sent
            if stopped:
                # The stop may have crossed the engine's move: an idle engine
                # can answer it (UCCI's `nobestmove`). A sync reads past any
                # such answer, so that no line of this search is taken as
                # the next search's.
                self.engine._sync()
        elif isinstance(item, Info):
            item.turn = self.turn
            self._add_line(item)
        return item

    def _add_line(self, item: Info) -> None:
        """Merge an Info into its line (multipv 1 when it says none) and
        `info`; a line reported with a pv leaves out the worse lines that
        start with its first move (they are older)."""
        number = item.multipv or 1
        if number == 1:
            self._info = merged = self._info.merged(item)
        else:
            merged = self._lines.get(number, Info(turn=self.turn)).merged(item)
        lines = dict(self._lines)           # a new set, put in place when whole
        if merged.pv or merged.cp is not None or merged.mate is not None:
            lines[number] = merged
        if item.pv:
            for other in [k for k, line in lines.items()
                          if k > number and line.pv[:1] == item.pv[:1]]:
                del lines[other]
        self._lines = lines

    def _end(self):
        self._running = False
        if self.engine._analysis is self:
            self.engine._analysis = None
