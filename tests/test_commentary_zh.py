"""Chinese commentary (tools/records/commentary.py, tools/records/annotate.py):
"zh-Hans" (simplified) and "zh-Hant" (traditional, derived from the
simplified words by a character map), on hand-checked positions, on random
moves in every language, and in tuong-annotate's summary and comments."""
import random
import re
import subprocess
import sys
import types

import pytest

from tuong.engine.board import Board, Verdict
from tuong.tools.records import annotate, commentary

CHINESE = ("zh-Hans", "zh-Hant")
LATIN = re.compile("[A-Za-z]")


@pytest.mark.parametrize("fen, move, simplified, traditional", [
    # the rook reaches c5's horse, which nothing defends (Black's file 3)
    ("4k4/9/9/9/2n6/9/9/9/9/R2K5 w - - 0 1", "a0a5",
     "红方走车（车九进五）。威胁白吃３路马。", "紅方走車（车九进五）。威脅白吃３路馬。"),
    # the horse takes the rook that gives check
    ("4k4/9/9/9/9/3r5/9/2N6/9/R2K5 w - - 0 1", "c2d4",
     "红方马吃车（马七进六）。", "紅方馬吃車（马七进六）。"),
    # after C2=5 Black's cannon jumps over b2's onto b0's horse
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1", "b7b0",
     "黑方炮吃马（炮２进７）。", "黑方炮吃馬（炮２进７）。"),
    ("4k4/9/6n2/9/9/8r/9/2N6/9/R2K5 b - - 0 1", "i4d4",
     "黑方走车（车９平４），将军。", "黑方走車（车９平４），將軍。"),
    ("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1", "b0b9",
     "红方走车（车八进九），将死黑方。", "紅方走車（车八进九），將死黑方。"),
    # Black's king on d9 has no move and is not in check: stalemated, it loses
    ("3k5/9/R8/9/4R4/9/9/9/9/5K3 w - - 0 1", "a7a8",
     "红方走车（车九进一），黑方无子可动，困毙告负。",
     "紅方走車（车九进一），黑方無子可動，困斃告負。"),
    ("4k4/R8/9/2p6/9/9/9/9/2R6/5K3 w - - 0 1", "c1g1",
     "红方走车（车七平三）。伏车三进八绝杀。", "紅方走車（车七平三）。伏车三进八絕殺。"),
    ("3k5/9/R8/9/4R4/9/9/9/9/5K3 w - - 0 1", "f0f1",
     "红方走帅（帅四进一）。伏车九进一困毙黑方。", "紅方走帥（帅四进一）。伏车九进一困斃黑方。"),
    # the horse leaves the rook's rank, attacks it, and is safe on c4 (Red's file 7)
    ("4k4/9/9/9/r3N4/9/9/9/9/3K5 w - - 0 1", "e5c4",
     "红方走马（马五退七）。威胁白吃１路车。保住马（已移至七路），免遭白吃。",
     "紅方走馬（马五退七）。威脅白吃１路車。保住馬（已移至七路），免遭白吃。"),
    # the rook comes to defend the horse on e5 where it stands
    ("4k4/9/9/9/r3N4/9/8R/9/9/3K5 w - - 0 1", "i3e3",
     "红方走车（车一平五）。保住五路马，免遭白吃。",
     "紅方走車（车一平五）。保住五路馬，免遭白吃。"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1", "f9e8",
     "黑方走士（士６进５）。", "黑方走士（士６进５）。"),
])
def test_sentences_on_hand_checked_positions(fen, move, simplified, traditional):
    facts = commentary.facts(fen, move, "chinese")
    assert commentary.sentence(facts, "zh-Hans") == simplified
    assert commentary.sentence(facts, "zh-Hant") == traditional
    # In WXF the move is the only Latin text.
    facts = commentary.facts(fen, move, "wxf")
    for lang in CHINESE:
        text = commentary.sentence(facts, lang)
        assert facts.text in text
        assert not LATIN.search(_without_moves(text, facts))


def _without_moves(text, facts, *others):
    for move in (facts.text, facts.mate_threat, *others):
        if move:
            text = text.replace(move, "")
    return text


def test_engine_clauses_and_marks():
    facts = commentary.facts(Board(), "h2e2", "chinese")
    better = commentary.facts(Board(), "h2h9", "chinese")
    assert commentary.sentence(facts, "zh-Hans", ("cp", 20), ("cp", 35)) == \
        "红方走炮（炮二平五）。威胁白吃５路卒。评分 +0.20 -> +0.35（红方视角）。"
    assert commentary.sentence(facts, "zh-Hant", ("cp", 20), ("cp", 35)) == \
        "紅方走炮（炮二平五）。威脅白吃５路卒。評分 +0.20 -> +0.35（紅方視角）。"
    assert commentary.sentence(facts, "zh-Hans", mate=3).endswith("红方3步成杀。")
    assert commentary.sentence(facts, "zh-Hant", mate=-2).endswith("紅方2步內被殺。")
    ends = {"??": ("严重失误", "嚴重失誤"), "?": ("失误", "失誤"), "?!": ("缓着", "緩著")}
    for mark, (simplified, traditional) in ends.items():
        text = commentary.sentence(facts, "zh-Hans", mark=mark, better=(better, "+0.50", "-1.20"))
        assert text.endswith(f"{simplified}：应走炮二进七（吃马；评分+0.50，实战-1.20）。")
        text = commentary.sentence(facts, "zh-Hant", mark=mark, better=(better, "+0.50", "-1.20"))
        assert text.endswith(f"{traditional}：應走炮二进七（吃馬；評分+0.50，實戰-1.20）。")
    # a better move that checks and saves nothing, in WXF: Latin only in the moves
    checking = commentary.facts("4k4/9/6n2/9/9/9/9/2N6/9/R2K5 w - - 0 1", "a0a9")
    text = commentary.sentence(facts, "zh-Hans", mark="?", better=(checking, "+1.00", "+0.10"))
    assert text.endswith("失误：应走R9+9（将军；评分+1.00，实战+0.10）。")


def test_rule_verdicts():
    board = Board("5k3/9/8R/5P3/9/9/9/9/9/4K4 w - - 0 1")
    for move in "i7i9 f9f8 i9i8 f8f9 i8i9 f9f8 i9i8 f8f9".split():
        board.push(move)
    facts = commentary.facts(board, "i8i9", "chinese")
    assert commentary.sentence(facts, "zh-Hans") == "红方走车（车一进一），将军。红方长将判负。"
    assert commentary.sentence(facts, "zh-Hant") == "紅方走車（车一进一），將軍。紅方長將判負。"
    board = Board()
    for move in "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0".split():
        board.push(move)
    facts = commentary.facts(board, "g7h9", "chinese")
    assert commentary.sentence(facts, "zh-Hans") == "黑方走马（马７退８）。重复局面判和。"
    assert commentary.sentence(facts, "zh-Hant") == "黑方走馬（马７退８）。重複局面判和。"
    chase = Verdict("1-0", "perpetual chase", "Black loses by perpetual chase")
    assert commentary._verdict(chase, "zh-Hans") == "黑方长捉判负。"
    assert commentary._verdict(chase, "zh-Hant") == "黑方長捉判負。"


# The characters of the simplified words written the same in traditional.
SAME = set("仕士相象炮兵卒黑方走吃路白伏困子可告和已移至保住免遭分步成被判重局面捉好更"
           "失每平均即期望得的次最佳法死威角")


def _chinese_words():
    """Every simplified text of the tables, and its traditional counterpart."""
    for table in (commentary.NAMES, commentary.MARK_NAMES, commentary.TEMPLATES):
        for key, text in table["zh-Hans"].items():
            yield text, table["zh-Hant"][key]
    for table in (annotate.SUMMARY, annotate.BEST):
        yield table["zh-Hans"], table["zh-Hant"]


def test_the_traditional_words():
    mapped = {chr(code) for code in commentary.HANT}
    for simplified, traditional in _chinese_words():
        assert traditional == commentary.traditional(simplified)
        # every Chinese character is either mapped or known to be the same in both scripts
        for char in re.findall(r"[\u4e00-\u9fff]", simplified):
            assert char in mapped or char in SAME, (char, simplified)
        assert not mapped & set(traditional), traditional
    assert not mapped & SAME
    words = {"将军": "將軍", "将死": "將死", "困毙": "困斃", "长将判负": "長將判負",
             "长捉判负": "長捉判負", "重复局面判和": "重複局面判和", "严重失误": "嚴重失誤",
             "缓着": "緩著", "红方视角": "紅方視角", "帅马车": "帥馬車", "评分": "評分",
             "威胁": "威脅", "绝杀": "絕殺", "实战": "實戰", "应走": "應走", "步内": "步內",
             "损失": "損失", "最佳着法": "最佳著法", "无子可动": "無子可動"}
    for simplified, traditional in words.items():
        assert commentary.traditional(simplified) == traditional
    assert commentary.NAMES["zh-Hant"]["K_red"] == "帥" and \
        commentary.NAMES["zh-Hant"]["K_black"] == "將"


def _random_moves(count, seed=13):
    """(board, move) for `count` random legal moves of random playouts."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        board = Board()
        for _ in range(rng.randrange(10, 150)):
            moves = sorted(board.legal_moves())
            if not moves or len(out) == count:
                break
            move = rng.choice(moves)
            out.append((board.copy(), move))
            board.push(move)
    return out


def test_every_language_comments_on_random_moves():
    marks = ("??", "?", "?!")
    for i, (board, move) in enumerate(_random_moves(300)):
        notation = ("chinese", "wxf")[i % 2]
        facts = commentary.facts(board, move, notation)
        legal = sorted(board.legal_moves())
        better = commentary.facts(board, legal[i % len(legal)], notation)
        engine = (("cp", i - 150), ("mate", 1 + i % 5) if i % 7 == 0 else ("cp", 150 - i),
                  (1 + i % 4) * (-1 if i % 3 else 1) if i % 5 == 0 else None,
                  marks[i % 3], (better, "+0.50", "-1.20"))
        for lang in commentary.LANGS:
            assert commentary.sentence(facts, lang)
            assert commentary.sentence(facts, lang, *engine)
        for lang in CHINESE:
            text = commentary.sentence(facts, lang, *engine)
            if notation == "chinese":      # then nothing in the sentence is Latin
                assert not LATIN.search(text), text
            else:
                assert not LATIN.search(_without_moves(text, facts, better.text)), text


PLANTED = """[Event "planted"]
[White "Lan"]
[Black "Minh"]
[FEN "4k4/9/6n2/9/9/8r/9/2N6/9/R2K5 b - - 0 1"]
[SetUp "1"]

1... i4d4 2. c2d4 g7f5 *
"""


def _planted_notes(lang):
    """The planted game judged from made-up searches: Black's check loses its rook."""
    record = types.SimpleNamespace(fen="4k4/9/6n2/9/9/8r/9/2N6/9/R2K5 b - - 0 1",
                                   moves=["i4d4", "c2d4", "g7f5"],
                                   tags={"White": "Lan", "Black": "Minh"})
    searches = {(0, 0): annotate.Search(("cp", -50), "g7f5", ["g7f5", "a0a1"]),
                (0, 1): annotate.Search(("cp", 900), "c2d4", ["c2d4"]),
                (0, 2): annotate.Search(("cp", -900), "g7f5", ["g7f5"]),
                (0, 3): annotate.Search(("cp", 880), "a0a1", ["a0a1"])}
    return record, annotate.annotate_game(record, searches, 0, "wxf", lang)


def test_summary_and_comments_in_every_language():
    expected = {"en": ("Black (Minh): average loss", "best "),
                "vi": ("Đen (Minh): mất trung bình", "tốt nhất "),
                "zh-Hans": ("黑方（Minh）：平均每步损失", "最佳着法 "),
                "zh-Hant": ("黑方（Minh）：平均每步損失", "最佳著法 ")}
    for lang in commentary.LANGS:
        record, notes = _planted_notes(lang)
        assert [n.mark for n in notes] == ["??", None, None]
        lines = annotate.summary(record, notes, lang)
        assert len(lines) == 2 and lines[1].startswith(expected[lang][0])
        comments = annotate.comments_for(notes, lang)
        assert comments[0].startswith("+9.00 " + expected[lang][1] + "H7+6 R9+1 ")
        assert len(comments) == 3
    _, notes = _planted_notes("zh-Hans")
    assert notes[0].comment == "黑方走车（R9=4），将军。评分 +0.50 -> +9.00（红方视角）。" \
        "严重失误：应走H7+6（局面更好；评分+0.50，实战+9.00）。"
    record, notes = _planted_notes("zh-Hant")
    assert notes[1].comment.startswith("紅方馬吃車（H7+6）。")
    assert annotate.summary(record, notes, "zh-Hant")[1].endswith(
        "嚴重失誤（??）1次，失誤（?）0次，緩著（?!）0次")


def test_the_command_takes_the_chinese_languages(tmp_path):
    (tmp_path / "game.pgn").write_text(PLANTED)
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(tmp_path / "game.pgn"), "--depth", "2", "--lang", "zh-Hant"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "黑方走車（R9=4），將軍。" in run.stdout and "紅方（Lan）：平均每步損失" in run.stderr
    run = subprocess.run([sys.executable, "-m", "tuong.tools.records.annotate",
                          str(tmp_path / "game.pgn"), "--lang", "zh"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "zh-Hans" in run.stderr
