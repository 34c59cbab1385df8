"""What the command-line tools share: a bad argument is one line on stderr,
`PROG: error: MESSAGE (see PROG --help)`, and exit status 2, found before
any long work starts (a typo should not cost an hour of computing)."""
import argparse
import functools
import math
import os
import re
import shutil
import sys
from collections.abc import Callable
from typing import Any, TypeVar

HIGHEST = 2**31 - 1       # as `go` takes them (protocol/uci.py): a 32-bit count or ms

# tuong-match's -cluster: local, local:N, or a Dask scheduler's [SCHEME://]HOST:PORT
# (Dask would answer anything else with a traceback).
CLUSTER_ADDRESS = re.compile(r"local(:[1-9]\d*)?"
                             r"|(?!local:)([a-z]+://)?(\[[\w:.%]+\]|[\w.-]+):\d{1,5}")


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with errors on one line instead of after the usage block
    (subparsers are made of the same class, so they do the same)."""

    def error(self, message):
        message = " ".join(str(message).splitlines())
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def integer(low, high=HIGHEST):
    """An argparse type: an integer in low..high."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer from {low} to {high}, "
                                             f"got {text!r}")
        return value
    return parse


def real(low, strict=False):
    """An argparse type: a finite number >= low (> low if strict)."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low or (strict and value == low):
            wanted = f"above {low:g}" if strict else f"at least {low:g}"
            raise argparse.ArgumentTypeError(f"expected a number {wanted}, got {text!r}")
        return value
    return parse


def _label(path, option):
    return f"{option} {path}" if option else str(path)


def _missing_folder(path):
    """The folder `path` would be written in, if it does not exist; else None."""
    folder = os.path.dirname(os.path.abspath(path))
    return None if os.path.isdir(folder) else os.path.dirname(str(path)) or folder


def check_input(parser, path, option=None):
    """Fail unless `path` is a file that can be read."""
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        parser.error(f"{_label(path, option)}: {e.strerror or e}")


def check_output(parser, path, option=None):
    """Fail unless `path` ('-': stdout) can be written, leaving what is
    there as it was: an existing file is opened for appending, a new one
    is created and removed again."""
    if path == "-":
        return
    folder = _missing_folder(path)
    if folder is not None:
        parser.error(f"{_label(path, option)}: there is no folder {folder}")
    try:
        if os.path.exists(path):
            with open(path, "a"):
                pass
        else:
            with open(path, "x"):
                pass
            os.remove(path)
    except OSError as e:
        parser.error(f"{_label(path, option)}: {e.strerror or e}")


def check_cluster(parser, address, option="-cluster"):
    """Fail unless `address` is one tuong-match's -cluster can use."""
    if not CLUSTER_ADDRESS.fullmatch(address):
        parser.error(f"{option} {address}: expected tcp://HOST:PORT, local or local:N")


def default_engine():
    """tuong's command as a list: the `tuong` installed beside this Python,
    else `python -m tuong.protocol`."""
    found = shutil.which("tuong", path=os.path.dirname(sys.executable)) or shutil.which("tuong")
    return [found] if found else [sys.executable, "-m", "tuong.protocol"]


def bar(done, total, width=20):
    """A text progress bar with its percentage: `[#####---------------]  25%`."""
    filled = min(width, int(width * done / total)) if total else width
    percent = 100 * done / total if total else 100
    return "[" + "#" * filled + "-" * (width - filled) + f"] {percent:3.0f}%"


Main = TypeVar("Main", bound=Callable[..., Any])


def quiet_broken_pipe(main: Main) -> Main:
    """Wrap a command's main() so that output cut short by its reader
    (`tuong-match -help | head -3`) ends the command quietly, exit status 1,
    as the Python manual advises: no traceback, and stdout pointed at
    /dev/null so that the interpreter's last flush cannot fail again."""
    @functools.wraps(main)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
                return main(*args, **kwargs)
            finally:                              # argparse's --help exits: flush here
                sys.stdout.flush()
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):        # no real stdout (a test's capture)
                pass
            finally:
                os.close(devnull)
            return 1
    return wrapper  # type: ignore[return-value]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """'1 game', '2 games' (`nouns`: an irregular plural)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
