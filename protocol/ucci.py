"""UCCI (the Xiangqi cousin of UCI, xqbase.com spec 3.0) over the UCI dialect.

What differs from UCI:
  - `ucci` ... `ucciok`; options print as `option <name> type <t> ...` and
    are set with `setoption <name> [<value>]` (UCI spelling also accepted);
  - `banmoves M..` excludes root moves from the next `go`; `position`
    (or a new game) clears the list;
  - `go [ponder|draw] depth D|infinite | nodes N | time T [movestogo M |
    increment I] [opptime T [oppmovestogo M | oppincrement I]]`;
  - `probe <position>` is answered `pophash ...` from the hash table;
  - `multipv` (UCI's MultiPV, which the spec lacks) as Fairy-Stockfish
    offers it: `info ... multipv N ...` on each line of such a search;
  - `bestmove M [ponder P]`, or `nobestmove` when there is no move (and in
    answer to a `stop` with no search); `quit`/`bye` is answered `bye`.

Time units. The spec counts `go` times in seconds; version 2.3 added the
`usemillisec` check option and recommends milliseconds, which a GUI selects
by sending `setoption usemillisec true`. We declare `usemillisec` with
default false, so an old GUI that knows nothing of it gets seconds (and
fractions of seconds are accepted), and a newer one that switches it on
gets milliseconds. A `time` with neither movestogo nor increment is read as
sudden death (ElephantEye reads it as "all of it for this move", which would
lose on time if the GUI meant sudden death).
"""
from tuong.protocol.text import quote
from tuong.protocol.uci import HIGHEST, MAX_DEPTH, Uci, read_number

# UCCI shows mates as large scores; ElephantEye's convention (mate = 10000
# minus the distance in plies) is what UCCI GUIs expect.
MATE_SCORE = 10000
WIN_PLIES = 200             # scores past MATE_SCORE - WIN_PLIES are mates


class Ucci(Uci):
    ok = "ucciok"
    clocks = ("time", "opptime")

    def __init__(self, session):
        super().__init__(session)
        self.banned = []
        self.banned_board = None        # the position the ban was made for
        self.commands.update({
            "ucci": self.cmd_uci, "banmoves": self.cmd_banmoves, "probe": self.cmd_probe,
            "bye": self.cmd_quit, "quit": self.cmd_quit,
            "uccinewgame": self.cmd_newgame,
        })
        del self.commands["ucinewgame"], self.commands["d"]

    def cmd_uci(self, args):
        self.out("id name tuong")
        self.out("id author the tuong authors")
        for line in self.s.options.ucci_lines():
            self.out(line)
        self.out(self.ok)

    def cmd_quit(self, args):
        super().cmd_quit(args)
        self.out("bye")

    def cmd_setoption(self, args):
        lowered = [a.lower() for a in args]
        if not args:
            self.error("setoption: expected 'setoption <name> [<value>]'")
        elif lowered[0] == "name":                   # UCI spelling, as UCI2WB may send
            super().cmd_setoption(args)
        else:
            self.set_option(args[0], " ".join(args[1:]))

    def cmd_position(self, args):
        self.banned = []
        super().cmd_position(args)

    def cmd_probe(self, args):
        """`probe <position>`: `pophash [bestmove M] [lowerbound V depth D]
        [upperbound V depth D]`, what the hash table holds for it (an exact
        score is both bounds); a bare `pophash` when it holds nothing."""
        try:
            found = self.s.probe(args)
        except ValueError as err:
            self.error(str(err))
            return
        words = ["pophash"]
        if found is not None:
            move, lower, upper, depth = found
            if move:
                words += ["bestmove", move]
            for name, bound in (("lowerbound", lower), ("upperbound", upper)):
                if bound is not None:
                    words += [name, str(ucci_score(*bound)), "depth", str(depth)]
        self.out(" ".join(words))

    def cmd_banmoves(self, args):
        legal = set(self.s.board.legal_moves())
        bad = [m for m in args if m not in legal]
        if bad:
            self.error(f"banmoves: not legal here: {quote(' '.join(bad))}; list unchanged")
        else:
            self.banned, self.banned_board = list(args), self.s.board

    def cmd_stop(self, args):
        if not self.s.searching():
            self.out("nobestmove")
        self.s.stop_search()

    def cmd_go(self, args):
        try:
            go = self.parse_go(args)
        except ValueError as err:
            self.error(f"go: {err}; search not started")
            return
        # The ban belongs to its position: a new one (`position`, or a new
        # game from `setoption newgame`) starts without it.
        go["banned"] = self.banned if self.s.board is self.banned_board else []
        self.start(go, ours=("time", "increment"))

    def parse_go(self, args):
        """UCCI `go` arguments -> the dict Uci.start takes, times in ms."""
        scale = 1 if self.s.options["usemillisec"] else 1000
        go = {}
        words = [a.lower() for a in args]
        while words and words[0] in ("ponder", "draw"):
            go[words.pop(0)] = True                  # a draw offer is declined by silence
        i = 0
        while i < len(words):
            word = words[i]
            if word == "infinite" or (word == "depth" and words[i + 1:i + 2] == ["infinite"]):
                go["infinite"] = True
                i += 1 if word == "infinite" else 2
                continue
            if word not in ("depth", "nodes", "time", "movestogo", "increment",
                            "opptime", "oppmovestogo", "oppincrement"):
                raise ValueError(f"unknown argument {quote(args[i])}")
            if i + 1 >= len(words):
                raise ValueError(f"{word} needs a number")
            if word in ("time", "increment", "opptime", "oppincrement"):
                go[word] = read_seconds(word, words[i + 1], scale)
            else:             # movestogo 0 or less: sudden death (timeman), as in UCI
                go[word] = read_number(word, words[i + 1],
                                       None if word in ("movestogo", "oppmovestogo") else 1)
            i += 2
        go.pop("draw", None)
        if "depth" in go:
            go["depth"] = min(go["depth"], MAX_DEPTH)
        return go

    def info(self, info):
        """One search report (engine.report.SearchInfo) as a UCCI info line.
        A search of several lines (`multipv` above 1, or a level's
        candidates) says which line each is, `multipv N` as Fairy-Stockfish
        writes it over UCCI; a lone main line keeps the spec's fields."""
        score = ucci_score(info.score, info.mate)
        line = f"multipv {info.multipv} " \
            if self.s.options["MultiPV"] > 1 or info.multipv != 1 else ""
        self.out(f"info depth {info.depth} {line}score {score} time {info.time_ms} "
                 f"nodes {info.nodes} pv {' '.join(info.pv)}".rstrip())

    def bestmove(self, result):
        if result.best is None:
            self.out("nobestmove")
        elif result.ponder:
            self.out(f"bestmove {result.best} ponder {result.ponder}")
        else:
            self.out(f"bestmove {result.best}")


def ucci_score(cp, mate):
    """A score as UCCI writes it: centipawns, or a mate as MATE_SCORE minus
    its distance in plies (negative when being mated)."""
    if mate is None:
        return cp
    plies = 2 * mate - 1 if mate > 0 else -2 * mate
    # Past WIN_PLIES a reader (ElephantEye's WIN_VALUE) takes the score for
    # centipawns: a longer mate (an endgame table's) shows as the longest.
    plies = min(plies, WIN_PLIES - 1 if mate > 0 else WIN_PLIES - 2)
    return (MATE_SCORE - plies) * (1 if mate > 0 else -1)


def read_seconds(name, text, scale):
    """A UCCI time in the unit in force, as milliseconds."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} needs a number, not {quote(text)}") from None
    if not value * scale <= HIGHEST:            # also true for NaN
        raise ValueError(f"{name} must be at most {HIGHEST // scale}, not {quote(text)}")
    return int(max(0.0, value) * scale)         # an overstepped clock counts as empty
