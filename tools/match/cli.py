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
                        one game per worker thread (docs/guide/cluster.md)
  -tournament round-robin|gauntlet   with 3+ engines (gauntlet: the first plays the rest)
  -openings file=F [format=epd|pgn] [order=sequential|random] [plies=N]
                        default: tools/data/openings.pgn; each opening is played twice,
                        colours swapped. -openings none: every game from the initial
                        position (engines with books: option.OwnBook=true for tuong)
  -pgnout FILE          append every finished game, flushed as it ends
  -resume               go on with a match that stopped: the games already in the
                        -pgnout file count and are not played again (each is checked
                        to be this match's: its engines and opening; with
                        order=random give the same -seed), a game cut short at the
                        file's end is played again, and the SPRT carries on
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

This module is the command line: it reads the options into a Config and
runs the match. The games are scheduled and played by tools/match/runtime.py:
each worker thread owns its engines, so no two games share a process or a
clock; with -cluster the same happens on the Dask workers (tools/match/cluster.py).
The referee is ours (tools/match/referee.py: legality, no-move loss, perpetual
check, repetition, move limits, adjudication, forfeits). The tally, the
live line and the final report are tools/match/stats.py's, the Elo and SPRT
arithmetic tools/match/sprt.py's, PGN tools/records/pgn.py's. Ctrl-C or SIGTERM stops
cleanly: engines are closed (killed if they must be), the PGN keeps every
finished game, and the exit code is 130.
"""
import contextlib
import importlib.util
import json
import math
import os
import random
import re
import signal
import sys
import threading
from collections import namedtuple
from pathlib import Path

from tuong.engine.board import Board
from tuong.tools.records import pgn
from tuong.tools.cli import HIGHEST, check_cluster, quiet_broken_pipe
from tuong.tools.match.referee import Rules, TimeControl
from tuong.tools.match.runtime import (Aborted, Config, EngineSpec, Fatal, Interrupted, ThreadPool,
                           schedule)
from tuong.tools.match.sprt import Sprt
from tuong.tools.match.stats import Progress, Stats, final_report

DEFAULT_OPENINGS = Path(__file__).resolve().parents[1] / "data" / "openings.pgn"
ENGINE_KEYS = {"name", "cmd", "proto", "notation", "dir"}
LIMIT_KEYS = {"tc", "st", "depth", "nodes", "timemargin", "stall"}


class UsageError(Exception):
    pass


class _Refuse:
    """The parser tools.cli's checks report to: its error is a UsageError."""

    @staticmethod
    def error(message):
        raise UsageError(message)


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


def _one(values, option, kind=int, low=None):
    """An option's single value as `kind`; an int at least `low` if given."""
    if len(values) != 1:
        raise UsageError(f"-{option} takes one value")
    try:
        value = kind(values[0])
    except ValueError:
        wanted = "a whole number" if kind is int else "a value"
        raise UsageError(f"-{option}: expected {wanted}, got {values[0]!r}") from None
    if low is not None and not low <= value <= HIGHEST:
        raise UsageError(f"-{option}: expected a whole number from {low} to {HIGHEST}, "
                         f"got {values[0]!r}")
    return value


# -- the engines' limits, checked in the user's terms ---------------------------

TC_FORM = "use BASE+INC in seconds, or M:SS+INC: e.g. 10+0.1, 1:30+1"
LONGEST = HIGHEST / 1000      # seconds: engines are sent times as 32-bit milliseconds


def _seconds(text, what, zero=False):
    """A finite number of seconds above 0 (or at least 0), at most LONGEST."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    low = "at least 0" if zero else "above 0"
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero) or value > LONGEST:
        raise UsageError(f"{what}: expected seconds {low} and at most {int(LONGEST)}, "
                         f"got {text!r}")
    return value


def _check_tc(text):
    """tc=BASE+INC: BASE seconds (or M:SS) above 0, INC at least 0."""
    if "/" in text:
        raise UsageError(f"tc={text}: moves/time controls are not supported ({TC_FORM})")
    base, plus, inc = text.partition("+")
    minutes, colon, seconds = base.rpartition(":")
    try:
        numbers = [float(x) for x in ([minutes] if colon else []) + [seconds]
                   + ([inc] if plus else [])]
    except ValueError:
        raise UsageError(f"tc: {text!r} is not a time control ({TC_FORM})") from None
    if not all(math.isfinite(x) and x >= 0 for x in numbers):
        raise UsageError(f"tc={text}: times must be finite and not negative ({TC_FORM})")
    total = float(seconds) + 60 * float(minutes or 0)
    if total <= 0:
        raise UsageError(f"tc={text}: the clock must start above 0 seconds ({TC_FORM})")
    if total > LONGEST:
        raise UsageError(f"tc={text}: at most {int(LONGEST)} seconds a clock")
    _seconds(inc or "0", f"tc={text}: the increment", zero=True)


def _count(text, key):
    """depth=N, nodes=N: a whole number from 1 (0 would never move)."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 1 <= value <= HIGHEST:
        raise UsageError(f"{key}={text}: expected a whole number from 1 to {HIGHEST}")


def _check_limits(settings):
    """Refuse a limit no game can be played under, before any engine starts."""
    for key, text in settings.items():
        if key == "tc":
            _check_tc(text)
        elif key in ("st", "stall"):
            _seconds(text, f"{key}={text}")
        elif key in ("depth", "nodes"):
            _count(text, key)
        elif key == "timemargin":
            try:
                ok = 0 <= int(text) <= HIGHEST
            except ValueError:
                ok = False
            if not ok:
                raise UsageError(f"timemargin={text}: expected milliseconds, a whole number "
                                 f"from 0 to {HIGHEST}")


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
        elif option in ("games", "rounds", "maxplies", "nocapture"):
            cfg[option] = _one(values, option, low=1)
        elif option == "seed":
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
        elif option == "openings" and values == ["none"]:
            cfg[option] = None                   # the initial position only
        elif option in ("openings", "sprt", "resign", "draw"):
            cfg[option] = _pairs(values, option)
        elif option in ("repeat", "recover"):
            pass
        elif option == "resume" and not values:
            cfg["resume"] = True
        elif option in ("help", "h"):
            raise UsageError("")
        else:
            raise UsageError(f"unknown option -{option}")
    if len(engines) < 2:
        raise UsageError("give at least two -engine")

    specs = _engine_specs(engines, each)
    config = Config(engines=specs)
    for key in ("games", "rounds", "concurrency", "tournament", "event", "pgnout", "log",
                "cluster", "resume"):
        if key in cfg:
            setattr(config, key, cfg[key])
    if config.tournament not in ("round-robin", "gauntlet"):
        raise UsageError("-tournament must be round-robin or gauntlet")
    if config.games < 1 or config.rounds < 1 or config.concurrency < 1:
        raise UsageError("-games, -rounds and -concurrency must be at least 1")
    if config.cluster:
        _check_cluster(config.cluster)
    if config.resume and not config.pgnout:
        raise UsageError("-resume needs -pgnout: the games to go on from")
    if config.resume and (cfg.get("openings") or {}).get("order") == "random" \
            and "seed" not in cfg:
        raise UsageError("-resume with -openings order=random needs the first run's -seed "
                         "(the openings' order)")
    config.rules = _rules(cfg)
    if (cfg.get("openings") or {}).get("order") == "random" and "seed" not in cfg:
        # Drawn, and printed by main(): a run that stops can go on in the same order.
        config.drawn_seed = cfg["seed"] = random.randrange(2 ** 31)
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
        limits = {k: v for k, v in merged.items() if k in LIMIT_KEYS}
        try:
            _check_limits(limits)
        except UsageError as e:
            raise UsageError(f"{spec.name}: {e}") from None
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
    check_cluster(_Refuse, address)
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
    least = []                   # (setting, its value, the least it may be)
    if "resign" in cfg:
        least += [("-resign movecount", rules.resign_movecount, 1),
                  ("-resign score", rules.resign_score, 0)]
    if "draw" in cfg:
        least += [("-draw movenumber", rules.draw_movenumber, 0),
                  ("-draw movecount", rules.draw_movecount, 1),
                  ("-draw score", rules.draw_score, 0)]
    for setting, value, low in least:
        if value < low:
            raise UsageError(f"{setting}={value}: expected at least {low}")
    return rules


def _openings(spec, seed):
    if spec is None:                             # -openings none
        return [(None, [])]
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


# -- main --------------------------------------------------------------------

def _raise_interrupted(signum, frame):
    raise Interrupted(signal.Signals(signum).name)


def make_pool(config, log_file, stream):
    """Where the games run. Here, not in tools.runtime, which tools.cluster
    builds on: the runtime never imports the cluster."""
    if not config.cluster:
        return ThreadPool(config, log_file)
    from tuong.tools.match.cluster import ClusterPool           # Dask: an optional dependency
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


Finished = namedtuple("Finished", "result termination")


GAME_START = re.compile(r"^\[Event ", re.M)


def _read_resumable(path):
    """The games of a -pgnout file. A last game cut short (the match was
    killed while writing it) is cut off the file, to be played again; a
    broken game before it is an error. A game without a result is left out
    (played again)."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    starts = [m.start() for m in GAME_START.finditer(text)]
    games = []
    for i, (start, end) in enumerate(zip(starts, starts[1:] + [len(text)])):
        chunk, last = text[start:end], i == len(starts) - 1
        try:
            parsed = pgn.read_games(chunk) if "\ufffd" not in chunk else []
        except ValueError:
            parsed = []
        if len(parsed) == 1 and (parsed[0][2] != "*" or not last):
            games += [game for game in parsed if game[2] != "*"]
        elif last:
            with open(path, "r+b") as f:
                f.truncate(len(text[:start].encode("utf-8")))
        else:
            raise UsageError(f"-resume: {path}: game {len(games) + 1} of the file is broken "
                             f"(at character {start})")
    return games


def finished_games(config, specs):
    """{game number: Finished} of the games the -pgnout file already holds,
    each checked against the game this match would play under that number
    (its engines and opening), so a resumed match is the match it was."""
    try:
        games = _read_resumable(config.pgnout)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise UsageError(f"-resume: {config.pgnout}: {e}") from None
    names = [e.name for e in config.engines]
    done = {}
    for tags, moves, result in games:
        number = int(tags["Round"]) if tags.get("Round", "").isdigit() else 0
        spec = specs[number - 1] if 1 <= number <= len(specs) else None
        fen, opening_moves = spec.opening if spec else (None, [])
        if (spec is None or number in done
                or (tags.get("White"), tags.get("Black")) != (names[spec.red], names[spec.black])
                or tags.get("FEN") != fen or moves[:len(opening_moves)] != list(opening_moves)):
            raise UsageError(f"-resume: {config.pgnout}: game {tags.get('Round', '?')} "
                             f"({tags.get('White')} - {tags.get('Black')}) is not one of this "
                             "match's games: another match's file?")
        done[number] = Finished(result, tags.get("Termination", "unknown"))
    return done


def _play(config, log_file, pgn_file, stream):
    specs = schedule(config)
    stats = Stats(config)
    progress = Progress(config, stats, len(specs), stream)
    done = 0
    if config.resume:
        finished = finished_games(config, specs)
        for spec in specs:
            if spec.number in finished:
                stats.add(spec, finished[spec.number])
        done = len(finished)
        specs = [spec for spec in specs if spec.number not in finished]
        if done:
            stream.write(f"Resumed: {done} games from {config.pgnout}\n")
        if config.sprt:
            decision = config.sprt.decision(stats.sprt_llr())
            if decision or not specs:
                return stats, decision, False
    decision, interrupted, pool = None, False, None
    old_term = signal.signal(signal.SIGTERM, _raise_interrupted) \
        if threading.current_thread() is threading.main_thread() else None
    try:
        pool = make_pool(config, log_file, stream)
        pool.start(specs)
        for played, (job, game) in enumerate(pool.games(), done + 1):
            if pgn_file:
                pgn_file.write(pgn.format_game(game, job.number, config.event))
                pgn_file.flush()
            stats.add(job, game)
            progress.update(played, job, game)
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


@quiet_broken_pipe
def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        config = parse_args(argv)
        if config.drawn_seed is not None:
            print(f"tuong-match: the openings' order is -seed {config.drawn_seed} "
                  "(give it again with -resume)", flush=True)
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
    sys.exit(main())
