"""tools/records for a script (issue 55): a Record built from a board and
edited (variations, comments, marks), the players as Xiangqi names them
(`red`, `black`), and iter_games, a file's games one at a time, read as
read_file reads them."""
import io
import pathlib

import pytest
from conftest import ROOT

from tuong.engine.board import Board
from tuong.tools import records
from tuong.tools.records import Record, chunks, format_pgn, iter_games, read_bytes, read_pgn

RECORDS = sorted(p for p in (ROOT / "tests" / "data").rglob("*")
                 if p.is_file() and p.suffix.lower() in (".pgn", ".xqf"))


def played(moves, fen=None):
    board = Board(fen)
    for move in moves:
        board.push(move)
    return board


def key(record):
    return (record.tags, record.moves, record.comments, record.result, record.notation,
            record.intro)


# -- a record from a board, edited -----------------------------------------------------

def test_a_board_becomes_a_record_with_its_start_and_moves():
    record = Record.from_board(played(["h2e2", "h9g7"]), {"Event": "E", "Red": "Me"})
    assert (record.fen, record.moves, record.comments, record.result) == \
        (None, ["h2e2", "h9g7"], [None, None], "*")
    assert [node.move for node in record.tree.main_line()] == ["h2e2", "h9g7"]
    assert (record.red, record.black, record.tags["White"]) == ("Me", None, "Me")
    fen = "3k5/9/9/4P4/9/2r6/9/9/9/5K3 b - - 0 1"
    record = Record.from_board(played(["c4e4"], fen), result="0-1")
    assert (record.fen, record.tags["SetUp"], record.moves, record.result) == \
        (fen, "1", ["c4e4"], "0-1")
    back = read_pgn(format_pgn(record, "wxf"))[0][0]
    assert (back.fen, back.moves, back.result) == (fen, ["c4e4"], "0-1")
    with pytest.raises(ValueError, match="result"):
        Record.from_board(Board(), result="1-1")


def test_a_finished_board_gives_its_result():
    assert Record.from_board(Board()).result == "*"
    mate = Board("3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1")                   # Black is mated
    assert mate.is_game_over() and Record.from_board(mate).result == "1-0"
    assert Record.from_board(mate, result="1/2-1/2").result == "1/2-1/2"   # the caller's word


def test_a_result_in_the_tags_is_kept():
    board = played(["h2e2", "h9g7"])
    record = Record.from_board(board, {"Event": "E", "Result": "1-0"})
    assert (record.result, record.tags["Result"]) == ("1-0", "1-0")
    assert read_pgn(format_pgn(record))[0][0].result == "1-0"
    record = Record.from_board(board, {"Result": "1-0"}, result="0-1")     # `result` first
    assert (record.result, record.tags["Result"]) == ("0-1", "0-1")
    mate = Board("3k5/4R4/3R5/9/9/9/9/9/9/4K4 b - - 0 1")
    for unknown in ("*", "?", "1-1"):        # no result given: the board's
        record = Record.from_board(mate, {"Result": unknown})
        assert (record.result, record.tags["Result"]) == ("1-0", "1-0"), unknown
    assert Record.from_board(board, {"Result": "?"}).tags["Result"] == "*"


def test_a_script_adds_variations_comments_and_marks():
    record = Record.from_board(played(["h2e2", "h9g7", "h0g2"]), {"Red": "A", "Black": "B"})
    version = record.tree.version
    pawn = record.add_variation(0, ["c3c4", "g6g5"])         # an alternative first move
    record.set_comment(pawn, "the pawn opening")
    record.set_comment(1, "the central cannon")
    record.set_mark(1, "!")
    record.set_comment(0, "a game")
    end = record.add_variation(3, ["i9h9"])                  # no move there: the line goes on
    assert record.tree.version > version
    assert record.moves == ["h2e2", "h9g7", "h0g2", "i9h9"] and end.is_main()
    assert record.comments == ["the central cannon", None, None, None]
    assert record.intro == "a game"
    text = format_pgn(record, "wxf")
    assert "{a game} 1. C2=5! {the central cannon} (1. P7+1 P7+1 {the pawn opening})" in text
    back = read_pgn(text)[0][0]
    assert key(back)[1:] == key(record)[1:-2] + ("wxf", "a game") and back.red == "A"
    assert [n.moves() for n in back.tree.root.walk() if not n.children] == \
        [["h2e2", "h9g7", "h0g2", "i9h9"], ["c3c4", "g6g5"]]
    assert back.tree.main_line()[0].mark == "!"
    # A move already there is followed, not added twice; nodes work as plies do.
    assert record.add_variation(record.tree.main_line()[0], ["h9g7"]) is \
        record.tree.main_line()[1]
    record.set_mark(pawn, None)
    record.set_comment(1, "")
    assert record.comments[0] is None and record.tree.main_line()[0].comment is None


def test_edits_that_do_not_fit_leave_the_record_as_it_was():
    record = Record.from_board(played(["h2e2"]))
    before = format_pgn(record, "iccs")
    with pytest.raises(ValueError, match="move 2 of the variation, 'h2e2'"):
        record.add_variation(1, ["h9g7", "h2e2"])            # Red's cannon moved already
    with pytest.raises(IndexError, match="past the main line"):
        record.add_variation(2, ["h9g7"])
    with pytest.raises(ValueError, match="a mark is one of"):
        record.set_mark(1, "!!!")
    with pytest.raises(ValueError, match="no move to mark"):
        record.set_mark(0, "!")
    with pytest.raises(ValueError, match="not in this record"):
        record.set_comment(Record.from_board(played(["h2e2"])).tree.main_line()[0], "x")
    with pytest.raises(ValueError, match="a ply"):
        record.set_comment(-1, "x")
    assert format_pgn(record, "iccs") == before


def test_a_record_made_from_a_move_list_gets_a_tree_to_edit():
    record = Record({"Black": "B"}, ["h2e2", "h9g7"], ["one", None], "*", None, "start")
    assert record.tree is None
    record.add_variation(1, ["b9c7"])
    assert record.tree is not None and record.moves == ["h2e2", "h9g7"]
    assert (record.comments, record.intro) == (["one", None], "start")
    assert "(1... H2+3)" in format_pgn(record, "wxf")


def test_the_players_are_red_and_black_and_white_still_reads():
    record = read_pgn('[White "Hu"]\n[Black "Yang"]\n\n1. h2e2 *\n')[0][0]
    assert (record.red, record.black, record.title()) == ("Hu", "Yang", "Hu - Yang")
    record.red, record.black = "Lü Qin", "Xu Yinchuan"
    assert record.tags["Red"] == record.tags["White"] == "Lü Qin"
    assert '[Red "Lü Qin"]' in format_pgn(record) and '[White' not in format_pgn(record)
    record.black = None
    assert "Black" not in record.tags and record.title() == "Lü Qin - ?"
    record.red = None
    assert record.red is None and "White" not in record.tags


# -- iter_games: a file's games one at a time ---------------------------------------

@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(ROOT / "tests")))
def test_iter_games_reads_every_file_as_read_file_does(path):
    games, problems = records.read_file(path)
    found = []
    assert [key(r) for r in iter_games(path, problems=found)] == [key(r) for r in games]
    assert [str(p) for p in found] == [str(p) for p in problems]
    with open(path, "rb") as stream:                          # an open file too
        assert [key(r) for r in iter_games(stream)] == [key(r) for r in games]


def many_games():
    games = [record for path in RECORDS if path.suffix == ".pgn"
             for record in records.read_file(path)[0]][:30]
    broken = '[Event "broken"]\n\n1. C2=5 R1+9 *\n\n'
    notations = ["chinese", "wxf", "iccs", "vietnamese", "coords"]
    texts = [format_pgn(r, notations[i % 5]) for i, r in enumerate(games)]
    return "; a file's own comment\n" + "".join(texts[:12]) + broken + "".join(texts[12:])


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gb18030", "utf-16"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_iter_games_in_every_encoding_and_line_end_and_any_block(encoding, newline, monkeypatch):
    data = many_games().replace("\n", newline).encode(encoding)
    games, problems = read_bytes(data, "many.pgn")
    assert len(games) == 30 and [p.game for p in problems] == [13]
    sizes = [(chunks.HEAD, chunks.BLOCK), (4096, 7)]
    if encoding != "gb18030":                # a few bytes cannot tell GB from UTF-8
        sizes.append((5, 3))
    for head, block in sizes:
        monkeypatch.setattr(chunks, "HEAD", head)
        monkeypatch.setattr(chunks, "BLOCK", block)
        found = []
        read = list(iter_games(io.BytesIO(data), problems=found))
        assert [key(r) for r in read] == [key(r) for r in games], (head, block)
        assert [(p.game, p.message) for p in found] == [(p.game, p.message) for p in problems]
    text = data.decode(encoding)             # a file open in text mode
    assert [key(r) for r in iter_games(io.StringIO(text, newline=""))] == \
        [key(r) for r in games]


def test_text_cut_anywhere_gives_its_own_lines():
    """chunks.text_lines: the lines of text that comes in pieces, whatever the
    cuts (a CR at a piece's end waits for its LF; a long line in many pieces)."""
    text = "a\r\nb\rc\n\x0cd\u2028" + "e" * 1000 + "\r\r\nf"
    for size in (1, 2, 3, 7, 64, 1000, len(text)):
        pieces = [text[i:i + size] for i in range(0, len(text), size)]
        assert list(chunks.text_lines(pieces)) == text.splitlines(keepends=True), size


def test_iter_games_reads_a_game_at_a_time(monkeypatch):
    """The first game comes before the file is read much further than it."""
    monkeypatch.setattr(chunks, "HEAD", 4096)
    data = many_games().encode() * 20

    class Counted(io.BytesIO):
        taken = 0

        def read(self, size=-1):
            out = super().read(size)
            self.taken += len(out)
            return out

    stream = Counted(data)
    games = iter_games(stream)
    first = next(games)
    assert first.moves and stream.taken < 4096 + 2 * chunks.BLOCK < len(data)
    assert sum(1 for _ in games) == 30 * 20 - 1


def test_iter_games_reads_fen_lines_a_line_at_a_time(tmp_path):
    path = tmp_path / "positions.epd"
    path.write_text("# positions\n" + "\n".join(
        [Board().fen(), "not a fen", played(["h2e2"]).fen().rsplit(" ", 4)[0] + " ; a b"]))
    found = []
    read = list(iter_games(path, problems=found))
    assert [r.fen for r in read] == [r.fen for r in records.read_file(path)[0]]
    assert len(read) == 2 and [(p.game, p.message[:7]) for p in found] == [(3, "bad FEN")]
    # Without a name, text is FEN lines when it holds nothing else (else PGN, as read_text).
    lines = "\n".join(line for line in path.read_text().splitlines() if line != "not a fen")
    assert [r.fen for r in iter_games(io.StringIO(lines))] == [r.fen for r in read]


def test_a_damaged_file_says_so_at_the_end(tmp_path):
    data = many_games().encode()
    cut = data.index("\n1.".encode())
    path = tmp_path / "damaged.pgn"
    path.write_bytes(data[:cut] + b"\xff" + data[cut:])
    games, problems = records.read_file(path)
    found = []
    assert [key(r) for r in iter_games(path, problems=found)] == [key(r) for r in games]
    assert [str(p) for p in found] == [str(p) for p in problems]
    assert found[-1].game == 0 and f"offset {cut}" in found[-1].message


def test_a_path_that_cannot_be_opened_raises(tmp_path):
    with pytest.raises(OSError):
        list(iter_games(tmp_path / "missing.pgn"))
    assert list(iter_games(pathlib.Path(tmp_path / "empty.pgn").open("w+b"))) == []


def test_a_tag_inside_a_comment_does_not_cut_its_game():
    text = ('[Event "one"]\n\n1. C2=5 {a comment\n[Event "quoted, not a tag"]\n% and a line\n}'
            ' H8+7 *\n\n[Event "two"]\n\n1. P7+1 *\n')
    games, _ = read_pgn(text)
    assert [key(r) for r in iter_games(io.StringIO(text))] == [key(r) for r in games]
    assert [r.tags["Event"] for r in games] == ["one", "two"] and len(games[0].moves) == 2


def test_a_text_stream_with_a_bom_reads_as_its_bytes_do(tmp_path):
    """A UTF-8 file opened as "utf-8" (not "utf-8-sig") starts with U+FEFF:
    no character of its first tag line, which starts the first game."""
    text = ('\ufeff[Event "one"]\n[Red "A"]\n\n1. C2=5 H8+7 1-0\n\n'
            '[Event "two"]\n\n1. P7+1 *\n')
    games, problems = read_bytes(text.encode())
    assert problems == [] and [r.tags["Event"] for r in games] == ["one", "two"]
    found = []
    assert [key(r) for r in iter_games(io.StringIO(text), problems=found)] == \
        [key(r) for r in games]
    assert found == []
    path = tmp_path / "bom.pgn"
    path.write_bytes(text.encode())
    with open(path, encoding="utf-8") as stream:
        assert [key(r) for r in iter_games(stream)] == [key(r) for r in games]
    lines = "\ufeff" + Board().fen() + "\n" + played(["h2e2"]).fen() + "\n"    # FEN lines too
    assert [r.fen for r in iter_games(io.StringIO(lines))] == \
        [r.fen for r in read_bytes(lines.encode())[0]]
