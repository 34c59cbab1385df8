"""tuong-book: make an opening book from game records and/or the engine's
analysis of the first plies, and probe one.

    tuong-book build -o BOOK [GAMES...] [--plies 30] [--min-games 1] [--uniform]
                     [--analyse PLIES [--multipv 4] [--margin 30] [--halving 10]
                      [--depth D | --nodes N | --movetime S] [--concurrency N]
                      [--hash MB] [--engine CMD]] [--description TEXT]
    tuong-book probe [--book FILE] [FEN | startpos] [--moves M ...] [--to NOTATION]

From games (PGN in any notation and encoding, XQF, folders of them: what
tools/records/ reads): every move of both colours before --plies plies of
the game counts, Polyglot's way: 2 points for a game the mover won, 1 for a
draw, 0 for a loss, summed over the games; a move needs --min-games games
and some points to stay. Games without a result are left out, unless
--uniform, which counts every game's move 1 whatever the result (for
collections of lines, such as tools/data/openings.pgn).

From analysis (--analyse PLIES): breadth-first from the start position, the
engine (UCI, with MultiPV) searches every position once at the limit given,
with --multipv lines; the moves within --margin centipawns of the best are
kept, each weighted 100 x 2^(-loss / --halving) (the best 100, one --halving
centipawns worse 50), and only the kept moves are followed, for PLIES plies.
The hash is cleared before each position, so that a depth or node limit
gives the same book whatever --concurrency is.

Both sources may be given: a move's weights are added (games count 2 a win
and 1 a draw, analysis up to 100 a position), then scaled down per
position if over 65,535. Positions and their left-right mirrors are one
(protocol/book.py: the key and the file format). The file says how it was
made; `probe` prints it.
"""
import os
import queue
import shlex
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from tuong.engine.board import Board
from tuong.protocol import book as books
from tuong.protocol.client import Limit, open_engine
from tuong.tools.records import notation as notations
from tuong.tools import records
from tuong.tools.cli import (ArgumentParser, check_input, check_output, default_engine, integer,
                             real)

# Red's points for each result (2 a win, 1 a draw); Black's are 2 minus them.
RED_POINTS = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}
# A mate in N as a book line's score: BOOK_MATE_CP - N centipawns (fits the file's int16).
BOOK_MATE_CP = 20_000


class BuildError(Exception):
    """Building cannot go on (the engine failed); the message says why."""


# -- from games ------------------------------------------------------------------
class GameTally:
    """Per (key, canonical move): [points, games]."""

    def __init__(self, plies, uniform=False):
        self.plies, self.uniform = plies, uniform
        self.moves = defaultdict(lambda: [0, 0])
        self.games = self.skipped = 0

    def add(self, record):
        """Count one game's moves; False (and nothing counted) if it has no
        result and --uniform is off."""
        red_points = RED_POINTS.get(record.result)
        if red_points is None and not self.uniform:
            self.skipped += 1
            return False
        board = Board(record.fen) if record.fen else Board()
        for move in record.moves:
            fen = board.fen()
            if books.game_ply(fen) >= self.plies:
                break
            key, mirrored = books.position_key(fen)
            if self.uniform:
                points = 1
            else:
                points = red_points if board.turn == "w" else 2 - red_points
            slot = self.moves[(key, books.mirror_move(move) if mirrored else move)]
            slot[0] += points
            slot[1] += 1
            board.push(move)
        self.games += 1
        return True

    def weights(self, min_games=1):
        """(key, move) -> (points, games) of the moves that stay."""
        return {k: (points, games) for k, (points, games) in self.moves.items()
                if games >= min_games and points > 0}


# -- from analysis -----------------------------------------------------------------
def score_cp(info):
    """An Info's score as centipawns (a mate as BOOK_MATE_CP less its distance)."""
    if info.mate is not None:
        return BOOK_MATE_CP - info.mate if info.mate > 0 else -BOOK_MATE_CP - info.mate
    return info.cp


def final_lines(infos):
    """[(move, cp)] of the deepest iteration whose MultiPV lines all came
    (a node or time limit can stop the last one half way), best first.
    Bounded scores (an aspiration window's fail) are not final and are skipped."""
    by_depth = defaultdict(dict)
    for info in infos:
        if info.pv and info.depth and info.bound is None and \
                (info.cp is not None or info.mate is not None):
            by_depth[info.depth][info.multipv or 1] = info
    if not by_depth:
        return []
    full = max(len(lines) for lines in by_depth.values())
    depth = max(d for d, lines in by_depth.items() if len(lines) == full)
    lines = [by_depth[depth][k] for k in sorted(by_depth[depth])]
    return sorted(((info.pv[0], score_cp(info)) for info in lines), key=lambda x: -x[1])


def analysis_weight(loss, halving):
    return max(1, round(100 * 0.5 ** (loss / halving)))


def kept_moves(lines, margin, halving):
    """[(move, weight, cp)] of the lines within `margin` of the best."""
    if not lines:
        return []
    best = lines[0][1]
    return [(move, analysis_weight(best - cp, halving), cp) for move, cp in lines
            if best - cp <= margin]


@dataclass
class Analyst:
    """How the engines are started and what they search."""
    argv: list
    limit: Limit
    multipv: int = 4
    hash_mb: int = 16
    name: str = "?"                           # the engine's `id name`, once started

    def start(self):
        engine = open_engine(self.argv, "uci")
        self.name = engine.id.get("name", engine.name)
        try:
            if "multipv" not in engine.options:
                raise BuildError(f"{engine.name} has no MultiPV option: it cannot build a book")
            wanted = {"MultiPV": self.multipv, "Hash": self.hash_mb, "Threads": 1,
                      "OwnBook": False}       # a book's answers are no analysis
            engine.configure({name: value for name, value in wanted.items()
                              if name.lower() in engine.options})
        except BaseException:
            engine.close()
            raise
        return engine

    def lines(self, engine, fen):
        engine.new_game()                     # a clear hash: the same book at any concurrency
        return final_lines(list(engine.analyse((fen, []), self.limit)))


def analyse_all(engines, analyst, fens):
    """Each FEN's final lines, in order, the engines taking positions from one queue."""
    todo = queue.Queue()
    for item in enumerate(fens):
        todo.put(item)
    results, errors = [None] * len(fens), []

    def work(engine):
        while not errors:
            try:
                index, fen = todo.get_nowait()
            except queue.Empty:
                return
            try:
                results[index] = analyst.lines(engine, fen)
            except Exception as error:          # reported below, by the main thread
                errors.append(f"{engine.name} failed on {fen}: {error}")
                return

    threads = [threading.Thread(target=work, args=(engine,), daemon=True) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise BuildError(errors[0])
    return results


def analyse_tree(analyst, plies, margin, halving, concurrency=1, log=None):
    """(key, canonical move) -> (weight, cp) for the first `plies` plies,
    breadth-first from the start position."""
    found = {}
    frontier = [Board().fen()]
    seen = {books.position_key(frontier[0])[0]}
    engines = []
    try:
        for _ in range(concurrency):
            engines.append(analyst.start())
        for ply in range(plies):
            started = time.monotonic()
            results = analyse_all(engines, analyst, frontier)
            following, kept_count = [], 0
            for fen, lines in zip(frontier, results):
                key, mirrored = books.position_key(fen)
                legal = set(Board(fen).legal_moves())
                for move, weight, cp in kept_moves(lines, margin, halving):
                    if move not in legal:        # another engine's garbage stays out
                        continue
                    kept_count += 1
                    found[(key, books.mirror_move(move) if mirrored else move)] = (weight, cp)
                    if ply + 1 < plies:
                        board = Board(fen)
                        board.push(move)
                        child = board.fen()
                        child_key = books.position_key(child)[0]
                        if child_key not in seen:
                            seen.add(child_key)
                            following.append(child)
            if log:
                log(f"ply {ply}: {len(frontier)} positions analysed, {kept_count} moves kept "
                    f"({time.monotonic() - started:.1f} s)")
            frontier = following
            if not frontier:
                break
    finally:
        for engine in engines:
            engine.close()
    return found


# -- the book --------------------------------------------------------------------------
def combine(games=None, analysis=None):
    """Entries from game weights ((key, move) -> (points, games)) and
    analysis ((key, move) -> (weight, cp)): weights added, then each
    position's scaled down if its heaviest move is over 65,535."""
    merged = defaultdict(lambda: [0, 0, None])
    for k, (points, count) in (games or {}).items():
        merged[k][0] += points
        merged[k][1] += count
    for k, (weight, cp) in (analysis or {}).items():
        merged[k][0] += weight
        merged[k][2] = max(-32767, min(32767, cp))
    heaviest = defaultdict(int)
    for (key, _), (weight, _, _) in merged.items():
        heaviest[key] = max(heaviest[key], weight)
    entries = []
    for (key, move), (weight, count, cp) in merged.items():
        top = heaviest[key]
        if top > books.MAX_WEIGHT:
            weight = max(1, weight * books.MAX_WEIGHT // top)
        entries.append(books.Entry(key, move, weight, min(count, books.MAX_COUNT), cp))
    return entries


# -- the command line ----------------------------------------------------------------
def _build(parser, args):
    if not args.games and not args.analyse:
        parser.error("nothing to build from: give game files or folders, or --analyse PLIES")
    if not args.analyse and (args.depth or args.nodes or args.movetime):
        parser.error("--depth, --nodes and --movetime are limits of --analyse")
    for path in args.games:
        if not os.path.isdir(path):
            check_input(parser, path)
    check_output(parser, args.output, "-o")
    if args.analyse:
        limit = Limit(depth=args.depth) if args.depth else Limit(nodes=args.nodes) \
            if args.nodes else Limit(movetime=args.movetime) if args.movetime else Limit(depth=10)
    started = time.monotonic()
    log = lambda text: print(text, file=sys.stderr, flush=True)   # noqa: E731
    parts = []

    game_weights, failures = None, 0
    if args.games:
        tally = GameTally(args.plies, args.uniform)
        for path in records.game_files(args.games):
            found, problems = records.read_file(path)
            for record in found:
                tally.add(record)
            for problem in problems:
                log(f"{'warning' if problem.game_kept else 'error'}: {problem}")
            failures += sum(not problem.game_kept for problem in problems)
        game_weights = tally.weights(args.min_games)
        log(f"games: {tally.games} counted, {tally.skipped} without a result left out, "
            f"{failures} unreadable; {len(game_weights)} moves kept")
        sources = ", ".join(os.path.basename(path.rstrip("/")) for path in args.games)
        parts.append(f"games: {tally.games} from {sources} (plies {args.plies}, "
                     f"min-games {args.min_games}{', uniform' if args.uniform else ''})")

    analysis = None
    if args.analyse:
        argv = shlex.split(args.engine) if args.engine else default_engine()
        analyst = Analyst(argv, limit, args.multipv, args.hash)
        try:
            analysis = analyse_tree(analyst, args.analyse, args.margin, args.halving,
                                    args.concurrency, log)
        except Exception as error:
            print(f"tuong-book: error: {error}", file=sys.stderr)
            return 1
        what = ", ".join(f"{k} {v:g}" for k, v in vars(limit).items()
                         if v not in (None, 0.0, False))
        parts.append(f"analysis: {args.analyse} plies by {analyst.name} at {what}, "
                     f"MultiPV {args.multipv}, margin {args.margin} cp, "
                     f"halving {args.halving:g} cp")

    entries = combine(game_weights, analysis)
    description = "; ".join(([args.description] if args.description else []) + parts)
    size = books.write(args.output, entries, description)
    positions = len({e.key for e in entries})
    log(f"wrote {args.output}: {positions} positions, {len(entries)} moves, {size} bytes "
        f"in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


def _probe(parser, args):
    words = args.position
    try:
        board = Board() if not words or words == ["startpos"] else Board(" ".join(words))
    except ValueError as error:
        parser.error(f"bad FEN: {error}")
    for number, move in enumerate(args.moves or [], 1):
        try:
            board.push(move)
        except ValueError:
            parser.error(f"--moves: move {number} ({move!r}) is not legal in {board.fen()}")
    path = args.book or books.DEFAULT_PATH
    try:
        book = books.Book.open(path)
    except books.BookError as error:
        parser.error(f"book {error}")
    fen = board.fen()
    print(f"book {path}: {book.positions} positions, {book.count} moves")
    if book.description:
        print(f"description: {book.description}")
    print(f"position {fen} (ply {books.game_ply(fen)})")
    moves = book.probe(fen, board.legal_moves())
    if not moves:
        print("no book moves")
        return 0
    total = sum(m.weight for m in moves)
    print(f"{'move':6} {args.to:12} {'weight':>6} {'share':>6} {'games':>6} {'score':>6}")
    for m in moves:
        text = notations.write(board, m.move, args.to)
        score = "" if m.score is None else f"{m.score:+d}"
        print(f"{m.move:6} {text:12} {m.weight:6} {100 * m.weight / total:5.1f}% "
              f"{m.games:6} {score:>6}")
    return 0


def main(argv=None):
    parser = ArgumentParser(prog="tuong-book", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="make a book from games and/or analysis",
                                description="Make a book from games and/or the engine's "
                                            "analysis (docs/guide/book.md).")
    build.add_argument("games", nargs="*", help="PGN/XQF files or folders of them")
    build.add_argument("-o", "--output", required=True, help="the book file to write")
    build.add_argument("--plies", type=integer(1, 1000), default=30,
                       help="games: count moves before this ply of the game (default 30)")
    build.add_argument("--min-games", type=integer(1), default=1,
                       help="games: a move needs this many games (default 1)")
    build.add_argument("--uniform", action="store_true",
                       help="games: every move counts 1, whatever the result (and games "
                            "without one count)")
    build.add_argument("--analyse", "--analyze", type=integer(0, 100), default=0,
                       metavar="PLIES", help="analyse the first PLIES plies from the start")
    limits = build.add_mutually_exclusive_group()
    limits.add_argument("--depth", type=integer(1, 100), help="analysis depth (default 10)")
    limits.add_argument("--nodes", type=integer(1), help="analysis nodes a position")
    limits.add_argument("--movetime", type=real(0, strict=True), help="seconds a position")
    build.add_argument("--multipv", type=integer(1, 10), default=4,
                       help="lines searched a position (default 4)")
    build.add_argument("--margin", type=integer(0, 10_000), default=30,
                       help="keep moves within this many centipawns of the best (default 30)")
    build.add_argument("--halving", type=real(0, strict=True), default=10.0,
                       help="a move's weight halves every this many centipawns below "
                            "the best (default 10)")
    build.add_argument("--concurrency", "-concurrency", type=integer(1, 256), default=1,
                       help="engines at once (default 1)")
    build.add_argument("--hash", type=integer(1, 4096), default=16, help="engine hash, MB")
    build.add_argument("--engine", help="the UCI engine's command (default: tuong)")
    build.add_argument("--description", help="text stored in the file before the recipe")

    probe = commands.add_parser("probe", help="list a position's book moves",
                                description="List a position's book moves with weights.")
    probe.add_argument("position", nargs="*", help="a FEN, or startpos (the default)")
    probe.add_argument("--book", help="the book file (default: the shipped book)")
    probe.add_argument("--moves", nargs="+", metavar="MOVE", help="moves played from it (a0-i9)")
    probe.add_argument("--to", choices=notations.NOTATIONS, default="wxf",
                       help="the second notation shown (default wxf)")
    args = parser.parse_args(argv)
    if args.command == "build":
        return _build(build, args)
    return _probe(probe, args)


if __name__ == "__main__":
    sys.exit(main())
