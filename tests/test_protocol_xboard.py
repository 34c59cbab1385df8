"""The real engine process over xboard/CECP v2, then a real XBoard match
against maxqi under xvfb-run.

Coordinates: CECP counts ranks from 0 on 10-rank boards, so XBoard and
maxqi write xiangqi moves as we do (h2e2 is the central cannon)."""
import os
import re
import shutil
import subprocess

import pytest
from conftest import HANG, ROOT, EngineProcess, need, tuong_command

from tuong.engine.board import Board
from test_protocol_uci import MATES


@pytest.fixture
def xb(engine_env):
    process = EngineProcess(engine_env)
    process.send("xboard")
    process.send("protover 2")
    process.expect(r"feature [^\n]*done=1")
    yield process
    if process.child.proc.poll() is None:
        process.child.proc.kill()
        process.child.proc.wait(timeout=5)


def test_features_are_what_xboard_needs(xb):
    features = xb.child.match.group(0).split()
    for needed in ("ping=1", "setboard=1", "usermove=1", "san=0", "time=1", "sigint=0",
                   "sigterm=0", "reuse=1", 'myname="tuong"', 'variants="xiangqi"'):
        assert needed in features


def test_a_game_opening_with_clocks_ping_and_errors(xb):
    for line in ("accepted ping", "new", "variant xiangqi", "level 0 0:10 0.1", "post",
                 "hard", "time 1000", "otim 1000", "usermove h2e2", "ping 1"):
        xb.send(line)
    reply = xb.expect(r"move ([a-i]\d[a-i]\d)", 10).group(1)   # on a 10 s clock
    board = Board()
    board.push("h2e2")
    assert reply in board.legal_moves()
    board.push(reply)
    xb.expect("pong 1")                          # owed after our move, not before
    assert "pong" not in xb.before
    xb.send("usermove e2e9")
    assert xb.line("Illegal move") == "Illegal move: e2e9"
    xb.send("flurble")
    assert xb.line("Error") == "Error (unknown command): flurble"
    xb.send("setboard not a fen")
    assert xb.line("tellusererror").startswith("tellusererror Illegal position")
    # CECP: no position is ours now, so every move is illegal and go is refused
    # (playing on in the old game would send moves illegal in the GUI's).
    xb.send("usermove h0g2")
    assert xb.line("Illegal move").startswith("Illegal move (no position): h0g2")
    xb.send("go")
    assert "no position" in xb.line("Error")
    # A good setboard gives a position again: the game's, from its FEN.
    xb.send(f"setboard {board.fen()}")
    xb.send("force")
    xb.send("usermove h0g2")
    xb.send("undo")
    xb.send("ping 2")
    xb.expect("pong 2")
    assert "Illegal" not in xb.before and "Error" not in xb.before
    # undo took back h0g2 only: our reply is still on the board.
    xb.send("usermove h0g2")
    xb.send("go")                                 # we play Black from here
    board.push("h0g2")
    assert xb.expect(r"move ([a-i]\d[a-i]\d)", 10).group(1) in board.legal_moves()


def test_an_option_set_while_we_think_waits_for_our_move(xb):
    """XBoard sends its settings dialog's options whenever the user presses
    OK: our move still comes (a cancelled one would lose on time), then the
    option is set."""
    for line in ("new", "variant xiangqi", "st 1", "usermove h2e2"):
        xb.send(line)
    xb.send("option Hash=32")
    xb.send("option Bogus=1")
    xb.expect(r"move [a-i]\d[a-i]\d", 10)
    xb.send("ping 4")
    xb.expect("pong 4")
    assert "Bogus" in xb.before and "Error" in xb.before   # the bad one, said after the move


def test_thinking_output_uses_centiseconds_and_mate_scores(xb):
    fen, n, move = MATES[3]
    for line in ("new", "force", "post", "sd 10", f"setboard {fen}", "go"):
        xb.send(line)
    assert xb.expect(r"move (\S+)").group(1) == move
    last = [line for line in xb.before.splitlines() if re.match(r"\d+ -?\d+ \d+ \d+", line)][-1]
    assert last.split()[1] == str(100000 + n)


def test_results_after_our_mate_and_after_the_users(xb):
    fen, _, move = MATES[0]
    for line in ("new", "force", "sd 4", f"setboard {fen}", "go"):
        xb.send(line)
    assert xb.expect(r"move (\S+)").group(1) == move
    assert xb.line(r"1-0") == "1-0 {Red wins}"
    # Now we play Black and the user mates us.
    for line in ("new", f"setboard {fen}", f"usermove {move}"):
        xb.send(line)
    assert xb.line(r"1-0") == "1-0 {Red wins}"
    xb.send("ping 3")
    xb.expect("pong 3")
    assert "move" not in xb.before


def test_quit_exits(xb):
    xb.send("new")
    xb.send("go")
    xb.send("quit")
    assert xb.child.proc.wait(timeout=HANG) == 0
    assert "move" not in xb.child.read()              # quit abandons the search


XBOARD = shutil.which("xboard") or "/usr/games/xboard"
XVFB = shutil.which("xvfb-run")
MAXQI = shutil.which("maxqi") or "/usr/games/maxqi"


@pytest.mark.slow
def test_an_xboard_match_against_maxqi(tmp_path, engine_env):
    """`xboard -variant xiangqi -fcp tuong -scp maxqi`, 2 games at 10 s +
    0.1 s in match mode: both games end by the rules (no loss on time, no
    illegal move, no engine crash) and XBoard exits by itself."""
    need(os.path.exists(XBOARD) and XVFB and os.path.exists(MAXQI),
         "needs xboard, xvfb-run and maxqi")
    pgn, debug = tmp_path / "games.pgn", tmp_path / "xboard.debug"
    command = [XVFB, "-a", XBOARD, "-variant", "xiangqi",
               "-fcp", tuong_command(), "-fd", str(ROOT),
               "-scp", MAXQI, "-sd", str(tmp_path),
               "-mg", "2", "-tc", "0:10", "-inc", "0.1", "-xexit",
               # XBoard calls no flag between engines unless told to; and its
               # move animation costs each side ~100 ms a move on the clock.
               "-autoCallFlag", "true", "-xanimate",
               "-saveGameFile", str(pgn), "-debug", "-nameOfDebugFile", str(debug)]
    done = subprocess.run(command, cwd=tmp_path, env=engine_env, timeout=400,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    games = pgn.read_text()
    results = re.findall(r'\[Result "([^"]+)"\]', games)
    assert len(results) == 2 and all(r in ("1-0", "0-1", "1/2-1/2") for r in results), games
    log = debug.read_text(errors="replace")
    for bad in ("forfeit", "time", "illegal", "crash", "exit"):
        terminations = re.findall(r"\{([^}]*)\} (?:1-0|0-1|1/2-1/2)", games)
        assert not any(bad in t.lower() for t in terminations), terminations
    assert not re.search(r"<first : (Illegal move|Error)", log)
    assert "Match tuong vs. MaxQi" in done.stdout + done.stderr
