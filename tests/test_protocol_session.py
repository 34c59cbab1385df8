"""The protocol layer in-process: a Session fed line by line, its output
captured, and a scripted fake searcher so the timing is ours to control.
(tests/test_protocol_{uci,ucci,xboard}.py drive the real process.)"""
import threading
import time
from types import SimpleNamespace

import pytest

from tuong.engine.board import Board
from tuong.engine.report import SearchInfo
from tuong.protocol.options import default_threads
from tuong.protocol.session import Session

MATED = "9/4a4/3k5/9/9/9/9/5C3/4K4/3R5 b"    # Black to move has no legal move
FIRST = Board().legal_moves()[0]              # what the fake searcher plays from the start


class FakeSearcher:
    """Iterates 'depth' 1, 2, ... every few ms, always preferring the first
    legal move, until a depth/time limit or stop(). Like the real one, it is
    prepared on the caller's thread, so a stop() that arrives before the
    search starts still ends it."""

    def __init__(self):
        self.calls, self.resized, self.cleared, self.limits = [], [], 0, []
        self._stop = threading.Event()
        self.deadline = None
        self.fail = False
        self.threads = 1

    def resize(self, mb):
        self.resized.append(mb)

    def clear(self):
        self.cleared += 1

    def set_threads(self, n):
        self.threads = n

    def stop(self):
        self._stop.set()

    def set_limits(self, soft_ms=None, hard_ms=None):
        self.limits.append((soft_ms, hard_ms))
        self.deadline = time.monotonic() + hard_ms / 1000 if hard_ms else None

    def prepare(self, board, *, depth=None, nodes=None, soft_ms=None, hard_ms=None,
                multipv=1, banned=()):
        self.calls.append(dict(depth=depth, nodes=nodes, soft_ms=soft_ms, hard_ms=hard_ms,
                               multipv=multipv, banned=tuple(banned), fen=board.fen()))
        self._stop.clear()
        self.deadline = time.monotonic() + hard_ms / 1000 if hard_ms else None
        self.board, self.banned, self.depth = board, banned, depth

    def run(self, on_info=None):
        if self.fail:
            raise RuntimeError("boom")
        moves = [m for m in self.board.legal_moves() if m not in self.banned]
        d = 0
        while moves and not self._stop.is_set() and (self.depth is None or d < self.depth):
            if self.deadline and time.monotonic() > self.deadline:
                break
            d += 1
            on_info(SearchInfo(depth=d, seldepth=d, multipv=1, score=7, mate=None, bound=None,
                               nodes=10 * d, nps=1000, hashfull=0, time_ms=d, pv=moves[:1]))
            time.sleep(0.003)
        return SimpleNamespace(best=moves[0] if moves else None,
                               ponder=None, score=7, mate=None, depth=d, nodes=10 * d)

    def prepare_perft(self, board, depth):
        self._stop.clear()
        self.board, self.depth = board.copy(), depth

    def run_perft(self, on_move):
        out = []
        for move, count in self.board.divide(self.depth):
            if self._stop.is_set():
                return out, False
            out.append((move, count))
            on_move(move, count)
        return out, True


class Lines(list):
    def __call__(self, line):
        self.append(line)

    def wait_for(self, predicate, timeout=10.0):          # a hang guard only
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(predicate(line) for line in list(self)):
                return True
            time.sleep(0.002)
        return False

    def starting(self, prefix):
        return [line for line in list(self) if line.startswith(prefix)]


@pytest.fixture
def make():
    sessions = []

    def start(*lines):
        out, searcher = Lines(), FakeSearcher()
        session = Session(out=out, searcher=searcher)
        sessions.append(session)
        for line in lines:
            session.handle_line(line)
        return session, out, searcher

    yield start
    for session in sessions:
        session.stop_search(discard=True)


# -- dialect detection and robustness ------------------------------------------
@pytest.mark.parametrize("first,dialect", [("uci", "Uci"), ("ucci", "Ucci"),
                                           ("xboard", "XBoard"), ("isready", "Uci")])
def test_the_first_command_picks_the_dialect(make, first, dialect):
    session, out, _ = make(first)
    assert type(session.dialect).__name__ == dialect


def test_a_crashing_handler_becomes_an_error_line(make):
    session, out, _ = make("uci")

    def boom(args):
        raise RuntimeError("kaput")

    session.dialect.commands["d"] = boom
    session.handle_line("d")
    session.handle_line("isready")
    assert any("internal error" in line and "kaput" in line for line in out)
    assert out[-1] == "readyok"


def test_blank_and_whitespace_lines_are_ignored(make):
    session, out, _ = make("uci", "", "   \t ", "\r\n", "isready\r\n")
    assert out[-1] == "readyok"
    assert not out.starting("info string")


# -- options -----------------------------------------------------------------------
def test_options_are_listed_once_in_uci_style(make):
    _, out, _ = make("uci")
    options = out.starting("option name ")
    assert "option name Hash type spin default 16 min 1 max 4096" in options
    assert "option name Clear Hash type button" in options
    assert ("option name UCI_Variant type combo default xiangqi var xiangqi var tictactoe "
            "var dodgem var queens") in options
    assert f"option name Threads type spin default {default_threads()} min 1 max 256" in options
    assert not any("usemillisec" in line for line in options)      # UCCI only
    assert out[-1] == "uciok"


def test_setoption_is_case_insensitive_and_names_may_have_spaces(make):
    session, out, searcher = make("uci", "setoption name hash value 64",
                                  "setoption name MOVE   OVERHEAD value 100",
                                  "setoption name clear hash")
    assert searcher.resized == [64] and searcher.cleared == 1
    assert session.options["Hash"] == 64 and session.options["move overhead"] == 100
    assert not out.starting("info string")


@pytest.mark.parametrize("line", ["setoption name Hash value 0", "setoption name Hash value 4097",
                                  "setoption name Hash value lots", "setoption name Hash",
                                  "setoption name Ponder value maybe",
                                  "setoption name UCI_Variant value chess",
                                  "setoption name No Such Thing value 1", "setoption Hash 3"])
def test_a_bad_option_value_keeps_the_old_one(make, line):
    session, out, searcher = make("uci", "setoption name Hash value 32", line)
    assert session.options["Hash"] == 32 and session.options["Ponder"] is False
    assert session.options["UCI_Variant"] == "xiangqi"
    assert searcher.resized == [32]
    assert len(out.starting("info string error:")) == 1


# -- position ----------------------------------------------------------------------
def test_bad_fen_keeps_the_previous_position(make):
    session, out, _ = make("uci", "position startpos moves h2e2",
                           "position fen rnbakabnr/9/1c5c1 w - - 0 1")
    assert session.board.move_stack == ["h2e2"]
    assert "ranks" in out.starting("info string error:")[0]


def test_an_illegal_move_keeps_the_position_before_it_and_is_named(make):
    session, out, _ = make("uci", "position startpos moves h2e2 h9g7 e2e9 b0c2")
    assert session.board.move_stack == ["h2e2", "h9g7"]
    error = out.starting("info string error:")[0]
    assert "'e2e9'" in error and "move 3" in error


# -- go / stop / ponderhit -----------------------------------------------------------
def test_go_returns_at_once_and_prints_info_then_bestmove(make):
    session, out, searcher = make("uci", "position startpos", "go depth 3")
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    infos = out.starting("info depth")
    assert len(infos) == 3
    assert infos[0].startswith("info depth 1 seldepth 1 multipv 1 score cp 7 nodes 10 nps 1000 "
                               "hashfull 0 time 1 pv ")
    assert searcher.calls[0]["depth"] == 3 and searcher.calls[0]["soft_ms"] is None


def test_clock_go_gives_the_searcher_a_budget_for_the_side_to_move(make):
    _, out, searcher = make("uci", "setoption name Move Overhead value 0",
                            "position startpos moves h2e2",
                            "go wtime 100 btime 60000 winc 0 binc 0 depth 2")
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    call = searcher.calls[0]
    assert 1000 < call["soft_ms"] < 3000 < call["hard_ms"] <= 15000     # Black's minute


@pytest.mark.parametrize("args", ["depth", "depth banana", "depth -3", "nodes 0", "movetime x",
                                  "wtime", "frobnicate 3", "searchmoves z9z9", "perft", "perft 99",
                                  "nodes 99999999999999999999999", "wtime 1e3", "depth 3.5"])
def test_go_with_nonsense_reports_and_does_not_search(make, args):
    session, out, searcher = make("uci", "position startpos", f"go {args}", "isready")
    assert out[-2].startswith("info string error:")
    assert out[-1] == "readyok"
    assert not searcher.calls and not out.starting("bestmove")


@pytest.mark.parametrize("dialect, go", [
    ("uci", "go wtime 1000 btime 1000 movestogo -5"),
    ("uci", "go wtime 1000 btime 1000 movestogo 0"),
    ("uci", "go wtime 1000 btime 1000 winc -10 binc -10"),
    ("ucci", "go time 10 movestogo 0"),
    ("ucci", "go time 10 increment -1"),
])
def test_odd_clock_values_that_guis_send_still_get_a_move(make, dialect, go):
    """A movestogo of 0 or less is sudden death and a negative increment none
    (as Stockfish reads them): the search runs on the clock, and answers."""
    _, out, searcher = make(dialect, "position startpos", go)
    assert out.wait_for(lambda line: line.startswith("bestmove")), list(out)
    assert not out.starting("info string error")
    assert 0 < searcher.calls[0]["soft_ms"] < 1000


def test_an_overstepped_clock_means_move_at_once(make):
    _, out, searcher = make("uci", "go wtime -250 btime -250 depth 3")
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    assert (searcher.calls[0]["soft_ms"], searcher.calls[0]["hard_ms"]) == (1, 1)


def test_go_infinite_holds_bestmove_until_stop(make):
    session, out, searcher = make("uci", "position startpos", "go infinite")
    assert out.wait_for(lambda line: line.startswith("info depth 3"))
    time.sleep(0.05)
    assert not out.starting("bestmove")
    session.handle_line("stop")
    assert out.starting("bestmove") == [f"bestmove {FIRST}"]


def test_a_held_search_that_ended_prints_at_stop(make):
    session, out, searcher = make("uci", f"position fen {MATED}", "go infinite")
    session._thread.join(5)              # ends at once: no legal move
    assert not session._thread.is_alive()
    assert not out.starting("bestmove")
    session.handle_line("stop")
    assert out[-2:] == ["info depth 0 score mate 0", "bestmove (none)"]


def test_ponderhit_starts_the_clock_from_then(make):
    session, out, searcher = make("uci", "position startpos",
                                  "go ponder wtime 60000 btime 60000")
    assert out.wait_for(lambda line: line.startswith("info depth"))
    assert searcher.calls[0]["hard_ms"] is None        # pondering has no clock
    session.handle_line("ponderhit")
    assert searcher.limits and searcher.limits[0][0] > 1000
    session.handle_line("stop")
    assert len(out.starting("bestmove")) == 1


def test_position_during_a_search_ends_it_with_a_bestmove(make):
    session, out, searcher = make("uci", "position startpos", "go infinite",
                                  "position startpos moves h2e2")
    assert out.starting("bestmove") == [f"bestmove {FIRST}"]
    assert session.board.move_stack == ["h2e2"]


def test_a_failing_search_still_answers_with_a_legal_move(make):
    session, out, searcher = make("uci")
    searcher.fail = True
    session.handle_line("go depth 2")
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    assert any("search failed" in line for line in out)
    assert out.starting("bestmove")[0].split()[1] in Board().legal_moves()


def test_go_perft_and_d(make):
    _, out, _ = make("uci", "go perft 2", "d")
    assert out.wait_for(lambda line: line.startswith("Nodes searched"))
    assert len([line for line in out if line[:4] in Board().legal_moves()]) == 44
    assert "Nodes searched: 1920" in out
    assert f"Fen: {Board().fen()}" in out
    assert any(line.startswith("Key: ") for line in out)


# -- UCCI ------------------------------------------------------------------------------
def test_ucci_handshake_options_and_bye(make):
    session, out, _ = make("ucci")
    assert "option hashsize type spin min 1 max 4096 default 16" in out
    assert "option usemillisec type check default false" in out
    assert out[-1] == "ucciok"
    session.handle_line("bye")
    assert out[-1] == "bye" and session.quit


@pytest.mark.parametrize("unit,time_arg,expected_ms", [("false", "60", 60_000),
                                                       ("true", "60000", 60_000),
                                                       ("false", "1.5", 1500)])
def test_ucci_times_are_seconds_until_usemillisec(make, unit, time_arg, expected_ms):
    from tuong.engine.timeman import budget
    _, out, searcher = make("ucci", f"setoption usemillisec {unit}",
                            f"go time {time_arg} increment 0 depth 2")
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    assert (searcher.calls[0]["soft_ms"], searcher.calls[0]["hard_ms"]) == budget(expected_ms, 0)


def test_ucci_banmoves_apply_to_the_next_go_and_position_clears_them(make):
    session, out, searcher = make("ucci", "position startpos", "banmoves a0a1 a0a2", "go depth 1")
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    assert searcher.calls[0]["banned"] == ("a0a1", "a0a2")
    allowed = [m for m in Board().legal_moves() if m not in ("a0a1", "a0a2")]
    assert out.starting("bestmove") == [f"bestmove {allowed[0]}"]
    session.handle_line("banmoves e2e9")
    assert "not legal" in out[-1]
    session.handle_line("position startpos")
    session.handle_line("go depth 1")
    assert out.wait_for(lambda line: line == f"bestmove {FIRST}")


@pytest.mark.parametrize("args", ["time nan", "time inf", "time 1e12", "time soon",
                                  "depth 0", "nodes", "time 5 mvestogo 3"])
def test_ucci_go_with_nonsense_reports_and_does_not_search(make, args):
    session, out, searcher = make("ucci", f"go {args}", "isready")
    assert out[-2].startswith("info string error: go:"), out[-2]
    assert not searcher.calls


def test_ucci_nobestmove(make):
    session, out, _ = make("ucci", "stop")
    assert out[-1] == "nobestmove"                   # stop with no search
    session.handle_line(f"position fen {MATED}")
    session.handle_line("go depth 3")
    assert out.wait_for(lambda line: line == "nobestmove" and out.count(line) == 2)


# -- xboard ------------------------------------------------------------------------------
def test_xboard_features(make):
    _, out, _ = make("xboard", "protover 2")
    features = out[-1]
    for needed in ("ping=1", "setboard=1", "usermove=1", "san=0", "time=1", "sigint=0",
                   "sigterm=0", 'myname="tuong"', 'variants="xiangqi"', "colors=0"):
        assert needed in features.split()
    assert features.endswith("done=1")


def test_xboard_plays_after_a_user_move_and_keeps_the_board(make):
    session, out, searcher = make("xboard", "protover 2", "new", "variant xiangqi",
                                  "sd 2", "usermove h2e2")
    assert out.wait_for(lambda line: line.startswith("move "))
    board = Board()
    board.push("h2e2")
    reply = board.legal_moves()[0]
    assert out.starting("move ") == [f"move {reply}"]
    assert session.board.move_stack == ["h2e2", reply]
    assert searcher.calls[0]["depth"] == 2


def test_xboard_pong_waits_for_our_move(make):
    session, out, searcher = make("xboard", "protover 2", "new", "usermove h2e2")
    session.handle_line("ping 5")          # we are thinking: pong comes after the move
    assert "pong 5" not in out
    session.handle_line("?")               # move now
    assert out.wait_for(lambda line: line == "pong 5")
    assert out.index("pong 5") == out.index(out.starting("move ")[0]) + 1
    session.handle_line("ping 6")
    assert out[-1] == "pong 6"


def test_xboard_force_abandons_the_search_silently(make):
    session, out, _ = make("xboard", "new", "usermove h2e2", "force")
    assert not out.starting("move ")     # force waited for the search and dropped its move
    assert session.board.move_stack == ["h2e2"]


def test_xboard_errors(make):
    session, out, _ = make("xboard", "new", "force", "usermove e2e9", "h2h8", "usermove",
                           "setboard nonsense", "variant shogi", "frob", "undo", "remove")
    assert "Illegal move: e2e9" in out and "Illegal move: h2h8" in out
    assert any(line.startswith("tellusererror Illegal position") for line in out)
    assert "Error (unsupported variant): variant shogi" in out
    assert "Error (unknown command): frob" in out
    assert any(line.startswith("Error (no move to take back)") for line in out)
    assert session.board.fen() == Board().fen()


def test_xboard_announces_the_result_after_its_mating_move(make):
    session, out, _ = make("xboard", "new", "sd 2", "force",
                           "setboard 4k4/9/4R4/9/9/9/9/9/4R4/3K5 b", "go")
    assert out.wait_for(lambda line: line.startswith("move "))
    assert out == ["move e9f9"]                 # in check; the one move, and no result
    session.handle_line(f"setboard {MATED}")
    session.handle_line("go")
    assert out[-1] == "1-0 {Red wins}"
    session.handle_line("new")                  # we play Black
    session.handle_line("setboard 9/4a4/3k5/9/9/9/9/5C3/4K4/1R7 w")
    session.handle_line("usermove b0d0")        # and the user mates us
    assert out[-1] == "1-0 {Red wins}"


@pytest.mark.parametrize("line", ["level 40", "level x 5 0", "level 0 inf 0", "level 0 5 -1",
                                  "st", "st 0", "st nan", "sd", "sd deep", "time", "time inf",
                                  "option Hash=0", "option Nope=1"])
def test_xboard_bad_clock_commands_keep_the_old_settings(make, line):
    session, out, _ = make("xboard", "new", "level 40 5 0", "time 3000")
    dialect = session.dialect
    before = (dialect.mps, dialect.base_ms, dialect.inc_ms, dialect.move_ms, dialect.depth,
              dialect.time_ms, session.options["Hash"])
    session.handle_line(line)
    assert out[-1].startswith("Error (") and out[-1].endswith(f"): {line}")
    assert before == (dialect.mps, dialect.base_ms, dialect.inc_ms, dialect.move_ms,
                      dialect.depth, dialect.time_ms, session.options["Hash"])


def test_xboard_level_time_and_st_set_the_budget(make):
    from tuong.engine.timeman import budget, fixed
    session, out, searcher = make("xboard", "new", "sd 2", "level 40 0:30 0", "time 2000",
                                  "otim 2000", "usermove h2e2")
    assert out.wait_for(lambda line: line.startswith("move "))
    call = searcher.calls[-1]
    assert (call["soft_ms"], call["hard_ms"]) == budget(20_000, 0, 40, 10)
    session.handle_line("st 2")
    session.handle_line("usermove h0g2")
    assert out.wait_for(lambda line: len(out.starting("move ")) == 2)
    assert (searcher.calls[-1]["soft_ms"], searcher.calls[-1]["hard_ms"]) == fixed(2000, 10)
    session.handle_line("level 0 0:10 0.1")
    session.handle_line("time 1000")
    session.handle_line("usermove i0h0")
    assert out.wait_for(lambda line: len(out.starting("move ")) == 3)
    assert (searcher.calls[-1]["soft_ms"], searcher.calls[-1]["hard_ms"]) == budget(10_000, 100)


def test_search_reports_are_typed_records():
    """The dialects read a SearchInfo, not a dict: a field the searcher did
    not send, or a misspelt one, is an error instead of a printed 0."""
    from dataclasses import FrozenInstanceError
    from tuong.engine.report import SearchInfo
    fields = dict(depth=3, seldepth=5, multipv=1, score=12, mate=None, bound=None, nodes=99,
                  nps=1000, hashfull=0, time_ms=4, pv=["h2e2", "h9g7"])
    info = SearchInfo(**fields)
    assert info.pv == ("h2e2", "h9g7") and info.nodes == 99
    with pytest.raises(TypeError):
        SearchInfo(**{k: v for k, v in fields.items() if k != "nodes"})
    with pytest.raises(TypeError):
        SearchInfo(**fields, nodez=1)
    with pytest.raises(AttributeError):
        # The access itself is the check: it must raise for a misspelt field.
        info.nodez  # noqa: B018
    with pytest.raises(FrozenInstanceError):
        info.nodes = 1


@pytest.mark.parametrize("go,waits", [("go wtime 10000 winc 100", "quarter"),
                                      ("go wtime 10000 winc 100", "table root"),
                                      ("go depth 5", "TABLE_WAIT"), ("go nodes 500", "TABLE_WAIT"),
                                      ("go infinite", "no"), ("go ponder wtime 10000", "no")])
def test_a_go_waits_for_its_tables_only_as_its_limits_allow(make, go, waits):
    """How long a go may wait for tables still being read: a quarter of its
    hard limit (the wait then taken off its limits), TABLE_WAIT for a depth or
    nodes search, nothing for ponder or infinite; three quarters of the
    hard limit when the position is in a table (its move is then at once)."""
    from tuong.engine.timeman import budget
    from tuong.protocol import session as session_module
    session, out, searcher = make("uci", "position startpos")
    waited = []

    def reading(board, wait):              # a table read that takes 0.2 s of the wait
        waited.append(wait)
        time.sleep(min(wait, 0.2))
    session.tablebases.prepare = reading
    session.tablebases.holds = lambda board: waits == "table root"
    session.handle_line(go)
    session.handle_line("stop")            # the fake searcher knows no node limit
    assert out.wait_for(lambda line: line.startswith("bestmove"))
    soft, hard = budget(10_000, 100)
    expected = {"quarter": hard / 4000, "table root": hard * 0.75 / 1000,
                "TABLE_WAIT": session_module.TABLE_WAIT, "no": 0}[waits]
    assert waited == [pytest.approx(expected)]
    if waits in ("quarter", "table root"):  # the 0.2 s spent is off both limits
        assert searcher.calls[-1]["hard_ms"] <= hard - 200
        assert searcher.calls[-1]["soft_ms"] <= soft - 200
