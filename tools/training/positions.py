"""tuong-positions: labelled quiet positions from PGN games, for tuong-tune.

    tuong-positions games.pgn [more.pgn ...] -o positions.txt[.gz]
                    [--skip-plies 4] [--end-plies 10] [--limit N]

Every position before an engine move of a finished game becomes a line

    <board> <side> <result> <score>

(FEN placement and side to move; the game's result from Red's side: 1, 0.5
or 0; the score the mover's engine gave, in centipawns from Red's side, or
`-` if the PGN has none; a mate is +-10000). Left out: the first
--skip-plies plies of each game (after its start position), positions
before book moves, positions with the side to move in check, positions
where the side to move has a capture that wins material by static exchange
(the evaluation cannot see it coming), the last --end-plies positions of
games ended by adjudication or by a move limit (their result was not played
out), games ended by a forfeit (time, crash, illegal move: the result says
nothing about the position) or unfinished, and every repeat of a position
(board and side) already written. A name ending in .gz is gzip-compressed.
"""
import gzip
import re
import sys

from tuong.engine.board import Board, winning_capture
from tuong.tools import doc_parser
from tuong.tools.records import pgn
from tuong.tools.cli import check_input, check_output, integer

RESULT_FOR_RED = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}
# How a game may end for its result to count; the last two were not played out.
PLAYED_OUT = {"checkmate", "stalemate", "repetition", "perpetual check", "perpetual chase"}
CUT_SHORT = {"adjudication", "move limit"}
# A mate read from a move's comment (`{+M5/12 ...}`), as the position's
# training score in centipawns (the positions file holds an int16).
COMMENT_MATE_CP = 10000
_SCORE = re.compile(r"^([+-])(?:M(\d+)|(\d+(?:\.\d+)?))(?:/\d+)?(?:\s|$)")


def comment_score(comment):
    """The mover's score in centipawns from a `{+0.35/12 0.250s}` comment
    (mates +-COMMENT_MATE_CP), or None."""
    m = _SCORE.match(comment or "")
    if not m:
        return None
    sign = -1 if m.group(1) == "-" else 1
    return sign * (COMMENT_MATE_CP if m.group(2) else round(float(m.group(3)) * 100))


def open_text(path, mode):
    if str(path).endswith(".gz"):
        return gzip.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8")


class Extractor:
    """Turns games into position lines; counts what it leaves out and why."""

    def __init__(self, skip_plies=4, end_plies=10):
        self.skip_plies, self.end_plies = skip_plies, end_plies
        self.seen = set()
        self.skipped = dict.fromkeys(("game not played out", "opening plies", "book move",
                                      "in check", "pending capture", "end of a cut-short game",
                                      "repeat"), 0)
        self.games = 0

    def game(self, tags, moves, result):
        """Yield the lines of one game: (tags, [(move, comment)], result)."""
        termination = tags.get("Termination", "")
        if result not in RESULT_FOR_RED or termination not in PLAYED_OUT | CUT_SHORT:
            self.skipped["game not played out"] += 1
            return
        self.games += 1
        label = RESULT_FOR_RED[result]
        board = Board(tags.get("FEN"))
        last = len(moves) - (self.end_plies if termination in CUT_SHORT else 0)
        for ply, (move, comment) in enumerate(moves):
            reason = None
            if ply < self.skip_plies:
                reason = "opening plies"
            elif comment == "book":
                reason = "book move"
            elif ply >= last:
                reason = "end of a cut-short game"
            elif board.in_check():
                reason = "in check"
            elif winning_capture(board):
                reason = "pending capture"
            else:
                key = " ".join(board.fen().split()[:2])
                if key in self.seen:
                    reason = "repeat"
                else:
                    self.seen.add(key)
                    score = comment_score(comment)
                    if score is not None and board.turn == "b":
                        score = -score
                    yield f"{key} {label} {'-' if score is None else score}"
            if reason:
                self.skipped[reason] += 1
            board.push(move)

    def report(self, written):
        left = ", ".join(f"{reason} {n}" for reason, n in self.skipped.items() if n)
        return f"{written} positions from {self.games} games; left out: {left or 'nothing'}"


def main(argv=None):
    parser = doc_parser("tuong-positions", __doc__)
    parser.add_argument("pgn", nargs="+", help="PGN files (tuong-match / tuong-datagen output)")
    parser.add_argument("-o", "--output", required=True, help="positions file (.gz: compressed)")
    parser.add_argument("--skip-plies", type=integer(0), default=4,
                        help="plies left out at the start of each game (default 4)")
    parser.add_argument("--end-plies", type=integer(0), default=10,
                        help="plies left out at the end of adjudicated games (default 10)")
    parser.add_argument("--limit", type=integer(1), help="stop after this many positions")
    args = parser.parse_args(argv)
    for path in args.pgn:
        check_input(parser, path)
    check_output(parser, args.output, "-o")
    extractor = Extractor(args.skip_plies, args.end_plies)
    written = 0
    with open_text(args.output, "w") as out:
        for path in args.pgn:
            try:
                with open_text(path, "r") as f:
                    games = pgn.read_annotated_games(f.read())
            except UnicodeDecodeError as err:
                parser.error(f"{path}: not UTF-8 text (byte {err.start}: {err.reason})")
            except (OSError, EOFError, ValueError) as err:
                parser.error(f"{path}: {getattr(err, 'strerror', None) or err}")
            for number, game in enumerate(games, 1):
                try:
                    for line in extractor.game(*game):
                        out.write(line + "\n")
                        written += 1
                        if args.limit and written >= args.limit:
                            break
                except ValueError as err:
                    print(f"tuong-positions: {path}: game {number}: {err}; rest of it skipped",
                          file=sys.stderr)
                if args.limit and written >= args.limit:
                    break
            if args.limit and written >= args.limit:
                break
    print(extractor.report(written), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
