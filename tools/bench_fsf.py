"""Fairy-Stockfish driven over UCI for tuong-bench (tools/bench.py), the peer
every figure there is a ratio against: `fairy_perft` times its `go perft`,
`Fairy` times its searches (the info lines of `go`, node counts by depth),
`check_fairy` makes sure an explicit --fairy program answers UCI at all.

Finding the program (bench.find_fairy, bench.fairy_or_say) stays in
tools/bench.py.
"""
import re
import shutil
import subprocess
import time

from tuong.engine.board import START_FEN


def fairy_perft(binary, depth, fen=START_FEN):
    """Seconds Fairy-Stockfish takes for `go perft depth`, and its count."""
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("setoption name UCI_Variant value xiangqi\n"
                         f"position fen {fen}\nisready\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.strip() == "readyok":
                break
        start = time.perf_counter()
        proc.stdin.write(f"go perft {depth}\n")
        proc.stdin.flush()
        for line in proc.stdout:
            match = re.match(r"Nodes searched:\s*(\d+)", line)
            if match:
                return time.perf_counter() - start, int(match.group(1))
        raise RuntimeError("Fairy-Stockfish ended without a perft count")
    finally:
        proc.kill()
        proc.wait()


class Fairy:
    """Just enough UCI to time Fairy-Stockfish's search."""

    def __init__(self, binary, hash_mb):
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send("uci\nsetoption name UCI_Variant value xiangqi\n"
                  f"setoption name Hash value {hash_mb}")
        self.sync()

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def sync(self):
        self.send("isready")
        for line in self.proc.stdout:
            if line.strip() == "readyok":
                return

    def infos(self, fen, limit):
        """The fields of each `info ... nodes` line of `go <limit>` on fen, as
        dicts of the numeric fields (and 'bound' when the line has one)."""
        self.send(f"ucinewgame\nposition fen {fen}")
        self.sync()
        self.send(f"go {limit}")
        for line in self.proc.stdout:
            if line.startswith("info") and " nodes " in line:
                fields = line.split()
                info = {key: int(fields[fields.index(key) + 1])
                        for key in ("depth", "nodes", "nps", "time", "mate", "multipv")
                        if key in fields}
                info["bound"] = "lowerbound" in fields or "upperbound" in fields
                yield info
            if line.startswith("bestmove"):
                return
        raise RuntimeError("Fairy-Stockfish ended during a search")

    def go(self, fen, limit):
        """Last info fields (depth, nodes, nps, time, mate) of `go <limit>`."""
        last = {}
        for info in self.infos(fen, limit):
            last = info
        return last

    def depth_nodes(self, fen, depth):
        """{depth: nodes} at the end of each iteration of `go depth`."""
        return {info["depth"]: info["nodes"] for info in self.infos(fen, f"depth {depth}")
                if not info["bound"] and info.get("multipv", 1) == 1}

    def close(self):
        self.proc.kill()
        self.proc.wait()


def check_fairy(parser, path):
    """Fail unless an explicit --fairy is a program that answers UCI (one
    that is not would leave a benchmark waiting for its answer forever)."""
    binary = shutil.which(path)
    if not binary:
        parser.error(f"--fairy {path}: not an executable program")
    try:
        answer = subprocess.run([binary], input="uci\nquit\n", capture_output=True, text=True,
                                timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        parser.error(f"--fairy {path}: {e}")
    if "uciok" not in answer:
        parser.error(f"--fairy {path}: does not answer uci with uciok")
