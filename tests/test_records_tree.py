"""Games as trees of moves: tools/records/tree.py's GameTree, and the game
records that keep their variations in Record.tree (PGN's nested ( ... ) with
their comments, move marks and NAGs; XQF's move tree), written back by
format_pgn as standard PGN."""
import dataclasses
import random

import pytest

from conftest import DATA, random_board
from tuong.engine.board import Board
from tuong.tools import records
from tuong.tools.records import notation as notations
from tuong.tools.records.notation import NOTATIONS
from tuong.tools.records.tree import GameTree
from tuong.tools.records.xqf import read_xqf, read_xqf_tree

XQF = DATA / "xqf"


def find(tree, *moves):
    """The node the moves lead to from the root, through any variation."""
    node = tree.root
    for move in moves:
        (node,) = [child for child in node.children if child.move == move]
    return node


def shape(node):
    """A node's children, recursively: [(move, comment, mark, children)]."""
    return [(child.move, child.comment, child.mark, shape(child)) for child in node.children]


def moves_of(nodes):
    return [node.move for node in nodes]


# -- GameTree --------------------------------------------------------------------
def sample():
    """a a1 a2 is the main line; x1 x2 an alternative to a1; b b1 b2 one to a."""
    tree = GameTree()
    tree.add_line(tree.root, ["a", "a1", "a2"])
    tree.add_line(tree.root, ["b", "b1", "b2"])
    tree.add_line(find(tree, "a"), ["x1", "x2"])
    return tree


def test_add_returns_the_child_a_move_already_has():
    tree = GameTree()
    a, made = tree.add(tree.root, "a", "a comment", "!")
    assert made and a.parent is tree.root and (a.move, a.comment, a.mark) == ("a", "a comment", "!")
    again, made = tree.add(tree.root, "a", "another", "?")
    assert again is a and not made
    assert (a.comment, a.mark) == ("a comment", "!") and len(tree) == 2
    assert tree.add_line(tree.root, ["a", "b"]).parent is a and len(tree) == 3


def test_variations_come_in_the_order_they_were_made():
    tree = sample()
    tree.add(tree.root, "c")
    assert moves_of(tree.root.children) == ["a", "b", "c"]
    assert moves_of(tree.main_line()) == ["a", "a1", "a2"]
    assert moves_of(find(tree, "a").children) == ["a1", "x1"]
    assert moves_of(tree.root.walk()) == [None, "a", "a1", "a2", "x1", "x2", "b", "b1", "b2", "c"]


def test_path_tip_line_and_is_main():
    tree = sample()
    x2 = find(tree, "a", "x1", "x2")
    assert moves_of(x2.path()) == x2.moves() == ["a", "x1", "x2"] and x2.ply == 3
    assert tree.root.path() == [] and tree.root.ply == 0
    assert find(tree, "a").tip() is find(tree, "a", "a1", "a2") and x2.tip() is x2
    assert moves_of(find(tree, "a", "x1").line()) == ["a", "x1", "x2"]
    assert moves_of(find(tree, "b").line()) == ["b", "b1", "b2"]
    assert tree.root.tip().moves() == ["a", "a1", "a2"]
    assert [find(tree, *m).is_main() for m in (["a"], ["a", "a1"], ["a", "x1"], ["b", "b1"])] \
        == [True, True, False, False]
    assert tree.root.is_main()


def test_promote_one_step_and_to_the_main_line():
    tree = sample()
    tree.add_line(tree.root, ["c", "c1"])
    c1 = find(tree, "c", "c1")
    assert tree.promote(c1)                       # the variation holding c1, one place up
    assert moves_of(tree.root.children) == ["a", "c", "b"] and not c1.is_main()
    assert tree.promote(c1)
    assert moves_of(tree.root.children) == ["c", "a", "b"] and c1.is_main()
    assert moves_of(tree.main_line()) == ["c", "c1"]
    assert not tree.promote(c1) and not tree.promote(tree.root)      # already the main line
    x2 = find(tree, "a", "x1", "x2")
    assert tree.promote(x2)                       # at its own branch point, below a
    assert moves_of(find(tree, "a").children) == ["x1", "a1"] and not x2.is_main()
    assert tree.undo_edit() is find(tree, "a", "x1")
    assert moves_of(find(tree, "a").children) == ["a1", "x1"]
    assert tree.undo_edit() is find(tree, "c")
    assert moves_of(tree.root.children) == ["a", "c", "b"]


def test_delete_and_undo_edit():
    tree = sample()
    a, x1, x2 = find(tree, "a"), find(tree, "a", "x1"), find(tree, "a", "x1", "x2")
    assert tree.delete(x1) is a and moves_of(a.children) == ["a1"]
    assert x1.id not in tree.nodes and x2.id not in tree.nodes and len(tree) == 7
    with pytest.raises(KeyError):
        tree.node(x2.id)
    a1 = find(tree, "a", "a1")
    tree.delete(a1)                               # the main line goes on by what is left
    assert tree.root.tip() is a and moves_of(tree.main_line()) == ["a"]
    assert tree.can_undo_edit
    assert tree.undo_edit() is a1 and moves_of(tree.main_line()) == ["a", "a1", "a2"]
    assert tree.undo_edit() is x1 and moves_of(a.children) == ["a1", "x1"]
    assert tree.node(x2.id) is x2 and len(tree) == 9
    assert not tree.can_undo_edit and tree.undo_edit() is None
    with pytest.raises(ValueError):
        tree.delete(tree.root)


def test_undo_of_a_delete_that_would_pass_a_limit_is_refused_and_stays():
    tree = sample()
    size = len(tree)
    x1 = find(tree, "a", "x1")
    tree.delete(x1)                               # x1 and x2
    tree.add(find(tree, "b"), "y")
    with pytest.raises(ValueError, match="brings back 2 moves"):
        tree.undo_edit(limit=size)
    assert tree.can_undo_edit and len(tree) == size - 1
    assert tree.undo_edit(limit=size + 1) is x1 and len(tree) == size + 1


def test_undo_of_a_delete_after_the_move_was_played_again_returns_none():
    tree = sample()
    a, x1 = find(tree, "a"), find(tree, "a", "x1")
    tree.delete(x1)
    again, made = tree.add(a, "x1")
    assert made and again is not x1 and again.id != x1.id
    assert tree.undo_edit() is None               # its place is taken: nothing comes back
    assert moves_of(a.children) == ["a1", "x1"] and a.children[1] is again
    assert tree.node(again.id) is again and x1.id not in tree.nodes


def test_an_undo_whose_place_is_gone_leaves_the_tree_and_older_edits_sound():
    """Issue 54, item 22: promote a variation, delete it and its parent,
    play the parent's move again: each undo whose place is gone returns
    None and changes nothing (no IndexError), and the tree stays whole."""
    tree = sample()
    a, x1 = find(tree, "a"), find(tree, "a", "x1")
    assert tree.promote(x1)                       # a: x1 a1
    tree.delete(x1)                               # a: a1
    tree.delete(a)                                # root: b
    again, made = tree.add(tree.root, "a")
    assert made
    shape_before, size = shape(tree.root), len(tree)
    assert tree.undo_edit() is None               # a's place is taken by the new a
    assert tree.undo_edit() is None               # x1's parent is gone
    assert tree.undo_edit() is None               # and so is the promote's branch point
    assert not tree.can_undo_edit and tree.undo_edit() is None
    assert shape(tree.root) == shape_before and len(tree) == size
    assert moves_of(tree.root.children) == ["b", "a"] and tree.root.children[1] is again
    # An older edit still in place is taken back after one whose place is gone.
    tree = sample()
    b = find(tree, "b")
    assert tree.promote(b)                        # root: b a
    a1 = find(tree, "a", "a1")
    tree.delete(a1)
    tree.add(find(tree, "a"), "a1")
    assert tree.undo_edit() is None and tree.undo_edit() is b
    assert moves_of(tree.root.children) == ["a", "b"]


def test_ids_are_stable():
    tree = sample()
    before = dict(tree.nodes)
    version = tree.version
    x1 = find(tree, "a", "x1")
    tree.promote(x1)
    tree.delete(find(tree, "b"))
    tree.undo_edit()
    tree.undo_edit()
    assert tree.nodes == before and all(tree.node(i).id == i for i in before)
    assert tree.version > version
    gone = find(tree, "b").id
    tree.delete(find(tree, "b"))
    new, _ = tree.add(tree.root, "z")
    assert new.id not in before and gone not in tree.nodes     # ids are not reused


# -- PGN variations in, and out again --------------------------------------------
PGN = """[Event "variations"]
[White "Lan"]
[Black "Minh"]
[Format "WXF"]

{the start} 1. C2=5 {central cannon} (1. P7+1 {pawn opening} H8+7 (1... P7+1 $5
2. C2=5 {same}) 2. H8+7) (1. E3+5?!) 1... H8+7! ({screen horse} 1... C8=5 $4 2. H2+3
(2. R1+1 $3 {horse first} 2... H8+7) 2... R9+1 ?) 2. H2+3 $1 R9=8?? 3. R1=2 *
"""
# The tree it holds: (move, comment, mark, alternatives and what follows).
TREE = [
    ("h2e2", "central cannon", None, [
        ("h9g7", None, "!", [("h0g2", None, "!", [("i9h9", None, "??", [
            ("i0h0", None, None, [])])])]),
        ("h7e7", "screen horse", "??", [           # a comment before a line's first move is its
            ("h0g2", None, None, [("i9i8", None, "?", [])]),
            ("i0i1", "horse first", "!!", [("h9g7", None, None, [])])])]),
    ("c3c4", "pawn opening", None, [
        ("h9g7", None, None, [("b0c2", None, None, [])]),
        ("g6g5", None, "!?", [("h2e2", "same", None, [])])]),
    ("g0e2", None, "?!", []),
]


def read_one(text):
    (game,), problems = records.read_pgn(text, "test.pgn")
    assert problems == []
    return game


def test_variations_comments_and_marks_are_read_into_the_tree():
    game = read_one(PGN)
    assert shape(game.tree.root) == TREE
    assert game.tree.root.comment == game.intro == "the start"
    assert game.moves == game.tree.root.tip().moves() == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]
    assert game.comments == [node.comment for node in game.tree.main_line()]
    assert game.comments == ["central cannon", None, None, None, None]    # the main line's only


@pytest.mark.parametrize("notation", NOTATIONS)
def test_the_tree_goes_out_and_back_in_every_notation(notation):
    game = read_one(PGN)
    text = records.format_pgn(game, notation)
    back = read_one(text)
    assert back.notation == notation
    assert shape(back.tree.root) == TREE and back.tree.root.comment == "the start"
    assert (back.moves, back.comments, back.intro) == (game.moves, game.comments, game.intro)
    assert records.format_pgn(back, notation) == text


def test_the_movetext_is_standard_pgn():
    movetext = ("1. C2=5 (1. P7+1 H8+7) 1... H8+7 2. H2+3 (2. H8+7 P7+1 {x} (2... R9+1)) "
                "2... R9=8 *")
    game = read_one(f'[Format "WXF"]\n\n{movetext}\n')
    assert records.format_pgn(game, "wxf").split("\n\n")[1].replace("\n", " ") == movetext
    # Black starts: a variation of the first move is numbered as it is
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    movetext = "1... H8+7 (1... C8=5 2. H2+3) (1... H2+3) 2. H2+3 *"
    game = read_one(f'[FEN "{fen}"]\n[Format "WXF"]\n\n{movetext}\n')
    assert [len(node.children) for node in game.tree.root.walk()][:2] == [3, 1]
    assert records.format_pgn(game, "wxf").split("\n\n")[1] == movetext


def test_overrides_replace_the_main_lines_words_only():
    game = read_one(PGN)
    text = records.format_pgn(game, "wxf", comments=["new"], marks=[None, "?"], outro="end")
    back = read_one(text)
    main = back.tree.main_line()
    assert [node.comment for node in main] == ["new", None, None, None, "end"]
    assert [node.mark for node in main] == [None, "?", None, None, None]
    for old, new in zip(game.tree.root.walk(), back.tree.root.walk()):
        if not old.is_main():                     # the variations keep their own
            assert (new.move, new.comment, new.mark) == (old.move, old.comment, old.mark)


def test_a_tree_without_variations_is_written_as_the_move_list_is():
    """format_pgn writes a tree's main line as it writes moves and comments."""
    rng = random.Random(11)
    for i in range(12):
        fen = random_board(rng, rng.randrange(0, 30)).fen() if i % 3 == 0 else None
        board = Board(fen) if fen else Board()    # some start elsewhere, Black to move too
        for _ in range(rng.randrange(1, 60)):
            if not board.legal_moves():
                break
            board.push(rng.choice(board.legal_moves()))
        comments = [f"c{j}" if j % 4 == 1 else None for j in range(board.ply)]
        plain = records.Record({"Event": "random", **({"FEN": fen} if fen else {})},
                               board.move_stack, comments, "*",
                               intro="before" if i % 2 else None)
        tree = GameTree(fen)
        tree.root.comment = plain.intro
        node = tree.root
        for move, comment in zip(plain.moves, comments):
            node, _ = tree.add(node, move, comment)
        with_tree = dataclasses.replace(plain, tree=tree)
        for notation in ("wxf", "chinese"):
            assert records.format_pgn(with_tree, notation) == records.format_pgn(plain, notation)
    for name in ("cchess/test2.pgn", "wukong/xqdb_traditional.pgn"):
        found, _ = records.read_file(DATA / "records" / name)
        for record in found:
            assert len(record.tree) == len(record.moves) + 1
            plain = dataclasses.replace(record, tree=None)
            assert records.format_pgn(record, "vietnamese") == \
                records.format_pgn(plain, "vietnamese")


def test_a_variation_that_does_not_read_is_dropped_and_reported():
    text = ('[Event "bad"]\n[White "Lan"]\n[Black "Minh"]\n[Format "WXF"]\n\n'
            "1. C2=5 (1. P7+1 R1+5 (1... P7+1 2. C2=5)) (1. H2+3 {kept} H8+7) "
            "1... H8+7 (1... XYZ) 2. H2+3 *\n")
    (game,), problems = records.read_pgn(text, "test.pgn")
    assert game.moves == ["h2e2", "h9g7", "h0g2"] and game.tree.root.tip().moves() == game.moves
    assert shape(game.tree.root) == [
        ("h2e2", None, None, [("h9g7", None, None, [("h0g2", None, None, [])])]),
        ("h0g2", "kept", None, [("h9g7", None, None, [])])]
    assert [(p.game, p.move_number, p.text, p.game_kept) for p in problems] == [
        (1, 1, "R1+5", True), (1, 1, "XYZ", True)]
    assert str(problems[0]).startswith(
        "test.pgn, game 1 (Lan - Minh), move 1 'R1+5': variation dropped: no legal move")


def test_a_variation_before_any_move_is_dropped_and_reported():
    (game,), problems = records.read_pgn("{intro} (1. P7+1) 1. C2=5 H8+7 *\n")
    assert game.moves == ["h2e2", "h9g7"] and len(game.tree) == 3
    (problem,) = problems
    assert problem.game_kept and "variation dropped" in problem.message


def test_tuong_pgn_convert_warns_of_a_dropped_variation(tmp_path, capsys):
    source = tmp_path / "in.pgn"
    source.write_text('[Format "WXF"]\n\n1. C2=5 (1. P7+1 R1+5) H8+7 *\n', encoding="utf-8")
    out = tmp_path / "out.pgn"
    assert records.main(["convert", str(source), "--to", "chinese", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "warning: in.pgn, game 1 (? - ?), move 1 'R1+5': variation dropped" in err
    assert "1 game written, 0 left out, 1 variation problem" in err
    assert "1. 炮二平五 马８进７ *" in out.read_text(encoding="utf-8")


# -- XQF's move tree ---------------------------------------------------------------
# The five lines of this file, as cchess's own tests (tests/test_read_xqf.py) give them.
FIVE_LINES = (
    "炮二平五 炮８平５ 马二进三 马８进７ 兵三进一 车９平８",
    "炮二平五 炮８平５ 马二进三 马８进７ 车一平二 车９进１ 车二进六 车９平４",
    "炮二平五 炮８平５ 马二进三 马８进７ 车一平二 卒７进１ 兵七进一 车９进１",
    "炮二平五 炮８平５ 马二进三 马８进７ 车一进一 车９平８ 车一平六 马２进３ 马八进七 卒３进１",
    "炮二平六 马８进７ 马二进三 车９平８ 车一平二",
)


def test_xqf_variations_are_the_lines_cchess_reads():
    tags, tree, result = read_xqf_tree((XQF / "v18_five_variations.xqf").read_bytes())
    leaves = [node.moves() for node in tree.root.walk() if not node.children]
    assert leaves == [notations.parse_line(None, line.split(), "chinese") for line in FIVE_LINES]
    assert (tags, result) == read_xqf((XQF / "v18_five_variations.xqf").read_bytes())[::2]


@pytest.mark.parametrize("name", ["v18_five_variations.xqf", "v10_endgame_with_variation.xqf",
                                  "v11_chibi_aozhan.xqf", "v16_chibi_aozhan.xqf"])
@pytest.mark.parametrize("notation", ["wxf", "chinese", "iccs", "vietnamese"])
def test_xqf_trees_go_out_as_pgn_and_back_in(name, notation):
    (record,), problems = records.read_file(XQF / name)
    assert problems == [] and len(record.tree) > len(record.moves) + 1      # variations
    assert record.tree.root.comment == record.intro
    back = read_one(records.format_pgn(record, notation))
    assert shape(back.tree.root) == shape(record.tree.root)
    assert (back.moves, back.comments, back.intro) == (record.moves, record.comments,
                                                        record.intro)


def xqf_file(tree):
    """A plain (version 10) XQF file of the initial position, with the spec
    example's header, holding `tree`: the root's children as [(move,
    comment, children)], written as XQF orders its records: a move, then
    what follows it, then its alternatives."""
    out = bytearray((XQF / "v10_spec_example.xqf").read_bytes()[:0x400])

    def record(move, has_next, has_variation, comment):
        src, dst = ((ord(move[i]) - 97) * 10 + int(move[i + 1]) for i in (0, 2))
        out.extend(bytes([src + 0x18, dst + 0x20,
                          (0xF0 if has_next else 0) | (0x0F if has_variation else 0), 0]))
        out.extend(len(comment).to_bytes(4, "little") + comment)

    def write(nodes):
        for i, (move, comment, children) in enumerate(nodes):
            record(move, bool(children), i < len(nodes) - 1, comment.encode("gb18030"))
            write(children)

    record("a0a0", bool(tree), False, b"")         # the initial position's record
    write(tree)
    return bytes(out)


def test_xqf_variation_with_a_bad_move_is_dropped_and_reported():
    raw = xqf_file([
        ("h2e2", "中炮", [
            ("h9g7", "", [("h0g2", "", [])]),
            ("b9c7", "变着", [("b0c2", "", [])]),
            ("h7e7", "", [("h0g2", "", [("c6c4", "", [])]),      # a pawn two steps
                          ("b0c2", "", [])]),                     # nested in it: dropped too
            ("b7e7", "", [("j0a1", "", [])])]),                   # a square off the board
        ("c3c4", "仙人指路", [("g6g5", "", [])]),
        ("c3c5", "", []),                                         # a pawn two steps
    ])
    (record,), problems = records.read_bytes(raw, "made.xqf")
    assert record.moves == ["h2e2", "h9g7", "h0g2"] and record.comments == ["中炮", None, None]
    assert shape(record.tree.root) == [
        ("h2e2", "中炮", None, [
            ("h9g7", None, None, [("h0g2", None, None, [])]),
            ("b9c7", "变着", None, [("b0c2", None, None, [])])]),
        ("c3c4", "仙人指路", None, [("g6g5", None, None, [])])]
    assert [(p.move_number, p.text, p.game_kept) for p in problems] == [
        (1, "c3c5", True), (2, "c6c4", True), (2, "(90, 1)", True)]
    assert "illegal in" in problems[0].message and "off the board" in problems[2].message
    assert str(problems[1]).startswith("made.xqf, game 1 (柳大华 - 吕  钦), move 2 'c6c4': "
                                       "variation dropped")
    _, moves, _ = read_xqf(raw, "made.xqf")      # the main line reads as before
    assert moves == [("h2e2", "中炮"), ("h9g7", None), ("h0g2", None)]
    dropped = []
    read_xqf_tree(raw, "made.xqf", dropped)
    assert [(ply, move) for ply, move, _ in dropped] == [(0, "c3c5"), (3, "c6c4"), (2, "(90, 1)")]
