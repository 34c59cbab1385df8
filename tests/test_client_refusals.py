"""protocol.client: a position that is not one is never searched.

In Xiangqi the client checks the FEN and the moves before sending anything;
in every dialect it reads the engine's answer to the position before `go`
(tuong's `info string error`, an xboard engine's `Illegal move`, `Error` or
`tellusererror Illegal position`). Either way the caller gets
PositionRefused, an EngineError, and the engine plays on from the next
position. Real engines throughout: tuong in its three dialects,
Fairy-Stockfish over UCI and xboard, maxqi over xboard."""
import shlex
import shutil
import sys

import pytest
from conftest import HANG, ROOT, need, tuong_command
from test_client import env, legal_after

from tuong.protocol import client
from tuong.protocol.client import EngineError, Limit, PositionRefused, open_engine

FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
MAXQI = shutil.which("maxqi") or shutil.which("/usr/games/maxqi")
# A legal endgame (Red mates along the back rank), searched first so that the
# engine holds a position whose move a refused position must not get.
GOOD = ("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", [])
# Issue 54's position: the Red general outside its palace.
BAD_FEN = ("3k5/4R4/4K4/9/9/9/9/9/9/9 b - - 0 1", [])
BAD_MOVES = [(None, ["h2h3", "zz"]),          # malformed
             (None, ["h2h3", "h2e2"])]         # Red's move on Black's turn
DIALECTS = ["uci", "ucci", "xboard"]




class Transcript(list):
    """The client's log: every line sent (`< `) and read (`> `)."""

    def mark(self):
        return len(self)

    def sent_since(self, mark):
        return [line.split(" < ", 1)[1] for line in self[mark:] if " < " in line]


def tuong(proto, log):
    return open_engine(tuong_command(), proto, env=env(), cwd=ROOT, log=log.append)


def plays_on(engine, position=GOOD):
    result = engine.play(position, Limit(depth=2))
    assert engine.alive and legal_after(position, result.move), result
    return result


def test_position_refused_is_an_engine_error_and_exported():
    assert issubclass(PositionRefused, EngineError)
    # tuong-match's referee forfeits an engine whose answer it cannot use: this one too
    assert issubclass(PositionRefused, client.EngineProtocolError)
    assert "PositionRefused" in client.__all__ and PositionRefused.__doc__


@pytest.mark.parametrize("proto", DIALECTS)
def test_an_illegal_position_is_refused_before_anything_is_sent(proto):
    """Issue 54 item 9: after a search of one position, a FEN with a general
    outside its palace, or a move list with an illegal move, raised nothing
    and was answered with a move for another position."""
    log = Transcript()
    with tuong(proto, log) as engine:
        plays_on(engine)
        for position in [BAD_FEN] + BAD_MOVES:
            mark = log.mark()
            with pytest.raises(PositionRefused, match="not sent"):
                engine.play(position, Limit(depth=3))
            assert log.sent_since(mark) == [], log[mark:]      # nothing reached the engine
            assert engine.alive
        with pytest.raises(PositionRefused, match="palace"):
            engine.analyse(BAD_FEN, Limit(depth=3))            # analyse() too
        plays_on(engine)
        plays_on(engine, (None, ["h2h3"]))


@pytest.mark.parametrize("proto", DIALECTS)
def test_the_engines_own_refusal_raises_before_go(proto, monkeypatch):
    """What the client cannot check (another game, another engine's rules)
    the engine answers after `position`: read before `go` is sent, in every
    dialect, as PositionRefused with the engine's words; the engine plays on."""
    log = Transcript()
    with tuong(proto, log) as engine:
        plays_on(engine)
        monkeypatch.setattr(engine, "_check_position", lambda position: None, raising=False)
        for position, words in zip([BAD_FEN] + BAD_MOVES, ["palace", "zz", "h2e2"]):
            mark = log.mark()
            with pytest.raises(PositionRefused, match=words):
                engine.play(position, Limit(depth=3), timeout=HANG)
            assert "go" not in log.sent_since(mark), log[mark:]
            assert engine.alive
        plays_on(engine)
        plays_on(engine, (None, ["h2h3"]))


def test_another_games_illegal_move_is_the_engines_to_refuse():
    """The client checks Xiangqi only; tuong refuses a tic-tac-toe square
    taken twice, and the client reads its refusal."""
    log = Transcript()
    with tuong("uci", log) as engine:
        engine.configure({"UCI_Variant": "tictactoe"})
        assert engine.play((None, ["b2"]), Limit(depth=9)).move
        with pytest.raises(PositionRefused, match="a1"):
            engine.play((None, ["a1", "a1"]), Limit(depth=9))
        assert engine.alive and engine.play((None, ["a1"]), Limit(depth=9)).move != "a1"


PROXY = """
import subprocess, sys, threading
engine = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def pump():
    for line in engine.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
threading.Thread(target=pump, daemon=True).start()
for line in sys.stdin:
    if line.startswith("position"):
        sys.stdout.write("info string position received, nothing wrong\\n")
        sys.stdout.flush()
    engine.stdin.write(line)
    engine.stdin.flush()
    if line.split()[:1] == ["quit"]:
        break
engine.stdin.close()
engine.wait()
"""


def test_an_info_string_that_is_not_an_error_is_not_a_refusal(tmp_path):
    """tuong behind a proxy that answers every `position` with an `info
    string` of its own: read before `readyok`, it is no refusal."""
    proxy = tmp_path / "proxy.py"
    proxy.write_text(PROXY)
    command = [sys.executable, str(proxy), *shlex.split(tuong_command())]
    with open_engine(command, "uci", env=env(), cwd=ROOT) as engine:
        plays_on(engine)
        plays_on(engine, (None, ["h2e2"]))


@pytest.mark.parametrize("proto", ["uci", "xboard"])
def test_fairy_stockfish_gets_no_illegal_position(proto, monkeypatch):
    """Fairy-Stockfish says nothing about a bad FEN (over xboard it then
    answers no move at all): the client's check refuses it; a move it cannot
    take (xboard: `Error (unkown command): h2e2`) is its refusal."""
    need(FAIRY, "fairy-stockfish not installed")
    log = Transcript()
    with open_engine(FAIRY, proto, log=log.append) as engine:
        plays_on(engine)
        for position in [BAD_FEN] + BAD_MOVES:
            mark = log.mark()
            with pytest.raises(PositionRefused, match="not sent"):
                engine.play(position, Limit(depth=3))
            assert log.sent_since(mark) == []
        plays_on(engine)
        if proto == "xboard":
            monkeypatch.setattr(engine, "_check_position", lambda position: None, raising=False)
            with pytest.raises(PositionRefused, match="h2e2"):
                engine.play(BAD_MOVES[1], Limit(depth=3))
            plays_on(engine, (None, ["h2h3"]))


def test_maxqi_refusal_of_a_move_leaves_it_usable(monkeypatch):
    need(MAXQI, "maxqi not installed")
    log = Transcript()
    with open_engine(MAXQI, "xboard", log=log.append) as engine:
        start = (None, [])
        plays_on(engine, start)
        with pytest.raises(PositionRefused, match="not sent"):
            engine.play(BAD_MOVES[1], Limit(depth=3))
        monkeypatch.setattr(engine, "_check_position", lambda position: None, raising=False)
        with pytest.raises(PositionRefused, match="Illegal move"):
            engine.play(BAD_MOVES[1], Limit(depth=3))
        # the client no longer knows maxqi's board: it starts it again
        plays_on(engine, (None, ["h2h3"]))
