"""tuong-web in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by Selenium plays against the engine by clicks and
by drag and drop, takes back, asks a hint, sets up a position and plays it
out to mate, imports a PGN and exports it, analyses, plays a small game, and
survives a reload. With TUONG_SCREENSHOTS=DIR it also saves the README's
pictures there (docs/ in the repository)."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import HANG, DATA, need, need_module

need_module("starlette")
need_module("uvicorn")
need_module("selenium")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
need(os.path.exists(CHROMIUM) and os.path.exists(DRIVER),
     "Chromium and its driver are not installed (Debian: chromium chromium-driver)")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tuong.engine.board import Board  # noqa: E402
from tuong.tools import records  # noqa: E402

WAIT = HANG * 3


def serve(db_path):
    """tuong-web on a free port with the games database `db_path`: yields its
    address, then stops it (the body of the server fixtures)."""
    process = subprocess.Popen([sys.executable, "-m", "tuong.tools.web", "--no-browser",
                                "--port", "0", "--db", str(db_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://[\d.]+:\d+/", line)
    assert match, line + process.stderr.read()
    yield match.group(0)
    process.terminate()
    process.wait(HANG)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # the library in a database of the test's, not the home's
    yield from serve(tmp_path_factory.mktemp("web") / "games.sqlite")


@pytest.fixture
def browser(server, tmp_path):
    driver = open_browser(server, tmp_path)
    yield driver
    driver.quit()


def open_browser(server, tmp_path, languages=None):
    """Headless Chromium on the page (`languages`: the browser's, e.g. "zh-TW")."""
    os.environ.setdefault("SE_OFFLINE", "true")      # never let Selenium fetch a driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,860",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    if languages:
        options.add_experimental_option("prefs", {"intl.accept_languages": languages})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    driver.get(server)
    driver.wait = WebDriverWait(driver, WAIT)
    state(driver)                                     # the page has its first state
    return driver


def state(driver):
    """The page's last state, once it has one."""
    return WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.tuong && window.tuong.state"))


def until(driver, test, what):
    try:
        return WebDriverWait(driver, WAIT).until(lambda d: test(state(d)))
    except Exception:
        raise AssertionError(f"timed out waiting for {what}; "
                             f"error: {text(driver, 'error')!r}") from None


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def square(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f'[data-square="{name}"]')


def click_drawn(driver, selector):
    """Click the element at `selector` in a list the page draws again as
    states come (the move list, the library): one found may be gone by the
    click, so find it again until a click lands."""
    def clicked(d):
        try:
            d.find_element(By.CSS_SELECTOR, selector).click()
            return True
        except StaleElementReferenceException:
            return False
    WebDriverWait(driver, WAIT).until(clicked)


def click_move(driver, move):
    square(driver, move[:2]).click()
    square(driver, move[2:]).click()


def drag_move(driver, move):
    ActionChains(driver).click_and_hold(square(driver, move[:2])) \
        .move_to_element(square(driver, move[2:])).release().perform()


def set_mode(driver, engine, kind="nodes", value="2000"):
    Select(driver.find_element(By.ID, "engine-side")).select_by_value(engine)
    Select(driver.find_element(By.ID, "level-kind")).select_by_value(kind)
    field = driver.find_element(By.ID, "level-value")
    field.clear()
    field.send_keys(value)
    driver.find_element(By.ID, "apply-mode").click()
    until(driver, lambda s: s["mode"]["engine"] == (engine or None), "the mode")


def press(driver, key):
    ActionChains(driver).send_keys(key).perform()


def confirm(driver, yes=True):
    """Answer the page's question (it asks before replacing or ending a game)."""
    driver.wait.until(lambda d: d.find_element(By.ID, "confirm").is_displayed())
    driver.find_element(By.ID, "confirm-yes" if yes else "confirm-no").click()


def play(driver, *moves):
    for move in moves:
        count = state(driver)["ply"]
        click_move(driver, move)
        until(driver, lambda s, count=count: s["ply"] == count + 1 and not s["thinking"],
              f"the move {move}")


def screenshot(driver, name):
    folder = os.environ.get("TUONG_SCREENSHOTS")
    if folder:
        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        path = pathlib.Path(folder) / name
        driver.save_screenshot(str(path))
        try:                                          # 256 colours: a third of the bytes
            from PIL import Image
            Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)
        except ImportError:
            pass


def test_play_by_click_and_drag_take_back_and_hint(browser):
    set_mode(browser, "b")
    click_move(browser, "h2e2")
    until(browser, lambda s: len(s["moves"]) == 2 and not s["thinking"], "the engine's reply")
    assert browser.find_elements(By.CSS_SELECTOR, ".last-move")
    drag_move(browser, "h0g2")
    until(browser, lambda s: len(s["moves"]) == 4 and not s["thinking"], "the second reply")
    listed = browser.find_elements(By.CSS_SELECTOR, "#movelist [data-node]")
    assert len(listed) == 4 and listed[0].text.strip().startswith("C2")   # WXF: C2=5 / C2.5
    press(browser, "u")                               # back two plies; the moves stay
    until(browser, lambda s: s["ply"] == 2 and len(s["moves"]) == 4, "the take-back")
    browser.find_element(By.ID, "hint").click()
    browser.wait.until(lambda d: d.execute_script("return window.tuong.lastHint"))
    hint = browser.execute_script("return window.tuong.lastHint")
    board = Board()
    current = state(browser)
    for move in [m["move"] for m in current["moves"][:current["ply"]]]:
        board.push(move)
    assert hint["move"] in board.legal_moves()
    assert text(browser, "hint-text")
    # A legal-move hint appears on pick-up, and an illegal target changes nothing.
    square(browser, "h0").click()
    assert browser.find_elements(By.CSS_SELECTOR, ".hint-dot")
    square(browser, "h5").click()
    assert state(browser)["ply"] == 2
    screenshot(browser, "web-play.png")
    # A focused drop-down does not eat the arrow keys: they step through the game.
    browser.execute_script("document.getElementById('notation').focus()")
    press(browser, "\ue012")                          # ArrowLeft
    assert Select(browser.find_element(By.ID, "notation")).first_selected_option \
        .get_attribute("value") == "wxf"
    until(browser, lambda s: s["ply"] == 1, "a step back from a drop-down")
    # The engine takes Red: the board turns to the player.
    set_mode(browser, "w")
    browser.wait.until(lambda d: d.find_element(By.ID, "flip").get_attribute("aria-pressed")
                       == "true")
    # A long error (an unbroken FEN) wraps: the board keeps its size.
    width = browser.find_element(By.ID, "board").rect["width"]
    browser.execute_script("window.tuong.send({type: 'new', fen: 'x'.repeat(290)})")
    browser.wait.until(lambda d: d.find_element(By.ID, "error").text)
    assert abs(browser.find_element(By.ID, "board").rect["width"] - width) < 1


def test_set_up_a_position_and_play_it_to_mate(browser):
    set_mode(browser, "b", "depth", "3")
    browser.find_element(By.ID, "setup").click()
    browser.find_element(By.ID, "setup-clear").click()
    placement = {"e9": "k", "d0": "K", "a8": "R", "b6": "R", "a3": "P"}
    for name, piece in placement.items():
        browser.find_element(By.CSS_SELECTOR, f'#setup-palette [data-piece="{piece}"]').click()
        square(browser, name).click()
    # First an illegal one: a second Red general.
    browser.find_element(By.CSS_SELECTOR, '#setup-palette [data-piece="K"]').click()
    square(browser, "e0").click()
    browser.find_element(By.ID, "setup-done").click()
    browser.wait.until(lambda d: d.find_element(By.ID, "error").text)
    assert "general" in text(browser, "error").lower()     # the page's name for the king
    browser.find_element(By.CSS_SELECTOR, '#setup-palette [data-piece=""]').click()
    square(browser, "e0").click()
    browser.find_element(By.ID, "setup-done").click()
    until(browser, lambda s: s["start_fen"].startswith("4k4/R8/9/1R7"), "the set-up position")
    # Red (the test) plays the engine's hints until the game ends.
    for _ in range(30):
        current = state(browser)
        if current["result"]:
            break
        browser.execute_script("window.tuong.lastHint = null")
        press(browser, "h")
        browser.wait.until(lambda d: d.execute_script("return window.tuong.lastHint"))
        move = browser.execute_script("return window.tuong.lastHint.move")
        count = len(current["moves"])
        click_move(browser, move)
        until(browser,
              lambda s, count=count: s["result"] or (len(s["moves"]) >= count + 2
                                                     and not s["thinking"]),
              "the engine's reply")
    final = state(browser)
    assert final["result"] and final["result"]["result"] == "1-0", final["result"]
    assert "Red mates" in text(browser, "status")


def test_import_pgn_then_export_it(browser):
    source = sorted((DATA / "records").rglob("*.pgn"))[0]
    original, _ = records.read_bytes(source.read_bytes(), source.name)
    pgn = records.format_pgn(original[0], "wxf")
    field = browser.find_element(By.ID, "import-text")
    browser.execute_script("arguments[0].value = arguments[1]", field, pgn)
    browser.find_element(By.ID, "import-button").click()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == original[0].moves, "the import")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#movelist [data-node]")) == \
        len(original[0].moves)
    browser.find_element(By.ID, "export").click()
    browser.wait.until(lambda d: d.execute_script("return window.tuong.lastPgn"))
    exported, problems = records.read_pgn(browser.execute_script("return window.tuong.lastPgn"))
    assert not problems and exported[0].moves == original[0].moves
    # The record's own headers come back (fault 3), and are shown to edit.
    for tag in ("Event", "White", "Black", "Date"):
        if original[0].tags.get(tag, "?") not in ("?", ""):
            assert exported[0].tags[tag] == original[0].tags[tag], tag
    assert browser.find_element(By.ID, "header-Black").get_attribute("value") == \
        original[0].tags["Black"]
    press(browser, "\ue012")                          # ArrowLeft: one ply back
    until(browser, lambda s: s["ply"] == len(s["moves"]) - 1, "a step back")
    press(browser, "\ue011")                          # Home
    until(browser, lambda s: s["ply"] == 0, "the start")


def test_analysis_lines_arrows_and_graph(browser):
    set_mode(browser, "")
    click_move(browser, "h2e2")
    until(browser, lambda s: len(s["moves"]) == 1, "the move")
    Select(browser.find_element(By.ID, "multipv")).select_by_value("3")
    browser.find_element(By.ID, "analyse").click()
    browser.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#analysis-lines .pv-line"))
                       >= 3)
    browser.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".arrow, [class*=arrow]"))
    time.sleep(1.5)                                  # let the lines deepen for the picture
    screenshot(browser, "web-analysis.png")
    browser.find_element(By.ID, "analyse").click()
    until(browser, lambda s: not s["analysing"], "the analysis to stop")
    browser.find_element(By.ID, "annotate").click()
    until(browser, lambda s: s["moves"][0]["note"] and s["moves"][0]["score"] is not None,
          "the annotation")
    points = browser.find_elements(By.CSS_SELECTOR, "#eval-graph [data-ply]")
    assert points
    points[0].click()
    until(browser, lambda s: s["ply"] == int(points[0].get_attribute("data-ply")),
          "a click on the graph")


def test_small_game_and_reload(browser):
    Select(browser.find_element(By.ID, "variant")).select_by_value("tictactoe")
    browser.find_element(By.ID, "new").click()
    until(browser, lambda s: s["variant"] == "tictactoe", "tic-tac-toe")
    assert not browser.find_element(By.ID, "annotate").is_displayed()   # Xiangqi's only
    set_mode(browser, "b", "depth", "9")
    square(browser, "b2").click()
    until(browser, lambda s: len(s["moves"]) == 2 and not s["thinking"], "the engine's reply")
    moves = [m["move"] for m in state(browser)["moves"]]
    browser.refresh()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == moves, "the restored game")
    Select(browser.find_element(By.ID, "variant")).select_by_value("xiangqi")
    browser.find_element(By.ID, "new").click()
    confirm(browser)                                  # the game had moves: asked first
    until(browser, lambda s: s["variant"] == "xiangqi", "a new Xiangqi game")


GAME = ["h2e2", "h9g7", "i0i1", "i9h9", "h0g2", "b9c7", "b2b6", "c6c5", "b0c2", "a9b9"]


def test_move_now_and_a_move_in_the_middle_make_variations(browser):
    """Issue 37, faults 1 and 2: back at ply 2 of a 10-ply game, `g` gives
    the engine's move as a variation; a different move at ply 4 is another;
    nothing is deleted; the variations are exported, and come back from the
    PGN as the page shows them."""
    set_mode(browser, "")
    play(browser, *GAME)
    ids = [m["id"] for m in state(browser)["moves"]]
    click_drawn(browser, f'#movelist [data-node="{ids[1]}"]')
    until(browser, lambda s: s["ply"] == 2, "ply 2")
    press(browser, "g")
    until(browser, lambda s: s["ply"] == 3 and not s["thinking"], "the engine's move")
    nodes = browser.execute_script("return Object.fromEntries(window.tuong.nodes())")
    assert len(nodes[str(ids[1])]["children"]) in (1, 2)   # a variation, unless it chose i0i1
    browser.find_element(By.ID, "engine-side")
    set_mode(browser, "")
    click_drawn(browser, f'#movelist [data-node="{ids[3]}"]')
    until(browser, lambda s: s["ply"] == 4, "ply 4")
    click_move(browser, "b0c2")
    until(browser, lambda s: s["ply"] == 5, "the new move")
    shown = browser.find_elements(By.CSS_SELECTOR, "#movelist .variation")
    assert shown, "the variation is listed"
    main = browser.execute_script(
        "const n = Object.fromEntries(window.tuong.nodes()); let id = window.tuong.root();"
        "const out = []; while (n[id].children.length) { id = n[id].children[0];"
        " out.push(n[id].move); } return out;")
    assert main == GAME                               # the main line is whole
    screenshot(browser, "web-variations.png")
    browser.execute_script("window.tuong.lastPgn = null")
    browser.find_element(By.ID, "export").click()
    browser.wait.until(lambda d: d.execute_script("return window.tuong.lastPgn"))
    pgn = browser.execute_script("return window.tuong.lastPgn")
    assert "(" in pgn and "moves the" not in pgn
    exported, problems = records.read_pgn(pgn)
    assert not problems and exported[0].moves == GAME
    fourth = exported[0].tree.main_line()[3]
    assert [child.move for child in fourth.children] == ["h0g2", "b0c2"]
    # Imported back, the tree is the same.
    before = browser.execute_script("return JSON.stringify(window.tuong.saved().nodes)")
    field = browser.find_element(By.ID, "import-text")
    browser.execute_script("arguments[0].value = arguments[1]", field, pgn)
    browser.find_element(By.ID, "import-button").click()
    confirm(browser)
    until(browser, lambda s: s["ply"] == len(GAME), "the import")
    after = browser.execute_script("return JSON.stringify(window.tuong.saved().nodes)")
    assert json.loads(after) == [[p, m, c, k, None] for p, m, c, k, _ in json.loads(before)]


def test_new_game_and_resign_ask_first_and_the_game_comes_back(browser):
    """Fault 7: `n` and Resign ask; No keeps the game; a replaced game goes
    to the library and can be brought back."""
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7")
    press(browser, "n")
    confirm(browser, yes=False)
    assert state(browser)["ply"] == 2
    press(browser, "n")
    confirm(browser)
    until(browser, lambda s: s["ply"] == 0 and not s["moves"], "the new game")
    browser.wait.until(lambda d: d.find_element(By.ID, "reopen").is_displayed())
    browser.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#library-list .lib-open"))
    browser.find_element(By.ID, "reopen").click()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == ["h2e2", "h9g7"], "the game back")
    set_mode(browser, "b", "nodes", "300")
    browser.find_element(By.ID, "resign").click()
    confirm(browser, yes=False)
    assert state(browser)["result"] is None
    browser.find_element(By.ID, "resign").click()
    confirm(browser)
    until(browser, lambda s: s["result"] and s["result"]["termination"] == "resignation",
          "the resignation")


def test_a_game_link_keeps_the_game_it_replaces_in_the_library(browser, server):
    """Opening a link to a game does not lose the game the page held: it
    goes to the library, and opens from there."""
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7")
    start = Board().fen()
    browser.get(f"{server}#variant=xiangqi&fen={start.replace(' ', '%20')}&moves=b2e2")
    browser.refresh()                    # a new hash alone does not reload the page
    until(browser, lambda s: [m["move"] for m in s["moves"]] == ["b2e2"], "the linked game")
    browser.wait.until(lambda d: "The game before the link"
                       in d.find_element(By.ID, "library-list").text)
    click_drawn(browser, "#library-list .lib-open")
    confirm(browser)
    until(browser, lambda s: [m["move"] for m in s["moves"]] == ["h2e2", "h9g7"], "it, back")


def test_the_interface_speaks_chinese_and_vietnamese(browser):
    """The page in 中文 (simplified, traditional) and Tiếng Việt: its words,
    its status, the notation that goes with the language, letter pieces in
    the notation's letters; the choice stays after a reload."""
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7")
    Select(browser.find_element(By.ID, "lang")).select_by_value("zh-Hans")
    until(browser, lambda s: s["lang"] == "zh-Hans" and s["notation"] == "chinese", "Chinese")
    assert text(browser, "status") == "轮到红方走"
    assert text(browser, "new") == "新对局"
    assert state(browser)["moves"][0]["text"] == "炮二平五"
    assert "黑方走马" in text(browser, "current-comment")   # the commentary, in Chinese
    screenshot(browser, "web-zh.png")
    Select(browser.find_element(By.ID, "lang")).select_by_value("zh-Hant")
    until(browser, lambda s: s["lang"] == "zh-Hant", "traditional Chinese")
    assert text(browser, "new") == "新對局" and text(browser, "status") == "輪到紅方走"
    assert "馬" in browser.find_element(By.ID, "movelist").text
    Select(browser.find_element(By.ID, "lang")).select_by_value("vi")
    until(browser, lambda s: s["lang"] == "vi" and s["notation"] == "vietnamese", "Vietnamese")
    assert text(browser, "status") == "Đỏ đi" and text(browser, "new") == "Ván mới"
    browser.execute_script("window.tuong.send({type: 'move', move: 'a0a9'})")   # refused:
    browser.wait.until(lambda d: d.find_element(By.ID, "error").text)          # in Vietnamese
    assert text(browser, "error") == "nước a0a9 không hợp lệ ở đây"
    assert state(browser)["moves"][0]["text"] == "P2-5"
    Select(browser.find_element(By.ID, "pieces-style")).select_by_value("letters")
    browser.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-piece="C"] text'))
    letters = {el.get_attribute("data-piece"): el.find_element(By.TAG_NAME, "text").text
               for el in browser.find_elements(By.CSS_SELECTOR, "#board-points .piece")}
    assert letters["C"] == "P" and letters["R"] == "X" and letters["N"] == "M" and \
        letters["K"] == "Tg" and letters["P"] == "B" and letters["p"] == "C"
    screenshot(browser, "web-vi.png")
    browser.refresh()
    until(browser, lambda s: s["lang"] == "vi" and len(s["moves"]) == 2, "the page back")
    assert text(browser, "new") == "Ván mới"


def test_fen_copy_link_and_settings_kept(browser, server):
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7", "h0g2")
    press(browser, "\ue012")                          # back to ply 2
    until(browser, lambda s: s["ply"] == 2, "ply 2")
    browser.find_element(By.ID, "fen-copy").click()
    fen = state(browser)["fen"]
    assert browser.execute_script("return window.tuong.copied") == fen
    assert browser.find_element(By.ID, "fen-text").get_attribute("value") == fen
    browser.find_element(By.ID, "link-copy").click()
    link = browser.execute_script("return window.tuong.copied")
    assert link.startswith(server)
    browser.find_element(By.ID, "flip").click()
    Select(browser.find_element(By.ID, "theme")).select_by_value("dark")
    browser.find_element(By.ID, "sound").click()
    browser.get("about:blank")
    browser.get(link)                                 # the same page opens the link's game
    until(browser, lambda s: s["fen"] == fen and len(s["moves"]) == 3, "the linked game")
    assert browser.execute_script("return document.documentElement.dataset.theme") == "dark"
    assert browser.find_element(By.ID, "sound").get_attribute("aria-pressed") == "false"
    assert browser.find_element(By.ID, "flip").get_attribute("aria-pressed") == "true"
    screenshot(browser, "web-dark.png")


def test_a_phone_screen_holds_the_board_moves_and_navigation(browser):
    browser.set_window_size(412, 915)
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7")
    width = browser.execute_script("return document.documentElement.clientWidth")
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    board = browser.find_element(By.ID, "board").rect
    assert board["width"] >= 300 and board["x"] >= 0 and board["x"] + board["width"] <= width + 1
    for element_id in ("movelist", "nav-prev", "nav-next"):
        box = browser.find_element(By.ID, element_id).rect
        assert box["width"] > 0 and box["x"] + box["width"] <= width + 1, element_id
    browser.find_element(By.ID, "nav-prev").click()
    until(browser, lambda s: s["ply"] == 1, "a step back by the button")
    screenshot(browser, "web-phone.png")


def test_a_page_opened_in_a_chinese_browser_speaks_and_writes_chinese(server, tmp_path):
    """The language comes from the browser's, and its notation with it, from
    the first state on (traditional characters for a Taiwanese browser)."""
    driver = open_browser(server, tmp_path, "zh-TW")
    try:
        until(driver, lambda s: s["lang"] == "zh-Hant" and s["notation"] == "chinese",
              "the browser's language")
        assert text(driver, "new") == "新對局"
        driver.execute_script("window.tuong.send({type: 'mode', engine: null})")
        click_move(driver, "h2e2")
        until(driver, lambda s: s["ply"] == 1, "the move")
        driver.wait.until(lambda d: "炮二平五" in d.find_element(By.ID, "movelist").text)
        assert "中炮" in text(driver, "opening")
    finally:
        driver.quit()
