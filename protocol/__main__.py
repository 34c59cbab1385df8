"""`tuong` / `python -m tuong.protocol`: the engine process on stdin/stdout.
The first command chooses the dialect: uci, ucci or xboard.

`tuong --help` and `tuong --version` answer and exit; any other argument is
left alone, as it always was (a GUI may start an engine with arguments of
its own), and the engine starts."""
import argparse
import io
import os
import sys
from collections.abc import Sequence
from importlib import metadata

DESCRIPTION = """\
A Xiangqi (Chinese chess) engine for a GUI or a script: started without
arguments it reads commands on standard input and answers on standard
output. The first command chooses the protocol: `uci`, `ucci` or `xboard`
(then `protover 2`). `uci` lists the engine's options (Hash, Threads,
MultiPV, UCI_Elo, EvalFile, BookFile, TablebasePath, ...), set with
`setoption name NAME value VALUE`."""

EPILOG = """\
Any other argument is ignored (some GUIs pass their own): the engine
starts as without it."""


def version() -> str:
    """The installed package's version, e.g. '0.1.0'."""
    try:
        return metadata.version("tuong")
    except metadata.PackageNotFoundError:          # run from a checkout never installed
        return "unknown (not installed)"


def parser() -> argparse.ArgumentParser:
    """The arguments `tuong` answers itself (for its usage and help)."""
    made = argparse.ArgumentParser(prog="tuong", description=DESCRIPTION, allow_abbrev=False,
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog=EPILOG)
    made.add_argument("--version", action="store_true", help="print the version and exit")
    return made


def _answer(text: str) -> int:
    """Print `text` and return 0; 1, quietly, if the reader has gone
    (`tuong --help | head -1`)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())     # the interpreter's last flush goes there
        os.close(devnull)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Answer --help or --version, else run the engine until `quit` or the end of input."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if "-h" in argv or "--help" in argv:
        return _answer(parser().format_help())
    if "--version" in argv:
        return _answer(f"tuong {version()}\n")
    from tuong.protocol.session import Session
    # Never let an odd character in an echoed input stop a line going out.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    Session().run(sys.stdin.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
