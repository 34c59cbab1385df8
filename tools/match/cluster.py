"""tuong-match -cluster ADDRESS: every game is a task on a Dask cluster.

Only where a game is played changes: tools/match/ schedules the games,
writes the PGN, keeps the statistics, the live line and the SPRT as without
a cluster; ClusterPool is the pool it draws finished games from, in place
of tools.runtime's ThreadPool.

On a worker, a game task runs the same code as a -concurrency thread:
tools.runtime.Players starts the engines by their commands (so every worker
needs tuong and the engines installed, at those commands), configures
them, and plays with tools.referee. A task thread keeps its engines for
the next game of the same run (restarted after a crash or a forfeit, as
with threads), which saves starting two processes per game.

Before any game, a check task on every connected worker starts every
engine, waits for its handshake, sets its options and compares the
worker's tuong (the referee, board, runtime and client sources) with ours.
A worker that fails is reported by name and left out of the run: the games
are then restricted to the hosts (or, on a host where some worker failed,
the workers) that passed.

Faults. A worker that dies mid-game takes only that game with it: the
scheduler gives the task to another worker (a task whose workers died
more than `distributed.scheduler.allowed-failures` times, 3 by default,
ends the run), and a task's result arrives once, so it is counted once. A
game whose engine hangs is forfeited by the referee's clocks as always. A
worker that joins later and cannot start an engine is left out then; its
game is played again elsewhere. A scheduler that goes away ends the run
with Aborted: every finished game is already in the PGN.

Stopping (an SPRT decision, Ctrl-C, a fault): the queued games are
cancelled, the games still running are told to stop (their engines are
closed), the client is closed, and so is a local cluster we started.
"""
import asyncio
import collections
import contextlib
import hashlib
import logging
import os
import queue
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import dask
import distributed
from distributed import Client, KilledWorker, LocalCluster
from distributed.client import FutureCancelledError
from distributed.diagnostics.plugin import WorkerPlugin

from tuong.tools.match.runtime import Aborted, EngineStartError, Fatal, Players

CONNECT_TIMEOUT = 10.0     # seconds to reach a scheduler
WORKER_WAIT = 60.0         # seconds to wait for a first worker to join
CHECK_MARGIN = 20.0        # seconds for a check task beyond its engines' handshakes
MAX_REPLAYS = 3            # a game that meets this many unfit workers ends the run
WINDOW_REFRESH = 10.0      # seconds between looks at the number of worker threads
# A worker closes a run's engines once no task of the run has run there for
# LEASE seconds: long enough for the gaps between one thread's games, short
# enough that a killed tuong-match does not leave engines for long.
LEASE = 60.0
REAP_INTERVAL = 1.0

# Dask's housekeeping for a local cluster (docs/guide/cluster.md: the same as environment
# variables for workers started by hand). A game task needs no statistical
# profiler (it walks the game thread's stack every 10 ms), no event-loop
# health tick every 20 ms, no system sample every 0.5 s, no memory check
# every 0.1 s: measured, the scheduler, nannies and two workers then take
# 1.3% of a core while games play instead of 7%.
QUIET_WORKERS = {"distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s",
                 "distributed.worker.memory.monitor-interval": "1s"}


# -- on the workers ----------------------------------------------------------

class Unfit(Exception):
    """A worker that cannot start an engine (raised by a game task)."""

    def __init__(self, address, name, message):
        super().__init__(address, name, message)
        self.address, self.name, self.message = address, name, message

    def __str__(self):
        return f"worker {self.name} ({self.address}): {self.message}"


class _Run:
    """One tuong-match run, as a worker process sees it. Its engines are
    held on a lease: a run with no task running here for `lease` seconds
    has its engines closed by the reaper, so a tuong-match that was killed
    or lost its scheduler (and so never sent end_run) leaves nothing
    running. A later task of a run that is still alive simply starts its
    engines again."""

    def __init__(self, lease):
        self.stop = threading.Event()
        self.players = []               # every task thread's Players of this run
        self.lease = lease
        self.active = 0                 # tasks of this run running here now
        self.last_active = time.monotonic()


_runs: dict = {}
_runs_lock = threading.Lock()
# Runs that end_run ended here: a task of theirs still queued is refused.
# Bounded (oldest forgotten first): a worker lives through many runs.
_ended: collections.OrderedDict = collections.OrderedDict()
ENDED_MEMORY = 1024
_thread = threading.local()             # .current = (run id, _Run, Players) of this task thread
_reaper = None                          # the thread that ends runs whose lease ran out


def _worker_identity():
    try:
        worker = distributed.get_worker()
        return worker.address, str(worker.name)
    except ValueError:                  # not on a worker (called directly)
        return "local", socket.gethostname()


@contextlib.contextmanager
def _players(run_id, specs, lease):
    """This task thread's Players for the run, held (the run's lease cannot
    run out) until the block ends; (None, None) once the run has ended. The
    lease is the submitter's, else this worker's LEASE."""
    _start_reaper()
    with _runs_lock:
        if run_id in _ended:
            yield None, None
            return
        run = _runs.get(run_id)
        if run is None:
            run = _runs[run_id] = _Run(LEASE if lease is None else lease)
        run.active += 1
    try:
        current = getattr(_thread, "current", None)
        if current is not None and current[1] is run:
            players = current[2]
        else:
            if current is not None:     # engines of an earlier (or reaped) run
                current[2].close()
            players = Players(specs)
            _thread.current = (run_id, run, players)
            with _runs_lock:
                run.players.append(players)
        yield run, players
    finally:
        with _runs_lock:
            run.active -= 1
            run.last_active = time.monotonic()


def _close_run(run):
    run.stop.set()
    for players in run.players:
        players.close()


def _reap_forever():
    """Close the engines of every run whose lease ran out (see _Run)."""
    while True:
        time.sleep(REAP_INTERVAL)
        now = time.monotonic()
        with _runs_lock:
            expired = [run_id for run_id, run in _runs.items()
                       if run.active == 0 and now - run.last_active > run.lease]
            runs = [_runs.pop(run_id) for run_id in expired]
        for run in runs:
            _close_run(run)


def _start_reaper():
    global _reaper
    with _runs_lock:
        if _reaper is None:
            _reaper = threading.Thread(target=_reap_forever, daemon=True, name="tuong-reaper")
            _reaper.start()


def play_task(run_id, specs, rules, job, log=False, lease=None):
    """A game task: (Game, transcript lines), or None for a run that ended."""
    address, name = _worker_identity()
    transcript = []
    with _players(run_id, specs, lease) as (run, players):
        if run is None:
            return None
        players.log = (lambda text: transcript.append(f"{time.monotonic():.3f} {name} {text}")) \
            if log else None
        try:
            game = players.play(job, rules, run.stop)
        except EngineStartError as e:
            players.close()
            raise Unfit(address, name, str(e)) from None
        finally:
            if run.stop.is_set():           # end_run may have raced an engine (re)start
                players.close()
    return game, transcript


_digest = None


def build_digest():
    """A digest of the code that judges and plays games here (the referee,
    the board it asks, tools/match/runtime.py's Players, the engine client, this
    module): a worker must agree with the machine that runs tuong-match."""
    global _digest
    if _digest is None:
        here = Path(__file__).resolve().parent
        root = here.parents[1]
        files = [here / "referee.py", here / "runtime.py", here / "cluster.py"]
        files += sorted((root / "protocol").glob("client*.py")) + \
            sorted((root / "protocol").glob("client/*.py"))
        engine = root / "engine"
        files += sorted(engine.glob("*.pyx")) + sorted(engine.glob("*.pxd"))
        h = hashlib.sha256()
        for path in files:
            h.update(path.name.encode() + b"\0")
            h.update(path.read_bytes() if path.exists() else b"(missing)")
        _digest = h.hexdigest()[:16]
    return _digest


def check_task(run_id, specs, log=False, lease=None):
    """Start every engine here (they stay for this thread's first game);
    a dict: host, digest, error (None when all is well)."""
    report = {"host": socket.gethostname(), "digest": build_digest(), "error": None}
    with _players(run_id, specs, lease) as (run, players):
        if run is None:
            report["error"] = "the run has ended"
            return report
        try:
            for index in range(len(specs)):
                players.engine(index)
        except EngineStartError as e:
            players.close()
            report["error"] = str(e)
    return report


async def end_run(run_id):
    """Run by client.run on every worker when the run stops: games still
    playing stop at their next move (their engines are closed under them),
    and the run's engines are closed. A coroutine, so that the worker's
    event loop goes on while engines quit."""
    with _runs_lock:
        _ended[run_id] = True
        while len(_ended) > ENDED_MEMORY:
            _ended.popitem(last=False)
        run = _runs.pop(run_id, None)
    if run is not None:
        await asyncio.get_running_loop().run_in_executor(None, _close_run, run)


class IgnoreCtrlC(WorkerPlugin):
    """The worker processes of a local cluster share our terminal's process
    group: a Ctrl-C meant for tuong-match would kill them mid-game, each with
    a traceback. They let it pass (a no-op handler, so engines they start
    still get the default); tuong-match then stops them in order."""

    def setup(self, worker):
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, lambda signum, frame: None)


# -- on the machine that runs tuong-match --------------------------------------

def _quiet_distributed():
    """Dask logs its own view of faults (a lost scheduler, a dead worker) to
    stderr; we report them ourselves, in one sentence. Returns the levels to
    restore."""
    names = ["distributed", "tornado"] + [
        name for name in logging.root.manager.loggerDict
        if name.startswith(("distributed.", "tornado."))]
    saved = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return saved


class ClusterPool:
    """The games of a run as tasks on a Dask cluster (see the module doc)."""

    def __init__(self, config, log_file, stream):
        self.config, self.log_file, self.stream = config, log_file, stream
        self.address = config.cluster
        self.run_id = uuid.uuid4().hex[:12]
        self.cluster = self.client = None
        self.futures = {}                # key -> (future, job, replays)
        self.results = queue.Queue()     # (kind, key, payload) from the callback thread
        self.good, self.bad = {}, {}     # address -> host of the workers that passed / failed
        self.restriction = None          # workers= for the games, None: any worker
        self.task = play_task            # tools/match/cluster_bench.py times a stand-in
        self.waiting = collections.deque()   # games not submitted yet
        self.window, self.window_time = 16, -WINDOW_REFRESH
        self.log_levels = {}
        self.lease = None                # the workers' own LEASE (see _Run)

    def say(self, text):
        self.stream.write(text + "\n")
        self.stream.flush()

    # -- starting --------------------------------------------------------------

    def start(self, specs):
        self.connect()
        self.check_workers()
        self.submit(specs)

    def submit(self, specs):
        self.waiting.extend(specs)
        self._fill()

    def _fill(self):
        """Keep about two games per worker thread at the scheduler (at least
        16): it then holds a bounded number of tasks however long the run, a
        worker that finishes a game finds the next one there, a worker that
        joins finds games too, and an SPRT decision has little to cancel."""
        now = time.monotonic()
        if now - self.window_time > WINDOW_REFRESH and self.client.status == "running":
            try:
                threads = sum(self.client.nthreads().values())
                self.window, self.window_time = max(16, 2 * threads + 8), now
            except Exception:            # the scheduler is unwell: games() will say so
                pass
        while self.waiting and len(self.futures) < self.window:
            self._submit(self.waiting.popleft())

    def connect(self):
        self.log_levels = _quiet_distributed()
        name, _, count = self.address.partition(":")
        if name == "local":
            workers = int(count) if count else os.cpu_count() or 1
            self.say(f"Starting a local Dask cluster of {workers} worker processes")
            with dask.config.set(QUIET_WORKERS):
                self.cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.CRITICAL,
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})  # not 8787
            self.client = Client(self.cluster, set_as_default=False)
            self.client.register_plugin(IgnoreCtrlC(), name="tuong-ignore-ctrl-c")
            self.address = self.cluster.scheduler_address
            return
        try:
            self.client = Client(self.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise Fatal(f"cannot reach the Dask scheduler at {self.address}: {e}") from None

    def _workers(self):
        """address -> (name, host) of the workers connected now."""
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        return {address: (str(w.get("name", address)), w.get("host", "?"))
                for address, w in info.items()}

    def check_workers(self):
        if not self._workers():
            self.say(f"Waiting for workers to join {self.address}")
            try:
                self.client.wait_for_workers(1, timeout=WORKER_WAIT)
            except (TimeoutError, OSError):
                raise Fatal(f"no worker joined the Dask scheduler at {self.address} "
                            f"in {WORKER_WAIT:g} s") from None
        workers = self._workers()
        specs = self.config.engines
        futures = {address: self.client.submit(
            check_task, self.run_id, specs, lease=self.lease,
            key=f"tuong-check-{self.run_id}-{address}",
            workers=[address], allow_other_workers=False, pure=False)
            for address in workers}
        timeout = len(specs) * 10.0 + CHECK_MARGIN
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(not f.done() for f in futures.values()):
            time.sleep(0.05)
        ours = build_digest()
        for address, future in futures.items():
            name, host = workers[address]
            if future.status == "finished":
                report = future.result()
                if report["error"]:
                    reason = report["error"]
                elif report["digest"] != ours:
                    reason = ("its tuong differs from this one (referee, board or client "
                              "sources): install the same version on every worker")
                else:
                    self.good[address] = host
                    continue
            elif future.status == "error":
                reason = f"{type(future.exception()).__name__}: {future.exception()}"
            else:
                reason = f"no answer in {timeout:g} s (or the worker left)"
                future.cancel()
            self.bad[address] = host
            self.say(f"Worker {name} ({address}) is left out: {reason}")
        if not self.good:
            raise Fatal(f"no worker of the Dask cluster at {self.address} can play "
                        f"these engines (see above)")
        self._restrict()
        workers, hosts = len(self.good), len(set(self.good.values()))
        self.say(f"Dask cluster {self.address}: {workers} worker{'s' if workers > 1 else ''} "
                 f"on {hosts} host{'s' if hosts > 1 else ''} start every engine")

    def _restrict(self):
        """Games go anywhere while no worker has failed (so workers that a
        nanny restarts, or that join on a checked host, are used); else to
        the hosts where every worker passed, and the passing workers of the
        other hosts."""
        if not self.bad:
            self.restriction = None
            return
        bad_hosts = set(self.bad.values())
        self.restriction = sorted({h for h in self.good.values() if h not in bad_hosts} |
                                  {a for a, h in self.good.items() if h in bad_hosts})

    def _submit(self, job, replays=0):
        key = f"tuong-game-{self.run_id}-{job.number}-{replays}"
        future = self.client.submit(
            self.task, self.run_id, self.config.engines, self.config.rules, job,
            bool(self.log_file), lease=self.lease, key=key, priority=-job.number,
            workers=self.restriction, allow_other_workers=False)
        self.futures[key] = (future, job, replays)
        future.add_done_callback(self._done)

    # -- results ---------------------------------------------------------------

    def _done(self, future):
        """In Dask's callback thread: fetch the result, hand it to games()."""
        try:
            if future.status == "finished":
                item = ("game", future.result())
            elif future.status == "cancelled":
                item = ("cancelled", None)
            else:
                item = ("error", future.exception())
        except FutureCancelledError:
            item = ("cancelled", None)
        except Exception as e:          # the result could not be fetched
            item = ("error", e)
        self.results.put((item[0], future.key, item[1]))

    def games(self):
        while self.futures or self.waiting:
            try:
                kind, key, payload = self.results.get(timeout=0.5)
            except queue.Empty:
                if self.client.status not in ("running", "newly-created"):
                    raise self._lost() from None
                continue
            entry = self.futures.pop(key, None)
            if entry is None:
                continue
            _, job, replays = entry
            if kind == "cancelled":
                raise self._lost()
            if kind == "error":
                self._failed(job, replays, payload)
            elif payload is None:
                raise Fatal(f"game {job.number}: a worker says this run has ended")
            else:
                game, transcript = payload
                if self.log_file and transcript:
                    self.log_file.write("\n".join(transcript) + "\n")
                yield job, game
            self._fill()

    def _lost(self):
        return Aborted(f"lost the Dask scheduler at {self.address}; "
                       f"the finished games are kept" +
                       (f" in {self.config.pgnout}" if self.config.pgnout else ""))

    def _failed(self, job, replays, error):
        if isinstance(error, Unfit) and error.address not in self.good:
            # A worker that joined (or was restarted) after the check.
            if error.address not in self.bad:
                self.say(f"Worker {error.name} ({error.address}) is left out: {error.message}")
                host = self._workers().get(error.address, ("", "?"))[1]
                self.bad[error.address] = host
                self._restrict()
            if replays + 1 >= MAX_REPLAYS or not self.restriction:
                raise Fatal(f"game {job.number}: {error}")
            self._submit(job, replays + 1)
            return
        if isinstance(error, Unfit):
            raise Fatal(error.message)
        if isinstance(error, KilledWorker):
            raise Fatal(f"game {job.number} was lost with every worker that played it "
                        f"(each died: out of memory?); {error}")
        if isinstance(error, Fatal):
            raise Fatal(str(error))
        raise Fatal(f"game {job.number} failed on the cluster: {type(error).__name__}: {error}")

    # -- stopping --------------------------------------------------------------

    def close(self):
        client = self.client
        self.waiting.clear()
        if client is not None and client.status == "running":
            futures = [f for f, _, _ in self.futures.values()]
            try:
                if futures:
                    client.cancel(futures)
                client.run(end_run, self.run_id, on_error="ignore")
            except Exception:               # a scheduler already gone
                pass
        self.futures.clear()
        if client is not None:
            try:
                client.close(timeout=5)
            except Exception:
                pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception:
                pass
        for name, level in self.log_levels.items():
            logging.getLogger(name).setLevel(level)
