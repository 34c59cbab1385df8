"""Issue 54, items 1, 2, 5, 6, 7 and 8: what a record holds comes back whole.

A damaged byte costs one character, never the file; a comment before a
file's first tags is no game, and a broken first game is an error that names
it; a variation that repeats its move keeps its words; the tags Xiangqi
programs use are written, both forms read, every tag kept in its order; a
mistyped move is the one blamed; pasted EPD lines are positions.
"""

from tuong.tools import records
from tuong.tools.records import encoding, notation
from tuong.tools.web import game as web_game

from test_web_session import Page, run

CHINESE = ('[Game "Chinese Chess"]\n[Event "测试"]\n[Red "许银川"]\n[Black "吕钦"]\n'
           '[Result "*"]\n[Format "Chinese"]\n\n'
           "1. 炮二平五 {中炮开局} 马８进７ {屏风马应对} 2. 马二进三 {双方布阵} *\n")


def _cut(data: bytes, char: str, text_encoding: str, keep: int = 1) -> tuple[bytes, int]:
    """`data` with the last byte(s) of the last `char` cut after `keep` bytes
    (a download cut mid-character), and the offset of the cut."""
    at = data.rindex(char.encode(text_encoding))
    size = len(char.encode(text_encoding))
    return data[:at + keep] + data[at + size:], at


# -- 1. one damaged byte ------------------------------------------------------------
def test_a_utf8_file_cut_mid_character_keeps_its_games_and_says_where():
    data, at = _cut(CHINESE.encode("utf-8"), "阵", "utf-8")
    found, problems = records.read_bytes(data, "cut.pgn")
    assert len(found) == 1 and found[0].moves == ["h2e2", "h9g7", "h0g2"]
    assert found[0].tags["Red"] == "许银川"                 # not GB18030 garbage
    assert found[0].comments == ["中炮开局", "屏风马应对", "双方布\ufffd"]
    warning = [str(p) for p in problems if p.game == 0]
    assert warning == [f"cut.pgn: 1 damaged byte (not UTF-8) at offset {at}: "
                       "each read as U+FFFD"], problems
    assert all(p.game_kept for p in problems)


def test_a_big5_or_gb_file_cut_mid_character_keeps_its_games():
    text = ('[Game "Chinese Chess"]\n[Event "測試"]\n[Red "許銀川"]\n[Black "呂欽"]\n'
            '[Result "*"]\n[Format "Chinese"]\n\n'
            "1. 炮二平五 {中炮開局} 馬８進７ {屏風馬應對} 2. 馬二進三 {雙方布陣} *\n")
    for text_encoding, name in (("big5", "Big5"), ("gb18030", "GB18030")):
        for char in ("對", "陣", "局"):              # the last comment, and one before it
            data, at = _cut(text.encode(text_encoding), char, text_encoding)
            found, problems = records.read_bytes(data, "cut.pgn")
            assert len(found) == 1 and len(found[0].moves) == 3, (text_encoding, char, problems)
            assert found[0].tags["Red"] == "許銀川"
            assert sum(c == "\ufffd" for c in "".join(found[0].comments)) == 1
            assert [p.message for p in problems] == [
                f"1 damaged byte (not {name}) at offset {at}: each read as U+FFFD"]


def test_an_intact_file_reads_without_a_warning_in_each_encoding():
    text = CHINESE.replace("测试", "測試").replace("马", "馬").replace("进", "進") \
        .replace("许银川", "許銀川").replace("吕钦", "呂欽").replace("风", "風") \
        .replace("应对", "應對").replace("开", "開").replace("双", "雙").replace("阵", "陣")
    for text_encoding in ("utf-8", "gb18030", "big5", "utf-16"):
        decoded = encoding.read(text.encode(text_encoding))
        assert decoded.text == text and decoded.damaged == [] and decoded.warning() is None


def test_tuong_pgn_prints_the_damage_on_stderr(tmp_path, capsys):
    data, at = _cut(CHINESE.encode("utf-8"), "阵", "utf-8")
    (tmp_path / "cut.pgn").write_bytes(data)
    status = records.main(["convert", str(tmp_path / "cut.pgn"), "-o", str(tmp_path / "out.pgn")])
    err = capsys.readouterr().err
    assert f"warning: cut.pgn: 1 damaged byte (not UTF-8) at offset {at}" in err
    # a character lost, no game nor variation: said, and the conversion succeeded
    assert status == 0 and "1 file with damaged bytes" in err
    assert "1. C2=5 {中炮开局} H8+7" in (tmp_path / "out.pgn").read_text(encoding="utf-8")


# -- 2. a comment before the first tag; a broken first game ---------------------------
def test_a_comment_before_the_first_tag_is_no_game():
    game = '[Event "e"]\n[Red "A"]\n[Black "B"]\n\n1. h2e2 h9g7 *\n'
    for preamble in ("; exported by SomeGUI\n", "{notes on the file}\n"):
        text = preamble + game
        assert records.count_games(text) == 1
        found, problems = records.read_pgn(text)
        assert len(found) == 1 and not problems and found[0].moves == ["h2e2", "h9g7"]
        assert found[0].tags["Event"] == "e"
        assert found[0].intro in ("exported by SomeGUI", "notes on the file")
        (tree, tags), count, _ = web_game.first_game((records.read_pgn, text), "wxf")
        assert count == 1 and tags["Event"] == "e" and len(tree.main_line()) == 2


def test_a_broken_first_game_is_an_error_naming_it_not_game_2():
    text = ('[Event "one"]\n[Red "A"]\n[Black "B"]\n\n1. h2e2 zz *\n\n'
            '[Event "two"]\n[Red "C"]\n[Black "D"]\n\n1. h2e2 h9g7 *\n')
    loaded, count, problems = web_game.first_game((records.read_pgn, text), "wxf")
    assert loaded is None and problems[0].game == 1 and "zz" in str(problems[0])
    loaded, count, problems = web_game.first_game((records.read_bytes, text.encode(), "g.pgn"),
                                                  "wxf")
    assert loaded is None and str(problems[0]).startswith("g.pgn, game 1 (A - B), move 1 'zz'")

    async def body():
        async with Page() as page:
            error = await page.send(type="import", text=text)
            assert error["type"] == "error" and "game 1 (A - B)" in error["message"], error
    run(body())


# -- 5. a variation that repeats its move ----------------------------------------------
def test_a_variation_that_repeats_its_move_keeps_its_comment_and_mark():
    found, problems = records.read_pgn(
        "1. h2e2 {the central cannon} (1. h2e2!? {a sharp try} 1... h7e7) 1... h9g7 *")
    assert not problems
    first = found[0].tree.root.children[0]
    assert first.move == "h2e2" and first.mark == "!?"
    assert first.comment == "the central cannon a sharp try"
    assert [child.move for child in first.children] == ["h9g7", "h7e7"]
    written = records.format_pgn(found[0], "coords")
    assert "1. h2e2!? {the central cannon a sharp try} h9g7 (1... h7e7) *" in written


def test_a_repeated_move_with_another_mark_reports_the_mark_it_drops():
    found, problems = records.read_pgn("1. h2e2! (1. h2e2?? 1... h7e7) 1... h9g7 *", "v.pgn")
    assert found[0].tree.root.children[0].mark == "!"
    assert [str(p) for p in problems] == [
        "v.pgn, game 1 (? - ?), move 1 'h2e2': mark ?? dropped: a variation repeats "
        "the move, which has !"]
    assert problems[0].game_kept


# -- 6. tags ------------------------------------------------------------------------------
def test_export_writes_red_and_black_and_keeps_every_tag_in_its_order():
    text = ('[Game "Chinese Chess"]\n[Event "Cup"]\n[Site "Hanoi"]\n[Date "2024.05.01"]\n'
            '[Round "3"]\n[RedTeam "North"]\n[Red "Lan"]\n[BlackTeam "South"]\n[Black "Minh"]\n'
            '[Result "1-0"]\n[ECCO "B05"]\n[Opening "Central cannon"]\n[Format "ICCS"]\n\n'
            "1. H2-E2 H9-G7 1-0\n")
    found, _ = records.read_pgn(text)
    assert found[0].red == "Lan" and found[0].title() == "Lan - Minh"
    written = records.format_pgn(found[0], "iccs")
    assert written.startswith(text.split("\n\n")[0] + '\n[Variant "xiangqi"]\n\n'), written
    assert "[White" not in written
    again, _ = records.read_pgn(written)
    assert records.format_pgn(again[0], "iccs") == written


def test_a_record_that_said_white_is_written_with_red_and_the_game_tag():
    found, _ = records.read_pgn('[Event "m"]\n[White "tuong"]\n[Black "fsf"]\n\n1. h2e2 *\n')
    written = records.format_pgn(found[0], "wxf")
    tags = [line for line in written.splitlines() if line.startswith("[")]
    assert tags == ['[Game "Chinese Chess"]', '[Event "m"]', '[Site "?"]', '[Date "?"]',
                    '[Round "?"]', '[Red "tuong"]', '[Black "fsf"]', '[Result "*"]',
                    '[Format "WXF"]', '[Variant "xiangqi"]']
    assert records.read_pgn(written)[0][0].tags["White"] == "tuong"       # read both forms


def test_the_browser_keeps_a_records_tags_and_exports_red():
    text = ('[Game "Chinese Chess"]\n[Event "Cup"]\n[RedTeam "North"]\n[Red "Lan"]\n'
            '[Black "Minh"]\n[Result "1-0"]\n[Format "ICCS"]\n\n1. H2-E2 H9-G7 1-0\n')

    async def body():
        async with Page() as page:
            state = await page.send(type="import", text=text)
            assert state["headers"]["White"] == "Lan" and "Red" not in state["headers"]
            assert state["headers"]["RedTeam"] == "North"
            exported = (await page.send(type="export"))["text"]
            for tag in ('[Game "Chinese Chess"]', '[RedTeam "North"]', '[Red "Lan"]',
                        '[Black "Minh"]', '[Event "Cup"]'):
                assert tag in exported, (tag, exported)
            assert "[White" not in exported
            state = await page.send(type="headers", headers={"White": "Hoa"})
            exported = (await page.send(type="export"))["text"]
            assert '[Red "Hoa"]' in exported and "Lan" not in exported
    run(body())


# -- 7. the move blamed ------------------------------------------------------------------
def test_the_first_move_that_fails_in_the_notation_of_most_moves_is_blamed():
    _, problems = records.read_pgn("1. h2e2 h9g7 2. h0g2 zz *", "x.pgn")
    assert [str(p) for p in problems] == [
        "x.pgn, game 1 (? - ?), move 2 'zz': not a coordinate move: 'zz'"]
    assert notation.detect(["h2e2", "h9g7", "h0g2", "zz"]) == "coords"
    assert notation.detect(["C2=5", "H8+7", "h0g2", "H2+3"]) == "wxf"
    assert notation.detect(["炮二平五", "马８进７", "C2=5"]) == "chinese"
    _, problems = records.read_pgn("1. C2=5 H8+7 2. H2+3 R9=8 3. R1=2 h7e7 *", "w.pgn")
    assert [(p.move_number, p.text) for p in problems] == [(3, "h7e7")]


# -- 8. pasted EPD ------------------------------------------------------------------------
EPD = ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n"
       '3k5/9/9/9/9/9/9/9/R8/4K4 w - - bm a1a9; id "mate in one";\n')


def test_pasted_epd_lines_are_positions():
    assert records.looks_like_fen_lines(EPD) and not records.looks_like_fen_lines(CHINESE)
    found, problems = records.read_text(EPD)
    assert not problems and [r.fen.split()[0] for r in found] == \
        ["rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", "3k5/9/9/9/9/9/9/9/R8/4K4"]
    found, problems = records.read_bytes(EPD.encode(), "positions.txt")
    assert len(found) == 2 and not problems

    async def body():
        async with Page() as page:
            state = await page.send(type="import", text=EPD)
            assert state["type"] == "state", state
            assert state["fen"].startswith("rnbakabnr/9/1c5c1")
    run(body())


# -- 9. a byte-order mark in pasted text ----------------------------------------------------
def test_text_opened_by_a_byte_order_mark_reads_as_without_it():
    # A file a Windows editor saved, opened as "utf-8" rather than "utf-8-sig",
    # hands the mark over as the text's first character: it is not a move.
    pgn = '[Event "x"]\n[Result "1-0"]\n\n1. h2e2 h9g7 1-0\n'
    for read in (records.read_pgn, records.read_text):
        plain, marked = read(pgn), read("\ufeff" + pgn)
        assert marked == plain and not marked[1] and marked[0][0].moves == ["h2e2", "h9g7"]
    found, problems = records.read_text("\ufeff" + EPD)
    assert not problems and len(found) == 2
    assert records.read_fen_lines("\ufeff" + EPD) == records.read_fen_lines(EPD)
