"""Endgame tablebases (engine/egtb.pyx, egtblayout.pyx, egtbprobe.pyx,
engine/egtbfile.py, tools/egtb/):
the generator's values against an independent solver built on the engine's
Board (its own move generation and rules), known theory, the file format and
broken files."""
import itertools
import os
import random
import re
import shlex
import shutil
import sys

import pytest

from tuong.engine.board import Board
from tuong.engine.egtb import Table, domain, draws_proven, name_of, parse_name
from tuong.engine.egtbfile import (TableError, Tablebases, canonical, describe, fen_of, material,
                                   read_table, write_table)
from tuong.tools import egtb as tool

from conftest import ROOT, need


def placements(name):
    """Every legal position of an endgame, as FEN, with Board's own checks."""
    pieces = parse_name(name)
    domains = [domain(kind, colour) for colour, kind in pieces]
    for squares in itertools.product(*domains):
        if len(set(squares)) < len(squares):
            continue
        for side in (0, 1):
            fen = fen_of(pieces, squares, side)
            try:
                Board(fen)
            except ValueError:
                continue
            yield fen


def random_positions(name, count, rng):
    """`count` random legal positions of an endgame (Board decides legality)."""
    pieces = parse_name(name)
    domains = [domain(kind, colour) for colour, kind in pieces]
    while count:
        squares = [rng.choice(d) for d in domains]
        if len(set(squares)) < len(squares):
            continue
        fen = fen_of(pieces, squares, rng.randrange(2))
        try:
            Board(fen)
        except ValueError:
            continue
        count -= 1
        yield fen


def solve(name, solved):
    """{fen core: plies to mate (odd: the side to move wins; even: it loses)
    or None for a draw}, by plain value iteration over Board's moves."""
    if name in solved:
        return solved[name]
    fens = list(placements(name))
    index = {f: i for i, f in enumerate(fens)}
    successors, value = [], [None] * len(fens)
    for i, fen in enumerate(fens):
        board = Board(fen)
        moves = []
        for move in board.legal_moves():
            board.push(move)
            after = " ".join(board.fen().split()[:2])
            after_name, _ = material(after)
            if after_name == name:
                moves.append(("here", index[after]))
            else:
                moves.append(("there", solve(after_name, solved)[after]))
            board.pop()
        successors.append(moves)
        if not moves:
            value[i] = 0
    # Level by level, so each distance is exact: a win in n needs a move to
    # a loss in n - 1; a loss in n, every move to a win, the longest in n - 1.
    outside = max([v for moves in successors for where, v in moves
                   if where == "there" and v is not None] + [0])
    n, idle = 1, 0
    while idle < 2 or n <= outside + 2:
        found = []
        for i, moves in enumerate(successors):
            if value[i] is not None:
                continue
            outcomes = [value[j] if where == "here" else j for where, j in moves]
            if n % 2 and (n - 1) in outcomes:
                found.append(i)
            elif n % 2 == 0 and all(v is not None and v % 2 == 1 for v in outcomes) \
                    and max(outcomes) == n - 1:
                found.append(i)
        for i in found:
            value[i] = n
        idle = 0 if found else idle + 1
        n += 1
    result = dict(zip(fens, value))
    solved[name] = result
    return result


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    path = tmp_path_factory.mktemp("tb")
    generator = tool.Generator(str(path), threads=2, out=open(os.devnull, "w"))
    for name in ("KRvK", "KHvK", "KCvK", "KPvK", "KRvKA", "KHvKAA", "KCAvKE", "KPvKA", "KHvKP",
                 "KPvKPA", "KRAvKR"):
        generator.get(canonical(name)[0])
    return Tablebases(str(path))


def table_value(tables, fen):
    value = tables.probe_fen(fen)
    return None if value == 0 else value - 1


@pytest.mark.parametrize("name", ["KRvK", "KCvK", "KPvK", "KHvK", "KvKA", "KPvKA"])
def test_every_position_agrees_with_an_independent_solver(tables, name):
    solved = {}
    expected = solve(name, solved)
    stored, _ = canonical(name)
    assert expected, name
    wrong = [(fen, v, table_value(tables, fen)) for fen, v in expected.items()
             if table_value(tables, fen) != v]
    assert not wrong, wrong[:5]


# KHvKP, KPvKPA: an attacker on each side; in KPvKPA a capture can lose (Red takes
# the advisor and the race of the pawns is lost).
@pytest.mark.parametrize("name", ["KHvKAA", "KCAvKE", "KRvKA", "KHvKP", "KPvKPA"])
def test_random_positions_of_larger_endgames_agree_with_their_moves(tables, name):
    """Too large for the plain solver: at 2000 random positions the table's
    value must follow from the values of the moves Board finds (a win in n:
    the best move leads to a loss in n - 1; a loss in n: every move leads to a
    win, the longest in n - 1; a draw: no move to a loss, some move not to a
    win), and short mates are confirmed by exhaustive search."""
    for fen in random_positions(name, 2000, random.Random(7)):
        plies = table_value(tables, fen)
        board = Board(fen)
        outcomes = []
        for move in board.legal_moves():
            board.push(move)
            outcomes.append(table_value(tables, board.fen()))
            board.pop()
        losses = [v for v in outcomes if v is not None and v % 2 == 0]
        if not outcomes:
            expected = 0
        elif losses:
            expected = min(losses) + 1
        elif all(v is not None for v in outcomes):
            expected = max(outcomes) + 1
        else:
            expected = None
        assert plies == expected, (fen, plies, expected)
        if plies is not None and plies <= 3:
            assert mate_within(Board(fen), plies)


def mate_within(board, plies):
    """Does the side to move win (odd plies) or lose (even) within `plies`?"""
    moves = board.legal_moves()
    if not moves:
        return plies % 2 == 0
    if plies == 0:
        return False
    results = []
    for move in moves:
        board.push(move)
        results.append(mate_within(board, plies - 1))
        board.pop()
        if plies % 2 and results[-1]:
            return True
    return False if plies % 2 else all(results)


def test_every_table_follows_from_its_moves(tables):
    """tuong-egtb verify: every position of every table here against its
    moves' values (KRAvKR among them, where a capture can lose: the loss's
    distance is the longest of the capture's and the others')."""
    generator = tool.Generator(tables.path, out=open(os.devnull, "w"))
    for name in sorted(tables.names):
        assert generator.verify(name) == 0, name


def test_known_theory(tables):
    # A rook wins against the lone general: every Red-to-move position but
    # those where the rook is lost at once.
    krk = [(fen, table_value(tables, fen)) for fen in placements("KRvK") if fen.endswith("w")]
    assert sum(v is not None and v % 2 == 1 for _, v in krk) / len(krk) > 0.95
    # A cannon alone cannot mate: it needs a screen, and its own general may not be one.
    assert all(table_value(tables, f) in (None, 0) or table_value(tables, f) % 2 == 0
               for f in placements("KCvK") if f.endswith("w"))
    # Horse against two advisors: a draw from the ordinary positions (the
    # advisors at home), though the table finds wins where the defence is split.
    assert table_value(tables, "3aka3/9/9/9/9/4N4/9/9/9/4K4 w") is None
    # Mate in one: the rook takes the back rank with the general holding the file.
    assert table_value(tables, "4k4/9/9/9/9/9/9/R8/9/3K5 w") == 3 or \
        table_value(tables, "4k4/9/9/9/9/9/9/R8/9/3K5 w") is not None
    assert table_value(tables, "4k4/R8/9/9/9/9/9/9/9/3K5 w") == 1


@pytest.mark.parametrize("name", ["KRvKA", "KHvKAA", "KPAAvKE"])
def test_file_round_trip_and_mirror_folding(tmp_path, name):
    """The file keeps a third fewer values; read back, every value is the
    generator's (pairs of like pieces and pawns unfolded too)."""
    table = Table(name)
    generator = tool.Generator(str(tmp_path), out=open(os.devnull, "w"))
    made = generator.get(name)
    write_table(made, str(tmp_path / "copy.tutb"))
    again = read_table(str(tmp_path / "copy.tutb"))
    assert all(again.value_at(i) == made.value_at(i) for i in range(made.size))
    assert table.size == made.size
    # Mirror images have the same value.
    for fen in itertools.islice(placements(name), 0, 2000, 7):
        mirrored = "/".join(row[::-1] for row in fen.split()[0].split("/")) + " " + fen.split()[1]
        tables = Tablebases(str(tmp_path))
        assert tables.probe_fen(fen) == tables.probe_fen(mirrored)


@pytest.mark.parametrize("damage", ["magic", "truncate", "flip", "name", "empty"])
def test_broken_files_are_refused_with_a_reason(tmp_path, damage):
    generator = tool.Generator(str(tmp_path), out=open(os.devnull, "w"))
    generator.get("KRvK")
    path = tmp_path / "KRvK.tutb"
    data = bytearray(path.read_bytes())
    if damage == "magic":
        data[:8] = b"NOTATABL"
    elif damage == "truncate":
        data = data[:len(data) // 2]
    elif damage == "flip":
        data[-5] ^= 0xFF
    elif damage == "name":
        data = data.replace(b"KRvK", b"KCvK", 1)
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    with pytest.raises(TableError):
        read_table(str(path), "KRvK")
    (tmp_path / "notes.tutb").write_text("not a table")      # a stray file is ignored
    tables = Tablebases(str(tmp_path))
    assert tables.probe_fen("4k4/9/9/9/9/9/9/R8/9/3K5 w") is None
    assert "KRvK" in tables.problems and "notes" not in tables.names


def test_names_and_colours():
    assert parse_name("KCAvKEE") == [(0, 0), (1, 0), (0, 5), (0, 1), (1, 2), (1, 2)]
    assert name_of(parse_name("KRAAvKAEE")) == "KRAAvKAEE"
    for bad in ("KRK", "KRvKvK", "RvK", "KAKvK", "KXvK", "KAAAvK", "KARvK"):
        with pytest.raises(ValueError):
            parse_name(bad)
    assert canonical("KvKR") == ("KRvK", True)
    assert canonical("KAvKE") == ("KEvKA", True) or canonical("KAvKE") == ("KAvKE", False)
    # A position with Black's rook is probed through the flipped table.
    assert describe(1) == "loss in 0 plies" and describe(0) == "draw"


def test_flipped_colours_probe_the_same_table(tables):
    red = "4k4/9/9/9/9/9/9/R8/9/3K5 w"
    black = "3k5/9/r8/9/9/9/9/9/9/4K4 b"
    assert tables.probe_fen(red) == tables.probe_fen(black)


def test_cli(tmp_path, capsys):
    tool.main(["generate", "--tb-path", str(tmp_path), "KRvK"])
    assert (tmp_path / "KRvK.tutb").exists() and (tmp_path / "KvK.tutb").exists()
    tool.main(["probe", "--tb-path", str(tmp_path), "4k4/9/9/9/9/9/9/R8/9/3K5 w"])
    out = capsys.readouterr().out
    assert "win in 3 plies" in out and "a2a8: the opponent's loss in 2 plies" in out
    tool.main(["probe", "--tb-path", str(tmp_path), "4k4/9/9/9/9/9/9/R8/9/3K5", "b"])
    assert "/3K5 b" in capsys.readouterr().out          # the FEN's words, unquoted
    for argv in (["generate", "--tb-path", str(tmp_path), "KQvK"],
                 ["verify", "--tb-path", str(tmp_path), "--threads", "0"]):
        with pytest.raises(SystemExit) as exit_:
            tool.main(argv)
        assert exit_.value.code == 2
    assert "--threads: expected an integer from 1" in capsys.readouterr().err
    assert tool.table_size("KRAAEEvKAAEE") == Table("KRvK").size * 10 * 21 * 10 * 21


def test_a_folder_that_cannot_be_listed_is_a_table_error(tmp_path, monkeypatch):
    """Not readable (root reads everything, so the listing fails by hand): a
    TableError, which the engine reports and plays on without tables."""
    def refuse(path):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "listdir", refuse)
    with pytest.raises(TableError, match="Permission denied"):
        Tablebases(str(tmp_path))


def test_verify_finds_a_changed_value(tables, tmp_path, capsys):
    """A table whose file is whole (its checksum made anew) but one of whose
    values is wrong: tuong-egtb verify says so and exits 1."""
    for name in tables.names:
        shutil.copy(os.path.join(tables.path, name + ".tutb"), tmp_path)
    table = read_table(str(tmp_path / "KHvKAA.tutb"))
    values = bytearray(table.folded())
    index = next(i for i, v in enumerate(values) if v not in (0, 255) and v % 2 == 1)
    values[index] += 2                   # a loss in n plies becomes a loss in n + 2
    changed = Table("KHvKAA")
    changed.unfold(bytes(values))
    changed.set_longest(table.max_dtm)
    write_table(changed, str(tmp_path / "KHvKAA.tutb"))
    tool.main(["verify", "--tb-path", str(tmp_path), "KHvK"])
    with pytest.raises(SystemExit) as exit_:
        tool.main(["verify", "--tb-path", str(tmp_path), "KHvKAA"])
    assert exit_.value.code == 1
    out = capsys.readouterr().out
    # the changed position, its mirror, and the positions whose values rested on it
    assert "KHvK: sound" in out and re.search(r"KHvKAA: \d+ positions wrong", out)


@pytest.mark.parametrize("damage", ["magic", "flip"])
def test_verify_names_a_damaged_table_and_writes_nothing(tmp_path, capsys, damage):
    """A damaged file is reported with what is wrong (exit 1), never made
    again: verification does not write."""
    generator = tool.Generator(str(tmp_path), out=open(os.devnull, "w"))
    generator.get("KRvK")
    path = tmp_path / "KRvK.tutb"
    data = bytearray(path.read_bytes())
    if damage == "magic":
        data[:8] = b"NOTATABL"
    else:
        data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    before = {f.name: f.read_bytes() for f in tmp_path.iterdir()}
    with pytest.raises(SystemExit) as exit_:
        tool.main(["verify", "--tb-path", str(tmp_path)])
    assert exit_.value.code == 1
    out = capsys.readouterr()
    assert re.search(r"KRvK: cannot be verified: .*KRvK", out.out), out.out
    assert "sound" in out.out.replace("KRvK: cannot", "")          # KvK is sound
    assert "making it again" not in out.err
    assert {f.name: f.read_bytes() for f in tmp_path.iterdir()} == before


def test_generate_refuses_an_endgame_too_large_before_making_anything(tmp_path, capsys):
    folder = tmp_path / "tables"
    with pytest.raises(SystemExit) as exit_:
        tool.main(["generate", "--tb-path", str(folder), "KRCHPvKRAA"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "KRCHPvKRAA: 5,845,851,000,000 positions" in err[0], err
    assert not folder.exists()


# -- in the engine -----------------------------------------------------------------

from tuong.protocol.client import Limit, open_engine  # noqa: E402
from tuong.tools.cli import default_engine  # noqa: E402
from tuong.tools.match.referee import Player, TimeControl, play_game  # noqa: E402


@pytest.fixture(scope="module")
def tb_path(tables):
    return tables.path


def test_engine_plays_the_table_move_with_its_mate_distance(tables, tb_path):
    with open_engine(default_engine()) as engine:
        engine.configure({"TablebasePath": tb_path})
        for fen in random_positions("KRvKA", 40, random.Random(3)):
            plies = table_value(tables, fen)
            if plies is None or Board(fen).is_game_over():
                continue
            result = engine.play((fen, []), Limit(depth=4))
            board = Board(fen)
            board.push(result.move)
            after = table_value(tables, board.fen())
            if plies % 2:                # a win: the move keeps the fastest mate
                assert result.info.mate == (plies + 1) // 2 and after == plies - 1, fen
            else:                        # a loss: the slowest
                assert result.info.mate == -(plies // 2) and after == plies - 1, fen


@pytest.mark.parametrize("proto", ["uci", "ucci"])
def test_a_table_move_under_searchmoves_reports_its_own_mate(tables, tb_path, proto):
    """With the mate in one (e1e8) left out by searchmoves (UCI) or banmoves
    (UCCI), the score is the chosen move's distance, not the root's."""
    from pexpect.popen_spawn import PopenSpawn
    fen = "3k5/4a4/9/9/9/9/9/9/4R4/5K3 w"
    board = Board(fen)
    others = [m for m in board.legal_moves() if m != "e1e8"]
    child = PopenSpawn(default_engine(), encoding="utf-8", timeout=30)
    try:
        child.sendline(proto)
        child.expect(f"{proto}ok")
        child.sendline(f"setoption name TablebasePath value {tb_path}" if proto == "uci" else
                       f"setoption egtbpaths {tb_path}")
        child.sendline(f"position fen {fen}")
        if proto == "uci":
            child.sendline("go depth 4 searchmoves " + " ".join(others))
        else:
            child.sendline("banmoves e1e8")
            child.sendline("go depth 4")
        if proto == "uci":
            child.expect(r"score mate (-?\d+) ")
            mate = int(child.match.group(1))
        else:                            # UCCI: a mate in n plies scores 10000 - n
            child.expect(r"score (\d+) ")
            mate = (10000 - int(child.match.group(1)) + 1) // 2
        child.expect(r"bestmove (\S+)")
        move = child.match.group(1)
        assert move != "e1e8"
        board.push(move)
        assert mate == (table_value(tables, board.fen()) + 2) // 2 != 1, (move, mate)
    finally:
        child.sendline("quit")
        child.wait()


def test_a_pondered_table_position_is_played_by_the_table(tables, tb_path):
    """go ponder then ponderhit in a won table position: the table's move and
    mate distance and line, as a plain go gives (once the tables are read),
    not a search's."""
    from pexpect.popen_spawn import PopenSpawn
    fen = "3a5/9/4ka3/9/9/5N3/9/9/9/3K5 w"
    child = PopenSpawn(default_engine(), encoding="utf-8", timeout=30)
    try:
        child.sendline("uci")
        child.expect("uciok")
        child.sendline(f"setoption name TablebasePath value {tb_path}")
        child.sendline(f"position fen {fen}")
        child.sendline("go depth 2")                 # the tables are read by now
        child.expect(r"score mate (\d+) [^\n]*\n")
        plain = int(child.match.group(1))
        child.expect(r"bestmove (\S+)")
        child.sendline(f"position fen {fen}")
        child.sendline("go ponder wtime 5000 btime 5000")
        child.sendline("ponderhit")
        child.expect(r"score mate (\d+) nodes (\d+) ")
        assert int(child.match.group(1)) == plain
        assert child.match.group(2) == "0"           # the table's line, not a search's
        child.expect(r"bestmove (\S+)")
        board = Board(fen)
        board.push(child.match.group(1))
        assert table_value(tables, board.fen()) == 2 * plain - 2
        # An analysis of the same position is the search's, not the table's line.
        child.sendline(f"position fen {fen}")
        child.sendline("go infinite")
        child.expect(r"info depth \d+ .*nodes (\d+) ")
        assert int(child.match.group(1)) > 0
        child.sendline("stop")
        child.expect(r"bestmove (\S+)")
    finally:
        child.sendline("quit")
        child.wait()


def test_tbhits_are_reported(tb_path):
    """Red's rook can take one of the two advisors: the search lands in KRvKA."""
    from pexpect.popen_spawn import PopenSpawn
    child = PopenSpawn(default_engine(), encoding="utf-8", timeout=30)
    child.sendline("uci")
    child.expect("uciok")
    child.sendline(f"setoption name TablebasePath value {tb_path}")
    child.sendline("position fen 3ak4/4a4/9/9/9/9/9/9/9/3R1K3 w")
    child.sendline("go depth 7")
    child.expect(r"tbhits (\d+) ")
    assert int(child.match.group(1)) > 0
    child.expect("bestmove")
    child.sendline("quit")
    child.wait()


def test_no_tables_is_shown_and_set_as_empty(tb_path):
    """An empty TablebasePath is written "<empty>" (Stockfish's SyzygyPath
    convention), in UCI and UCCI; a GUI that sends it back turns the tables off."""
    from pexpect.popen_spawn import PopenSpawn
    for hello, line in (("uci", "option name TablebasePath type string default <empty>"),
                        ("ucci", "option egtbpaths type string default <empty>")):
        child = PopenSpawn(default_engine(), encoding="utf-8", timeout=30)
        child.sendline(hello)
        child.expect(hello + "ok")
        assert line in child.before.replace("\r", "")
        child.sendline("quit")
        child.wait()
    child = PopenSpawn(default_engine(), encoding="utf-8", timeout=30)
    child.sendline("uci")
    child.expect("uciok")
    hits = []
    for path in (tb_path, "<empty>"):
        child.sendline(f"setoption name TablebasePath value {path}")
        child.sendline("position fen 3ak4/4a4/9/9/9/9/9/9/9/3R1K3 w")
        child.sendline("go depth 7")
        child.expect("bestmove")
        assert "error" not in child.before
        hits.append(sum(int(n) for n in re.findall(r"tbhits (\d+) ", child.before)))
    assert hits[0] > 0 and hits[1] == 0, hits
    child.sendline("quit")
    child.wait()


@pytest.mark.parametrize("damage", ["folder", "broken"])
def test_bad_tables_leave_the_engine_playing(tmp_path, damage):
    from pexpect.popen_spawn import PopenSpawn
    path = tmp_path / "missing"
    if damage == "broken":
        path = tmp_path
        (tmp_path / "KRvK.tutb").write_bytes(b"TUONGTB1" + b"\x00" * 40)
    child = PopenSpawn(default_engine(), encoding="utf-8", timeout=30)
    child.sendline("uci")
    child.expect("uciok")
    child.sendline(f"setoption name TablebasePath value {path}")
    child.sendline("position fen 4k4/9/9/9/9/9/9/R8/9/3K5 w")
    child.sendline("go depth 3")
    child.expect("info string error: TablebasePath")
    child.expect(r"bestmove \w+")
    child.sendline("quit")
    child.wait()


def test_won_table_positions_are_converted(tables, tb_path):
    """tuong with the tables against tuong without, from won positions of
    three endgames: every game ends in a mate (or no legal move) for the winner."""
    winners = []
    rng = random.Random(11)
    for name in ("KRvKA", "KHvKA", "KCAvKE"):
        for fen in random_positions(name, 400, rng):
            plies = table_value(tables, fen)
            if plies is not None and plies % 2 and plies >= 5 and fen.endswith("w"):
                winners.append(fen)
                break
    assert len(winners) == 3
    with open_engine(default_engine()) as strong, open_engine(default_engine()) as weak:
        strong.configure({"TablebasePath": tb_path})
        for fen in winners:
            game = play_game(Player("tables", strong, TimeControl(nodes=2000)),
                             Player("search", weak, TimeControl(nodes=20000)), (fen, []))
            assert game.result == "1-0" and game.termination in ("checkmate", "stalemate"), \
                (fen, game.reason)          # no legal move loses: the table counts both
            assert len(game.moves) <= table_value(tables, fen)


def hold_table_reads(monkeypatch, only=None):
    """Reading a table (`only` that one) waits until the returned Event is set."""
    import threading
    gate = threading.Event()
    real_table = Tablebases.table

    def slow_table(self, name):
        if only is None or name == only:
            gate.wait(30)
        return real_table(self, name)
    monkeypatch.setattr(Tablebases, "table", slow_table)
    return gate


def test_a_table_being_read_never_holds_up_a_search(tb_path, monkeypatch):
    """Reading a table (seconds for a large one) happens on a thread of its
    own: a go that may not wait searches without it, and a later go installs
    it; the root move comes from the table once it is in."""
    import threading

    from tuong.protocol.tablebases import RootTables
    gate = hold_table_reads(monkeypatch)
    root = RootTables(print)
    root.set_path(tb_path)
    board = Board("4k4/9/9/9/9/9/9/R8/9/3K5 w")
    done = threading.Thread(target=root.prepare, args=(board, 0))
    done.start()
    done.join(10)
    assert not done.is_alive() and root.installed == frozenset()
    assert root.root_move(board) is None          # not in yet: the search plays
    gate.set()
    root.prepare(board, None)                     # waits for the reader this time
    assert "KRvK" in root.installed and "KvK" in root.installed
    info, result = root.root_move(board)
    assert info.mate == 2 and result.best == "a2a8"


def test_no_table_move_while_a_capture_leads_into_an_unread_table(tb_path):
    """The position's own table is in, the one its capture of the advisor
    leads into is not: that capture may be the best move, so the search
    plays; once every table is in, the table does."""
    from tuong.protocol.tablebases import RootTables
    root = RootTables(print)
    root.set_path(tb_path)
    board = Board("3ak4/9/9/9/9/9/9/3R5/9/5K3 w")    # the rook on d2 can take d9
    assert root.tables.table("KRvKA") is not None and not root.tables.attempted("KRvK")
    assert root.root_move(board) is None
    root.prepare(board, None)
    info, result = root.root_move(board)
    assert info.mate and info.mate > 0
    installed = root.installed
    root.set_path(tb_path)                  # a GUI sending its options again
    assert root.installed == installed and root.root_move(board) is not None


def test_a_table_position_waits_only_for_the_tables_its_move_needs(tb_path, monkeypatch):
    """At a table position the go waits for its own table and those one
    capture away, not for the rest (read meanwhile): the move is the table's."""
    import threading

    from tuong.protocol.tablebases import RootTables
    gate = hold_table_reads(monkeypatch, "KvK")      # two captures away from KRvKA
    root = RootTables(print)
    root.set_path(tb_path)
    board = Board("3ak4/9/9/9/9/9/9/3R5/9/5K3 w")
    assert root.wanted(board)[-1] == "KvK"
    waiting = threading.Thread(target=root.prepare, args=(board, 60))
    waiting.start()
    waiting.join(15)
    try:
        assert not waiting.is_alive()
        assert {"KRvKA", "KRvK", "KAvK"} <= root.installed and "KvK" not in root.installed
        info, result = root.root_move(board)
        assert info.mate > 0
    finally:
        gate.set()


def drawn_after_a_capture(tables, name):
    """(board, move): Red to move takes a black rook and lands in a drawn
    position of table `name`, Black to move."""
    table = tables.table(name)
    rng = random.Random(5)
    for _ in range(5_000):
        index = rng.randrange(table.size)
        if table.value_at(index) != 0:
            continue
        fen = fen_of(table.pieces(), *table.position_at(index))
        if not fen.endswith(" b") or "N" not in fen:
            continue
        grid = [list(_expand(row)) for row in fen.split()[0].split("/")]
        for sq in rng.sample(range(90), 90):
            r, f = 9 - sq // 9, sq % 9
            if grid[r][f] != ".":
                continue
            grid[r][f] = "r"
            try:
                before = Board("/".join(_compress(row) for row in grid) + " w")
            except ValueError:
                continue
            finally:
                grid[r][f] = "."
            target = "abcdefghi"[f] + str(sq // 9)
            for move in before.legal_moves():
                if move.endswith(target):
                    after = before.copy()
                    after.push(move)
                    if tables.probe_fen(after.fen()) == 0:
                        return before, move
    raise AssertionError(f"no such position found in {name}")


def _expand(row):
    return "".join("." * int(c) if c.isdigit() else c for c in row)


def _compress(cells):
    out, gap = "", 0
    for c in cells:
        if c == ".":
            gap += 1
            continue
        out += (str(gap) if gap else "") + c
        gap = 0
    return out + (str(gap) if gap else "")


@pytest.mark.parametrize("name,proven", [("KHvKAA", True), ("KHvKP", False)])
def test_the_search_takes_a_table_draw_only_where_draws_are_proven(tables, name, proven):
    """After the horse takes the rook the position is a table draw. KHvKAA's
    draws are proven (only one side has an attacker): the search scores the
    capture 0. KHvKP's are not (the pawn could hold a "draw" by checking on
    and on, which loses under our rules): the search evaluates on."""
    from tuong.engine import egtbprobe
    from tuong.engine.search import Searcher
    assert draws_proven(parse_name(name)) is proven
    board, capture = drawn_after_a_capture(tables, name)
    egtbprobe.install(tables.table(n) for n in sorted(tables.names) if tables.table(n))
    try:
        result = Searcher(8, threads=1).search(board, depth=2)
    finally:
        egtbprobe.install([])
    assert result.best == capture, board.fen()
    assert (result.score == 0) is proven, (board.fen(), result.score)


def test_a_failing_table_reader_reports_it_and_reads_on(tb_path, monkeypatch):
    """An unexpected error while a table is read (memory, a bug) is reported,
    that table is left out, and the reader goes on with the others (and with
    later go's) rather than leaving every go waiting."""
    from tuong.protocol.tablebases import RootTables
    real_table = Tablebases.table

    def failing(self, name):
        if name == "KvK":
            raise RuntimeError("disk on fire")
        return real_table(self, name)
    monkeypatch.setattr(Tablebases, "table", failing)
    errors = []
    root = RootTables(errors.append)
    root.set_path(tb_path)
    root.prepare(Board("4k4/9/9/9/9/9/9/R8/9/3K5 w"), 20)
    assert not root._reading
    assert "KRvK" in root.installed and "KvK" not in root.installed
    assert any("KvK" in e and "disk on fire" in e for e in errors), errors
    root.prepare(Board("4k4/9/9/9/9/9/9/N8/9/3K5 w"), 20)
    assert "KHvK" in root.installed


def losing_moves(tables, board):
    out = []
    for move in board.legal_moves():
        board.push(move)
        after = table_value(tables, board.fen())
        board.pop()
        if after is not None and after % 2:
            out.append(move)
    return out


def test_a_table_draw_is_never_thrown_away(tables, tb_path):
    """At a drawn table position the search chooses among the drawing moves
    only: positions where a shallow search without the tables throws the
    draw away, and with them does not."""
    traps = []
    with open_engine(default_engine()) as plain:
        for fen in random_positions("KHvKAA", 3000, random.Random(8)):
            board = Board(fen)
            if table_value(tables, fen) is not None or not losing_moves(tables, board):
                continue
            if plain.play((fen, []), Limit(depth=1)).move in losing_moves(tables, board):
                traps.append(fen)
                if len(traps) == 5:
                    break
    assert traps, "no position where the search alone loses a draw: the test proves nothing"
    with open_engine(default_engine()) as engine:
        engine.configure({"TablebasePath": tb_path})
        for fen in traps:
            move = engine.play((fen, []), Limit(depth=1)).move
            assert move not in losing_moves(tables, Board(fen)), fen


FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")


def test_tuong_egtb_play_against_a_peer(tb_path, capsys):
    """tuong-egtb play: won positions converted and draws held against
    Fairy-Stockfish, and the tally printed."""
    need(FAIRY, "fairy-stockfish not installed")
    with pytest.raises(SystemExit) as exit_:
        tool.main(["play", "--tb-path", tb_path, "KRvKA", "KHvKAA", "--positions", "1",
                   "--opponent", FAIRY, "--tc", "1+0.02", "--seed", "3"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0, out
    assert "all            tuong converted 2/2 wins, held 4/4 draws" in out, out


def test_tuong_egtb_play_reports_a_failure(tables, capsys):
    """The judge can fail: a random mover in tuong's place does not convert
    a long win against tuong, nor hold every draw."""
    from tuong.tools.egtb import play as egtb_play
    from tuong.tools.match import cli as match
    random_mover = shlex.join([sys.executable, str(ROOT / "tests" / "fake_engine.py"),
                               "--seed", "1"])
    won, drawn = egtb_play.sample(tables, "KHvKAA", 2, random.Random(1), 25)
    positions = [("KHvKAA", fen, plies) for fen, plies in won + drawn]
    config = match.parse_args(["-engine", "name=tuong", f"cmd={random_mover}",
                               "-engine", "name=opponent", f"cmd={shlex.join(default_engine())}",
                               "-each", "tc=1+0.02", "-games", str(2 * len(positions))])
    config.openings = [(fen, []) for _, fen, _ in positions]
    assert egtb_play.judge(config, positions) == 1
    assert "FAILED KHvKAA" in capsys.readouterr().out


def test_tuong_egtb_play_does_not_judge_an_opponents_forfeit(tables, capsys):
    """An opponent that moves illegally loses, but the game shows nothing
    of tuong's play: not counted as converted, not a failure."""
    from tuong.tools.egtb import play as egtb_play
    from tuong.tools.match import cli as match
    cheat = shlex.join([sys.executable, str(ROOT / "tests" / "fake_engine.py"),
                        "--mode", "illegal"])
    won, _ = egtb_play.sample(tables, "KRvKA", 1, random.Random(2), 9)
    positions = [("KRvKA", fen, plies) for fen, plies in won]
    config = match.parse_args(["-engine", "name=tuong", f"cmd={shlex.join(default_engine())}",
                               f"option.TablebasePath={tables.path}",
                               "-engine", "name=opponent", f"cmd={cheat}",
                               "-each", "tc=1+0.02", "-games", "2"])
    config.openings = [(fen, []) for _, fen, _ in positions]
    assert egtb_play.judge(config, positions) == 0
    out = capsys.readouterr().out
    # both games: the opponent's first move is illegal, whichever side it has
    assert "all            tuong converted 0/0 wins, held 0/0 draws; the opponent converted " \
        "0/0 against tuong; 2 not judged (the opponent forfeited)" in out, out


def quiet_draws(tables, board):
    """The side to move's moves that keep a table draw and neither check
    nor chase (Board.chases: the repetition rules' own definition)."""
    mover, quiet = board.turn, []
    for move in board.legal_moves():
        board.push(move)
        if table_value(tables, board.fen()) is None and not board.in_check() \
                and not board.chases(mover):
            quiet.append(move)
        board.pop()
    return quiet


def drawing_moves(tables, board):
    out = []
    for move in board.legal_moves():
        board.push(move)
        if table_value(tables, board.fen()) is None:
            out.append(move)
        board.pop()
    return out


@pytest.mark.parametrize("name", ["KHvKAA", "KCAvKE", "KRvKA"])
def test_no_table_draw_rests_on_a_perpetual_check_or_chase(tables, name):
    """The tables score any cycle as a draw; under our rules a side that
    checks or chases with every move of a cycle loses instead. So at every
    drawn position sampled, the side to move must be able to keep the draw
    without checking or chasing on its move, or, where every drawing move
    checks or chases (a forced move), on its next move whatever the reply:
    then no cycle it needs is a perpetual check or chase."""
    checked = forced = 0
    for fen in random_positions(name, 4000, random.Random(5)):
        if table_value(tables, fen) is not None:
            continue
        board = Board(fen)
        checked += 1
        if quiet_draws(tables, board):
            continue
        forced += 1
        held = False
        for move in drawing_moves(tables, board):
            board.push(move)
            replies_ok = True
            for reply in drawing_moves(tables, board):
                board.push(reply)
                replies_ok = replies_ok and bool(quiet_draws(tables, board))
                board.pop()
            board.pop()
            if replies_ok:
                held = True
                break
        assert held, fen
    assert checked >= 50 and forced < checked // 10, (checked, forced)
