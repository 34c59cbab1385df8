"""tuong-match: engine matches and tournaments, cutechess-cli style.

    tuong-match -engine name=A cmd=tuong proto=uci \\
                -engine name=B cmd=/usr/games/maxqi proto=xboard \\
                -each tc=10+0.1 option.Hash=64 -games 100 -concurrency 2 \\
                -openings file=book.pgn -pgnout out.pgn

Options (a value list is KEY=VALUE words):
  -engine KEY=VALUE..   one engine: name=, cmd= (may hold arguments, shlex),
                        proto=uci|ucci|xboard, notation=ranks0|ranks1 (ranks 1-10;
                        default: auto, which knows Fairy-Stockfish), dir=, option.NAME=VALUE,
                        and the limits below
  -each KEY=VALUE..     settings for every engine (an -engine's own settings win)
      tc=BASE+INC (seconds, or M:SS+INC), st=SECONDS, depth=N, nodes=N,
      timemargin=MS (default 100: how late a move may be), stall=SECONDS (default 60:
      how long a depth/nodes search may go silent)
  -games N              games per encounter and round (default 2: one opening, both colours)
  -rounds N             rounds (default 1)
  -concurrency N, -j N  games at once (default 1)
  -cluster ADDRESS      play every game as a task on a Dask cluster instead:
                        tcp://HOST:8786 joins a running `dask scheduler`, local:N starts
                        N worker processes here (local: one per core). Needs
                        pip install 'tuong[cluster]'; -concurrency is then the cluster's,
                        one game per worker thread (README: Matches on a cluster)
  -tournament round-robin|gauntlet   with 3+ engines (gauntlet: the first plays the rest)
  -openings file=F [format=epd|pgn] [order=sequential|random] [plies=N]
                        default: tools/data/openings.pgn; each opening is played twice,
                        colours swapped
  -pgnout FILE          append every finished game, flushed as it ends
  -sprt elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=pentanomial|trinomial]
                        (or positionally: --sprt E0 E1 [ALPHA [BETA]])
  -resign movecount=N score=CP      adjudicate a loss both engines agree on
  -draw movenumber=M movecount=N score=CP
  -repetition asian|check-only   repetition rules (default asian: perpetual check, then
                        perpetual chase, loses; check-only: perpetual check alone)
  -maxplies N           draw after N plies (default 300)
  -nocapture N          draw after N plies without a capture (default 120)
  -seed N               for order=random
  -event NAME           the PGN Event tag
  -log FILE             write every line sent to and read from the engines
  -config FILE          a JSON file with the same options, e.g.
                        {"engine": [{"name": "A", "cmd": "tuong"}, ...],
                         "each": {"tc": "10+0.1", "option": {"Hash": 64}}, "games": 10};
                        options on the command line come after it (and win)
  -repeat, -recover     accepted for cutechess compatibility (always on)

The referee is ours (tools/referee.py: legality, no-move loss, perpetual
check, repetition, move limits, adjudication, forfeits); statistics and
the SPRT are in tools/sprt.py, PGN in tools/pgn.py. Each worker thread owns
its engines, so no two games share a process or a clock; with -cluster the
same happens on the Dask workers (tools/cluster.py). Ctrl-C or SIGTERM
stops cleanly: engines are closed (killed if they must be), the PGN keeps
every finished game, and the exit code is 130.
"""
import contextlib
import importlib.util
import json
import math
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from engine.board import Board
from protocol.client import EngineError, UnsupportedError, close_all, open_engine
from tools import pgn
from tools.referee import BLACK, RED, Player, Rules, TimeControl, play_game
from tools.sprt import Sprt, elo_bounds, elo_estimate

DEFAULT_OPENINGS = Path(__file__).resolve().parent / "data" / "openings.pgn"
ENGINE_KEYS = {"name", "cmd", "proto", "notation", "dir"}
LIMIT_KEYS = {"tc", "st", "depth", "nodes", "timemargin", "stall"}


class UsageError(Exception):
    pass


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


# -- command line ------------------------------------------------------------

def _is_option(token):
    # -games and --games alike; "-5" (a value) and "a=-1" are not options.
    name = token.lstrip("-")
    return token.startswith("-") and name[:1].isalpha() and "=" not in token


def _group(argv):
    """['-games', '4', '-engine', 'a=1'] -> [('games', ['4']), ('engine', ['a=1'])]."""
    groups = []
    for token in argv:
        if _is_option(token):
            groups.append((token.lstrip("-"), []))
        elif not groups:
            raise UsageError(f"expected an option, got {token!r}")
        else:
            groups[-1][1].append(token)
    return groups


def _pairs(values, option):
    pairs = {}
    for value in values:
        key, eq, text = value.partition("=")
        if not eq:
            raise UsageError(f"-{option}: expected KEY=VALUE, got {value!r}")
        pairs[key] = text
    return pairs


def config_to_argv(data):
    """A JSON config's dict -> command-line tokens."""
    argv = []
    for key, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            argv.append(f"-{key}")
            if isinstance(item, dict):
                for k, v in item.items():
                    if isinstance(v, dict):                     # "option": {"Hash": 64}
                        argv += [f"{k}.{name}={x}" for name, x in v.items()]
                    else:
                        argv.append(f"{k}={v}")
            elif item is not True:
                argv.append(str(item))
    return argv


def _one(values, option, kind=int):
    if len(values) != 1:
        raise UsageError(f"-{option} takes one value")
    try:
        return kind(values[0])
    except ValueError:
        raise UsageError(f"-{option}: bad value {values[0]!r}") from None


def parse_args(argv):
    groups = _group(argv)
    expanded = []
    for option, values in groups:
        if option == "config":
            path = _one(values, option, str)
            try:
                with open(path, encoding="utf-8") as f:
                    expanded += _group(config_to_argv(json.load(f)))
            except (OSError, ValueError) as e:
                raise UsageError(f"-config {path}: {e}") from None
    groups = expanded + [g for g in groups if g[0] != "config"]

    engines, each, cfg = [], {}, {}
    for option, values in groups:
        if option == "engine":
            engines.append(_pairs(values, option))
        elif option == "each":
            each.update(_pairs(values, option))
        elif option in ("games", "rounds", "maxplies", "nocapture", "seed"):
            cfg[option] = _one(values, option)
        elif option in ("concurrency", "j"):
            cfg["concurrency"] = _one(values, option)
        elif option in ("tournament", "event", "log", "repetition", "cluster"):
            cfg[option] = _one(values, option, str)
        elif option == "pgnout":
            cfg["pgnout"] = values[0].partition("=")[2] if values and values[0].startswith(
                "file=") else _one(values[:1], option, str)
        elif option == "sprt" and values and all("=" not in v for v in values):
            # The positional form: --sprt ELO0 ELO1 [ALPHA [BETA]].
            cfg[option] = dict(zip(("elo0", "elo1", "alpha", "beta"), values))
        elif option in ("openings", "sprt", "resign", "draw"):
            cfg[option] = _pairs(values, option)
        elif option in ("repeat", "recover"):
            pass
        elif option in ("help", "h"):
            raise UsageError("")
        else:
            raise UsageError(f"unknown option -{option}")
    if len(engines) < 2:
        raise UsageError("give at least two -engine")

    specs = _engine_specs(engines, each)
    config = Config(engines=specs)
    for key in ("games", "rounds", "concurrency", "tournament", "event", "pgnout", "log",
                "cluster"):
        if key in cfg:
            setattr(config, key, cfg[key])
    if config.tournament not in ("round-robin", "gauntlet"):
        raise UsageError("-tournament must be round-robin or gauntlet")
    if config.games < 1 or config.rounds < 1 or config.concurrency < 1:
        raise UsageError("-games, -rounds and -concurrency must be at least 1")
    if config.cluster:
        _check_cluster(config.cluster)
    config.rules = _rules(cfg)
    config.openings = _openings(cfg.get("openings", {}), cfg.get("seed"))
    if "sprt" in cfg:
        s = cfg["sprt"]
        try:
            config.sprt = Sprt(float(s.get("elo0", 0)), float(s.get("elo1", 5)),
                               float(s.get("alpha", 0.05)), float(s.get("beta", 0.05)),
                               s.get("model", "pentanomial"))
        except ValueError as e:
            raise UsageError(f"-sprt: {e}") from None
        if len(specs) != 2:
            raise UsageError("-sprt needs exactly two engines")
    return config


def _engine_specs(engines, each):
    """EngineSpecs from each -engine's KEY=VALUE pairs over -each's."""
    specs = []
    for pairs in engines:
        merged = {**each, **pairs}
        if "cmd" not in merged:
            raise UsageError("an -engine needs cmd= "
                             f"({' '.join(f'{k}={v}' for k, v in pairs.items())})")
        spec = EngineSpec(name=merged.get("name") or os.path.basename(merged["cmd"].split()[0]),
                          cmd=merged["cmd"])
        for key, value in merged.items():
            if key in ENGINE_KEYS:
                setattr(spec, key, value)
            elif key.startswith("option."):
                spec.options[key[len("option."):]] = value
            elif key not in LIMIT_KEYS:
                raise UsageError(f"unknown engine setting {key}=")
        if spec.proto not in ("uci", "ucci", "xboard"):
            raise UsageError(f"{spec.name}: proto must be uci, ucci or xboard")
        if spec.notation not in ("auto", "ranks0", "ranks1"):
            raise UsageError(f"{spec.name}: notation must be ranks0 or ranks1")
        try:
            spec.tc = TimeControl.parse({k: v for k, v in merged.items() if k in LIMIT_KEYS})
        except ValueError as e:
            raise UsageError(f"{spec.name}: {e}") from None
        specs.append(spec)
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise UsageError(f"engine names must differ: {names}")
    return specs


def _check_cluster(address):
    name, colon, count = address.partition(":")
    if name == "local" and colon and not (count.isdigit() and int(count) >= 1):
        raise UsageError(f"-cluster local:N needs a number of workers, got {address!r}")
    if importlib.util.find_spec("distributed") is None:
        raise UsageError("-cluster needs Dask's distributed scheduler: "
                         "pip install 'tuong[cluster]'")


def _rules(cfg):
    rules = Rules()
    rules.repetition = cfg.get("repetition", rules.repetition)
    if rules.repetition not in ("asian", "check-only"):
        raise UsageError("-repetition must be asian or check-only")
    rules.max_plies = cfg.get("maxplies", rules.max_plies)
    rules.no_capture_plies = cfg.get("nocapture", rules.no_capture_plies)
    try:
        if "resign" in cfg:
            rules.resign_movecount = int(cfg["resign"]["movecount"])
            rules.resign_score = int(cfg["resign"]["score"])
        if "draw" in cfg:
            rules.draw_movenumber = int(cfg["draw"]["movenumber"])
            rules.draw_movecount = int(cfg["draw"]["movecount"])
            rules.draw_score = int(cfg["draw"]["score"])
    except (KeyError, ValueError) as e:
        raise UsageError(f"-resign needs movecount= and score=; -draw needs movenumber=, "
                         f"movecount= and score= ({e})") from None
    return rules


def _openings(spec, seed):
    path = spec.get("file", str(DEFAULT_OPENINGS))
    try:
        openings = pgn.read_openings(path, spec.get("format"))
    except (OSError, ValueError) as e:
        raise UsageError(f"-openings: {e}") from None
    if "plies" in spec:
        plies = spec["plies"]
        if not plies.isdigit():
            raise UsageError(f"-openings plies= takes a number of plies, got {plies!r}")
        openings = [(fen, moves[:int(plies)]) for fen, moves in openings]
    for number, (fen, moves) in enumerate(openings, 1):
        try:                                     # fail now, not in game 57
            board = Board(fen)
            for move in moves:
                board.push(move)
        except ValueError as e:
            raise UsageError(f"-openings: opening {number} of {path}: {e}") from None
    order = spec.get("order", "sequential")
    if order == "random":
        random.Random(seed).shuffle(openings)
    elif order != "sequential":
        raise UsageError("-openings order must be sequential or random")
    return openings


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


class Fatal(Exception):
    """Something no game can go on with (an engine that will not start, a
    FEN for an engine that cannot take one)."""


class EngineStartError(Fatal):
    """An engine that does not start, or refuses its options."""


class Aborted(Fatal):
    """The run cannot go on, but the games finished so far stand (a
    cluster's scheduler went away); run() sets `stats` on it."""
    stats = None


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


# -- statistics and output ---------------------------------------------------

POINTS = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}


class Stats:
    """Results per encounter, from the first engine's side."""

    def __init__(self, config):
        self.config = config
        self.wdl = {}                      # (first, second) -> [w, d, l]
        self.penta = {}                    # (first, second) -> [LL, LD, WL+DD, WD, WW]
        self.half_pairs = {}               # pair key -> first engine's score in the 1st game
        self.terminations = {}

    def add(self, job, game):
        red_points = POINTS[game.result][0]
        score = red_points if job.red == job.first else 1 - red_points
        key = (job.first, job.second)
        wdl = self.wdl.setdefault(key, [0, 0, 0])
        wdl[0 if score == 1 else 1 if score == 0.5 else 2] += 1
        self.terminations[game.termination] = self.terminations.get(game.termination, 0) + 1
        if job.pair in self.half_pairs:
            pair_score = self.half_pairs.pop(job.pair) + score
            self.penta.setdefault(key, [0] * 5)[round(pair_score * 2)] += 1
        else:
            self.half_pairs[job.pair] = score

    def head_to_head(self):
        w, d, l = self.wdl.get((0, 1), [0, 0, 0])
        return w, d, l

    def sprt_llr(self):
        return self.config.sprt.llr(self.head_to_head(), self.penta.get((0, 1), [0] * 5))

    def engine_totals(self, index):
        """(points, games, draws) of one engine over all its encounters."""
        points = games = draws = 0
        for (a, b), (w, d, l) in self.wdl.items():
            if index in (a, b):
                mine, theirs = (w, l) if index == a else (l, w)
                points += mine + d / 2
                games += w + d + l
                draws += d
        return points, games, draws


def _bar(done, total, width=20):
    filled = int(width * done / total) if total else width
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _elo_text(w, d, l):
    elo, error = elo_estimate(w, d, l)
    elo_text = f"{elo:+.1f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")
    if math.isfinite(error):
        return f"Elo {elo_text} +/- {error:.1f}"
    if w + d + l == 0:
        return f"Elo {elo_text} +/- inf"
    # Near 0% or 100% the symmetric bar is infinite; give the bounds instead.
    low, high = (f"{b:+.0f}" if math.isfinite(b) else ("+inf" if b > 0 else "-inf")
                 for b in elo_bounds(w, d, l))
    return f"Elo {elo_text} +/- inf (95%: {low} to {high})"


class Progress:
    """A live line: rewritten in place on a terminal, one line per game otherwise."""

    def __init__(self, config, stats, total, stream=sys.stdout):
        self.config, self.stats, self.total, self.stream = config, stats, total, stream
        self.tty = stream.isatty()
        self.width = 0

    def update(self, done, job, game):
        names = [e.name for e in self.config.engines]
        if len(names) == 2:
            w, d, l = self.stats.head_to_head()
            n = w + d + l
            line = (f"{_bar(done, self.total)} {done}/{self.total}  {names[0]} vs {names[1]}  "
                    f"W {w} D {d} L {l}  {100 * (w + d / 2) / n:.1f}%  {_elo_text(w, d, l)}")
            if self.config.sprt:
                s = self.config.sprt
                line += f"  LLR {self.stats.sprt_llr():.2f} ({s.lower:.2f}, {s.upper:.2f})"
        else:
            line = f"{_bar(done, self.total)} {done}/{self.total}"
        last = (f"game {job.number}: {names[job.red]} - {names[job.black]} {game.result} "
                f"({game.termination})")
        if self.tty:
            text = f"{line}  | {last}"
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(f"{last}  | {line}\n")
        self.stream.flush()

    def finish(self):
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()


def final_report(config, stats, decision):
    names = [e.name for e in config.engines]
    lines = []
    if len(names) == 2:
        w, d, l = stats.head_to_head()
        n = w + d + l
        score = (w + d / 2) / n if n else 0.5
        lines.append(f"Score of {names[0]} vs {names[1]}: {w} - {l} - {d}  [{score:.3f}] {n}")
        los = 0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l)))) if w + l else 0.5
        lines.append(f"{_elo_text(w, d, l)}, LOS {100 * los:.1f} %, "
                     f"draw ratio {100 * d / n if n else 0:.1f} %")
        penta = stats.penta.get((0, 1), [0] * 5)
        lines.append(f"Pentanomial [LL, LD, WL+DD, WD, WW]: {penta}")
        if config.sprt:
            verdict = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)"}.get(
                decision, "no decision")
            lines.append(f"{config.sprt.describe()}: LLR {stats.sprt_llr():.2f}, {verdict}")
    else:
        lines.append(_crosstable(config, stats))
    if stats.terminations:
        lines.append("Terminations: " + ", ".join(
            f"{k} {v}" for k, v in sorted(stats.terminations.items(), key=lambda kv: -kv[1])))
    return "\n".join(lines)


def _crosstable(config, stats):
    names = [e.name for e in config.engines]
    rows = []
    for i in range(len(names)):
        points, games, draws = stats.engine_totals(i)
        rows.append((points / games if games else 0, i, points, games, draws))
    rows.sort(reverse=True)
    width = max(len(n) for n in names)
    header = f"{'Rank':<5}{'Name':<{width + 2}}{'Elo':>7}{'+/-':>7}{'Games':>7}{'Score':>8}{'Draw':>7}  "
    header += " ".join(f"{n[:8]:>8}" for n in names)
    out = [header]
    for rank, (_, i, points, games, draws) in enumerate(rows, 1):
        wins = points - draws / 2
        elo, error = elo_estimate(int(wins), draws, games - int(wins) - draws)
        cells = []
        for j in range(len(names)):
            if i == j or ((min(i, j), max(i, j)) not in stats.wdl):
                cells.append(f"{'-':>8}")
                continue
            w, d, l = stats.wdl[(min(i, j), max(i, j))]
            mine = (w if i < j else l) + d / 2
            cells.append(f"{mine:g}/{w + d + l}".rjust(8))
        score = 100 * points / games if games else 0
        draw = 100 * draws / games if games else 0
        out.append(f"{rank:<5}{names[i]:<{width + 2}}{elo:>+7.0f}{error:>7.0f}{games:>7}"
                   f"{score:>7.1f}%{draw:>6.1f}%  " + " ".join(cells))
    return "\n".join(out)


# -- main --------------------------------------------------------------------

class Interrupted(Exception):
    pass


def _raise_interrupted(signum, frame):
    raise Interrupted(signal.Signals(signum).name)


def make_pool(config, log_file, stream):
    if not config.cluster:
        return ThreadPool(config, log_file)
    from tools.cluster import ClusterPool           # Dask: an optional dependency
    return ClusterPool(config, log_file, stream)


def _output(path, option, **kwargs):
    """A file the match appends to, or a UsageError naming the option."""
    try:
        return open(path, "a", encoding="utf-8", **kwargs)
    except OSError as e:
        raise UsageError(f"-{option} {path}: {e.strerror or e}") from None


def run(config, stream=sys.stdout):
    """Play the match; returns (stats, sprt decision or None, interrupted?).
    An output file that cannot be opened is a UsageError, raised before any
    engine starts and with no file left open."""
    with contextlib.ExitStack() as outputs:
        log_file = outputs.enter_context(_output(config.log, "log", buffering=1)) \
            if config.log else None
        pgn_file = outputs.enter_context(_output(config.pgnout, "pgnout")) \
            if config.pgnout else None
        return _play(config, log_file, pgn_file, stream)


def _play(config, log_file, pgn_file, stream):
    specs = schedule(config)
    stats = Stats(config)
    progress = Progress(config, stats, len(specs), stream)
    decision, interrupted, pool = None, False, None
    old_term = signal.signal(signal.SIGTERM, _raise_interrupted) \
        if threading.current_thread() is threading.main_thread() else None
    try:
        pool = make_pool(config, log_file, stream)
        pool.start(specs)
        for done, (job, game) in enumerate(pool.games(), 1):
            if pgn_file:
                pgn_file.write(pgn.format_game(game, job.number, config.event))
                pgn_file.flush()
            stats.add(job, game)
            progress.update(done, job, game)
            if config.sprt:
                decision = config.sprt.decision(stats.sprt_llr())
                if decision:
                    break
    except (KeyboardInterrupt, Interrupted):
        interrupted = True
    except Aborted as e:
        e.stats = stats
        raise
    finally:
        if pool is not None:
            pool.close()
        progress.finish()
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
    return stats, decision, interrupted


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        config = parse_args(argv)
        stats, decision, interrupted = run(config)
    except UsageError as e:
        print(__doc__ if not str(e) else f"tuong-match: {e} (see tuong-match -help)",
              file=sys.stderr if str(e) else sys.stdout)
        return 2 if str(e) else 0
    except Aborted as e:                 # the finished games stand: report them
        print(final_report(config, e.stats, None))
        print(f"tuong-match: {e}", file=sys.stderr)
        return 1
    except Fatal as e:
        print(f"tuong-match: {e}", file=sys.stderr)
        return 1
    print(final_report(config, stats, decision))
    if interrupted:
        print("Interrupted: finished games are in the PGN.")
        return 130
    return 0


if __name__ == "__main__":
    # `python -m tools.match`: run the module's importable copy, so that its
    # classes are the ones tools.cluster (and pickled game tasks) know.
    from tools import match
    sys.exit(match.main())
