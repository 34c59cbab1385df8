"""Self-play inside the process: the core's Searcher plays both sides at a
fixed node budget, with no engine protocol in between, and keeps the quiet
positions with their scores and the game's result (tools/training/dataset.py).

One game: from the start position (or an opening FEN) a few random legal
plies make it new; a position the search already thinks lost or won by
more than `balance` centipawns is not played. Then each move is the
search's best at `nodes` nodes (its table kept through the game, cleared
between games). A position is kept when the side to move is not in check,
has no capture that wins material by static exchange, the search's best
move is not a capture and its score is not a mate. The game ends as the
referee ends one (no legal move loses; repetition by the Asian rules;
`max_plies` and 120 plies without a capture draw), or by adjudication: a
win when the scores of both sides have given one side at least `resign`
for 8 plies in a row (the positions of those plies are dropped: their result was decided by the
adjudication, not played out), a draw when all scores have been within
+-draw for 20 plies after ply 100.
"""
import contextlib
import json
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from dataclasses import dataclass

from tuong.tools.training import dataset

NO_CAPTURE_PLIES = 120


@dataclass
class Settings:
    nodes: int = 5000
    random_plies: tuple = (6, 10)      # uniform random legal plies before the search plays
    balance: int = 300
    max_plies: int = 400
    resign: int = 1500
    draw: int = 8
    hash_mb: int = 16
    eval_file: str = ""                # "" or None: the default evaluation
    openings: tuple = ()               # FENs to start from (empty: the start position)


class SelfPlay:
    """Plays games in this process; one per `game()` call."""

    def __init__(self, settings, seed):
        from tuong.engine.board import Board, winning_capture
        from tuong.engine.search import Searcher
        from tuong.engine.game import MATE_SCORE_BOUND
        self.s = settings
        self.rng = random.Random(seed)
        self.Board, self.winning_capture, self.mate_bound = Board, winning_capture, MATE_SCORE_BOUND
        load_eval(settings.eval_file)
        self.searcher = Searcher(hash_mb=settings.hash_mb, threads=1)

    def _opening(self):
        """A board after random plies from an opening; None if the game
        ended or the position is lopsided."""
        fen = self.rng.choice(self.s.openings) if self.s.openings else None
        board = self.Board(fen)
        low, high = self.s.random_plies
        for _ in range(self.rng.randint(low, high)):
            moves = board.legal_moves()
            if not moves:
                return None
            board.push(self.rng.choice(moves))
        if board.is_game_over():
            return None
        result = self.searcher.search(board, nodes=self.s.nodes)
        if result.mate is not None or abs(result.score) > self.s.balance:
            return None
        return board

    def game(self):
        """Play one game: (records as bytes, result for Red, plies), or None
        if the opening was unfit."""
        self.searcher.clear()
        board = self._opening()
        if board is None:
            return None
        kept = []                   # (squares, score, side, ply)
        last_capture = board.ply
        decided_run = decided_sign = drawn_run = 0
        result = 0
        while True:
            side = 0 if board.turn == "w" else 1
            if board.is_game_over():
                result = -1 if side == 0 else 1
                break
            verdict = board.repetition_verdict()
            if verdict is not None:
                result = {"1-0": 1, "0-1": -1}.get(verdict.result, 0)
                break
            if board.ply >= self.s.max_plies or board.ply - last_capture >= NO_CAPTURE_PLIES:
                break
            found = self.searcher.search(board, nodes=self.s.nodes)
            score = found.score
            squares = dataset.squares_of_fen(board.fen())
            to = _square(found.best[2:])
            capture = squares[to] is not None
            if not capture and found.mate is None and abs(score) < self.mate_bound \
                    and not board.in_check() and self.winning_capture(board) is None:
                kept.append((squares, score, side, board.ply))
            # Red's view: a mate counts as beyond any resign score.
            red_view = score if found.mate is None else \
                (self.s.resign if found.mate > 0 else -self.s.resign)
            if side == 1:
                red_view = -red_view
            sign = (red_view >= self.s.resign) - (red_view <= -self.s.resign)
            decided_run = decided_run + 1 if sign and sign == decided_sign else (1 if sign else 0)
            decided_sign = sign
            drawn_run = drawn_run + 1 if board.ply >= 100 and found.mate is None \
                and abs(score) <= self.s.draw else 0
            if decided_run >= 8:
                result = decided_sign
                cutoff = board.ply - 8
                kept = [k for k in kept if k[3] <= cutoff]
                break
            if drawn_run >= 20:
                break
            if capture:
                last_capture = board.ply + 1
            board.push(found.best)
        records = b"".join(dataset.pack(sq, score, result, side) for sq, score, side, _ in kept)
        return records, result, board.ply


def _square(name):
    return (int(name[1:]) * 9) + ord(name[0]) - ord("a")


_loaded = {"eval": None}          # the evaluation this process has installed (it is global)


def load_eval(path):
    """Install the evaluation file `path` ("" or None: the shipped one)."""
    from tuong.engine import evalfile
    evalfile.load(path or None)
    _loaded["eval"] = path or ""


_players = threading.local()     # one player a thread: a Dask worker may run tasks at once


def play_games(settings, seed, games):
    """`games` games with a player made for this seed (reused by the same
    thread for the tasks after): (records bytes, game count, results)."""
    player = getattr(_players, "player", None)
    if player is None or player.s != settings:
        player = _players.player = SelfPlay(settings, seed)
    elif _loaded["eval"] != (settings.eval_file or ""):
        # Another run's task on this worker installed its own network since:
        # the evaluation is the process's, so this task installs its own again.
        # (Two runs with different networks at once on one worker process
        # would still share it: give each its own workers.)
        load_eval(settings.eval_file)
    player.rng.seed(seed)
    out, results = [], []
    for _ in range(games):
        played = player.game()
        if played is None:
            continue
        records, result, _plies = played
        out.append(records)
        results.append(result)
    return b"".join(out), results


GAMES_PER_TASK = 4


def fill(out, have, target, settings, seed, concurrency, cluster=None):
    """Append games' positions to the open file `out` (holding `have`)
    until it holds `target`, from `concurrency` worker processes or the Dask
    cluster at `cluster`; prints progress to stderr. Returns 0.

    Each task (GAMES_PER_TASK games from one seed) is written whole or not
    at all, once, however its worker fares (a task lost with its worker is
    played again elsewhere, from the same seed: the same games); the
    journal FILE.tasks says, a JSON line a task, which seed wrote which
    records (`offset`, `positions`), so that a file can be checked and its
    recipe repeated; a line {"start": N} marks where each run began. One run
    at a time writes a file (a lock on its journal)."""
    import concurrent.futures as cf
    import fcntl
    from concurrent.futures.process import BrokenProcessPool
    journal = open(out.name + ".tasks", "a", encoding="utf-8")
    try:
        fcntl.flock(journal, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        journal.close()
        raise SystemExit(f"tuong-datagen: another run is writing {out.name} (its journal "
                         f"{out.name}.tasks is locked): one run a file") from None
    have = _agree_with_journal(out, have)
    if have >= target:
        journal.close()
        print(f"{out.name} holds {have:,} positions already", file=sys.stderr)
        return 0
    if cluster:
        client = _dask_client(cluster)
        executor = client.get_executor(pure=False)
        slots = max(1, sum(client.nthreads().values()))
    else:
        client = None
        executor = cf.ProcessPoolExecutor(concurrency, initializer=_die_with_parent,
                                          initargs=(os.getpid(),),
                                          mp_context=multiprocessing.get_context("spawn"))
        slots = concurrency
    # Where this run begins: records past it with no task of their own (a run
    # killed while writing its first) are cut off when the next run begins.
    journal.write(json.dumps({"start": have}) + "\n")
    journal.flush()
    # Seeds follow what the file holds, so that a run that goes on plays new games.
    base = (seed << 40) ^ (have << 8)
    start, written, games, results = time.time(), 0, 0, {1: 0, 0: 0, -1: 0}
    pending, task, seeds = set(), 0, {}
    recipe = {"nodes": settings.nodes, "random_plies": list(settings.random_plies),
              "balance": settings.balance, "max_plies": settings.max_plies,
              "resign": settings.resign, "draw": settings.draw, "hash_mb": settings.hash_mb,
              "eval_file": os.path.basename(settings.eval_file or "") or "default",
              "openings": len(settings.openings)}
    # SIGTERM (a session's end, kill) and Ctrl-C stop the run, but never
    # between a task's records and its journal line (see _Stop).
    stop = _Stop()
    previous = {sig: signal.signal(sig, stop.handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    checked = time.monotonic()
    try:
        while have + written < target:
            if client is not None and time.monotonic() - checked > 10:
                # Workers that join later get tasks too (as tuong-match's pool does).
                slots, checked = max(1, sum(client.nthreads().values())), time.monotonic()
            while len(pending) < 2 * slots:
                future = executor.submit(play_games, settings, base + task, GAMES_PER_TASK)
                seeds[future] = base + task
                pending.add(future)
                task += 1
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in done:
                records, outcomes = future.result()
                count = len(records) // dataset.RECORD_SIZE
                with stop.held():
                    out.write(records)
                    out.flush()
                    journal.write(json.dumps({"seed": seeds.pop(future),
                                              "offset": have + written, "positions": count,
                                              "games": len(outcomes), "recipe": recipe}) + "\n")
                    journal.flush()
                written += count
                games += len(outcomes)
                for r in outcomes:
                    results[r] += 1
            hours = (time.time() - start) / 3600
            print(f"\r{have + written:,}/{target:,} positions, {written / hours:,.0f} an hour, "
                  f"{games} games (Red {results[1]}, draws {results[0]}, Black {results[-1]})",
                  end="", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted: the file holds every finished game", file=sys.stderr)
    except BrokenProcessPool as error:
        # A local worker died (killed, out of memory): what was written stands.
        print(f"\ntuong-datagen: a worker process died ({error}); the file holds every "
              "finished task: run the same command again to go on", file=sys.stderr)
        return 1
    finally:
        journal.close()
        for future in pending:
            future.cancel()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if client is None:
            executor.shutdown(wait=False, cancel_futures=True)
            for child in multiprocessing.active_children():
                child.terminate()
        else:
            cluster_of = getattr(client, "tuong_cluster", None)
            client.close()
            if cluster_of is not None:
                cluster_of.close()
    print(file=sys.stderr)
    return 0


class _Stop:
    """A signal handler that stops the run at once, except inside held():
    there it waits for the block to end (a task's records and its journal
    line are written together or not at all)."""

    def __init__(self):
        self.holding = self.pending = False

    def handle(self, signum, frame):
        if self.holding:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self):
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.pending:
            raise KeyboardInterrupt


def _agree_with_journal(out, have):
    """The file and its journal agree before a run goes on: records past the
    journal's last task (a run killed while writing one) are cut off, and
    journal lines past the file's end (a file cut short) are dropped. The
    records the file held before it had a journal stay. Returns what the
    file holds."""
    path = out.name + ".tasks"
    if not os.path.exists(path):
        return have
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except ValueError:
            break                            # a line cut short: it and what follows go

    def end_of(entry):                       # a task, or a run's {"start": N}
        return entry["start"] if "start" in entry else entry["offset"] + entry["positions"]
    kept = [e for e in entries if end_of(e) <= have]
    if len(kept) != len(lines):
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(e) + "\n" for e in kept)
    if kept:
        end = end_of(kept[-1])
        if have > end:
            print(f"{out.name}: {have - end:,} records after the journal's last task "
                  "(a run stopped while writing) are cut off", file=sys.stderr)
            out.truncate(dataset.HEADER.size + end * dataset.RECORD_SIZE)
            out.seek(0, os.SEEK_END)
            have = end
    return have


def _die_with_parent(parent):
    """In a worker process: exit when the process that started it is gone
    (killed without a chance to stop its workers)."""
    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def _dask_client(address):
    """A Dask client for tuong-match's -cluster addresses: tcp://HOST:PORT
    joins a scheduler, local[:N] starts N worker processes here."""
    import logging
    import os
    from distributed import Client, LocalCluster
    name, _, count = address.partition(":")
    if name == "local":
        cluster = LocalCluster(n_workers=int(count) if count else os.cpu_count() or 1,
                               threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.CRITICAL)
        client = Client(cluster, set_as_default=False)
        client.tuong_cluster = cluster
        return client
    return Client(address, timeout=30, set_as_default=False)
