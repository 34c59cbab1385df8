"""tuong-annotate: every move of a game judged by an engine, with commentary.

    tuong-annotate FILE... [-o OUT] [--movetime S | --depth N | --nodes N]
                   [--to NOTATION] [--lang en|vi|zh-Hans|zh-Hant]
                   [-concurrency N] [--plot DIR]
                   [--engine CMD] [--protocol uci|ucci|xboard]

Reads games (PGN in any notation and encoding, XQF, folders of them: see
tools/records/), searches every position of every game with the engine
(tuong by default) at the limit given (0.1 s a move by default), and writes
PGN in the chosen notation (WXF by default) where each move has a comment:
the score after it (Red's view), the engine's move and line where they
differ, and a sentence of commentary (tools/records/commentary.py) in English,
Vietnamese or Chinese (--lang: zh-Hans simplified, zh-Hant traditional). A
move is marked by what it loses in expected score, the share of the points
the engine's scores predict: 1 / (1 + exp(-cp / 588)), the scale tuong-train fitted to
tuong's self-play results. Losing at least 0.15 of a point is a blunder (??),
0.10 a mistake (?), 0.05 an inaccuracy (?!). Each game ends with a summary per
player: average loss in centipawns and in expected score, and the count of
each mark. --plot draws each game's evaluation graph to a PNG (the `plot`
extra: matplotlib), marked moves in colour. -concurrency N runs N engines on
the positions at once.
"""
import dataclasses
import math
import os
import queue
import shlex
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from tuong.engine.board import Board
from tuong.protocol.client import Limit, open_engine
from tuong.tools.records import commentary, notation as notations
from tuong.tools.records.notation import Notation
from tuong.tools import records
from tuong.tools.cli import ArgumentParser, check_output, integer, plural, quiet_broken_pipe, real

SCALE = 588                     # centipawns; tuong-train's fitted K (docs/measurements/network.md)
"""The scale of the expected score, 588 centipawns: a score of `cp` expects
`1 / (1 + exp(-cp / 588))` of a point (tuong-train's fitted K)."""
MARKS = (("??", 0.15), ("?", 0.10), ("?!", 0.05))
"""(mark, least expected-score loss) from the worst: a blunder `??` loses
0.15 of a point or more, a mistake `?` 0.10, an inaccuracy `?!` 0.05."""
MATE_LOSS_CP = 10_000           # a mate counted as this many centipawns in average losses
"""A mate (or a finished game) counted as 10,000 centipawns when a move's
loss is reckoned for the average losses (then capped at CP_CAP): a score,
not the match referee's threshold-passing MATE_CP."""
CP_CAP = 1_000                  # a single move's centipawn loss counts at most this
"""The most centipawns one move's loss counts (1,000), and the graph's bound."""


def expected(score: tuple[str, Any]) -> float:
    """The side's expected share of the points, 0 to 1, for a score
    `("cp", centipawns)` or `("mate", moves)` from its point of view (a
    mate: 1 if positive, else 0)."""
    kind, value = score
    if kind == "mate":
        return 1.0 if value > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-value / SCALE))


def centipawns(score: tuple[str, Any]) -> int:
    """A score as centipawns: `("cp", n)` is n, `("mate", n)` is +-MATE_LOSS_CP
    by its sign, `("end", result)` (a finished game, Red's view) MATE_LOSS_CP
    for `"1-0"`, -MATE_LOSS_CP for `"0-1"`, else 0."""
    kind, value = score
    if kind == "end":                   # a finished game: its result, Red's view
        return {"1-0": MATE_LOSS_CP, "0-1": -MATE_LOSS_CP}.get(value, 0)
    return (MATE_LOSS_CP if value > 0 else -MATE_LOSS_CP) if kind == "mate" else value


def mark_for(loss: float) -> str | None:
    """The mark of a move that loses `loss` of a point in expected score
    (MARKS): `"??"`, `"?"`, `"?!"`, or None for a smaller loss."""
    for mark, threshold in MARKS:
        if loss >= threshold:
            return mark
    return None


def _negate(score: tuple[str, Any]) -> tuple[str, Any]:
    return (score[0], -score[1])


@dataclasses.dataclass
class Search:
    """The engine's verdict on one position (scores from the side to move)."""
    score: tuple                # ("cp", n) or ("mate", n)
    """`("cp", centipawns)` or `("mate", moves)`, from the side to move."""
    best: str
    """The engine's move, as a0-i9 text (None if it had none)."""
    pv: list
    """The engine's line from the position, a0-i9 moves."""


@dataclasses.dataclass
class MoveNote:
    """The judgement of one move of a game, as annotate_game gives it."""
    move: str
    """The move played, a0-i9 text."""
    red: bool
    """Whether Red played it."""
    score_after: tuple          # Red's view
    """The score after the move, from Red's view: `("cp", n)`, `("mate",
    n)`, or `("end", result)` when the move ended the game."""
    loss: float                 # expected score
    """The share of a point the move lost against the engine's move (0 when
    it is the engine's move)."""
    cp_loss: int
    """The same loss in centipawns, at most CP_CAP."""
    mark: str | None
    """`"??"`, `"?"`, `"?!"` by `loss` (mark_for), or None."""
    best: str | None            # the engine's move where it differs, else None
    """The engine's move where it differs from the move played, else None."""
    best_line: list             # in the notation
    """The engine's line from the position before the move, written in the
    notation asked for (empty when the move is the engine's)."""
    comment: str
    """The sentence of commentary in the language asked for."""


# -- searching -----------------------------------------------------------------
def analyse_positions(jobs: Iterable[tuple[int, int, str | None, list[str]]],
                      engine_argv: str | Sequence[str], protocol: str, limit: Limit,
                      concurrency: int, options: dict[str, Any],
                      progress: Callable[[], object]) -> dict[tuple[int, int], Search]:
    """{(game, ply): Search} for every job `(game, ply, fen, moves)` (the
    position after `moves` from `fen`, None for the initial one), shared
    among `concurrency` engines started with `engine_argv` over `protocol`
    (`"uci"`, `"ucci"`, `"xboard"`) and configured with `options`; each
    position is searched within `limit`, and `progress()` is called after
    each. The first engine error (EngineError, UnsupportedError, ...) is
    raised once every engine has stopped."""
    tasks: queue.Queue[tuple[int, int, str | None, list[str]]] = queue.Queue()
    results: dict[tuple[int, int], Search] = {}
    errors: list[Exception] = []
    for job in jobs:
        tasks.put(job)

    def work():
        try:
            with open_engine(engine_argv, protocol) as engine:
                if options:
                    engine.configure(options)
                game_now = None
                while True:
                    try:
                        game, ply, fen, moves = tasks.get_nowait()
                    except queue.Empty:
                        return
                    if game != game_now:
                        engine.new_game()
                        game_now = game
                    answer = engine.play((fen, moves), limit, timeout=_timeout(limit))
                    info = answer.info
                    score = ("mate", info.mate) if info.mate is not None else ("cp", info.cp or 0)
                    results[(game, ply)] = Search(score, answer.move, list(info.pv or []))
                    progress()
        except Exception as error:          # reported once all workers stop
            errors.append(error)

    workers = [threading.Thread(target=work, daemon=True) for _ in range(max(1, concurrency))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return results


def _timeout(limit: Limit) -> float | None:
    return None if limit.movetime is None else limit.movetime * 4 + 10


# -- judging -------------------------------------------------------------------
def annotate_game(record: records.Record, searches: dict[tuple[int, int], Search], game: int,
                  notation: Notation, lang: str) -> list[MoveNote]:
    """[MoveNote] for a record's main-line moves, from the searches of its
    positions: `searches[(game, ply)]` for ply 0 to the last move (and the
    position after it unless the game ended there), as analyse_positions
    gives them. `notation` writes the engine's lines (a name of
    notation.NOTATIONS), `lang` the commentary (one of commentary.LANGS).
    KeyError if a search is missing."""
    board = Board(record.fen) if record.fen else Board()
    notes = []
    for ply, move in enumerate(record.moves):
        red = board.turn == "w"
        now = searches[(game, ply)]
        before_red = now.score if red else _negate(now.score)
        after_search = searches.get((game, ply + 1))
        played_facts = commentary.facts(board, move, notation)
        board.push(move)
        mate = None                      # a mate in N the engine sees after the move
        if played_facts.no_reply:        # the opponent has lost: as good as a mate
            after_mover = ("mate", 1)
        elif played_facts.verdict:       # the rules end the game here
            result = played_facts.verdict.result
            after_mover = ("cp", 0) if result == "1/2-1/2" else \
                ("mate", 1 if (result == "1-0") == red else -1)
        else:
            after_mover = _negate(after_search.score)   # type: ignore[union-attr]
            if after_mover[0] == "mate" and after_mover[1]:
                mate = after_mover[1]
        after_red = after_mover if red else _negate(after_mover)
        if played_facts.no_reply:        # shown as the result, not as a mate in 0 or 1
            after_red = ("end", "1-0" if red else "0-1")
        elif played_facts.verdict:
            after_red = ("end", played_facts.verdict.result)
        differs = now.best is not None and now.best != move
        loss = max(0.0, expected(now.score) - expected(after_mover)) if differs else 0.0
        cp_loss = min(CP_CAP, max(0, centipawns(now.score) - centipawns(after_mover))) \
            if differs else 0
        mark = mark_for(loss)
        board.pop()
        best_line = _line(board, now.pv if now.pv and now.pv[0] == now.best else [now.best],
                          notation) if differs else []
        better = None
        if mark and differs and best_line:
            better = (commentary.facts(board, now.best, notation),
                      commentary.score_text(before_red), commentary.score_text(after_red))
        text = commentary.sentence(played_facts, lang, before_red, after_red, mate, mark, better)
        board.push(move)
        notes.append(MoveNote(move, red, after_red, loss, cp_loss, mark,
                              now.best if differs else None, best_line, text))
    return notes


def _line(board: Board, pv: list[str], notation: Notation) -> list[str]:
    """A principal variation in the notation, cut at its first illegal move."""
    scratch, out = board.copy(), []
    for move in pv:
        if move not in scratch.legal_moves():
            break
        out.append(notations.write(scratch, move, notation))
        scratch.push(move)
    return out


# Per language: a player's summary line and the word before the engine's line.
SUMMARY = {
    "en": "{side} ({name}): average loss {acpl:.0f} cp, {percent:.1f}% of a point a move; "
          "blunders (??) {blunders}, mistakes (?) {mistakes}, inaccuracies (?!) {inaccuracies}",
    "vi": "{side} ({name}): mất trung bình {acpl:.0f} cp, {percent:.1f}% điểm mỗi nước; "
          "sai lầm nghiêm trọng (??) {blunders}, sai lầm (?) {mistakes}, "
          "thiếu chính xác (?!) {inaccuracies}",
    "zh-Hans": "{side}（{name}）：平均每步损失{acpl:.0f}分，即期望得分的{percent:.1f}%；"
               "严重失误（??）{blunders}次，失误（?）{mistakes}次，缓着（?!）{inaccuracies}次",
}
"""A player's summary line per language (`str.format` fields: side, name,
acpl, percent, blunders, mistakes, inaccuracies)."""
BEST = {"en": "best ", "vi": "tốt nhất ", "zh-Hans": "最佳着法 "}
"""The words before the engine's line in a move's comment, per language."""
for _table in (SUMMARY, BEST):
    _table["zh-Hant"] = commentary.traditional(_table["zh-Hans"])


def summary(record: records.Record, notes: list[MoveNote], lang: str = "en") -> list[str]:
    """A line per player who moved (Red first): average centipawn loss,
    average expected-score loss, the count of each mark, in `lang` (one of
    commentary.LANGS; KeyError for another)."""
    lines = []
    for red in (True, False):
        mine = [n for n in notes if n.red == red]
        name = record.tags.get("White" if red else "Black", "?")
        side = commentary.NAMES[lang]["red" if red else "black"]
        if not mine:
            continue
        acpl = sum(n.cp_loss for n in mine) / len(mine)
        es = sum(n.loss for n in mine) / len(mine)
        counts = {mark: sum(n.mark == mark for n in mine) for mark, _ in MARKS}
        lines.append(SUMMARY[lang].format(side=side, name=name, acpl=acpl, percent=100 * es,
                                          blunders=counts["??"], mistakes=counts["?"],
                                          inaccuracies=counts["?!"]))
    return lines


def comments_for(notes: list[MoveNote], lang: str = "en") -> list[str]:
    """Each move's comment: the score after it, the engine's line where it
    differs (its first 6 moves), the commentary; one per note."""
    out = []
    for note in notes:
        parts = [commentary.score_text(note.score_after)]
        if note.best_line:
            parts.append(BEST[lang] + " ".join(note.best_line[:6]))
        parts.append(note.comment)
        out.append(" ".join(parts))
    return out


def format_annotated(record: records.Record, notes: list[MoveNote], notation: Notation,
                     lang: str) -> str:
    """The annotated game as PGN text in `notation` (an `[Annotator
    "tuong-annotate"]` tag, marks after the moves, comments, the summary
    before the result), comments and summary in `lang`.
    The game's own comments, marks and variations stay: each main-line move
    gets its own comment then the annotation's, and its own mark where the
    engine gives none."""
    tags = dict(record.tags)
    tags["Annotator"] = "tuong-annotate"
    own_marks = [node.mark for node in record.tree.main_line()] if record.tree is not None \
        else [None] * len(record.moves)
    comments = [" ".join(part for part in (own, annotation) if part) or None
                for own, annotation in zip(record.comments + [None] * len(notes),
                                           comments_for(notes, lang))]
    marks = [note.mark or own for note, own in zip(notes, own_marks + [None] * len(notes))]
    marked = dataclasses.replace(record, tags=tags)
    return records.format_pgn(marked, notation, comments=comments, marks=marks,
                              outro="; ".join(summary(record, notes, lang)))


def plot_game(record: records.Record, notes: list[MoveNote], path: str) -> None:
    """Draw the evaluation graph (Red's view, centipawns capped at +-1000,
    marked moves in colour) to the PNG file `path`. Needs matplotlib (the
    `plot` extra): ImportError without it; OSError if the file cannot be
    written."""
    import warnings
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Players' names are often Chinese: a CJK font where the system has one.
    plt.rcParams["font.sans-serif"] = ["Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Zen Hei",
                                       "SimHei", "DejaVu Sans"]
    warnings.filterwarnings("ignore", message="Glyph .* missing from font")
    values = [max(-CP_CAP, min(CP_CAP, centipawns(n.score_after))) for n in notes]
    plies = list(range(1, len(values) + 1))
    fig, ax = plt.subplots(figsize=(9, 3.2), dpi=110)
    ax.fill_between(plies, values, 0, where=[v >= 0 for v in values], color="#d33", alpha=0.25,
                    interpolate=True)
    ax.fill_between(plies, values, 0, where=[v < 0 for v in values], color="#333", alpha=0.25,
                    interpolate=True)
    ax.plot(plies, values, color="#222", linewidth=1)
    colours = {"??": "#c00", "?": "#e80", "?!": "#cc0"}
    for mark, colour in colours.items():
        xs = [p for p, n in zip(plies, notes) if n.mark == mark]
        ys = [v for v, n in zip(values, notes) if n.mark == mark]
        if xs:
            ax.scatter(xs, ys, color=colour, zorder=3, s=28, label=mark)
    ax.axhline(0, color="#888", linewidth=0.6)
    ax.set_xlabel("ply")
    ax.set_ylabel("evaluation (cp, Red's view)")
    ax.set_ylim(-CP_CAP * 1.05, CP_CAP * 1.05)
    title = f"{record.tags.get('White', '?')} - {record.tags.get('Black', '?')}"
    if not title.isascii() and not _cjk_font():
        title = "Red - Black"           # the names would print as empty boxes
    ax.set_title(f"{title}  {record.result}", fontsize=10)
    if any(n.mark for n in notes):
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _cjk_font() -> bool:
    from matplotlib import font_manager
    return any("CJK" in f.name or f.name in ("WenQuanYi Zen Hei", "SimHei")
               for f in font_manager.fontManager.ttflist)


# -- the command -----------------------------------------------------------------
class Progress:
    """A progress bar on stderr (tqdm when installed, a plain counter else)
    for `total` steps; calling it counts one step (thread-safe)."""

    def __init__(self, total: int) -> None:
        self.lock, self.done, self.total = threading.Lock(), 0, total
        try:
            from tqdm import tqdm
            self.bar: Any = tqdm(total=total, unit="pos", file=sys.stderr, disable=None)
            """The tqdm bar, or None without tqdm."""
        except ImportError:
            self.bar = None

    def __call__(self) -> None:
        with self.lock:
            self.done += 1
            if self.bar is not None:
                self.bar.update()
            elif sys.stderr.isatty():
                filled = 30 * self.done // max(1, self.total)
                print(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} positions",
                      end="", file=sys.stderr)

    def close(self) -> None:
        """End the bar (a new line after a plain counter)."""
        if self.bar is not None:
            self.bar.close()
        elif sys.stderr.isatty():
            print(file=sys.stderr)


def _jobs(game: int, record: records.Record
          ) -> Iterator[tuple[int, int, str | None, list[str]]]:
    """(game, ply, fen, moves) for every position of a record that has a move
    to search (not the final one if the game ended there)."""
    board = Board(record.fen) if record.fen else Board()
    for ply, move in enumerate(record.moves):
        yield game, ply, record.fen, record.moves[:ply]
        board.push(move)
    if board.legal_moves():
        yield game, len(record.moves), record.fen, list(record.moves)


def _default_engine() -> list[str]:
    return [sys.executable, "-m", "tuong.protocol"]


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    """The `tuong-annotate` command line (`argv`: its arguments, default
    sys.argv's); returns the exit status: 1 when a game could not be read,
    2 when the engine failed."""
    parser = ArgumentParser(prog="tuong-annotate",
                            description="Annotate games with an engine's judgement "
                                        "and commentary.")
    parser.add_argument("files", nargs="+", help="PGN/XQF files or folders")
    parser.add_argument("-o", "--output", help="annotated PGN (default: standard output)")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--movetime", type=real(0, strict=True),
                        help="seconds a position (default 0.1)")
    limits.add_argument("--depth", type=integer(1, 99), help="plies a position, instead")
    limits.add_argument("--nodes", type=integer(1), help="nodes a position, instead")
    parser.add_argument("--to", choices=notations.NOTATIONS, default="wxf",
                        help="the notation of the moves written (default: wxf)")
    parser.add_argument("--lang", choices=commentary.LANGS, default="en",
                        help="the commentary's language (default: en)")
    parser.add_argument("-concurrency", "--concurrency", type=integer(1), default=1,
                        help="engines analysing at once (default 1)")
    parser.add_argument("--plot", metavar="DIR", help="write each game's graph as DIR/game-N.png")
    parser.add_argument("--engine", help="the engine's command (default: tuong)")
    parser.add_argument("--protocol", choices=("uci", "ucci", "xboard"), default="uci",
                        help="the engine's protocol (default: uci)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="an engine option, e.g. Hash=64 (may be repeated)")
    args = parser.parse_args(argv)
    options = {}
    for item in args.option:
        if "=" not in item:
            parser.error(f"--option {item!r}: expected NAME=VALUE")
        name, value = item.split("=", 1)
        options[name] = value
    if args.output:                      # refused now, not after minutes of analysis
        check_output(parser, args.output, "-o")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib: pip install 'tuong[plot]'")
        try:
            os.makedirs(args.plot, exist_ok=True)
        except OSError as error:
            parser.error(f"--plot {args.plot}: {error.strerror or error}")
    limit = Limit(movetime=args.movetime) if args.movetime else Limit(depth=args.depth) \
        if args.depth else Limit(nodes=args.nodes) if args.nodes else Limit(movetime=0.1)

    games, failures = [], 0
    for path in records.game_files(args.files):
        found, problems = records.read_file(path)
        games.extend(found)
        for problem in problems:         # a variation left out is no failure of the game
            print(f"{'warning' if problem.game_kept else 'error'}: {problem}", file=sys.stderr)
        failures += sum(not problem.game_kept for problem in problems)
    jobs = [job for g, record in enumerate(games) for job in _jobs(g, record)]
    engine = shlex.split(args.engine) if args.engine else _default_engine()
    progress = Progress(len(jobs))
    started = time.monotonic()
    try:
        searches = analyse_positions(jobs, engine, args.protocol, limit, args.concurrency,
                                     options, progress)
    except Exception as error:
        progress.close()
        print(f"error: the engine failed: {error}", file=sys.stderr)
        return 2
    progress.close()
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        for g, record in enumerate(games):
            notes = annotate_game(record, searches, g, args.to, args.lang)
            out.write(format_annotated(record, notes, args.to, args.lang))
            for line in summary(record, notes, args.lang):
                print(line, file=sys.stderr)
            if args.plot:
                plot_game(record, notes, os.path.join(args.plot, f"game-{g + 1}.png"))
    finally:
        if args.output:
            out.close()
    print(f"{plural(len(games), 'game')}, {plural(len(jobs), 'position')} in "
          f"{time.monotonic() - started:.1f} s", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
