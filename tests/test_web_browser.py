"""tuong-web in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by Selenium plays against the engine by clicks and
by drag and drop, takes back, asks a hint, sets up a position and plays it
out to mate, imports a PGN and exports it, analyses, plays a small game, and
survives a reload. With TUONG_SCREENSHOTS=DIR it also saves the README's
pictures there (docs/ in the repository)."""
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

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tuong.engine.board import Board  # noqa: E402
from tuong.tools import records  # noqa: E402

WAIT = HANG * 3


@pytest.fixture(scope="module")
def server():
    process = subprocess.Popen([sys.executable, "-m", "tuong.tools.web", "--no-browser"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://[\d.]+:\d+/", line)
    assert match, line + process.stderr.read()
    yield match.group(0)
    process.terminate()
    process.wait(HANG)


@pytest.fixture
def browser(server, tmp_path):
    os.environ.setdefault("SE_OFFLINE", "true")      # never let Selenium fetch a driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,860",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    driver.get(server)
    driver.wait = WebDriverWait(driver, WAIT)
    state(driver)                                     # the page has its first state
    yield driver
    driver.quit()


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


def screenshot(driver, name):
    folder = os.environ.get("TUONG_SCREENSHOTS")
    if folder:
        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(pathlib.Path(folder) / name))


def test_play_by_click_and_drag_take_back_and_hint(browser):
    set_mode(browser, "b")
    click_move(browser, "h2e2")
    until(browser, lambda s: len(s["moves"]) == 2 and not s["thinking"], "the engine's reply")
    assert browser.find_elements(By.CSS_SELECTOR, ".last-move")
    drag_move(browser, "h0g2")
    until(browser, lambda s: len(s["moves"]) == 4 and not s["thinking"], "the second reply")
    listed = browser.find_elements(By.CSS_SELECTOR, "#movelist [data-ply]")
    assert len(listed) == 4 and listed[0].text.strip().startswith("C2")   # WXF: C2=5 / C2.5
    press(browser, "u")
    until(browser, lambda s: len(s["moves"]) == 2, "the take-back")
    browser.find_element(By.ID, "hint").click()
    browser.wait.until(lambda d: d.execute_script("return window.tuong.lastHint"))
    hint = browser.execute_script("return window.tuong.lastHint")
    board = Board()
    for move in [m["move"] for m in state(browser)["moves"]]:
        board.push(move)
    assert hint["move"] in board.legal_moves()
    assert text(browser, "hint-text")
    # A legal-move hint appears on pick-up, and an illegal target changes nothing.
    square(browser, "h0").click()
    assert browser.find_elements(By.CSS_SELECTOR, ".hint-dot")
    square(browser, "h5").click()
    assert len(state(browser)["moves"]) == 2
    screenshot(browser, "web-play.png")


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
    assert "king" in text(browser, "error").lower()
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
    assert final["result"]["reason"] in text(browser, "status")


def test_import_pgn_then_export_it(browser):
    source = sorted((DATA / "records").rglob("*.pgn"))[0]
    original, _ = records.read_bytes(source.read_bytes(), source.name)
    pgn = records.format_pgn(original[0], "wxf")
    field = browser.find_element(By.ID, "import-text")
    browser.execute_script("arguments[0].value = arguments[1]", field, pgn)
    browser.find_element(By.ID, "import-button").click()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == original[0].moves, "the import")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#movelist [data-ply]")) == \
        len(original[0].moves)
    browser.find_element(By.ID, "export").click()
    browser.wait.until(lambda d: d.execute_script("return window.tuong.lastPgn"))
    exported, problems = records.read_pgn(browser.execute_script("return window.tuong.lastPgn"))
    assert not problems and exported[0].moves == original[0].moves
    press(browser, "\ue012")                          # ArrowLeft: one ply back
    until(browser, lambda s: s["cursor"] == len(s["moves"]) - 1, "a step back")
    press(browser, "\ue011")                          # Home
    until(browser, lambda s: s["cursor"] == 0, "the start")


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
    until(browser, lambda s: s["moves"][0]["comment"] and s["moves"][0]["score"] is not None,
          "the annotation")
    points = browser.find_elements(By.CSS_SELECTOR, "#eval-graph [data-ply]")
    assert points
    points[0].click()
    until(browser, lambda s: s["cursor"] == int(points[0].get_attribute("data-ply")),
          "a click on the graph")


def test_small_game_and_reload(browser):
    Select(browser.find_element(By.ID, "variant")).select_by_value("tictactoe")
    browser.find_element(By.ID, "new").click()
    until(browser, lambda s: s["variant"] == "tictactoe", "tic-tac-toe")
    set_mode(browser, "b", "depth", "9")
    square(browser, "b2").click()
    until(browser, lambda s: len(s["moves"]) == 2 and not s["thinking"], "the engine's reply")
    moves = [m["move"] for m in state(browser)["moves"]]
    browser.refresh()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == moves, "the restored game")
    Select(browser.find_element(By.ID, "variant")).select_by_value("xiangqi")
    browser.find_element(By.ID, "new").click()
    until(browser, lambda s: s["variant"] == "xiangqi", "a new Xiangqi game")
