"""Game records: PGN in any notation and encoding, XQF, FEN; PGN out in any notation.

    tuong-pgn convert FILE... --to coords|ranks1|iccs|wxf|chinese|vietnamese [-o OUT]
    tuong-pgn opening FILE... [--lang en|vi|zh-Hans|zh-Hant]   (ECCO codes, tools/db/ecco.py)

reads PGN (UTF-8, GB2312/GBK/GB18030, Big5 or UTF-16, tools/records/encoding.py: a
damaged byte costs one character and a warning; any line ends; moves in any notation
of tools/records/notation.py: the `[Format]` tag where given, detection otherwise),
XQF (.xqf, tools/records/xqf.py) and FEN/EPD files (a position a line), and writes
UTF-8 PGN with a `[Format]` tag naming the notation, `[Game "Chinese Chess"]`,
`[Red]`/`[Black]` (`[White]` is read as `[Red]`) and every other tag in its order.
Comments (all those after a move are that move's), variations (nested too) and move marks (! ?
!! ?? !? ?!, or NAGs $1-$6) are kept: a Record's `tree` (tools/records/tree.py)
holds the whole game, its `moves` and `comments` the main line. A game with
a malformed or illegal move in its main line is reported on stderr by its
file, number, players, move number and text, and left out; a variation with
one is reported and left out of its game, which is written. The exit status
is 1 when anything was left out.

The package's modules, by job: record.py (Record, its tags and its tree's
editing; Problem), reading.py (PGN and FEN text in), files.py (files and
streams in: read_file, iter_games, game_files), writing.py (PGN out); the
package exports their public names, and is the `tuong-pgn` command.
"""
import sys
from collections.abc import Sequence

from tuong.tools.cli import ArgumentParser, check_output, plural
from tuong.tools.records import notation as notations
from tuong.tools.records.encoding import decode as decode   # its home was here
from tuong.tools.records.movetext import MARKS as MARKS
from tuong.tools.records.movetext import RESULTS as RESULTS
# The types the API's signatures name, at hand beside it.
from tuong.tools.records.notation import NOTATIONS as NOTATIONS
from tuong.tools.records.notation import Notation as Notation
from tuong.tools.records.tree import GameTree as GameTree
from tuong.tools.records.tree import Node as Node
from tuong.tools.records.record import (FORMAT_NAMES, GAME_TAG, DERIVED_TAGS, Record, kept_tag,
                                        Problem)
from tuong.tools.records.reading import (read_pgn, looks_like_fen_lines, read_text,
                                         read_fen_lines, count_games)
from tuong.tools.records.files import read_file, iter_games, read_bytes, game_files
from tuong.tools.records.writing import format_pgn

__all__ = ["FORMAT_NAMES", "GAME_TAG", "DERIVED_TAGS", "Record", "kept_tag", "Problem",
           "read_pgn", "looks_like_fen_lines", "read_text", "read_fen_lines", "count_games",
           "read_file", "iter_games", "read_bytes", "game_files", "format_pgn", "main"]


# -- tuong-pgn -----------------------------------------------------------------
def _print_openings(paths: Sequence[str], lang: str) -> int:
    """tuong-pgn opening: one line a game, CODE<TAB>name ('?' for none)."""
    from tuong.tools.db import ecco
    model, failures = ecco.shipped(), 0
    for path in game_files(paths):
        records, problems = read_file(path)
        for record in records:
            code = model.classify(record.moves, record.fen)
            print(f"{code}\t{model.name(code, lang)}" if code else "?\t")
        for problem in problems:
            if not problem.game_kept:
                print(f"error: {problem}", file=sys.stderr)
                failures += 1
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The `tuong-pgn` command line (`argv`: its arguments, default
    sys.argv's); returns the exit status: 1 when anything was left out."""
    parser = ArgumentParser(prog="tuong-pgn", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    convert = commands.add_parser("convert", help="PGN/XQF/FEN files in, PGN in a notation out")
    convert.add_argument("files", nargs="+", help="record files or folders")
    convert.add_argument("--to", choices=notations.NOTATIONS, default="wxf",
                         help="the notation of the output moves (default: wxf)")
    convert.add_argument("--from", dest="notation", choices=notations.NOTATIONS,
                         help="the notation of the input moves (default: [Format] or detected)")
    convert.add_argument("-o", "--output", help="output file (default: standard output)")
    opening = commands.add_parser(
        "opening", help="each game's ECCO code and name, learned from master games "
                        "(a record's own [ECCO] tag is not read)")
    opening.add_argument("files", nargs="+", help="record files or folders")
    opening.add_argument("--lang", choices=("en", "vi", "zh-Hans", "zh-Hant"), default="zh-Hans",
                         help="the language of the names (default: zh-Hans)")
    args = parser.parse_args(argv)
    if args.command == "opening":
        return _print_openings(args.files, args.lang)
    if args.output:                      # refused before any file is read
        check_output(parser, args.output, "-o")

    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    games = failures = dropped = damaged = 0
    try:
        for path in game_files(args.files):
            records, problems = read_file(path, args.notation)
            for record in records:
                out.write(format_pgn(record, args.to))
                games += 1
            for problem in problems:
                print(f"{'warning' if problem.game_kept else 'error'}: {problem}",
                      file=sys.stderr)
                # A damaged byte (the file's own warning, game 0) costs a character,
                # not a game nor a variation: said, and the run still succeeds.
                damaged += problem.game == 0 and problem.game_kept
                dropped += problem.game_kept and problem.game != 0
                failures += not problem.game_kept
    finally:
        if args.output:
            out.close()
    print(f"{plural(games, 'game')} written, {failures} left out"
          + (f", {plural(dropped, 'variation problem')}" if dropped else "")
          + (f", {plural(damaged, 'file')} with damaged bytes" if damaged else ""),
          file=sys.stderr)
    return 1 if failures or dropped else 0

