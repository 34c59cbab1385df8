"""tuong-egtb play: does the engine turn the tables into results?

    tuong-egtb play --tb-path DIR --opponent CMD [ENDGAME ...] [--positions N]

From random positions of the tables, tuong (with `TablebasePath`) plays an
opponent engine twice, colours swapped, under tuong-match's referee (Asian
rules). What must hold: from a won position tuong wins, within the table's
distance to mate; from a drawn one tuong loses neither game (drawn positions
are taken only from tables whose draws are proven, see engine/egtb.pyx). How the
opponent does with the same positions is reported beside it. The exit
status is 1 if tuong failed once.
"""
import random
import shlex
import sys

from tuong.engine.board import Board
from tuong.engine.egtb import draws_proven
from tuong.engine.egtbfile import SUFFIX, TableError, Tablebases, canonical, fen_of
from tuong.protocol.tablebases import RootTables
from tuong.tools.cli import check_output, default_engine, integer
from tuong.tools.match.cli import UsageError, parse_args
from tuong.tools.match.referee import RED
from tuong.tools.match.runtime import Fatal, ThreadPool, schedule

TRIES = 200_000                # random indexes drawn, at most
TRAP_CHECKS = 2_000            # drawn positions looked at for a move that loses


def _won(value, min_plies):
    return value not in (0, 255) and (value - 1) % 2 == 1 and value - 1 >= min_plies


def sample(tables, name, count, rng, min_plies):
    """(won, drawn): up to `count` positions of each, the side to move
    winning in at least `min_plies`, or drawn with a move that would lose
    (a draw that can be thrown away, where one exists). No draws of a table
    whose draws are not proven (both sides with an attacker: a draw there
    may rest on a perpetual check or chase, which loses)."""
    table = tables.table(canonical(name)[0])
    root = RootTables(print)
    root.tables = tables
    won, drawn, plain_draws, checked = [], [], [], 0
    if not draws_proven(table.pieces()):
        checked = TRAP_CHECKS            # its draws may need a perpetual check: not played
    for _ in range(TRIES):
        if len(won) >= count and (len(drawn) >= count or checked == TRAP_CHECKS):
            break
        index = rng.randrange(table.size)
        value = table.value_at(index)
        if value == 255:
            continue
        squares, side = table.position_at(index)
        fen = fen_of(table.pieces(), squares, side)
        if _won(value, min_plies) and len(won) < count:
            won.append((fen, value - 1))
        elif value == 0 and len(drawn) < count and checked < TRAP_CHECKS:
            checked += 1
            if root.losing_moves(Board(fen)):
                drawn.append((fen, None))
            elif len(plain_draws) < count:
                plain_draws.append((fen, None))
    return won, drawn + plain_draws[:count - len(drawn)]


def match_argv(args, games):
    """tuong-match's arguments for `games` games of tuong against the opponent."""
    return ["-engine", "name=tuong", f"cmd={args.engine}",
            f"option.TablebasePath={args.tb_path}",
            "-engine", "name=opponent", f"cmd={args.opponent}", f"proto={args.opponent_proto}",
            "-each", f"tc={args.tc}", "-games", str(games),
            "-concurrency", str(args.concurrency), "-maxplies", "400", "-nocapture", "300"]


def play(args, parser):
    try:
        parse_args(match_argv(args, 2))       # --tc and the rest, before the tables are sampled
    except UsageError as error:
        parser.error(str(error))
    if args.pgnout:
        check_output(parser, args.pgnout, "--pgnout")
    try:
        tables = Tablebases(args.tb_path)
    except TableError as error:
        parser.error(str(error))
    names = args.endgames or sorted(tables.names)
    rng = random.Random(args.seed)
    positions = []                   # (endgame, fen, plies to mate or None for a draw)
    for name in names:
        stored, _ = canonical(name)
        if stored not in tables.names or tables.table(stored) is None:
            parser.error(f"{stored}{SUFFIX}: not a readable table in {args.tb_path}")
        won, drawn = sample(tables, stored, args.positions, rng, args.min_plies)
        positions += [(stored, fen, plies) for fen, plies in won + drawn]
    if not positions:
        parser.error("no positions to play")
    try:
        config = parse_args(match_argv(args, 2 * len(positions)))
    except UsageError as error:
        parser.error(str(error))
    config.openings = [(Board(fen).fen(), []) for _, fen, _ in positions]
    return judge(config, positions, args.pgnout)


def judge(config, positions, pgnout=None):
    """Play the games; print each failure and the tally; 0 if tuong never failed."""
    from tuong.tools.records import pgn
    specs = schedule(config)
    tally = {}                     # endgame -> counters
    failures = 0
    pool = ThreadPool(config, None)
    out = open(pgnout, "a", encoding="utf-8") if pgnout else None
    try:
        pool.start(specs)
        for job, game in pool.games():
            name, fen, plies = positions[job.pair[2]]
            tuong_red = job.red == 0
            if out:
                out.write(pgn.format_game(game, job.number, "tuong-egtb play"))
                out.flush()
            counts = tally.setdefault(name, dict.fromkeys(
                ("won", "converted", "defended", "opponent converted", "drawn", "held",
                 "not judged"), 0))
            if game.forfeit is not None and (game.forfeit == RED) != tuong_red:
                # the other engine lost on time, crashed or moved illegally: the
                # game shows nothing of what tuong makes of the position
                counts["not judged"] += 1
                print(f"not judged: {name} {fen}: the opponent forfeited ({game.termination}: "
                      f"{game.reason})", flush=True)
                continue
            side_to_move_red = fen.split()[1] == "w"
            tuong_points = {"1-0": 1, "0-1": 0}.get(game.result, 0.5)
            if not tuong_red:
                tuong_points = 1 - tuong_points
            if plies is None:
                counts["drawn"] += 1
                ok = tuong_points >= 0.5
                counts["held"] += ok
                what = "lost a drawn position"
            elif tuong_red == side_to_move_red:          # tuong has the win
                counts["won"] += 1
                ok = tuong_points == 1 and len(game.moves) <= plies
                counts["converted"] += ok
                what = f"did not win in {plies} plies"
            else:
                counts["defended"] += 1
                counts["opponent converted"] += tuong_points == 0
                ok = True
            if not ok:
                failures += 1
                print(f"FAILED {name} {fen}: tuong {what} ({game.result}, {game.termination}, "
                      f"{len(game.moves)} plies: {' '.join(m.move for m in game.moves)})",
                      flush=True)
    except Fatal as error:
        print(f"tuong-egtb play: {error}", file=sys.stderr)
        return 1
    finally:
        pool.close()
        if out:
            out.close()
    total = {k: sum(c[k] for c in tally.values()) for k in next(iter(tally.values()), {})}
    for name, c in sorted(tally.items()) + ([("all", total)] if total else []):
        print(f"{name:14} tuong converted {c['converted']}/{c['won']} wins, held "
              f"{c['held']}/{c['drawn']} draws; the opponent converted "
              f"{c['opponent converted']}/{c['defended']} against tuong"
              + (f"; {c['not judged']} not judged (the opponent forfeited)"
                 if c["not judged"] else ""))
    return 1 if failures else 0


def add_parser(commands):
    cmd = commands.add_parser("play", help="play table positions against an engine")
    cmd.add_argument("--tb-path", required=True, metavar="DIR", help="the tables' folder")
    cmd.add_argument("endgames", nargs="*", help="(default: every table in the folder)")
    cmd.add_argument("--opponent", required=True, help="the other engine's command")
    cmd.add_argument("--opponent-proto", default="uci", choices=("uci", "ucci", "xboard"),
                     help="the other engine's protocol (default uci)")
    cmd.add_argument("--engine", default=shlex.join(default_engine()),
                     help="tuong's command (default: the one installed with this tool)")
    cmd.add_argument("--positions", type=integer(1), default=2,
                     help="won and drawn positions per endgame (default 2 each)")
    cmd.add_argument("--min-plies", type=integer(0), default=9,
                     help="the shortest win to play out (default 9 plies)")
    cmd.add_argument("--tc", default="2+0.05", help="time control (tuong-match's tc=)")
    cmd.add_argument("--concurrency", type=integer(1), default=2,
                     help="games at once (default 2)")
    cmd.add_argument("--seed", type=int, default=1, help="the positions drawn (default 1)")
    cmd.add_argument("--pgnout", help="append the games to this PGN file")
