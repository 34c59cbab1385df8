"""Engine options: each declared once, next to its effect.

An option knows how to validate a value and what to call when it changes;
the UCI and UCCI dialects only print and look them up (by case-insensitive
name, spaces allowed). A bad value raises ValueError and leaves the old
value in place. The engine never sees option names: Hash calls
`searcher.resize(mb)`, Clear Hash calls `searcher.clear()`, the rest are
read by the protocol layer when it builds a search.
"""
import os
from dataclasses import dataclass, field
from typing import Callable, Optional

from tuong.engine import levels
from tuong.engine.games import GAMES
from tuong.protocol.text import quote


def default_threads():
    """1, or TUONG_THREADS from the environment (so that a whole test suite
    or a deployment can run every engine process with more threads)."""
    try:
        return max(1, min(256, int(os.environ.get("TUONG_THREADS", "1"))))
    except ValueError:
        return 1


# EvalFile's value for the evaluation the engine ships with: its network
# (engine/default.nnue), or the hand-crafted weights (engine/weights.json)
# in a build without one.
DEFAULT_EVAL_FILE = "<default>"
# BookFile's value for the book the engine ships with (protocol/default.book).
DEFAULT_BOOK_FILE = "<default>"

TRUE_WORDS = {"true": True, "on": True, "1": True, "yes": True,
              "false": False, "off": False, "0": False, "no": False}


# An empty string option is shown, and may be set, as "<empty>" (Stockfish's
# SyzygyPath convention): "default " with nothing after it is lost by GUIs
# that split on spaces, and a GUI that echoes it back must not set a folder
# called "<empty>".
EMPTY = "<empty>"


@dataclass
class Option:
    uci: Optional[str]               # name shown in UCI (None: not offered there)
    type: str                        # spin | check | combo | button | string
    default: object = None
    min: Optional[int] = None
    max: Optional[int] = None
    vars: tuple = ()
    ucci: Optional[str] = None       # UCCI spelling (lower case, no spaces), if offered
    on_change: Optional[Callable] = None   # called with the new value (buttons: no argument)
    refused_while_searching: bool = False  # else setting it stops the search first
    value: object = field(init=False)

    def __post_init__(self):
        self.value = self.default

    @property
    def label(self):
        return self.uci or self.ucci

    def parse(self, text, name=None):
        """The value `text` stands for; ValueError naming the problem (and
        the option, as `name` if the caller spelled it another way)."""
        text = (text or "").strip()
        label = name or self.label
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise ValueError(f"{label} needs an integer, not {quote(text)}") from None
            if not self.min <= number <= self.max:
                raise ValueError(f"{label} must be in {self.min}..{self.max}, not {number}")
            return number
        if self.type == "check":
            if text.lower() not in TRUE_WORDS:
                raise ValueError(f"{label} needs true or false, not {quote(text)}")
            return TRUE_WORDS[text.lower()]
        if self.type == "combo":
            for choice in self.vars:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"{label} must be one of {', '.join(self.vars)}, not {quote(text)}")
        return "" if text == EMPTY else text         # string

    def set(self, text, name=None):
        if self.type == "button":
            if self.on_change:
                self.on_change()
            return
        value = self.parse(text, name)                     # raises before anything changes
        if self.on_change:
            self.on_change(value)                    # may raise: then keep the old value
        self.value = value

    def shown_default(self):
        if self.type == "check":
            return str(self.default).lower()
        return EMPTY if self.type == "string" and self.default == "" else self.default

    def uci_line(self):
        line = f"option name {self.uci} type {self.type}"
        if self.type == "button":
            return line
        line += f" default {self.shown_default()}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        for choice in self.vars:
            line += f" var {choice}"
        return line

    def ucci_line(self):
        # UCCI puts no `name` keyword before the name, and spin bounds first.
        line = f"option {self.ucci} type {self.type}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        for choice in self.vars:
            line += f" var {choice}"
        if self.type != "button":
            line += f" default {self.shown_default()}"
        return line


class Options:
    """Case-insensitive table of Option, reachable by UCI or UCCI name."""

    def __init__(self, options):
        self.all = list(options)
        self._by_name = {}
        for option in self.all:
            for name in (option.uci, option.ucci):
                if name:
                    self._by_name[name.lower()] = option

    def find(self, name):
        """The option called `name` (any case); KeyError with a message."""
        key = " ".join(name.split()).lower()
        if key not in self._by_name:
            raise KeyError(f"no such option {quote(name)}")
        return self._by_name[key]

    def __getitem__(self, name):
        return self.find(name).value

    def set(self, name, text=""):
        self.find(name).set(text, " ".join(name.split()))

    def uci_lines(self):
        return [o.uci_line() for o in self.all if o.uci]

    def ucci_lines(self):
        return [o.ucci_line() for o in self.all if o.ucci]


def engine_options(session):
    """The options of one engine process. `session` supplies the searcher
    (created lazily, so the lambdas look it up at call time) and new_game."""
    return Options([
        # Transposition table size in MB; resizing clears it.
        Option("Hash", "spin", 16, 1, 4096, ucci="hashsize",
               on_change=lambda mb: session.searcher.resize(mb)),
        Option("Clear Hash", "button", ucci="clearhash",
               on_change=lambda: session.searcher.clear()),
        # Search threads (Lazy SMP); the helpers are created here and parked
        # between searches, so changing the count mid-search is refused.
        Option("Threads", "spin", default_threads(), 1, 256, ucci="threads",
               on_change=lambda n: session.searcher.set_threads(n),
               refused_while_searching=True),
        # The evaluation: a network file (tuong-train writes them) or a
        # hand-crafted weights file (tuong-tune writes them), told apart by
        # the network's magic bytes; loaded at once, the board rescored and
        # the hash emptied. A bad file is an error and changes nothing.
        Option("EvalFile", "string", DEFAULT_EVAL_FILE, ucci="evalfile",
               on_change=lambda path: session.set_eval_file(path),
               refused_while_searching=True),
        # Playing strength below the full (engine/levels.py): off by default,
        # and then the search is the full one. UCI_LimitStrength with UCI_Elo
        # as Stockfish's; Skill Level 0-19 maps onto the same scale (20: full
        # strength), and UCI_LimitStrength takes precedence over it.
        Option("UCI_LimitStrength", "check", False, ucci="limitstrength"),
        Option("UCI_Elo", "spin", levels.DEFAULT_ELO, levels.MIN_ELO, levels.MAX_ELO,
               ucci="elo"),
        Option("Skill Level", "spin", levels.MAX_SKILL, 0, levels.MAX_SKILL, ucci="skilllevel"),
        # Number of principal variations searched and reported; UCCI names it
        # multipv (Fairy-Stockfish's UCCI declares it too) and its info lines
        # then carry `multipv N`, as UCI's do.
        Option("MultiPV", "spin", 1, 1, 10, ucci="multipv"),
        # Milliseconds a move costs outside the search; timeman keeps it in
        # reserve for every move it plans. tuong's own cost is under 1 ms (go
        # to bestmove at depth 1); 10 is the field's default (Stockfish's) and
        # leaves a 1 s game most of its clock, where 30 kept 960 ms of it unused.
        Option("Move Overhead", "spin", 10, 0, 5000),
        # Pondering is driven by the GUI's `go ponder`; the option only
        # tells the GUI we can do it.
        Option("Ponder", "check", False, ucci="ponder"),
        # Xiangqi's repetition rules: asian (perpetual check, then perpetual
        # chase, loses) or check-only (perpetual check loses, the rest draws).
        Option("Repetition", "combo", "asian", vars=("asian", "check-only"), ucci="repetition",
               on_change=lambda rules: session.set_repetition(rules)),
        # The game: Xiangqi or one of the founding texts' small games.
        Option("UCI_Variant", "combo", "xiangqi", vars=tuple(GAMES),
               on_change=lambda name: session.set_game(name)),
        # The opening book (protocol/book.py). Off by default, as UCI engines
        # have it: an analysis, a test or a tuning run must see searches,
        # never book moves; a GUI or tuong-match turns it on for play. UCCI
        # names the first two usebook and bookfiles (one file here).
        Option("OwnBook", "check", False, ucci="usebook",
               on_change=lambda on: session.set_own_book(on)),
        # A missing or broken file is reported when set, and the engine
        # plays on without a book (empty: no book).
        Option("BookFile", "string", DEFAULT_BOOK_FILE, ucci="bookfiles",
               on_change=lambda path: session.set_book_file(path)),
        # Book moves only before this ply of the game (the FEN's move number
        # counts: `position fen` mid-game is past the book).
        Option("BookDepth", "spin", 20, 0, 1000, ucci="bookdepth"),
        # Endgame tables (tuong-egtb generate): a folder of *.tutb files;
        # empty: none. A bad folder is reported and the engine goes on without.
        Option("TablebasePath", "string", "", ucci="egtbpaths",
               on_change=lambda path: session.tablebases.set_path(path)),
        # UCCI: times in `go` are seconds unless the GUI turns this on
        # (UCCI 2.3+ GUIs do, after seeing the option; see protocol/ucci.py).
        Option(None, "check", False, ucci="usemillisec"),
        # UCCI's way to say "a new game starts".
        Option(None, "button", ucci="newgame", on_change=lambda: session.new_game()),
    ] + tuning_options())


def tuning_options():
    """The search's tunable parameters as spin options, for a tuning run
    only (tuong-spsa starts the engine with TUONG_TUNE=1): a GUI never sees
    them. Set between searches, as the engine/tree.pyx variables they are."""
    if os.environ.get("TUONG_TUNE", "0") in ("", "0"):
        return []
    from tuong.engine import tree
    return [Option(name, "spin", value, low, high, refused_while_searching=True,
                   on_change=lambda v, name=name: tree.set_parameter(name, v))
            for name, (value, low, high) in tree.parameters().items()]
