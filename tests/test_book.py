"""The opening book: the file format (protocol/book.py), building from games
and from analysis (tools/book.py, tuong-book), the engine's OwnBook /
BookFile / BookDepth over UCI, UCCI and xboard, and tuong-match with books."""
import random
import re
import struct
import zlib

import pytest
from conftest import ROOT, tuong_command

from tuong.engine.board import Board
from tuong.protocol import book as books
from tuong.protocol.client import Info, Limit
from tuong.tools import book as builder
from tuong.tools import records
from tuong.tools.match import cli as match

START = Board().fen()

# Hand-counted below: 2 points a win and 1 a draw for the side that moved.
GAMES = """
[Result "1-0"]
1. h2e2 h9g7 2. h0g2 1-0

[Result "1/2-1/2"]
1. h2e2 h9g7 2. h0g2 1/2-1/2

[Result "0-1"]
1. b2e2 b9c7 2. b0c2 0-1

[Result "*"]
1. h2e2 h7e7 *
"""


def tally_of(text, plies=30, uniform=False):
    tally = builder.GameTally(plies, uniform)
    found, problems = records.read_pgn(text)
    assert not problems
    for record in found:
        tally.add(record)
    return tally


def book_from_games(tmp_path, text=GAMES, min_games=1, name="games.book", **kwargs):
    path = tmp_path / name
    books.write(path, builder.combine(tally_of(text, **kwargs).weights(min_games)), "test")
    return books.Book.open(path), path


def after(*moves):
    board = Board()
    for move in moves:
        board.push(move)
    return board.fen()


def listing(book, fen):
    board = Board(fen)
    return [(m.move, m.weight, m.games) for m in book.probe(fen, board.legal_moves())]


# -- the file format ---------------------------------------------------------------
def test_round_trip_keeps_every_field_and_the_description():
    entries = [books.Entry(7, "h2e2", 100, 3, 25), books.Entry(7, "b0c2", 5, 0, None),
               books.Entry(2**64 - 1, "a0a1", 65535, 65535, -32767)]
    data = books.encode(entries, "made by hand, 漢字 too")
    book = books.Book(data)
    assert book.description == "made by hand, 漢字 too"
    assert len(book) == 3 and book.positions == 2
    assert data[:8] == b"TUONGBK\0" and len(data) == 24 + len(book.description.encode()) + 48
    assert book.entries(7) == [(7, books.encode_move("b0c2"), 5, 0, books.NO_SCORE),
                               (7, books.encode_move("h2e2"), 100, 3, 25)]
    assert book.entries(2**64 - 1) == [(2**64 - 1, books.encode_move("a0a1"), 65535, 65535,
                                        -32767)]
    assert book.entries(8) == [] and book.entries(0) == []


def test_move_codes_are_from_and_to_squares():
    assert books.encode_move("a0a1") == 0 << 8 | 9
    assert books.encode_move("i9h9") == 89 << 8 | 88
    for move in Board().legal_moves():
        assert books.decode_move(books.encode_move(move)) == move
    with pytest.raises(books.BookError):
        books.decode_move(90 << 8 | 0)


def test_binary_search_finds_every_key_of_a_large_book():
    rng = random.Random(3)
    moves = Board().legal_moves()
    expected = {}
    for _ in range(3000):
        key = rng.getrandbits(64) if rng.random() < 0.9 else rng.getrandbits(8)
        expected.setdefault(key, {})[rng.choice(moves)] = rng.randint(1, 65535)
    entries = [books.Entry(key, move, weight) for key, found in expected.items()
               for move, weight in found.items()]
    book = books.Book(books.encode(entries))
    assert book.positions == len(expected)
    for key, found in expected.items():
        got = {books.decode_move(move): weight for _, move, weight, _, _ in book.entries(key)}
        assert got == found
    for _ in range(200):
        missing = rng.getrandbits(64)
        assert missing in expected or book.entries(missing) == []


def test_encode_refuses_duplicates_and_out_of_range_fields():
    with pytest.raises(ValueError, match="two entries"):
        books.encode([books.Entry(1, "h2e2", 1), books.Entry(1, "h2e2", 2)])
    with pytest.raises(ValueError, match="weight"):
        books.encode([books.Entry(1, "h2e2", 0)])
    with pytest.raises(ValueError, match="score"):
        books.encode([books.Entry(1, "h2e2", 1, 0, 40000)])


def _raw_book(rows):
    """A book file with the rows as given (not sorted), its checksum right."""
    body = b"".join(books.ENTRY.pack(*row) for row in rows)
    return books.HEADER.pack(books.MAGIC, 1, 16, 0, 0, len(rows), zlib.crc32(body)) + body


GOOD = books.encode([books.Entry(5, "h2e2", 10), books.Entry(9, "h0g2", 3)], "two")
BROKEN = [
    (b"", "shorter than its header"),
    (b"PK\3\4" + bytes(60), "bad magic"),
    (GOOD[:-5], "cut short"),
    (GOOD + b"\0", "too long"),
    (GOOD[:8] + struct.pack("<H", 2) + GOOD[10:], "version 2"),
    (GOOD[:-1] + bytes([GOOD[-1] ^ 1]), "checksum"),
    (_raw_book([(9, 1, 1, 0, 0), (5, 1, 1, 0, 0)]), "out of order"),
    (_raw_book([(5, 1, 1, 0, 0), (5, 1, 2, 0, 0)]), "out of order"),
    (_raw_book([(5, 1, 0, 0, 0)]), "weight 0"),
    (_raw_book([(5, 95 << 8 | 1, 1, 0, 0)]), "names no move"),
]


@pytest.mark.parametrize("data, problem", BROKEN)
def test_broken_files_are_refused_naming_the_file_and_the_problem(tmp_path, data, problem):
    path = tmp_path / "bad.book"
    path.write_bytes(data)
    with pytest.raises(books.BookError, match=re.escape(problem)) as caught:
        books.Book.open(path)
    assert str(path) in str(caught.value)


def test_a_missing_file_a_folder_a_device_and_a_huge_file_are_refused(tmp_path, monkeypatch):
    with pytest.raises(books.BookError, match="cannot read"):
        books.Book.open("/nonexistent/x.book")
    with pytest.raises(books.BookError, match="not a regular file"):
        books.Book.open(tmp_path)
    with pytest.raises(books.BookError, match="not a regular file"):
        books.Book.open("/dev/zero")                 # read to its end, it would never end
    path = tmp_path / "big.book"
    path.write_bytes(GOOD)
    monkeypatch.setattr(books, "MAX_FILE_BYTES", len(GOOD) - 1)
    with pytest.raises(books.BookError, match="more than a book may have"):
        books.Book.open(path)


# -- keys and mirrors -------------------------------------------------------------------
def test_a_position_and_its_mirror_share_a_key_and_the_key_ignores_move_counters():
    fen = after("h2e2", "h9g7")
    mirrored = after("b2e2", "b9c7")
    assert books.mirror_placement(fen.split()[0]) == mirrored.split()[0]
    (key, flip), (mirror_key, mirror_flip) = books.position_key(fen), \
        books.position_key(mirrored)
    assert key == mirror_key and flip != mirror_flip
    assert books.position_key(fen.replace(" 0 2", " 7 30"))[0] == key
    assert books.position_key(fen.replace(" w ", " b "))[0] != key     # the side counts
    assert books.position_key(START) == (books.position_key(START)[0], False)   # symmetric


def test_game_ply_comes_from_the_move_number_and_side():
    assert books.game_ply(START) == 0
    assert books.game_ply(after("h2e2")) == 1
    assert books.game_ply(after("h2e2", "h9g7", "h0g2")) == 3
    assert books.game_ply("4k4/9/9/9/9/9/9/9/9/4K4 b - - 0 31") == 61


# -- from games -------------------------------------------------------------------------
def test_weights_from_a_tiny_pgn_by_hand(tmp_path):
    book, _ = book_from_games(tmp_path)
    # Start (its own mirror): h2e2 won once and drew once (2 + 1); b2e2 lost its one game
    # (0 points: left out). The unfinished game counts nothing.
    assert listing(book, START) == [("h2e2", 3, 2)]
    # After h2e2, Black's h9g7 lost and drew (0 + 1), and the mirrored game's b9c7 won
    # (2): one move of 3 points in 3 games, in either orientation.
    assert listing(book, after("h2e2")) == [("h9g7", 3, 3)]
    assert listing(book, after("b2e2")) == [("b9c7", 3, 3)]
    assert listing(book, after("h2e2", "h9g7")) == [("h0g2", 3, 3)]
    assert listing(book, after("b2e2", "b9c7")) == [("b0c2", 3, 3)]
    assert listing(book, after("h2e2", "h9g7", "h0g2")) == []


def test_uniform_counts_every_game_and_min_games_and_plies_cut(tmp_path):
    book, _ = book_from_games(tmp_path, uniform=True, name="uniform.book")
    assert listing(book, START) == [("h2e2", 3, 3), ("b2e2", 1, 1)]
    assert listing(book, after("h2e2")) == [("h9g7", 3, 3), ("h7e7", 1, 1)]
    book, _ = book_from_games(tmp_path, min_games=3, name="three.book")
    assert listing(book, START) == [] and listing(book, after("h2e2")) == [("h9g7", 3, 3)]
    book, _ = book_from_games(tmp_path, plies=1, name="short.book")
    assert listing(book, START) == [("h2e2", 3, 2)] and listing(book, after("h2e2")) == []


def test_probe_leaves_out_moves_that_are_not_legal():
    fen = after("h2e2")
    key, mirrored = books.position_key(fen)
    stored = [books.mirror_move(m) if mirrored else m for m in ("h9g7", "h2h9")]
    book = books.Book(books.encode([books.Entry(key, m, 5) for m in stored]))
    assert [m.move for m in book.probe(fen)] == ["h2h9", "h9g7"]
    assert [m.move for m in book.probe(fen, Board(fen).legal_moves())] == ["h9g7"]


def test_choice_is_random_by_weight_among_the_allowed_moves():
    key = books.position_key(START)[0]
    book = books.Book(books.encode([books.Entry(key, "h2e2", 300), books.Entry(key, "b0c2", 100),
                                    books.Entry(key, "c3c4", 1)]))
    legal = Board().legal_moves()
    rng = random.Random(1)
    picks = [book.choose(START, legal, rng).best for _ in range(4000)]
    assert 0.70 < picks.count("h2e2") / 4000 < 0.80
    assert 0.20 < picks.count("b0c2") / 4000 < 0.30
    only = [m for m in legal if m != "h2e2"]
    assert {book.choose(START, only, rng).best for _ in range(50)} <= {"b0c2", "c3c4"}
    assert book.choose(START, ["a0a1"], rng) is None
    choice = book.choose(START, ["h2e2"], rng)
    assert choice.describe() == "book move h2e2 (weight 300 of 300: h2e2 300)"


# -- from analysis ------------------------------------------------------------------------
def test_final_lines_take_the_deepest_complete_iteration_and_skip_bounds():
    infos = [Info(depth=5, multipv=1, cp=30, pv=["h2e2"]),
             Info(depth=5, multipv=2, cp=10, pv=["b0c2"]),
             Info(depth=6, multipv=1, cp=50, bound="lower", pv=["c3c4"]),
             Info(depth=6, multipv=1, cp=20, pv=["b0c2"]),
             Info(depth=6, multipv=2, mate=-3, pv=["a0a1"]),
             Info(depth=7, multipv=1, cp=99, pv=["g3g4"])]            # stopped half way
    assert builder.final_lines(infos) == [("b0c2", 20), ("a0a1", -builder.BOOK_MATE_CP + 3)]
    assert builder.final_lines([]) == []


def test_kept_moves_and_their_weights():
    lines = [("h2e2", 40), ("b0c2", 30), ("c3c4", 20), ("a0a1", 5)]
    assert builder.kept_moves(lines, 20, 10) == [("h2e2", 100, 40), ("b0c2", 50, 30),
                                                 ("c3c4", 25, 20)]
    assert builder.kept_moves(lines, 0, 10) == [("h2e2", 100, 40)]
    assert builder.analysis_weight(1000, 10) == 1


def test_building_from_analysis_of_two_plies(tmp_path):
    analyst = builder.Analyst(builder.default_engine(), Limit(nodes=1500), multipv=3)
    found = builder.analyse_tree(analyst, plies=2, margin=40, halving=10)
    keys = {key for key, _ in found}
    start_key = books.position_key(START)[0]
    start_moves = {move: weight for (key, move), (weight, _) in found.items() if key == start_key}
    assert start_moves and max(start_moves.values()) == 100
    assert set(start_moves) <= set(Board().legal_moves())
    # Ply 1: the positions after the kept first moves (a mirrored pair is one), nothing later.
    followed = {books.position_key(after(m))[0] for m in start_moves}
    assert keys == {start_key} | followed
    path = tmp_path / "analysis.book"
    books.write(path, builder.combine(analysis=found))
    book = books.Book.open(path)
    for move in start_moves:
        fen = after(move)
        moves = book.probe(fen, Board(fen).legal_moves())
        assert moves and all(m.score is not None and m.games == 0 for m in moves)


def test_the_command_line_builds_and_probes(tmp_path, capsys):
    games = tmp_path / "games.pgn"
    games.write_text(GAMES)
    out = tmp_path / "cli.book"
    assert builder.main(["build", str(games), "-o", str(out), "--analyse", "1",
                         "--nodes", "500", "--multipv", "2"]) == 0
    err = capsys.readouterr().err
    assert "3 counted, 1 without a result left out" in err and "wrote" in err
    assert builder.main(["probe", "--book", str(out), "--moves", "h2e2"]) == 0
    text = capsys.readouterr().out
    assert "description: games: 3 from games.pgn" in text and "analysis: 1 plies by tuong" in text
    assert re.search(r"^h9g7\s+H8\+7\s+3\s+100\.0%\s+3\s*$", text, re.M), text
    assert builder.main(["probe", "--book", str(out), "startpos", "--moves", "a0a1",
                         "--to", "chinese"]) == 0
    assert "no book moves" in capsys.readouterr().out


@pytest.mark.parametrize("argv, problem", [
    (["build", "-o", "x.book"], "nothing to build from"),
    (["build", "/nonexistent.pgn", "-o", "x.book"], "No such file"),
    (["build", "--depth", "3", "x.pgn", "-o", "x.book"], "limits of --analyse"),
    (["build", "--analyse", "2", "--nodes", "0", "-o", "x.book"], "expected an integer"),
    (["probe", "--book", "/nonexistent.book"], "cannot read"),
    (["probe", "rnbakabnr/9 w"], "bad FEN"),
    (["probe", "--moves", "h2e2", "h2e2"], "move 2 ('h2e2') is not legal"),
])
def test_bad_arguments_are_one_line_and_status_2(argv, problem, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        builder.main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and problem in err and len(err.strip().splitlines()) == 1


def test_the_shipped_book_is_valid_and_knows_the_start():
    book = books.Book.open(books.DEFAULT_PATH)
    assert book.description.startswith("tuong's default book")
    assert book.probe(START, Board().legal_moves())
    assert books.DEFAULT_PATH.stat().st_size < 1_000_000


# -- the engine ------------------------------------------------------------------------------
@pytest.fixture
def game_book(tmp_path):
    return book_from_games(tmp_path)[1]


def setoptions(process, book, own="true"):
    process.send(f"setoption name BookFile value {book}")
    process.send(f"setoption name OwnBook value {own}")


def test_uci_book_move_at_once_and_search_otherwise(engine, game_book):
    uci = engine("uci")
    assert "option name OwnBook type check default false" in uci.before
    assert "option name BookFile type string default <default>" in uci.before
    assert "option name BookDepth type spin default 20 min 0 max 1000" in uci.before
    setoptions(uci, game_book)
    uci.send("position startpos")
    uci.send("go depth 100")              # a search could not end before the hang guard
    line = uci.line("info string book move")
    assert line.startswith("info string book move h2e2 (weight 3 of 3: h2e2 3)")
    uci.expect(r"bestmove h2e2\s")
    assert "info depth" not in uci.before
    # The mirrored line is in the book by the mirror of its position.
    uci.send("position startpos moves b2e2 b9c7")
    uci.send("go wtime 60000 btime 60000 winc 0 binc 0")
    uci.expect(r"info string book move b0c2 .*\s+bestmove b0c2\s")
    # searchmoves without a book move: the search decides.
    uci.send("position startpos moves h2e2")
    uci.send("go depth 2 searchmoves h7e7")
    uci.expect(r"info depth 1 ")          # searched (two plain waits: a nested
    uci.expect(r"bestmove h7e7")          # pattern backtracks without end on a long buffer)
    # Infinite and ponder are no move of ours: searched.
    uci.send("go infinite")
    uci.expect("info depth 2")
    uci.send("stop")
    uci.expect(r"bestmove \w+")
    assert "book move" not in uci.before
    # Out of the book: searched.
    uci.send("position startpos moves h2e2 h9g7 h0g2")
    uci.send("go depth 2")
    uci.expect(r"info depth 2 [^\n]*\s+bestmove")
    # Past BookDepth: searched, though the book has the position.
    uci.send("setoption name BookDepth value 1")
    uci.send("position startpos moves h2e2")
    uci.send("go depth 2")
    uci.expect(r"info depth 2 [^\n]*\s+bestmove")
    assert "book move" not in uci.before
    uci.send("position startpos")
    uci.send("go depth 2")
    uci.expect(r"info string book move h2e2 .*\s+bestmove h2e2")


def test_ownbook_off_searches(engine, game_book):
    uci = engine("uci")
    setoptions(uci, game_book, own="false")
    uci.send("position startpos")
    uci.send("go depth 3")
    uci.expect(r"bestmove \w+")
    assert "info depth 3" in uci.before and "book move" not in uci.before


def test_the_small_games_never_use_the_book(engine, game_book):
    uci = engine("uci")
    setoptions(uci, game_book)
    uci.send("setoption name UCI_Variant value tictactoe")
    uci.send("position startpos")
    uci.send("go depth 2")
    uci.expect(r"bestmove \w+")
    assert "book move" not in uci.before and "info depth" in uci.before


@pytest.mark.parametrize("content, problem", [
    (None, "cannot read"), (b"", "shorter than its header"), ("cut", "cut short"),
    (b"\0" * 100, "bad magic"), ("corrupt", "checksum")])
def test_a_missing_or_broken_book_is_an_error_and_the_engine_plays_on(
        engine, game_book, tmp_path, content, problem):
    path = tmp_path / "broken.book"
    good = game_book.read_bytes()
    if content == "cut":
        path.write_bytes(good[:-7])
    elif content == "corrupt":
        path.write_bytes(good[:-1] + bytes([good[-1] ^ 0x40]))
    elif content is not None:
        path.write_bytes(content)
    uci = engine("uci")
    setoptions(uci, game_book)              # a good book first: the broken one replaces it
    uci.send(f"setoption name BookFile value {path}")
    line = uci.line("info string error: ")
    assert str(path) in line and problem in line and "playing without a book" in line
    uci.send("position startpos")
    uci.send("go depth 2")
    uci.expect(r"bestmove \w+")
    assert "info depth 2" in uci.before and "book move" not in uci.before
    uci.send(f"setoption name BookFile value {game_book}")     # a good one again
    uci.send("go depth 2")
    uci.expect(r"info string book move h2e2 .*\s+bestmove h2e2")


def test_an_empty_bookfile_means_no_book(engine, game_book):
    uci = engine("uci")
    setoptions(uci, game_book)
    uci.send("setoption name BookFile value")
    uci.send("position startpos")
    uci.send("go depth 2")
    uci.expect(r"bestmove \w+")
    assert "error" not in uci.before and "book move" not in uci.before


def test_the_default_book_plays_the_start(engine):
    uci = engine("uci")
    uci.send("setoption name OwnBook value true")
    uci.send("position startpos")
    uci.send("go depth 100")
    move = uci.expect(r"info string book move (\w+) .*\s+bestmove (\w+)")
    assert move.group(1) == move.group(2) and move.group(1) in Board().legal_moves()


def test_ucci_usebook_bookfiles_and_banmoves(engine, game_book):
    ucci = engine("ucci")
    assert "option usebook type check default false" in ucci.before
    assert "option bookfiles type string default <default>" in ucci.before
    ucci.send(f"setoption bookfiles {game_book}")
    ucci.send("setoption usebook true")
    ucci.send("position startpos")
    ucci.send("go time 600 increment 0")
    ucci.expect(r"info string book move h2e2 .*\s+bestmove h2e2")
    ucci.send("banmoves h2e2")
    ucci.send("go depth 2")
    ucci.expect(r"bestmove (\w+)")
    assert "book move" not in ucci.before and ucci.child.match.group(1) != "h2e2"


def test_xboard_plays_book_moves(engine, game_book):
    xb = engine(None)
    xb.send("xboard")
    xb.send("protover 2")
    features = xb.line("feature ")
    assert 'option="OwnBook -check 0"' in features
    assert 'option="BookFile -file <default>"' in features
    xb.send("new")
    xb.send(f"option BookFile={game_book}")
    xb.send("option OwnBook=1")
    xb.send("sd 3")
    xb.send("post")
    xb.send("usermove b2e2")
    xb.expect(r"# book move b9c7 .*\s+move b9c7")
    xb.send("usermove b0c2")               # out of the book: searched
    xb.expect(r"\n3 [^\n]*\s+move \w+")
    assert "# book move" not in xb.before


# -- tuong-match ---------------------------------------------------------------------------
def test_a_match_with_and_without_the_book(tmp_path, game_book, engine_env, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", engine_env["PYTHONPATH"])
    log, pgn = tmp_path / "match.log", tmp_path / "match.pgn"
    command = tuong_command()
    argv = ["-engine", "name=book", f"cmd={command}", "option.OwnBook=true",
            f"option.BookFile={game_book}",
            "-engine", "name=plain", f"cmd={command}", "option.OwnBook=false",
            "-each", "nodes=500", f"dir={ROOT}", "-games", "2", "-openings", "none",
            "-log", str(log), "-pgnout", str(pgn)]
    config = match.parse_args(argv)
    assert config.openings == [(None, [])]
    with open(tmp_path / "progress.txt", "w") as progress:
        stats, _, interrupted = match.run(config, stream=progress)
    assert not interrupted and sum(stats.head_to_head()) == 2
    text = log.read_text()
    # As Red the book plays h2e2 (its only move); as Black it answers from the book
    # only if the other engine played into it.
    assert re.search(r"book > info string book move h2e2", text), text[-3000:]
    assert "plain > info string book move" not in text
    games, problems = records.read_file(pgn)
    assert not problems and len(games) == 2
    # The book side's h2e2 as Red is marked {book} in the PGN, as cutechess marks it.
    text = pgn.read_text()
    assert re.search(r'\[White "book"\][^[]*(\[[^]]*\]\s*)*1\. h2e2 \{book\}', text), text
    assert text.count("{book}") <= 20
    forfeits = {"stalled", "time forfeit", "crash", "protocol error", "false claim",
                "illegal move"}
    assert not {g.tags["Termination"] for g in games} & forfeits
