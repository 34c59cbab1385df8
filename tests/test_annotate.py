"""Commentary (tools/records/commentary.py) on hand-checked positions, one per kind
of sentence, and tuong-annotate (tools/records/annotate.py) on a planted blunder."""
import subprocess
import sys

import pytest

from tuong.engine.board import Board
from tuong.tools.records import annotate, commentary
from tuong.tools import records


@pytest.mark.parametrize("fen, move, english, vietnamese", [
    # the rook reaches c5's horse, which nothing defends
    ("4k4/9/9/9/2n6/9/9/9/9/R2K5 w - - 0 1", "a0a5",
     "Red moves the rook (R9+5). It attacks the horse on c5, with no recapture possible.",
     "Đỏ đi Xe (R9+5). Đe dọa ăn Mã ở c5 mà không bị ăn lại."),
    # the same with a rook defending the horse: no threat to speak of
    ("2r1k4/9/9/9/2n6/9/9/9/9/R2K5 w - - 0 1", "a0a5",
     "Red moves the rook (R9+5).", "Đỏ đi Xe (R9+5)."),
    # the rook on g1 threatens R3+8 mate (g9: rank 8 is the other rook's)
    ("4k4/R8/9/2p6/9/9/9/9/2R6/5K3 w - - 0 1", "c1g1",
     "Red moves the rook (R7=3). It threatens mate with R3+8.",
     "Đỏ đi Xe (R7=3). Đe dọa chiếu hết bằng R3+8."),
    ("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", "b0b9",
     "Red moves the rook (R8+9), checkmate.", "Đỏ đi Xe (R8+9), chiếu hết."),
    # the horse leaves the rook's rank and attacks the rook in turn
    ("4k4/9/9/9/r3N4/9/9/9/9/3K5 w - - 0 1", "e5c4",
     "Red moves the horse (H5-7). It attacks the rook on a5, with no recapture possible. It "
     "saves the horse (now on c4), which could have been taken for nothing.",
     "Đỏ đi Mã (H5-7). Đe dọa ăn Xe ở a5 mà không bị ăn lại. Cứu Mã (nay ở c4) khỏi bị ăn "
     "không."),
    # a check does not save the horse on g1: after the king's reply a1g1 takes it
    ("3k5/9/9/9/9/7R1/9/9/r5N2/4K4 w - - 0 1", "h4h9",
     "Red moves the rook (R2+5), check.", "Đỏ đi Xe (R2+5), chiếu tướng."),
    # a threat that leaves Black without a move but gives no check is not "mate"
    ("3k5/9/R8/9/4R4/9/9/9/9/5K3 w - - 0 1", "f0f1",
     "Red moves the king (K4+1). It threatens R9+1, after which Black would have no legal move.",
     "Đỏ đi Tướng (K4+1). Đe dọa R9+1, sau đó Đen hết nước đi."),
    ("4k4/9/6n2/9/9/8r/9/2N6/9/R2K5 b - - 0 1", "i4d4",
     "Black moves the rook (R9=4), check.", "Đen đi Xe (R9=4), chiếu tướng."),
    ("4k4/9/6n2/9/9/9/9/2N6/9/R2K5 w - - 0 1", "a0a9",
     "Red moves the rook (R9+9), check.", "Đỏ đi Xe (R9+9), chiếu tướng."),
    # the horse takes the rook that gives check
    ("4k4/9/9/9/9/3r5/9/2N6/9/R2K5 w - - 0 1", "c2d4",
     "Red's horse takes the rook (H7+6).", "Mã Đỏ ăn Xe (H7+6)."),
])
def test_sentences_on_hand_checked_positions(fen, move, english, vietnamese):
    facts = commentary.facts(fen, move)
    assert commentary.sentence(facts, "en") == english
    assert commentary.sentence(facts, "vi") == vietnamese


def test_a_side_without_moves_loses_and_the_sentence_says_so():
    # Black's king on d9, not in check: d8 is the a8 rook's, e9 the e5 rook's
    facts = commentary.facts("3k5/9/R8/9/4R4/9/9/9/9/5K3 w - - 0 1", "a7a8")
    assert facts.no_reply and not facts.check
    assert commentary.sentence(facts) == \
        "Red moves the rook (R9+1): Black has no legal move and loses."
    assert commentary.sentence(facts, "vi") == "Đỏ đi Xe (R9+1): Đen hết nước đi và thua."


def test_repetition_verdict_clause():
    board = Board()
    for move in "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0".split():
        board.push(move)
    facts = commentary.facts(board, "g7h9")
    assert facts.verdict is not None and facts.verdict.rule == "repetition"
    assert commentary.sentence(facts).endswith("Draw by repetition.")
    assert commentary.sentence(facts, "vi").endswith("Hòa do lặp lại nước đi.")


def test_perpetual_check_clause():
    # Red's rook checks from i9 and i8 while Black's king steps between f9
    # and f8 (e-file: the generals face; f7: Red's pawn): the ninth move
    # brings the third occurrence, and the checker loses
    board = Board("5k3/9/8R/5P3/9/9/9/9/9/4K4 w - - 0 1")
    for move in "i7i9 f9f8 i9i8 f8f9 i8i9 f9f8 i9i8 f8f9".split():
        board.push(move)
    facts = commentary.facts(board, "i8i9")
    assert facts.verdict == ("0-1", "perpetual check", "Red loses by perpetual check")
    assert commentary.sentence(facts) == \
        "Red moves the rook (R1+1), check. Red loses by perpetual check."
    assert commentary.sentence(facts, "vi") == \
        "Đỏ đi Xe (R1+1), chiếu tướng. Đỏ thua vì chiếu mãi."


def test_engine_clauses():
    facts = commentary.facts(Board(), "h2e2")
    text = commentary.sentence(facts, "en", ("cp", 20), ("cp", 35), mate=None)
    # the central cannon's threat: after C2=5 nothing can take back on e6
    assert text == ("Red moves the cannon (C2=5). It attacks the pawn on e6, with no recapture "
                    "possible. Evaluation +0.20 -> +0.35 (Red's view).")
    assert "Red mates in 3." in commentary.sentence(facts, "en", mate=3)
    assert "Red is mated in 2." in commentary.sentence(facts, "en", mate=-2)
    better = commentary.facts(Board(), "h2h9")
    text = commentary.sentence(facts, "en", mark="?", better=(better, "+0.50", "-1.20"))
    assert text.endswith("A mistake: C2+7 was better (it takes the horse; +0.50 instead of -1.20).")


def test_marks_follow_the_thresholds():
    assert annotate.mark_for(0.2) == "??" and annotate.mark_for(0.12) == "?"
    assert annotate.mark_for(0.06) == "?!" and annotate.mark_for(0.01) is None
    assert annotate.expected(("cp", 0)) == 0.5 and annotate.expected(("mate", -3)) == 0.0


PLANTED = """[Event "planted"]
[White "Lan"]
[Black "Minh"]
[FEN "4k4/9/6n2/9/9/8r/9/2N6/9/R2K5 b - - 0 1"]
[SetUp "1"]

1... i4d4 2. c2d4 g7f5 *
"""


@pytest.fixture(scope="module")
def annotated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("annotate")
    (folder / "game.pgn").write_text(PLANTED)
    out = folder / "out.pgn"
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(folder / "game.pgn"), "--depth", "6", "--to", "wxf",
                          "-o", str(out), "-concurrency", "2"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return " ".join(out.read_text(encoding="utf-8").split()), run.stderr


def test_the_planted_blunder_is_marked(annotated):
    text, stderr = annotated
    assert "1... R9=4??" in text
    assert "A blunder:" in text and "2. H7+6 {" in text and "2. H7+6?" not in text
    assert "Black (Minh): average loss" in stderr and "blunders (??) 1" in stderr
    assert "Red (Lan): average loss 0 cp" in stderr


def test_the_annotated_pgn_reads_back(annotated):
    text, _ = annotated
    (game,), problems = records.read_pgn(text.replace("] [", "]\n["))
    assert problems == [] and game.moves == ["i4d4", "c2d4", "g7f5"]
    assert game.comments[0].startswith("+") and "Black moves the rook (R9=4), check." in \
        game.comments[0]


def test_vietnamese_and_the_plot(tmp_path):
    pytest.importorskip("matplotlib")
    (tmp_path / "game.pgn").write_text(PLANTED)
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(tmp_path / "game.pgn"),
                          "--depth", "4", "--to", "vietnamese", "--lang", "vi",
                          "--plot", str(tmp_path / "plots")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert "1... X9-4??" in text and "Sai lầm nghiêm trọng:" in text
    assert (tmp_path / "plots" / "game-1.png").stat().st_size > 1000


def test_bad_arguments_and_files(tmp_path):
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(tmp_path / "none.pgn"), "--depth", "0"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "--depth: expected an integer from 1" in run.stderr
    (tmp_path / "bad.pgn").write_text("1. h2e2 h2e2 *\n")
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(tmp_path / "bad.pgn"), "--depth", "2"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "move 1 'h2e2'" in run.stderr


def test_the_games_own_comments_and_variations_stay(tmp_path):
    """The annotation adds to the record: its own comments (before the
    engine's), marks and variations stay; a variation that does not read is
    a warning, not a failed game."""
    (tmp_path / "game.pgn").write_text(
        '[Event "x"]\n\n1. h2e2 {my own words} (1. b2e2 h9g7) h9g7!? '
        '(1... h7e7 (1... a9a9)) 2. h0g2 *\n')
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(tmp_path / "game.pgn"), "--depth", "2", "--to", "iccs"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "warning:" in run.stderr and "error:" not in run.stderr
    (game,), problems = records.read_pgn(run.stdout)
    assert not problems and game.moves == ["h2e2", "h9g7", "h0g2"]
    assert game.comments[0].startswith("my own words ")
    first = game.tree.root.children
    assert [node.move for node in first] == ["h2e2", "b2e2"]
    assert [node.move for node in first[0].children] == ["h9g7", "h7e7"]
    assert first[0].children[0].mark in ("!?", "?", "??", "?!")
