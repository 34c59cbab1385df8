"""Issue 54, the browser page: the annotation's summary shown per side
(15); every word in the player's language, the server's refusals included
(16); the board's edge labels that follow the notation (17); and the small
things a player meets (18): a refused annotation's label, a stale notice,
Delete that asks and whose undo outlives a reload, a comment being typed
kept through a reload, Dodgem's result and graph, "1 move", the comment
box, and "Download all" with the game kept aside for a link."""
# The browser's fixtures come from test_web_browser; a test naming one as its
# argument redefines the imported name, as pytest intends.
# ruff: noqa: F811
import ast
import pathlib
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tuong.engine.board import Board
from tuong.tools import records
from test_web_browser import (browser, confirm, play, press, server, set_mode,  # noqa: F401
                              state, text, until)

WEB = pathlib.Path(__file__).resolve().parent.parent / "tools" / "web"


def choose(driver, element_id, value):
    Select(driver.find_element(By.ID, element_id)).select_by_value(value)


def edge_labels(driver, cls):
    """The texts of one row of edge labels, left to right on the screen, and its height."""
    found = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => "
        "[Number(e.getAttribute('x')), Number(e.getAttribute('y')), e.textContent])",
        f"#board-bg .coord.{cls}")
    found.sort()
    return "".join(label for _, _, label in found), {y for _, y, _ in found}


def test_the_summary_is_shown_per_side(browser):
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7", "h0g2")
    browser.find_element(By.ID, "annotate").click()
    browser.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR,
                                                     "#summary-table tbody tr")) == 2)
    moves = state(browser)["moves"]
    for side, mine in (("w", moves[0::2]), ("b", moves[1::2])):
        row = browser.find_element(By.CSS_SELECTOR, f'#summary-table tr[data-side="{side}"]')
        assert row.find_element(By.TAG_NAME, "th").text.startswith(
            "Red" if side == "w" else "Black")
        assert re.fullmatch(r"\d+ cp", row.find_element(By.CLASS_NAME, "summary-loss").text)
        for mark in ("??", "?", "?!"):
            shown = row.find_element(By.CSS_SELECTOR, f'[data-mark="{mark}"]').text
            assert int(shown) == sum(m["amark"] == mark for m in mine), (side, mark)
    # In the page's language, as the rest of it.
    choose(browser, "lang", "vi")
    browser.wait.until(lambda d: "Mất trung bình" in d.find_element(By.ID, "summary").text)


def test_the_edge_labels_follow_the_notation(browser):
    set_mode(browser, "")
    # WXF (English's notation): each side counts its files from its right.
    red, red_y = edge_labels(browser, "file-red")
    black, black_y = edge_labels(browser, "file-black")
    assert red == "987654321" and black == "123456789"
    assert min(red_y) > max(black_y)                  # Red's under the board, Black's over it
    assert not browser.find_elements(By.CSS_SELECTOR, "#board-bg .rank-coord")
    choose(browser, "notation", "chinese")
    until(browser, lambda s: s["notation"] == "chinese", "Chinese notation")
    browser.wait.until(lambda d: edge_labels(d, "file-red")[0] == "九八七六五四三二一")
    assert edge_labels(browser, "file-black")[0] == "123456789"
    # Turned round, each side's numbers go with it.
    browser.find_element(By.ID, "flip").click()
    red, red_y = edge_labels(browser, "file-red")
    black, black_y = edge_labels(browser, "file-black")
    assert red == "一二三四五六七八九" and black == "987654321" and max(red_y) < min(black_y)
    browser.find_element(By.ID, "flip").click()
    # Coordinates keep a-i and 0-9.
    choose(browser, "notation", "coords")
    until(browser, lambda s: s["notation"] == "coords", "coordinates")
    browser.wait.until(lambda d: edge_labels(d, "file-coord")[0] == "abcdefghi")
    ranks = browser.execute_script("return [...document.querySelectorAll('#board-bg .rank-coord')]"
                                   ".map(e => e.textContent)")
    assert sorted(ranks) == list("0123456789")
    assert not browser.find_elements(By.CSS_SELECTOR, "#board-bg .file-red")


def refusal_samples():
    """Every text the server can refuse with (tools/web/*.py, `Refused(...)`,
    and its errors and notices), its parts filled in."""
    samples = set()

    def sample(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(sample(v) for v in node.values)
        if isinstance(node, ast.FormattedValue):
            return "'12'" if node.conversion == ord("r") else "12"
        if isinstance(node, ast.BinOp):
            return sample(node.left) + sample(node.right)
        if isinstance(node, ast.IfExp):
            return sample(node.body)
        return None

    for path in WEB.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refused" \
                    and node.args:
                text = sample(node.args[0])
                if text and text != "12":
                    samples.add(text)
            if isinstance(node, ast.Dict):                # {"type": "error", "message": ...}
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                if "message" in keys or ("text" in keys and "type" in keys):
                    value = node.values[keys.index("message" if "message" in keys else "text")]
                    text = sample(value)
                    if text and text.strip() and "12" != text:
                        samples.add(text)
    return sorted(samples)


SETUP_REFUSALS = [
    "not a legal position: too many Red kings: a set has 1",
    "not a legal position: Black advisor outside its palace at a5",
    "not a legal position: Red elephant off its seven points at e1",
    "not a legal position: Red king missing",
    "not a legal position: a Red pawn cannot stand on b3 (before the river, pawns stand "
    "only on the files a, c, e, g and i)",
    "not a legal position: the generals face each other on an open file",
    "not a legal position: the side not to move is in check",
    "not a legal position: FEN has 3 ranks, expected 10: 'x/y/z'",
]


def test_every_refusal_is_said_in_the_players_language(browser):
    samples = refusal_samples()
    assert len(samples) > 50 and any("too many pages open" in s for s in samples)
    for lang in ("zh-Hans", "zh-Hant", "vi"):
        # The page's own modules (the dictionary, server-texts.js), as it imports them.
        said = browser.execute_async_script("""
            const [texts, lang, done] = arguments;
            Promise.all([import(`/static/i18n/${lang}.js`), import('/static/server-texts.js')])
              .then(([words, server]) => {
                const table = words.default;
                const t = (s, v) => { let o = table[s] || s;
                  for (const [k, x] of Object.entries(v || {})) o = o.split('{' + k + '}').join(x);
                  return o; };
                done(texts.map((x) => server.localize(x, t)));
              }, (error) => done(String(error)));""", samples + SETUP_REFUSALS, lang)
        assert isinstance(said, list), said
        untranslated = [s for s, out in zip(samples + SETUP_REFUSALS, said) if out == s]
        assert not untranslated, (lang, untranslated)
        if lang != "vi":
            english = [out for out in said[len(samples):] if re.search(r"\b(?:too|Red|king|"
                                                                        r"palace|river)\b", out)]
            assert not english, english
    # A server message said in the page's language already (`local`) is shown so,
    # and one with a `key` the page knows, by its key and parameters.
    choose(browser, "lang", "zh-Hans")
    until(browser, lambda s: s["lang"] == "zh-Hans", "Chinese")
    browser.execute_script("window.tuong.receive({type: 'error', message: 'whatever', "
                           "local: 'as the server said it'})")
    browser.wait.until(lambda d: text(d, "error") == "as the server said it")
    choose(browser, "lang", "vi")
    until(browser, lambda s: s["lang"] == "vi", "Vietnamese")
    browser.execute_script("window.tuong.receive({type: 'error', message: 'whatever', "
                           "key: '{0} declines the draw', params: {0: 'tuong'}})")
    browser.wait.until(lambda d: text(d, "error") == "tuong từ chối hòa")


def test_the_page_speaks_the_players_language(browser):
    set_mode(browser, "")
    choose(browser, "lang", "zh-Hans")
    until(browser, lambda s: s["lang"] == "zh-Hans", "Chinese")
    # The help shows the keys as they are pressed.
    press(browser, "?")
    keys = [k.text for k in browser.find_elements(By.CSS_SELECTOR, "#help kbd")]
    assert "s" in keys and "秒" not in keys
    press(browser, "?")
    # The set-up palette's tooltips.
    browser.find_element(By.ID, "setup").click()
    rook = browser.find_element(By.CSS_SELECTOR, '#setup-palette [data-piece="R"]')
    assert rook.get_attribute("title") == "红方 车"
    eraser = browser.find_element(By.CSS_SELECTOR, '#setup-palette [data-piece=""]')
    assert "橡皮擦" in eraser.get_attribute("title")
    # A refused set-up: the sentence in Chinese.
    browser.find_element(By.CSS_SELECTOR, '#setup-palette [data-piece="K"]').click()
    browser.find_element(By.CSS_SELECTOR, '[data-square="d0"]').click()
    browser.find_element(By.ID, "setup-done").click()
    browser.wait.until(lambda d: text(d, "error"))
    said = text(browser, "error")
    assert "过多" in said or "太多" in said, said
    assert not re.search(r"too many|king|Red", said), said
    browser.find_element(By.ID, "setup-cancel").click()
    # "too many pages open", as the server says it to a page too many.
    browser.execute_script("window.tuong.receive({type: 'error', "
                           "message: 'too many pages open (at most 8)'})")
    browser.wait.until(lambda d: "打开的页面太多" in text(d, "error"))
    # The analysis' speed line.
    browser.find_element(By.ID, "analyse").click()
    browser.wait.until(lambda d: text(d, "analysis-stats"))
    stats = text(browser, "analysis-stats")
    assert "节点" in stats and "nodes" not in stats
    browser.find_element(By.ID, "analyse").click()
    until(browser, lambda s: not s["analysing"], "the analysis to stop")


def test_a_refused_annotation_and_a_notice_do_not_linger(browser):
    set_mode(browser, "")
    browser.find_element(By.ID, "annotate").click()            # no moves: refused
    browser.wait.until(lambda d: text(d, "error"))
    browser.wait.until(lambda d: d.find_element(By.ID, "annotation-progress").text == "")
    browser.execute_script(
        "window.tuong.receive({type: 'notice', text: 'tuong declines the draw'})")
    browser.wait.until(lambda d: "declines" in text(d, "notice"))
    play(browser, "h2e2")
    press(browser, "n")
    confirm(browser)
    until(browser, lambda s: not s["moves"], "the new game")
    assert text(browser, "notice") == ""


def test_delete_asks_and_its_undo_and_a_draft_outlive_a_reload(browser):
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7", "h0g2")
    second = state(browser)["moves"][1]["id"]
    browser.find_element(By.CSS_SELECTOR, f'#movelist [data-node="{second}"]').click()
    until(browser, lambda s: s["ply"] == 2, "ply 2")
    browser.find_element(By.ID, "tree-delete").click()
    confirm(browser, yes=False)                                  # it asks; No keeps the move
    assert len(state(browser)["moves"]) == 3
    browser.find_element(By.ID, "tree-delete").click()
    confirm(browser)
    until(browser, lambda s: len(s["moves"]) == 1, "the deletion")
    browser.refresh()
    until(browser, lambda s: len(s["moves"]) == 1 and not s["can_undo_edit"], "the page back")
    browser.wait.until(lambda d: d.find_element(By.ID, "tree-undo").is_enabled())
    browser.find_element(By.ID, "tree-undo").click()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == ["h2e2", "h9g7", "h0g2"],
          "the deleted moves back")
    # A comment being typed when the page reloads is kept.
    first = state(browser)["moves"][0]["id"]
    browser.find_element(By.CSS_SELECTOR, f'#movelist [data-node="{first}"]').click()
    until(browser, lambda s: s["ply"] == 1, "ply 1")
    field = browser.find_element(By.ID, "comment-text")
    words = "the central cannon, " * 40 + "a long thought"
    field.click()
    browser.execute_script("arguments[0].value = arguments[1];"
                           "arguments[0].dispatchEvent(new Event('input'))", field, words[:-1])
    field.send_keys(words[-1])
    # The box grows with the comment: nothing is cut off.
    height = browser.execute_script("return arguments[0].clientHeight", field)
    assert height > 60
    browser.refresh()
    until(browser, lambda s: s["moves"] and s["moves"][0]["comment"] == words, "the draft kept")
    style = browser.execute_script("return getComputedStyle(document.getElementById("
                                   "'current-comment')).flexShrink")
    assert style == "0"


def test_dodgem_results_and_graph_are_the_first_players(browser):
    set_mode(browser, "")
    choose(browser, "variant", "dodgem")
    browser.find_element(By.ID, "new").click()
    until(browser, lambda s: s["variant"] == "dodgem" and s["legal"] and not s["thinking"],
          "Dodgem")
    move = state(browser)["legal"][0]
    browser.execute_script("window.tuong.send({type: 'move', move: arguments[0]})", move)
    until(browser, lambda s: s["ply"] == 1, "the move")
    # The server scores by side w (White); Black, who moves first, is ahead here,
    # and the game ends in Black's win, 1-0.
    browser.execute_script("""
        const st = JSON.parse(JSON.stringify(window.tuong.state));
        const node = Object.fromEntries(window.tuong.nodes())[st.cursor];
        st.reset = false; delete st.moves;
        st.nodes = [{...node, score: -600, mate: null}];
        st.result = {result: '1-0', termination: 'game over', reason: 'Black wins'};
        window.tuong.receive(st);""")
    browser.wait.until(lambda d: "wins" in text(d, "status"))
    assert text(browser, "status") == "Black wins"
    point = browser.find_element(By.CSS_SELECTOR, "#eval-graph .graph-point")
    middle = browser.find_element(By.CSS_SELECTOR, "#eval-graph .graph-mid")
    assert float(point.get_attribute("cy")) < float(middle.get_attribute("y1"))   # up: Black's


def test_one_move_and_download_all_with_the_game_before_a_link(browser, server):
    set_mode(browser, "")
    play(browser, "h2e2")
    browser.find_element(By.ID, "library-save").click()
    browser.wait.until(lambda d: "(1 move)" in text(d, "library-list"))
    play(browser, "h9g7")
    start = Board().fen()
    browser.get(f"{server}#variant=xiangqi&fen={start.replace(' ', '%20')}&moves=b2e2")
    browser.refresh()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == ["b2e2"], "the linked game")
    browser.wait.until(lambda d: "The game before the link" in text(d, "library-list"))
    written = browser.execute_script("return window.tuong.libraryText()")
    # The library keeps the module's earlier tests' games too (the database is
    # the server's); the small games' records ([Variant "dodgem"]) are not Xiangqi PGN.
    xiangqi = [block for block in re.split(r"\n\n(?=\[)", written)
               if '[Variant "' not in block or '[Variant "xiangqi"]' in block]
    games, problems = records.read_pgn("\n\n".join(xiangqi))
    assert not problems
    kept = [g.moves for g in games]
    assert ["h2e2"] in kept and ["h2e2", "h9g7"] in kept
