"""A small scriptable engine for the client and runner tests.

    python tests/fake_engine.py [--proto uci|ucci|xboard] [--mode MODE] [--at N]
                                [--delay S] [--moves m1,m2,..] [--score CP] [--seed N]

It plays a legal move (the first one, a random one with --seed, or the next
of --moves, cycling) from tuong.engine.board, until its N-th `go` (--at, default
1), where MODE decides what goes wrong:

  normal       nothing
  crash        exit with code 3 without answering
  hang         never answer (and ignore stdin from then on)
  slow         sleep --delay seconds, then answer
  illegal      a well-formed but illegal move
  garbage      a `bestmove`/`move` that is not a move at all
  noise        junk lines (and an odd info line) before a good answer, every go
  nomove       `bestmove (none)` although there are legal moves
  resign       resign (xboard) / `bestmove (none)` (UCI)
  nohandshake  never finish the handshake
  stubborn     ignore `quit` (the client must kill it)
  deaf         think forever, printing info lines, deaf to `stop`
"""
import argparse
import random
import sys
import time

from tuong.engine.board import Board

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


class Fake:
    def __init__(self, args):
        self.args = args
        self.board = Board()
        self.gos = 0
        self.script = args.moves.split(",") if args.moves else []
        self.rng = random.Random(args.seed) if args.seed is not None else None
        self.force = True

    def out(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def choose(self):
        legal = self.board.legal_moves()
        if self.script:
            move = self.script[(self.gos - 1) % len(self.script)]
            return move
        if self.rng:
            return self.rng.choice(legal)
        return legal[0]

    def answer(self):
        """The move to give for this `go`, or None to stay silent."""
        self.gos += 1
        mode = self.args.mode if self.gos >= self.args.at else "normal"
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            while True:
                time.sleep(60)
        if mode == "deaf":
            for depth in range(1, 10 ** 6):
                self.out(f"info depth {depth} score cp 0 nodes {depth} pv {self.choose()}")
                time.sleep(0.02)
        if mode == "slow":
            time.sleep(self.args.delay)
        if mode == "noise":
            self.out("\x00\x7f garbage \xff line")
            self.out("info depth x score cp nonsense nodes 12 pv zz99")
            self.out("x" * 5000)
        if mode == "illegal":
            legal = set(self.board.legal_moves())
            return next(m for m in ("e0e9", "a0i9", "e9e0", "a9i0") if m not in legal)
        if mode == "garbage":
            return "zz99"
        if mode in ("nomove", "resign"):
            return "(none)" if mode == "nomove" or self.args.proto != "xboard" else "resign"
        move = self.choose()
        if self.args.proto == "xboard":       # ply score time(cs) nodes pv
            self.out(f"3 {self.args.score} 1 1000 {move}")
        else:
            self.out(f"info depth 3 seldepth 4 score cp {self.args.score} nodes 1000 "
                     f"nps 100000 time 10 pv {move}")
        return move

    def run(self):
        if self.args.proto == "xboard":
            return self.run_xboard()
        hello = sys.stdin.readline().strip()
        if self.args.mode != "nohandshake":
            self.out("id name fake")
            self.out("option name Hash type spin default 16 min 1 max 128")
            self.out("option name Clear Hash type button")
            self.out(f"{hello}ok")
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "isready":
                self.out("readyok")
            elif words[0] == "position":
                self.position(words)
            elif words[0] == "go":
                move = self.answer()
                self.out(f"bestmove {move}")
            elif words[0] in ("quit", "bye") and self.args.mode != "stubborn":
                return

    def position(self, words):
        rest = " ".join(words[1:])
        fen, _, moves = rest.partition("moves")
        fen = fen.strip()
        self.board = Board(None if fen == "startpos" else fen[len("fen"):].strip())
        for move in moves.split():
            self.board.push(move)

    def run_xboard(self):
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            command = words[0]
            if command == "protover" and self.args.mode != "nohandshake":
                self.out('feature ping=1 setboard=1 usermove=1 myname="fake xboard" '
                         'variants="xiangqi" option="Hash -spin 16 1 128" done=1')
            elif command == "new":
                self.board, self.force = Board(), False
            elif command == "setboard":
                self.board = Board(" ".join(words[1:]))
            elif command == "force":
                self.force = True
            elif command == "usermove":
                try:
                    self.board.push(words[1])
                except ValueError:
                    self.out(f"Illegal move: {words[1]}")
            elif command == "ping":
                self.out(f"pong {words[1]}")
            elif command == "go":
                move = self.answer()
                if move == "resign":
                    self.out("resign")
                else:
                    self.out(f"move {move}")
                    try:
                        self.board.push(move)
                    except ValueError:
                        pass
            elif command == "quit" and self.args.mode != "stubborn":
                return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--proto", default="uci", choices=["uci", "ucci", "xboard"])
    parser.add_argument("--mode", default="normal")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--moves", default="")
    parser.add_argument("--score", type=int, default=0)
    parser.add_argument("--seed", type=int)
    Fake(parser.parse_args()).run()


if __name__ == "__main__":
    main()
