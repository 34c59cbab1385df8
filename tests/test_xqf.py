"""tools/records/xqf.py: XQStudio's XQF game records, plain (version 10) and
obfuscated (11-18), read into PGN-shaped (tags, moves, result).

The files under data/xqf/ are real (README.txt there names their sources);
broken files are made from them by cutting or changing bytes."""
import random

import pytest

from conftest import DATA
from tuong.engine.board import Board
from tuong.tools.records.xqf import read_xqf, read_xqf_file, read_xqf_tree

XQF = DATA / "xqf"
START = Board.start_fen


def data(name):
    return (XQF / name).read_bytes()


def changed(raw, at):
    """`raw` with the bytes at the offsets in `at` ({offset: value}) replaced."""
    out = bytearray(raw)
    for offset, value in at.items():
        out[offset] = value
    return bytes(out)


# file: (version byte, plies in the main line, result, FEN or None for the initial position)
REAL = {
    "v10_spec_example.xqf": (10, 16, "0-1", None),
    "v10_team2014_li_jiahua_xie_jing.xqf": (10, 30, "0-1", None),
    "v10_endgame_with_variation.xqf": (10, 7, "0-1", "9/4k4/9/9/9/9/9/3AB4/1c2Np3/3AK4 b - - 0 1"),
    "v11_chibi_aozhan.xqf": (11, 31, "1-0",
                             "c2a1k3/3Pa4/n3b4/5P1CP/6b2/1rB6/9/9/3pp4/2B2K1R1 w - - 0 1"),
    "v12_wuyang_zhao_guorong_lu_qin.xqf": (12, 34, "1/2-1/2", None),
    "v13_zichudong_lai_1.xqf": (13, 31, "1-0", None),
    "v15_team2001_li_aidong_zheng_yihong.xqf": (15, 110, "1/2-1/2", None),
    "v16_chibi_aozhan.xqf": (16, 31, "1-0",
                             "c2a1k3/3Pa4/n3b4/5P1CP/6b2/1rB6/9/9/3pp4/2B2K1R1 w - - 0 1"),
    "v18_five_variations.xqf": (18, 6, "*", None),
    "v18_sample_xu_yinchuan_nie_weiping.xqf": (
        18, 75, "1-0", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR w - - 0 1"),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_file_replays_to_its_result(name):
    version, plies, result, fen = REAL[name]
    raw = data(name)
    assert raw[2] == version
    tags, moves, got = read_xqf(raw, name)
    assert got == result == tags["Result"]
    assert len(moves) == plies
    assert tags.get("FEN") == fen
    assert ("SetUp" in tags) == (fen is not None)
    for tag in ("Event", "Site", "Date", "Round", "White", "Black"):
        assert isinstance(tags[tag], str) and tags[tag]
    board = Board(fen or START)                   # the moves replay on their own
    for move, comment in moves:
        assert comment is None or (isinstance(comment, str) and comment)
        assert move in board.legal_moves()
        board.push(move)


def test_plain_spec_example_matches_the_spec():
    """XQF.TXT, the format's 1.0 description, lists its example's moves."""
    tags, moves, result = read_xqf(data("v10_spec_example.xqf"))
    assert [move for move, _ in moves] == [
        "c3c4", "h9g7",    # 兵七进一 马８进７
        "g3g4", "b7c7",    # 兵三进一 炮２平３
        "c0e2", "b9a7",    # 相七进五 马２进１
        "b0c2", "a9b9",    # 马八进七 车１平２
        "a0b0", "b9b5",    # 车九平八 车２进４
        "b2a2", "b5h5",    # 炮八平九 车２平８
        "h2h7", "c7h7",    # 炮二进五 炮３平８
        "h0g2", "i9h9",    # 马二进三 车９平８
    ]
    assert tags == {"Event": '"中立杯"象棋电视快棋赛', "Site": "北京", "Date": "1997.11.16",
                    "Round": "?", "White": "柳大华", "Black": "吕  钦", "Result": "0-1",
                    "Title": "仙人指路对起马局", "Annotator": "刘殿中"}


def test_obfuscated_sample_matches_its_pgn():
    """eleeye's SAMPLE.PGN is the same game as SAMPLE.XQF, in Chinese notation."""
    tags, moves, result = read_xqf(data("v18_sample_xu_yinchuan_nie_weiping.xqf"))
    wanted = ("Event", "Site", "Date", "White", "Black", "Result", "SetUp")
    assert {k: tags[k] for k in wanted} == {
        "Event": "许银川让九子对聂棋圣", "Site": "广州", "Date": "1999.12.09",
        "White": "许银川", "Black": "聂卫平", "Result": "1-0", "SetUp": "1"}
    assert [move for move, _ in moves[:16]] == [
        "b2e2", "h7e7",    # 1. 炮八平五 炮８平５
        "e2e7", "g9e7",    # 2. 炮五进五 象７进５
        "h2e2", "h9g7",    # 3. 炮二平五 马８进７
        "h0g2", "i9h9",    # 4. 马二进三 车９平８
        "b0c2", "b9a7",    # 5. 马八进七 马２进１
        "a0d0", "a9b9",    # 6. 车九平六 车１平２
        "d0d8", "b7b0",    # 7. 车六进八 炮２进７
        "i0i4", "b0a0",    # 8. 车一进四 炮２平１
    ]
    assert moves[-1][0] == "e9c9"                 # 38. 车五平七, Black resigns
    assert moves[0] == ("b2e2", None)
    assert moves[1][1].startswith("红方首着架中炮")   # the PGN's comment after 1. ... 炮８平５
    assert tags["Comment"].startswith("象棋让九子")    # the comment before move 1


def test_two_obfuscations_of_one_problem_agree():
    """The same endgame problem, saved as version 11 and as version 16 with
    other keys (and a rotated piece table), reads the same."""
    _, old, _ = read_xqf(data("v11_chibi_aozhan.xqf"))
    tags, new, _ = read_xqf(data("v16_chibi_aozhan.xqf"))
    assert [m for m, _ in old] == [m for m, _ in new]
    assert new[0] == ("f6f7", "弃兵伏杀！黑必须上士吃兵。")
    assert tags["Comment"] == "边兵取胜"


def test_variations_are_kept():
    """read_xqf gives the main line; read_xqf_tree the variations too
    (tests/test_records_tree.py checks them move by move)."""
    # The main line that cchess's own tests give for this file:
    # 炮二平五 炮８平５ 马二进三 马８进７ 兵三进一 车９平８
    main = ["h2e2", "h7e7", "h0g2", "h9g7", "g3g4", "i9h9"]
    _, moves, _ = read_xqf(data("v18_five_variations.xqf"))
    assert [m for m, _ in moves] == main
    _, tree, _ = read_xqf_tree(data("v18_five_variations.xqf"))
    assert tree.root.tip().moves() == main
    assert sum(not node.children for node in tree.root.walk()) == 5      # five lines
    _, moves, _ = read_xqf(data("v10_endgame_with_variation.xqf"))
    assert moves[0] == ("b1d1", None)             # Black starts this one
    _, tree, _ = read_xqf_tree(data("v10_endgame_with_variation.xqf"))
    (branch,) = [node for node in tree.root.walk() if len(node.children) > 1]
    assert [child.move for child in branch.children] == ["c4a2", "c4e2"]
    assert branch.children[1].tip().moves()[-2:] == ["c4e2", "e7f7"]


def plain(records):
    """A version-10 file: the spec example's header (the initial position)
    and these records: (from, to, has next, has variation, comment bytes)."""
    def square(name):                             # XQF's file * 10 + rank
        return (ord(name[0]) - 97) * 10 + int(name[1])

    out = bytearray(data("v10_spec_example.xqf")[:0x400])
    out += bytes([0x18, 0x20, 0xF0 if records else 0, 0xFF, 0, 0, 0, 0])   # the initial position
    for src, dst, has_next, has_variation, comment in records:
        out += bytes([square(src) + 0x18, square(dst) + 0x20,
                      (0xF0 if has_next else 0) | (0x0F if has_variation else 0), 0])
        out += len(comment).to_bytes(4, "little") + comment
    return bytes(out)


def test_plain_tree_keeps_the_main_line_and_its_comments():
    raw = plain([("h2", "e2", True, True, b""),
                 ("h9", "g7", False, False, "好棋".encode("gb18030")),
                 ("c3", "c4", True, False, b""), ("b9", "c7", False, False, b"")])
    tags, moves, _ = read_xqf(raw, "made.xqf")
    assert moves == [("h2e2", None), ("h9g7", "好棋")]
    assert "FEN" not in tags and "Comment" not in tags
    with pytest.raises(ValueError, match=r"made\.xqf: truncated"):
        read_xqf(raw[:-5], "made.xqf")            # the variation is cut: the tree is not whole
    assert read_xqf(plain([]), "none")[1] == []


SPEC = data("v10_spec_example.xqf")      # plain: 8-byte records from 0x400, the first the root's
FIVE = data("v18_five_variations.xqf")   # obfuscated: its first move's record is at 0x404


@pytest.mark.parametrize("raw, message", [
    (b"", "not an XQF file"),
    (b"PK\x03\x04" + bytes(2000), "not an XQF file"),
    (b"XQ\x0a" + bytes(500), "truncated: 503 bytes"),
    (changed(SPEC, {2: 19}), "unsupported XQF version 19"),
    (changed(SPEC, {2: 0}), "unsupported XQF version 0"),
    (changed(FIVE, {12: FIVE[12] ^ 1}), "keys do not sum"),
    (changed(SPEC, {0x33: 7}), "unknown result code 7"),
    (changed(SPEC, {0x130: 40}), "Red field claims 40 bytes"),
    (changed(SPEC, {0x10: 95}), "square byte 95 of a piece R is off the board"),
    (changed(SPEC, {0x18: 80}), "R and R both on i0"),            # the second rook onto the first
    (changed(SPEC, {0x14: 0xFF}), "Red king missing"),
    (SPEC[:-6], "truncated: the data ends inside move record 16"),
    (SPEC + bytes(8), "8 bytes after the end of the move tree"),
    (changed(SPEC, {0x404: 200}),                                 # the root's comment length
     "inside the comment of the initial position's record (200 bytes"),
    (changed(SPEC, {0x418: 5 + 0x18}), "move 3 (a5g4): no piece on its origin a5"),
    (changed(SPEC, {0x409: 26 + 0x20}), "move 1 (c3c6): illegal in"),
    (changed(SPEC, {0x410: 63 + 0x18, 0x411: 64 + 0x20}),
     "move 2 (g3g4): moves a Red piece out of turn"),
    (changed(SPEC, {0x418: 95 + 0x18}), "move 3: a square off the board"),
    (changed(FIVE, {0x404: (FIVE[0x404] + 1) % 256}), "move 1 (h3e2): no piece on its origin h3"),
])
def test_broken_files_raise_value_error_naming_the_file(raw, message):
    with pytest.raises(ValueError) as caught:
        read_xqf(raw, "broken.xqf")
    assert str(caught.value).startswith("broken.xqf: ")
    assert message in str(caught.value)


def test_file_reader_names_the_path(tmp_path):
    path = tmp_path / "cut.xqf"
    path.write_bytes(data("v18_sample_xu_yinchuan_nie_weiping.xqf")[:1500])
    with pytest.raises(ValueError, match=r"cut\.xqf: truncated"):
        read_xqf_file(path)
    assert read_xqf_file(XQF / "v12_wuyang_zhao_guorong_lu_qin.xqf")[2] == "1/2-1/2"


def test_mutated_files_give_a_game_or_value_error():
    """Random byte changes, cuts and insertions in real files: never any
    exception but ValueError."""
    rng = random.Random(20240611)
    sources = [data(name) for name in (
        "v10_spec_example.xqf", "v10_endgame_with_variation.xqf",
        "v12_wuyang_zhao_guorong_lu_qin.xqf", "v16_chibi_aozhan.xqf", "v18_five_variations.xqf")]
    outcomes = {"game": 0, "error": 0}
    for i in range(400):
        raw = bytearray(rng.choice(sources))
        kind = i % 4
        if kind == 0:                             # anywhere
            for _ in range(rng.randint(1, 3)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        elif kind == 1:                           # the header's keys, pieces and fields
            raw[rng.randrange(0x40)] ^= 1 << rng.randrange(8)
        elif kind == 2:                           # the move tree
            raw[rng.randrange(0x400, len(raw))] = rng.randrange(256)
        else:                                     # cut or grown
            cut = rng.randrange(len(raw))
            grown = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            raw = raw[:cut] if rng.random() < 0.5 else raw[:cut] + grown + raw[cut:]
        try:
            tags, moves, result = read_xqf(bytes(raw), f"mutant{i}")
        except ValueError as e:
            assert str(e).startswith(f"mutant{i}: ")
            outcomes["error"] += 1
        else:
            assert result in ("1-0", "0-1", "1/2-1/2", "*")
            assert all(isinstance(m, str) and len(m) == 4 for m, _ in moves)
            outcomes["game"] += 1
    assert outcomes["error"] > 100 and outcomes["game"] > 20
