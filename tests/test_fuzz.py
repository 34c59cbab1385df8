"""Protocol fuzz: the real engine process fed seeded random and mutated
lines, with one and with two search threads.

The lines: valid commands, the same with broken arguments (huge, negative,
fractional, missing, garbage), bad FENs, illegal moves, every kind of `go`,
commands during searches, stop/ponderhit storms, option changes mid-search
(Hash, MultiPV, Threads 1..3, UCI_Variant between the four games with
positions of the right game and of the wrong one, the opening book on and
off with good, missing and broken files, the tables likewise, with
endgame positions they hold), `ucinewgame`, `go perft`,
raw bytes that are not UTF-8, long lines. Every few lines the driver sends
`isready` (xboard: `ping`) and waits for its answer, and checks:

  - the process is alive (it may only exit at `quit`, sent at the end);
  - it never hangs: each sync is answered within HANG_S seconds;
  - every `isready` gets one `readyok` (every `ping N` one `pong N`), in order;
  - every `go` that was accepted gets exactly one `bestmove` (a refused
    one says `info string error: go...` and gets none); at a sync at most
    one search is still running; after the final `stop` none is; the same
    for `go perft` and its `Nodes searched` line;
  - no line reports an internal error, and nothing is written to stderr.

The default suite runs a slice (FAST_LINES); `pytest -m fuzz` runs
FULL_LINES UCI lines per thread count (and a tenth of that for UCCI and for
xboard); TUONG_FUZZ_LINES=N sets the UCI line count of either; TUONG_FUZZ_SEED
the seed. A failure names the seed and leaves the conversation's tail in
the message."""
import collections
import os
import random
import shlex
import subprocess
import tempfile
import threading
import time

import pytest
from conftest import ROOT, tuong_command

from tuong.engine.games import GAMES

FAST_LINES = 1500
FULL_LINES = 100_000
HANG_S = 20
SEED = int(os.environ.get("TUONG_FUZZ_SEED", "20251123"))

FORBIDDEN = ("internal error", "search failed", "callback failed", "probe failed", "Traceback")
# Endgames the tables below hold (and one past them): the engine reads, installs
# and probes tables while the fuzz changes TablebasePath under it.
TABLE_FENS = ["4k4/9/9/9/9/9/9/R8/9/3K5 w", "3a5/3Rk4/9/9/9/9/9/5K3/9/9 b",
              "4k4/9/3a1a3/9/2N6/9/9/5K3/9/9 b", "2bak4/4a4/4b4/9/9/9/9/4B4/4A4/2BK1R3 w"]


def table_folders():
    """(a folder of small tables, one whose only table is damaged), made once."""
    if not hasattr(table_folders, "made"):
        from tuong.tools.egtb import Generator
        good, broken = tempfile.mkdtemp(prefix="fuzz-tb-"), tempfile.mkdtemp(prefix="fuzz-tb-")
        generator = Generator(good, threads=1, out=open(os.devnull, "w"))
        for name in ("KRvK", "KRvKA", "KHvKAA"):
            generator.get(name)
        data = bytearray(open(os.path.join(good, "KRvK.tutb"), "rb").read())
        data[-10:] = b"\x00" * 10
        open(os.path.join(broken, "KRvK.tutb"), "wb").write(bytes(data))
        table_folders.made = good, broken
    return table_folders.made


def line_count(default):
    return int(os.environ.get("TUONG_FUZZ_LINES", default))


# -- positions of each game, from seeded random playouts ---------------------------------
def playouts(game, count, rng):
    """[(fen, moves)]: a position (a start or reached in play) and a legal
    continuation from it that does not end the game."""
    out = []
    for _ in range(count):
        board = GAMES[game]()
        line = []
        for _ in range(rng.randrange(0, 60)):
            moves = board.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            board.push(move)
            if board.is_game_over():
                board.pop()
                break
            line.append(move)
        cut = rng.randrange(0, len(line) + 1)
        start = GAMES[game]()
        for move in line[:cut]:
            start.push(move)
        out.append((start.fen(), line[cut:]))
    return out


class Positions:
    def __init__(self, rng):
        self.by_game = {game: playouts(game, 40, rng) for game in GAMES}
        self.by_game["xiangqi"] += [(fen + " - - 0 1", []) for fen in TABLE_FENS]
        self.game_over = {}
        for game in GAMES:
            board, r = GAMES[game](), random.Random(7)
            while not board.is_game_over():
                board.push(r.choice(board.legal_moves()))
            self.game_over[game] = board.fen()


# -- line generators ----------------------------------------------------------------------
NUMBERS = ["0", "-1", "1", "-0", "3.5", "1e3", "nan", "inf", "-inf", "2147483647", "2147483648",
           "-2147483649", "9223372036854775808", "99999999999999999999999999", "0x10", "", "7",
           "１２"]
JUNK_WORDS = ["banana", "name", "value", "startpos", "fen", "moves", "depth", "go", "stop",
              "ponder", "infinite", "searchmoves", "perft", "\t", "\u00e9", "\ufffd", "(none)",
              "--", "nodes", "movetime", "a0a1", "e2e9", "h2e2"]


def number(rng, low=1, high=10):
    r = rng.random()
    if r < 0.75:
        return str(rng.randint(low, high))
    return rng.choice(NUMBERS)


def garbage(rng):
    kind = rng.randrange(7)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b" ")
    if kind == 1:
        return b"x" * rng.choice([1000, 10_000, 70_000])
    if kind == 2:
        return b""
    if kind == 3:
        return rng.choice([b"   ", b"\t\t", b"\r", b" \r\x0b\x0c ", b"\x00", b"\x1b[2J"])
    if kind == 4:
        return " ".join(rng.choice(JUNK_WORDS) for _ in range(rng.randrange(1, 8))).encode()
    if kind == 5:
        return rng.choice(["frobnicate", "GO!", "isready?", "go_depth", "setoption", "position",
                           "uci", "debug on", "register later", "d", "xboard", "ucci",
                           "\u6a21\u7cca", "ponder", "stopp"]).encode()
    return "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(1, 30))).encode(
        "utf-8", "replace")


def mutate(line, rng):
    """A valid command with a broken argument, a word too many or too few."""
    words = line.split(" ")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(8)
        i = rng.randrange(len(words))
        if op == 0 and len(words) > 1:
            del words[i]
        elif op == 1:
            words.insert(i, words[i])
        elif op == 2:
            words[i] = rng.choice(NUMBERS)
        elif op == 3:
            words[i] = rng.choice(JUNK_WORDS)
        elif op == 4:
            words = words[:i + 1]
        elif op == 5:
            words[i] = words[i].upper() if rng.random() < 0.5 else words[i].capitalize()
        elif op == 6 and i > 0:
            words[i] = words[i][:rng.randrange(len(words[i]) + 1)]
        else:
            words.insert(i, rng.choice(JUNK_WORDS))
    text = " ".join(words)
    if rng.random() < 0.05:
        text = text.replace(" ", rng.choice(["\t", "  ", " \r "]))
    return text


class UciLines:
    """Random lines for a UCI (or, with ucci=True, UCCI) session. `game` is
    what the generator believes is being played; mutated lines may make it
    wrong, which is fine: then positions are of the wrong game."""

    def __init__(self, rng, positions, ucci=False):
        self.rng, self.positions, self.ucci = rng, positions, ucci
        self.game = "xiangqi"
        self.fen, self.moves = GAMES["xiangqi"]().fen(), []
        self.QUITS = {"quit", "bye"} if ucci else {"quit"}

    def legal_here(self):
        board = GAMES[self.game](self.fen)
        for move in self.moves:
            board.push(move)
        return board.legal_moves()

    # -- commands ---------------------------------------------------------
    def position(self):
        rng = self.rng
        r = rng.random()
        game = self.game if rng.random() < 0.9 else rng.choice(list(GAMES))
        fen, moves = rng.choice(self.positions.by_game[game])
        moves = moves[:rng.randrange(len(moves) + 1)]
        if r < 0.15:
            start = GAMES[game]().fen()
            fen, moves = start, moves if fen == start else []     # moves from the start only
            text = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        elif r < 0.2:
            fen, moves = self.positions.game_over[game], []
            text = f"position fen {fen}"
        else:
            text = f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
        if rng.random() < 0.1 and moves:
            text += " " + rng.choice(["a0a0", "e2e9", "z9z9", "h2e2", "i9i0", moves[0], "0000"])
        if game == self.game:
            self.fen, self.moves = fen, moves
        return text

    def go_args(self):
        rng = self.rng
        kind = rng.randrange(12)
        if kind == 0:
            return f"depth {rng.choice([1, 1, 2, 2, 3, 4, 5, 6, 8, 100])}"
        if kind == 1:
            return f"nodes {rng.choice([1, 50, 500, 5000, 30000])}"
        if kind == 2:
            return f"movetime {rng.choice([0, 1, 5, 20, 50])}" if not self.ucci else \
                f"time {rng.choice([0, 1, 0.01, 0.05, 2])}"
        if kind == 3:
            return "infinite"
        if kind in (4, 5):
            if self.ucci:
                parts = [f"time {rng.choice([0, 0.05, 1, 5, 60])}"]
                if rng.random() < 0.4:
                    parts.append(f"increment {rng.choice([0, 0.01, 1])}")
                elif rng.random() < 0.4:
                    parts.append(f"movestogo {rng.randint(1, 40)}")
                if rng.random() < 0.4:
                    parts.append(f"opptime {rng.choice([1, 60])}")
                if rng.random() < 0.2:
                    parts = parts[1:] or ["opptime 5"]               # our clock missing
                return " ".join(parts)
            parts = []
            for side in ("w", "b"):
                if rng.random() < 0.85:
                    parts.append(f"{side}time {rng.choice([-100, 0, 10, 50, 200, 1000, 3000])}")
                if rng.random() < 0.5:
                    parts.append(f"{side}inc {rng.choice([0, 5, 50])}")
            if rng.random() < 0.3:
                parts.append(f"movestogo {rng.randint(1, 40)}")
            rng.shuffle(parts)
            return " ".join(parts) or "wtime 100"
        if kind == 6:
            return "ponder " + (self.go_args() if rng.random() < 0.7 else "")
        if kind == 7 and not self.ucci:
            return f"mate {rng.randint(1, 4)}"
        if kind == 8 and not self.ucci:
            legal = self.legal_here() if rng.random() < 0.9 else ["a0a1", "e2e9"]
            chosen = rng.sample(legal, min(len(legal), rng.randint(1, 4))) if legal else ["a0a1"]
            return f"depth {rng.randint(1, 4)} searchmoves " + " ".join(chosen)
        if kind == 9:
            return f"perft {rng.choice([1, 1, 2, 2, 3, 4, 6, 10])}" if not self.ucci \
                else "depth infinite"
        if kind == 10:
            return f"{self.go_args()} {self.go_args()}"
        return ""                                        # a bare go: until stop

    def setoption(self):
        rng = self.rng
        name, value = rng.choice([
            ("Hash", lambda: number(rng, 1, 64)), ("Clear Hash", None),
            ("Threads", lambda: rng.choice(["1", "1", "2", "2", "3", "0", "257", "two", ""])),
            ("MultiPV", lambda: number(rng, 1, 4)), ("Move Overhead", lambda: number(rng, 0, 100)),
            ("Ponder", lambda: rng.choice(["true", "false", "maybe", ""])),
            ("UCI_Variant", lambda: rng.choice(list(GAMES) + ["XiangQi", "chess", ""])),
            ("No Such Option", lambda: "1"),
            # The book: on and off, good, missing, endless and wrong files, any depth.
            ("OwnBook", lambda: rng.choice(["true", "true", "false", "maybe"])),
            ("BookFile", lambda: rng.choice(["<default>", "<default>", "", "/nonexistent/x.book",
                                             "/dev/zero", str(ROOT / "README.md")])),
            ("BookDepth", lambda: rng.choice(["0", "4", "20", "1001", "x"])),
            # The tables: on and off, a folder of good ones, of a damaged one, none, a file.
            ("TablebasePath", lambda: rng.choice(list(table_folders()) + [
                "", "/nonexistent/tb", str(ROOT / "README.md")])),
        ] + ([("usemillisec", lambda: rng.choice(["true", "false"])), ("newgame", None),
              ("hashsize", lambda: number(rng, 1, 64)), ("threads", lambda: number(rng, 1, 2)),
              ("clearhash", None)] if self.ucci else []))
        if name == "UCI_Variant":
            chosen = value()
            if chosen.lower() in GAMES:
                self.game, self.fen, self.moves = chosen.lower(), GAMES[chosen.lower()]().fen(), []
            return f"setoption name {name} value {chosen}"
        if self.ucci and name.islower():
            return f"setoption {name}" + (f" {value()}" if value else "")
        return f"setoption name {name}" + (f" value {value()}" if value else "")

    def command(self):
        rng = self.rng
        r = rng.random()
        if r < 0.22:
            line = "go " + self.go_args()
        elif r < 0.30:
            line = "stop"
        elif r < 0.35:
            line = "ponderhit"
        elif r < 0.43:
            line = self.position()
        elif r < 0.52:
            line = self.setoption()
        elif r < 0.55:
            line = "ucinewgame" if not self.ucci else "setoption newgame"
        elif r < 0.58:
            line = "isready"
        elif r < 0.60:
            line = "d" if not self.ucci else "banmoves " + " ".join(
                rng.sample(self.legal_here(), 1) if self.legal_here() else ["a0a1"])
        elif r < 0.61:
            line = "uci" if not self.ucci else "ucci"
        elif r < 0.70:
            return garbage(rng)
        else:
            line = rng.choice(["go " + self.go_args(), self.position(), self.setoption(),
                               "stop", "ponderhit", "go perft 2"])
            return mutate(line, rng).encode("utf-8", "replace")
        if rng.random() < 0.08:
            line = mutate(line, rng)
        return line.encode("utf-8", "replace")

    def storm(self):
        """A burst of stop/ponderhit/go/isready lines with no sync between."""
        rng = self.rng
        return [rng.choice([b"stop", b"ponderhit", b"isready", b"go infinite", b"go ponder",
                            b"go depth 2", b"go ponder wtime 100 btime 100", b"go perft 3"])
                for _ in range(rng.randint(5, 40))]


class XboardLines:
    """Random CECP lines. The generator follows the engine's board while it
    can (setboard, new, our moves in force mode); once the engine may have
    moved, it does not know the board until the next setboard or new."""

    QUITS = {"quit"}

    def __init__(self, rng, positions):
        self.rng, self.positions = rng, positions
        self.ping = 0
        self.board = GAMES["xiangqi"]()          # None: unknown
        self.force = False

    def setboard(self):
        fen, _ = self.rng.choice(self.positions.by_game["xiangqi"])
        self.board = GAMES["xiangqi"](fen)
        return f"setboard {fen}"

    def usermove(self):
        rng = self.rng
        if self.board is None and rng.random() < 0.7:
            return self.setboard()
        legal = self.board.legal_moves() if self.board is not None else []
        if legal and rng.random() < 0.9:
            move = rng.choice(legal)
            if self.force:
                self.board.push(move)
            else:
                self.board = None                    # the engine answers it
        else:
            move = rng.choice(["e2e9", "a0a1", "h2e2", "i9i9", "z0z0", "h2e2e", "a0"])
        return rng.choice([f"usermove {move}", move])

    def command(self):
        rng = self.rng
        r = rng.random()
        if r < 0.30:
            line = self.usermove()
        elif r < 0.38:
            if rng.random() < 0.85:
                line = self.setboard()
            else:
                fen = rng.choice(self.positions.by_game["xiangqi"])[0]
                line = f"setboard {fen[:rng.randrange(len(fen))]}"
        elif r < 0.44:
            line = "new"
            self.board, self.force = GAMES["xiangqi"](), False
        elif r < 0.46:
            line = "force"
            self.force = True
        elif r < 0.56:
            line = rng.choice(["go", "go", "playother"])
            self.board, self.force = None, False
        elif r < 0.60:
            line = rng.choice(["?", "undo", "remove", "post", "nopost", "hard", "easy",
                               "result 1-0 {x}", "variant xiangqi", "variant shogi", "computer",
                               "otim 100", "random"])
            if line in ("undo", "remove") or line.startswith(("result", "variant")):
                self.board = None if line != "variant xiangqi" else GAMES["xiangqi"]()
                self.force = self.force or line.startswith("result")
        elif r < 0.68:
            line = rng.choice([f"level {number(rng, 0, 40)} {number(rng, 0, 1)} "
                               f"{number(rng, 0, 2)}",
                               f"st {rng.choice(['0.01', '0.05', '0.2', '0', '-1', 'x', '1000'])}",
                               f"sd {number(rng, 1, 5)}", f"time {number(rng, 0, 1000)}",
                               f"option Hash={number(rng, 1, 32)}", "option Clear Hash",
                               f"option Threads={rng.choice(['1', '2', '0'])}",
                               f"option Move Overhead={number(rng, 0, 50)}", "option Nope=1"])
        elif r < 0.74:
            self.ping += 1
            line = rng.choice([f"ping {self.ping}", "ping", f"ping {self.ping} extra"])
        elif r < 0.84:
            return garbage(rng)
        else:
            line = mutate(rng.choice(["usermove h2e2", "level 40 5 0", "st 1", "sd 3", "new",
                                      "setboard 4k4/9/9/9/9/9/9/9/9/4K4 w", "time 500", "ping 3"]),
                          rng)
            self.board = None
        return line.encode("utf-8", "replace")

    def storm(self):
        rng = self.rng
        self.board = None
        return [rng.choice([b"go", b"force", b"?", b"new", b"usermove h2e2", b"undo", b"sd 2",
                            b"ping 0"]) for _ in range(rng.randint(5, 30))]


# -- the engine process and the accounting ---------------------------------------------
class Failure(AssertionError):
    pass


class Engine:
    """The process on pipes; a reader thread counts the lines that matter."""

    def __init__(self, threads):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["TUONG_THREADS"] = str(threads)
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(shlex.split(tuong_command()), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, cwd=ROOT,
                                     env=env)
        self.cond = threading.Condition()
        self.count = collections.Counter()
        self.pongs = []
        self.bad = []
        self.recent_out = collections.deque(maxlen=60)
        self.recent_in = collections.deque(maxlen=60)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self.cond:
                self.recent_out.append(line)
                self._classify(line)
                self.cond.notify_all()
        with self.cond:
            self.count["eof"] += 1
            self.cond.notify_all()

    def _classify(self, line):
        c = self.count
        if any(word in line for word in FORBIDDEN):
            self.bad.append(line)
        if line == "readyok":
            c["readyok"] += 1
        elif line.startswith("bestmove "):
            c["bestmove"] += 1
            if len(line.split()) not in (2, 4):
                self.bad.append(line)
        elif line == "nobestmove":
            c["nobestmove"] += 1
        elif line.startswith("Nodes searched: "):
            c["perft"] += 1
        elif line.startswith("info string error: go perft"):
            c["perft_refused"] += 1
        elif line.startswith("info string error: go: "):
            c["go_refused"] += 1
        elif line == "pong" or line.startswith("pong "):
            self.pongs.append(line)

    def send(self, lines):
        for line in lines:
            self.recent_in.append(line[:200])
        try:
            self.proc.stdin.write(b"".join(line + b"\n" for line in lines))
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise Failure("the engine closed its input (died?)") from None

    def send_paced(self, lines, rng):
        """Lines in chunks, with now and then a pause of a few ms, so that
        some commands land in the middle of an iteration rather than all
        before the search thread has run."""
        chunk = []
        for line in lines:
            chunk.append(line)
            if rng.random() < 0.01:
                self.send(chunk)
                chunk = []
                time.sleep(rng.uniform(0.001, 0.02))
        if chunk:
            self.send(chunk)

    def wait(self, predicate, what):
        end = time.monotonic() + HANG_S
        with self.cond:
            while not predicate():
                if self.count["eof"] or self.proc.poll() is not None:
                    raise Failure(f"the engine died (exit {self.proc.poll()}) waiting for {what}")
                left = end - time.monotonic()
                if left <= 0:
                    raise Failure(f"no {what} within {HANG_S} s: a hang")
                self.cond.wait(left)

    def report(self, seed, sent):
        self.stderr.seek(0)
        err = self.stderr.read().decode("utf-8", "replace")[-3000:]
        return (f"seed {seed}, after {sent} lines\n-- last input:\n" +
                "\n".join(repr(line) for line in self.recent_in) +
                "\n-- last output:\n" + "\n".join(self.recent_out) + f"\n-- stderr:\n{err}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=HANG_S)
        self.stderr.close()


def words_of(line):
    """What the engine's loop makes of a raw line."""
    return line.decode("utf-8", "replace").split()


def drive(engine, gen, rng, lines, seed, hello, account, sync, finish):
    """Send about `lines` of gen's lines in batches (now and then a storm),
    none of them a quit; account(line) for each; sync() after most batches;
    then finish() and quit. The engine must exit 0 with nothing on stderr.
    Returns the count of lines sent; a failure ends the test with a report."""
    sent = 0
    try:
        engine.send(hello)
        while sent < lines:
            batch = gen.storm() if rng.random() < 0.05 else \
                [gen.command() for _ in range(rng.randint(1, 25))]
            batch = [line for line in batch if not words_of(line) or
                     words_of(line)[0].lower() not in gen.QUITS]
            for line in batch:
                account(line)
            engine.send_paced(batch, rng)
            sent += len(batch)
            if rng.random() < 0.7:          # else the next batch follows at once
                sync()
        finish()
        engine.send([b"quit"])
        code = engine.proc.wait(timeout=HANG_S)
        if code != 0:
            raise Failure(f"exit code {code} after quit")
        engine.stderr.seek(0)
        err = engine.stderr.read()
        if err:
            raise Failure(f"stderr: {err[-2000:]!r}")
    except (Failure, subprocess.TimeoutExpired) as failure:
        report = engine.report(seed, sent)
        engine.close()
        pytest.fail(f"{failure}\n{report}")
    engine.close()
    return sent


def run_uci_fuzz(lines, threads, seed, ucci=False):
    rng = random.Random(seed)
    gen = UciLines(rng, Positions(random.Random(seed + 1)), ucci=ucci)
    engine = Engine(threads)
    isready = gos = perfts = stops = 0
    start = time.monotonic()

    def account(line):
        nonlocal isready, gos, perfts, stops
        words = words_of(line)
        if not words:
            return
        first = words[0].lower()
        if first == "isready":
            isready += 1
        elif first == "go":
            if len(words) > 1 and words[1].lower() == "perft" and not ucci:
                perfts += 1
            else:
                gos += 1
        elif first == "stop":
            stops += 1

    def sync(final=False):
        account(b"isready")
        engine.send([b"isready"])
        engine.wait(lambda: engine.count["readyok"] >= isready, f"readyok #{isready}")
        with engine.cond:
            c = dict(engine.count)
            bad = list(engine.bad)
        if bad:
            raise Failure(f"bad output: {bad[:5]}")
        if c.get("readyok", 0) != isready:
            raise Failure(f"{c.get('readyok', 0)} readyok for {isready} isready")
        accepted = gos - c.get("go_refused", 0)
        counted = perfts - c.get("perft_refused", 0)
        answers = c.get("bestmove", 0) + c.get("nobestmove", 0)
        if ucci:
            # nobestmove also answers a stop with no search: up to one a stop.
            open_gos = accepted - answers
            if c.get("bestmove", 0) > accepted or not -stops <= open_gos <= (0 if final else 1):
                raise Failure(f"{accepted} go accepted, {c.get('bestmove', 0)} bestmove, "
                              f"{c.get('nobestmove', 0)} nobestmove, {stops} stop")
        else:
            open_gos, open_perfts = accepted - answers, counted - c.get("perft", 0)
            if c.get("nobestmove") or open_gos < 0 or open_perfts < 0 or \
                    open_gos + open_perfts > (0 if final else 1):
                raise Failure(f"{accepted} go accepted, {answers} bestmove; {counted} perft "
                              f"accepted, {c.get('perft', 0)} Nodes searched"
                              + (" after the final stop" if final else ""))

    def finish():
        account(b"stop")
        engine.send([b"stop"])
        sync(final=True)

    sent = drive(engine, gen, rng, lines, seed, [b"ucci" if ucci else b"uci"], account, sync,
                 finish)
    return sent, gos, time.monotonic() - start


def run_xboard_fuzz(lines, threads, seed):
    rng = random.Random(seed)
    gen = XboardLines(rng, Positions(random.Random(seed + 1)))
    engine = Engine(threads)
    expected = []                       # the pong lines owed, in order
    start = time.monotonic()

    def account(line):
        words = words_of(line)
        if words and words[0] == "ping":
            expected.append(f"pong {words[1]}" if len(words) > 1 else "pong")

    def sync():
        # `?` first: a ping during our own thinking is owed after the move.
        line = f"ping sync{len(expected)}".encode()
        first = b"?" if rng.random() < 0.85 else b"force"
        gen.force = gen.force or first == b"force"
        engine.send([first, line])
        account(line)
        engine.wait(lambda: len(engine.pongs) >= len(expected), expected[-1])
        with engine.cond:
            pongs, bad = list(engine.pongs), list(engine.bad)
        if bad:
            raise Failure(f"bad output: {bad[:5]}")
        if pongs != expected:
            raise Failure(f"pongs out of order or missing: {pongs[-5:]} for {expected[-5:]}")

    sent = drive(engine, gen, rng, lines, seed, [b"xboard", b"protover 2"], account, sync, sync)
    return sent, time.monotonic() - start


# -- the tests --------------------------------------------------------------------------
@pytest.mark.parametrize("threads", [1, 2])
def test_fuzz_uci_slice(threads):
    sent, gos, seconds = run_uci_fuzz(line_count(FAST_LINES), threads, SEED + threads)
    assert sent >= line_count(FAST_LINES) and gos > sent // 10


@pytest.mark.parametrize("threads", [1, 2])
def test_fuzz_ucci_and_xboard_slice(threads):
    run_uci_fuzz(line_count(FAST_LINES) // 5, threads, SEED + 10 + threads, ucci=True)
    run_xboard_fuzz(line_count(FAST_LINES) // 5, threads, SEED + 20 + threads)


@pytest.mark.fuzz
@pytest.mark.parametrize("threads", [1, 2])
def test_fuzz_uci_full(threads):
    lines = line_count(FULL_LINES)
    sent, gos, seconds = run_uci_fuzz(lines, threads, SEED + 100 + threads)
    print(f"\nUCI fuzz, {threads} thread(s): {sent} lines, {gos} go, {seconds:.0f} s")


@pytest.mark.fuzz
@pytest.mark.parametrize("threads", [1, 2])
def test_fuzz_ucci_and_xboard_full(threads):
    lines = line_count(FULL_LINES) // 10
    sent, gos, seconds = run_uci_fuzz(lines, threads, SEED + 110 + threads, ucci=True)
    print(f"\nUCCI fuzz, {threads} thread(s): {sent} lines, {gos} go, {seconds:.0f} s")
    sent, seconds = run_xboard_fuzz(lines, threads, SEED + 120 + threads)
    print(f"xboard fuzz, {threads} thread(s): {sent} lines, {seconds:.0f} s")
