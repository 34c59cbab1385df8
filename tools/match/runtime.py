"""Where a match's games are played: what tuong-match's threads and a
cluster's workers share.

A Config is a match's settings (tools/match/ reads them from the command
line), EngineSpec one engine's, and schedule() makes its GameSpecs: who
plays which colour from which opening. Players keeps one game slot's engine
processes from game to game and plays a GameSpec with tools/match/referee.py. A
pool runs the games: ThreadPool with `-concurrency` Worker threads here,
tools.cluster's ClusterPool with the same Players on Dask workers. Fatal
(and its kinds) end a run.

Of the tools it imports only the referee and tools.sprt (Config's type):
cluster workers load it to play games, and tools.match and tools.cluster
build on it, never the other way round.
"""
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from tuong.protocol.client import EngineError, UnsupportedError, close_all, open_engine
from tuong.tools.match.referee import BLACK, RED, Player, Rules, TimeControl, play_game
from tuong.tools.match.sprt import Sprt


@dataclass
class EngineSpec:
    name: str
    cmd: str
    proto: str = "uci"
    notation: str = "auto"
    dir: Optional[str] = None
    options: Dict[str, str] = field(default_factory=dict)
    tc: Optional[TimeControl] = None


@dataclass
class Config:
    engines: List[EngineSpec]
    games: int = 2
    rounds: int = 1
    concurrency: int = 1
    tournament: str = "round-robin"
    openings: list = field(default_factory=list)
    pgnout: Optional[str] = None
    sprt: Optional[Sprt] = None
    rules: Rules = field(default_factory=Rules)
    event: str = "tuong-match"
    log: Optional[str] = None
    cluster: Optional[str] = None        # a Dask scheduler's address, or local:N
    resume: bool = False                 # count the -pgnout file's games, play the rest
    drawn_seed: Optional[int] = None     # order=random without -seed: the seed drawn


# -- scheduling --------------------------------------------------------------

@dataclass
class GameSpec:
    number: int
    round: int
    red: int                     # engine indexes
    black: int
    first: int                   # the encounter's first engine (stats are from its side)
    second: int
    opening: tuple
    pair: tuple                  # games sharing an opening, for the pentanomial


def schedule(config):
    n = len(config.engines)
    if config.tournament == "gauntlet":
        encounters = [(0, j) for j in range(1, n)]
    else:
        encounters = [(i, j) for i in range(n) for j in range(i + 1, n)]
    specs = []
    for round_ in range(config.rounds):
        for first, second in encounters:
            for g in range(config.games):
                # k counts the encounter's games across rounds: the opening,
                # the colours and the pentanomial pair all follow it, so a
                # pair is one opening played with colours reversed whatever
                # -games is (odd counts pair a round's last game with the
                # next round's first).
                k = round_ * config.games + g
                opening = config.openings[(k // 2) % len(config.openings)]
                red, black = (first, second) if k % 2 == 0 else (second, first)
                specs.append(GameSpec(len(specs) + 1, round_ + 1, red, black, first, second,
                                      opening, (first, second, k // 2)))
    return specs


# -- running -----------------------------------------------------------------

class Fatal(Exception):
    """Something no game can go on with (an engine that will not start, a
    FEN for an engine that cannot take one)."""


class EngineStartError(Fatal):
    """An engine that does not start, or refuses its options."""


class Aborted(Fatal):
    """The run cannot go on, but the games finished so far stand (a
    cluster's scheduler went away); tools.match's run() sets `stats` on it."""
    stats = None


class Interrupted(Exception):
    """A SIGTERM: the run stops as for a Ctrl-C, keeping its finished games."""


class Players:
    """The engine processes one game slot keeps from game to game, so that
    no two games share a process or a clock: each engine is started on first
    use and configured, and started afresh when it has died or forfeited.
    The thread pool has one per thread, a cluster worker one per task thread."""

    def __init__(self, specs, log=None, stderr=subprocess.DEVNULL):
        self.specs, self.log, self.stderr = specs, log, stderr
        self.engines = {}

    def _log(self, text):                  # self.log may change from game to game
        if self.log:
            self.log(text)

    def engine(self, index):
        engine = self.engines.get(index)
        if engine is not None and engine.alive:
            return engine
        if engine is not None:
            engine.close()
        spec = self.specs[index]
        try:
            # With -log, the transcript and the engines' stderr share the log file.
            engine = open_engine(spec.cmd, spec.proto, name=spec.name, notation=spec.notation,
                                 cwd=spec.dir, log=self._log,
                                 stderr=self.stderr)
        except (EngineError, ValueError) as e:
            raise EngineStartError(f"cannot start {spec.name} ({spec.cmd}): {e}") from e
        try:
            engine.configure(spec.options)
        except EngineError as e:
            engine.close()
            raise EngineStartError(f"{spec.name}: {e}") from e
        self.engines[index] = engine
        return engine

    def play(self, job, rules, stop=None):
        """Play one GameSpec; the finished Game."""
        players = {}
        for side, index in ((RED, job.red), (BLACK, job.black)):
            spec = self.specs[index]
            engine = self.engine(index)
            try:
                engine.new_game()
            except EngineError:
                engine = self.engine(index)     # it died between games: one restart
                engine.new_game()
            players[side] = Player(spec.name, engine, spec.tc)
        try:
            game = play_game(players[RED], players[BLACK], job.opening, rules, stop)
        except UnsupportedError as e:
            raise Fatal(str(e)) from e
        if game.forfeit:                         # a forfeiting engine starts afresh
            failed = job.red if game.forfeit == RED else job.black
            self.engines.pop(failed).close()
        return game

    def close(self):
        engines, self.engines = list(self.engines.values()), {}
        for engine in engines:
            engine.close()


class Worker(threading.Thread):
    """Plays games one after another with engines of its own."""

    def __init__(self, number, config, jobs, results, stop, log_file):
        super().__init__(daemon=True, name=f"worker-{number}")
        self.config, self.jobs, self.results, self.stop = config, jobs, results, stop
        self.log_file = log_file
        self.players = Players(config.engines, self.log if log_file else None,
                               log_file or subprocess.DEVNULL)

    log_lock = threading.Lock()           # the workers share one -log file

    def log(self, text):
        with self.log_lock:
            self.log_file.write(f"{time.monotonic():.3f} {self.name} {text}\n")

    def run(self):
        try:
            while not self.stop.is_set():
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    return
                game = self.players.play(job, self.config.rules, self.stop)
                if not self.stop.is_set():
                    self.results.put((job, game))
        except Fatal as e:
            self.results.put((None, e))
        except Exception as e:             # a bug: report it rather than hang the match
            self.results.put((None, Fatal(f"{type(e).__name__}: {e}")))
        finally:
            self.players.close()


class ThreadPool:
    """Where games run without a cluster: `-concurrency` threads of this
    process, each with its Players. A pool (this one, or tools.cluster's
    ClusterPool) has start(specs), games() (yields (job, game) as games
    finish; raises Fatal) and close() (stops what still runs)."""

    def __init__(self, config, log_file, stream=None):
        self.config, self.log_file = config, log_file
        self.jobs, self.results, self.stop = queue.Queue(), queue.Queue(), threading.Event()
        self.workers = []

    def start(self, specs):
        for spec in specs:
            self.jobs.put(spec)
        self.workers = [Worker(n + 1, self.config, self.jobs, self.results, self.stop,
                               self.log_file)
                        for n in range(min(self.config.concurrency, len(specs)))]
        for worker in self.workers:
            worker.start()

    def games(self):
        while True:
            try:
                job, game = self.results.get(timeout=0.2)
            except queue.Empty:
                if not any(w.is_alive() for w in self.workers) and self.results.empty():
                    return
                continue
            if job is None:
                raise game
            yield job, game

    def close(self):
        self.stop.set()
        close_all()                  # unblocks workers waiting on an engine
        for worker in self.workers:
            worker.join(5)
        close_all()                  # anything a worker started while we stopped
