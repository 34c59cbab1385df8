"""Game records (tools/records/): PGN in every notation and encoding, FEN
files, PGN out, `tuong-pgn convert`, and broken input."""
import random
import subprocess
import sys

import pytest

from conftest import random_board
from tuong.tools import records
from tuong.tools.records.notation import NOTATIONS

CHINESE_GAME = """[Game "Chinese Chess"]
[Event "练习赛"]
[Red "甲"]
[Black "乙"]
[Result "1-0"]
{开局}
1. 炮二平五 {中炮} 马８进７ (1... 炮８平５ 2. 马二进三 (2. 车一进一 {横车}) 车９进１) 2. 马二进三 $1
卒３进１ 3. 车一平二 车９平８ 1-0
"""


def _read(text, encoding="utf-8", newline="\n", **kwargs):
    data = text.replace("\n", newline).encode(encoding)
    return records.read_pgn(records.decode(data), "test.pgn", **kwargs)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gb2312", "gbk", "gb18030", "big5"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_chinese_pgn_in_every_encoding(encoding, newline):
    text = CHINESE_GAME
    if encoding == "big5":                       # Big5 has only the traditional characters
        text = text.translate(str.maketrans("炮马进车卒练习赛开局横", "砲馬進車卒練習賽開局橫"))
    games, problems = _read(text, encoding, newline)
    assert problems == []
    (game,) = games
    assert game.moves == "h2e2 h9g7 h0g2 c6c5 i0h0 i9h9".split()
    assert game.notation == "chinese" and game.result == "1-0"
    assert game.tags["White"] == game.tags["Red"] and game.tags["Black"] in ("乙",)
    assert game.comments[0] in ("中炮", "中砲") and game.comments[1] is None  # not the variation's
    assert game.intro in ("开局", "開局")


@pytest.mark.parametrize("moves, notation", [
    ("1. C2=5 H8+7 2. H2+3 P3+1", "wxf"),
    ("1.P2-5 M8.7 2.M2.3 C3.1", "vietnamese"),
    ("1. H2-E2 H9-G7 2. H0-G2 C6-C5", "iccs"),
    ("1. h2e2 h9g7 2. h0g2 c6c5", "coords"),
    ("1. h3e3 h10g8 2. h1g3 c7c6", "ranks1"),
])
def test_notation_is_detected(moves, notation):
    games, problems = _read(f'[Event "x"]\n\n{moves} *\n')
    assert problems == []
    assert games[0].moves == "h2e2 h9g7 h0g2 c6c5".split() and games[0].notation == notation


def test_coordinates_without_rank_0_or_10_are_tried_both_ways():
    # nothing stands on h3 or h8 in a0-i9 terms: the line reads as ranks 1-10
    games, problems = _read("1. h3e3 h8e8 *\n")
    assert problems == [] and games[0].moves == ["h2e2", "h7e7"]


def test_the_format_tag_decides():
    games, problems = _read('[Format "WXF"]\n\n1. C2=5 H8+7 *\n')
    assert problems == [] and games[0].notation == "wxf"
    games, problems = _read('[Format "ICCS"]\n\n1. C2=5 *\n')
    assert games == [] and "not an ICCS move" in problems[0].message


def test_an_unknown_notation_is_a_value_error_naming_the_choices():
    """A name outside NOTATIONS (the wrong case, as a [Format] tag writes it)
    is a ValueError that lists them, from format_pgn as from notation.write."""
    from typing import get_args

    from tuong.tools.records import notation
    assert NOTATIONS == get_args(notation.Notation)
    (game,), _ = _read("1. C2=5 H8+7 *\n")
    for write in (lambda: records.format_pgn(game, "WXF"),         # type: ignore[arg-type]
                  lambda: notation.write(notation.board_at(), "h2e2", "WXF")):  # type: ignore
        with pytest.raises(ValueError, match="unknown notation 'WXF': one of ") as raised:
            write()
        assert all(name in str(raised.value) for name in NOTATIONS)
        assert str(raised.value).endswith(", ".join(NOTATIONS))


def test_a_bad_game_is_named_and_the_others_are_read():
    text = ('[Event "one"]\n\n1. C2=5 H8+7 *\n\n'
            '[Event "two"]\n[White "Lan"]\n[Black "Minh"]\n\n1. C2=5 H8+7 2. H2+3 H2+4 *\n\n'
            '[Event "three"]\n\n1. H2+3 *\n')
    games, problems = _read(text)
    assert [g.tags["Event"] for g in games] == ["one", "three"]
    (problem,) = problems
    assert (problem.game, problem.move_number, problem.text) == (2, 2, "H2+4")
    assert str(problem).startswith("test.pgn, game 2 (Lan - Minh), move 2 'H2+4': ")


def test_a_bad_fen_tag_is_named():
    games, problems = _read('[FEN "rnbakabnr/9/9 w"]\n\n1. C2=5 *\n')
    assert games == [] and "bad FEN" in problems[0].message


def test_black_to_move_and_move_numbers():
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    games, problems = _read(f'[FEN "{fen}"]\n[SetUp "1"]\n\n1... H8+7 2. H2+3 *\n')
    assert problems == [] and games[0].moves == ["h9g7", "h0g2"]
    text = records.format_pgn(games[0], "chinese")
    assert "1... 马８进７ 2. 马二进三 *" in text


@pytest.mark.parametrize("notation", NOTATIONS)
def test_pgn_out_and_back_in_every_notation(notation):
    rng = random.Random(7)
    for _ in range(20):
        board = random_board(rng, rng.randrange(1, 120))
        record = records.Record({"Event": "random"}, board.move_stack,
                                [f"c{i}" if i % 3 == 0 else None for i in range(board.ply)],
                                "1/2-1/2")
        text = records.format_pgn(record, notation)
        assert f'[Format "{records.FORMAT_NAMES[notation]}"]' in text
        (back,), problems = records.read_pgn(text)
        assert problems == []
        assert (back.moves, back.comments, back.result) == (record.moves, record.comments,
                                                            record.result)
        assert back.notation == notation


def test_fen_files(tmp_path):
    path = tmp_path / "positions.epd"
    path.write_text("# a comment\nrnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n"
                    "not a fen\n4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 ; bm\n")
    games, problems = records.read_file(path)
    assert len(games) == 2 and games[1].fen.startswith("4k4/") and games[0].moves == []
    assert len(problems) == 1 and problems[0].game == 3


def test_unreadable_and_binary_files_are_problems(tmp_path):
    games, problems = records.read_file(tmp_path / "missing.pgn")
    assert games == [] and "cannot read" in problems[0].message
    junk = tmp_path / "junk.pgn"
    junk.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(5000)))
    games, problems = records.read_file(junk)          # anything but an exception
    assert isinstance(games, list) and isinstance(problems, list)


def test_random_text_never_raises():
    rng = random.Random(3)
    alphabet = list('[]{}()"; \n.0123456789+-=/KAEHRCPabcdefghi炮二平五马８进７*') + \
        ["1-0", "Event"]
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 80)))
        records.read_pgn(text)


def test_tuong_pgn_convert(tmp_path):
    source = tmp_path / "in.pgn"
    source.write_bytes((CHINESE_GAME + '\n[Event "bad"]\n\n1. 炮二平九 *\n').encode("gbk"))
    out = tmp_path / "out.pgn"
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records", "convert", str(source),
                          "--to", "vietnamese", "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 1
    assert "error: in.pgn, game 2 (? - ?), move 1 '炮二平九'" in run.stderr
    assert "1 game written, 1 left out" in run.stderr
    written = out.read_text(encoding="utf-8")
    assert '[Format "Vietnamese"]' in written and "1. P2-5 {中炮} M8.7" in written
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records", "convert", str(out),
                          "--to", "chinese"], capture_output=True, text=True)
    assert run.returncode == 0 and "1. 炮二平五 {中炮} 马８进７" in run.stdout


def test_xqf_files_read_as_records_and_convert(tmp_path):
    from pathlib import Path
    folder = Path(__file__).parent / "data" / "xqf"
    games, problems = [], []
    for path in records.game_files([str(folder)]):
        found, bad = records.read_file(path)
        games += found
        problems += bad
    assert problems == [] and len(games) == len(list(folder.glob("*.xqf")))
    assert all(g.notation == "xqf" and g.moves for g in games)
    sample = folder / "v18_sample_xu_yinchuan_nie_weiping.xqf"
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records", "convert", str(sample),
                          "--to", "chinese"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    (game,), problems = records.read_pgn(run.stdout)
    assert problems == [] and game.notation == "chinese"
    assert game.moves == records.read_file(sample)[0][0].moves


@pytest.mark.parametrize("text, games, problem", [
    # an unclosed variation is reported, not silently cut short
    ('[Event "x"]\n\n1. C2=5 H8+7 2. H2+3 (2. R1=2 H2+3 3. P7+1 *\n', 0, "not closed"),
    # a game with tags only does not lend them to the next game
    ('[Event "a"]\n[White "A"]\n\n[Event "b"]\n[Black "B"]\n\n1. C2=5 *\n', 2, None),
    # PGN's escape lines are for other programs
    ('% exported by a program\n[Event "x"]\n\n1. C2=5 H8+7 *\n', 1, None),
    # a short Vietnamese line looks like WXF: both are tried
    ('[Event "x"]\n\n1. P2-5 P8-5 *\n', 1, None),
])
def test_malformed_and_odd_pgn(text, games, problem):
    found, problems = records.read_pgn(text)
    assert len(found) == games
    if problem:
        assert problem in problems[0].message
    else:
        assert problems == []


def test_tags_stay_with_their_game_and_line_comments_are_kept():
    found, _ = records.read_pgn('[Event "a"]\n[White "A"]\n\n[Event "b"]\n\n'
                                '1. C2=5 ; the central cannon\nH8+7 *\n')
    assert found[0].tags == {"Event": "a", "White": "A"} and found[0].moves == []
    assert found[1].tags == {"Event": "b"} and found[1].comments[0] == "the central cannon"


def test_a_game_longer_than_the_history_is_a_problem():
    found, problems = records.read_pgn('[Event "long"]\n\n' + "h0g2 h9g7 g2h0 g7h9 " * 1000 + "*")
    assert found == [] and "history" in problems[0].message


# -- what real files do (found by a review; each once lost games) ---------------------

START_BLACK = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"


@pytest.mark.parametrize("text, games, events", [
    # Games with neither tags nor move numbers: each result ends one, the next begins.
    ("h2e2 h9g7 *\nb2e2 b9c7 *\nc3c4 *", [["h2e2", "h9g7"], ["b2e2", "b9c7"], ["c3c4"]], None),
    ("C2=5 H8+7 1-0\n\nP7+1 P7+1 0-1", [["h2e2", "h9g7"], ["c3c4", "g6g5"]], None),
    # ... while a footer after a result (XQWizard's) is still no game.
    ("1. h2e2 *\n======\n欢迎访问象棋百科全书网\nhttp://www.xqbase.com/\n", [["h2e2"]], None),
    # A comment line that starts with % is the comment's, not PGN's escape.
    ('[Event "x"]\n1. h2e2 {a\n%b c} h9g7 *\n', [["h2e2", "h9g7"]], ["x"]),
    ('%for other programs\n[Event "x"]\n1. h2e2 h9g7 *\n', [["h2e2", "h9g7"]], ["x"]),
    # "1. ..." with a space: Black moves first.
    (f'[FEN "{START_BLACK}"]\n1. ... H8+7 2. C2=5 *\n', [["h9g7", "h2e2"]], None),
    # Old Mac line ends, and a tag with bare quotes read to its line's end.
    ('[Event "The "Big" Cup"]\r[Site "x"]\r1. h2e2 h9g7 *\r[Event "two"]\r1. b2e2 *\r',
     [["h2e2", "h9g7"], ["b2e2"]], ['The "Big" Cup', "two"]),
    # Full-width move numbers and points, as pasted from Chinese pages.
    ("1．炮二平五 马8进7 2．马二进三 *\n", [["h2e2", "h9g7", "h0g2"]], None),
    ("１．炮二平五 马8进7 *\n", [["h2e2", "h9g7"]], None),
])
def test_real_file_shapes_read_every_game(text, games, events):
    read, problems = records.read_pgn(text)
    assert not problems, [p.message for p in problems]
    assert [r.moves for r in read] == games
    if events:
        assert [r.tags.get("Event") for r in read] == events


def test_a_comment_with_a_percent_line_comes_back_from_its_pgn():
    read, _ = records.read_pgn('[Event "x"]\n1. h2e2 {first\n%second} h9g7 *\n')
    again, problems = records.read_pgn(records.format_pgn(read[0]))
    assert not problems and again[0].moves == ["h2e2", "h9g7"]


def test_utf16_files_are_read():
    text = '[Event "x"]\n1. 炮二平五 马8进7 *\n'
    for encoding in ("utf-16", "utf-16-be"):
        data = text.encode(encoding)
        if encoding == "utf-16-be":
            data = b"\xfe\xff" + data
        assert records.decode(data) == text


def test_the_coordinate_reader_skips_nested_variations_whole(tmp_path):
    from tuong.tools.records.pgn import read_games, read_openings
    for text in ("1. h2e2 (1. b2e2 (1... b9c7) h9g7) b9c7 2. h0g2 *",
                 "1. h2e2 {a} (1. b2e2 {x ) y} h9g7) b9c7 2. h0g2 *"):
        assert read_games(text) == [({}, ["h2e2", "b9c7", "h0g2"], "*")]
    book = tmp_path / "book.pgn"
    book.write_bytes(b"\xef\xbb\xbf1. h2e2 h9g7 *\n")        # a BOM, as Windows editors write
    assert read_openings(book) == [(None, ["h2e2", "h9g7"])]


def test_move_numbers_go_on_from_the_fen():
    """A game from a position of move 25 is written from move 25, variations
    too, as cutechess and the Chinese programs write it."""
    from tuong.tools.records.pgn import first_move_number
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 25"
    (game,), problems = records.read_pgn(
        f'[FEN "{fen}"]\n25... H8+7 26. C2=5 (26. P7+1) 26... R9=8 *\n')
    assert not problems
    text = " ".join(records.format_pgn(game, "wxf").split())
    assert "25... H8+7 26. C2=5 (26. P7+1) 26... R9=8 *" in text
    plain = records.Record(game.tags, game.moves, game.comments, game.result)
    assert "25... H8+7 26. C2=5 R9=8 *" in " ".join(records.format_pgn(plain, "wxf").split())
    assert [first_move_number(f) for f in (None, fen, "x w", "x w - - 0 0", "x w - - 0 z")] == \
        [1, 25, 1, 1, 1]
