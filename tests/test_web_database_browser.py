"""The games database in a real browser (headless Chromium, Selenium): the
Database tab searches, opens a game and exports a selection; the explorer
shows the master moves and a click plays one; a file of many games opens as
a list; two tabs each keep their own game in the library through a reload;
the library outlives a cleared browser and the browser's old library moves
into the database; the tab speaks Chinese. With TUONG_SCREENSHOTS=DIR it
saves pictures of the tab and the explorer in English and traditional
Chinese there."""

import pytest

from conftest import DATA
from test_web_browser import (By, Select, click_move, confirm, open_browser, play, serve,  # noqa: F401
                              screenshot, set_mode, state, text, until)

from tuong.tools import db, records  # noqa: E402
from tuong.tools.db import library  # noqa: E402

RECORDS = DATA / "records"
MANY = RECORDS / "wukong" / "xqdb_traditional.pgn"          # 15 games in one file


@pytest.fixture(scope="module")
def db_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("webdb") / "games.sqlite"
    connection = db.connect(path)
    db.import_files(connection, [str(RECORDS)], workers=1)
    connection.close()
    return path


@pytest.fixture(scope="module")
def server(db_path):
    yield from serve(db_path)


@pytest.fixture
def browser(server, tmp_path):
    driver = open_browser(server, tmp_path)
    yield driver
    driver.quit()


def rows(driver, body):
    return driver.find_elements(By.CSS_SELECTOR, f"#{body} tr")


def library_moves(db_path):
    """The moves of each game of the database's library."""
    connection = db.connect(db_path)
    try:
        return [[node[1] for node in entry.saved.get("nodes", [])]
                for entry in library.listing(connection, 200)]
    finally:
        connection.close()


def clear_library(db_path):
    connection = db.connect(db_path)
    with connection:
        connection.execute("DELETE FROM library")
    connection.close()


def show(driver, element_id):
    """Bring a part of the panel into view at once (the tabs scroll smoothly)."""
    driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", element_id)


def search(driver, player=""):
    field = driver.find_element(By.ID, "db-player")
    field.clear()
    field.send_keys(player)
    driver.find_element(By.ID, "db-search").click()


def test_the_database_tab_searches_opens_a_game_and_exports(browser, db_path):
    connection = db.connect(db_path)
    wanted = db.search(connection, db.Search(player="胡荣华", limit=50))
    total = db.count(connection, db.Search(player="胡荣华"))
    connection.close()
    assert wanted
    browser.find_element(By.CSS_SELECTOR, '#tabs [data-target="sec-database"]').click()
    browser.wait.until(lambda d: "games in the database" in text(d, "db-status"))
    search(browser, "胡荣华")
    browser.wait.until(lambda d: len(rows(d, "db-body")) == len(wanted))
    assert f"{total} games found" in text(browser, "db-count")
    first = rows(browser, "db-body")[0].text
    assert (wanted[0].red or "?") in first and (wanted[0].date or "") in first
    show(browser, "sec-database")
    screenshot(browser, "web-database-en.png")
    for index in range(2):
        browser.find_elements(By.CSS_SELECTOR, "#db-body .db-pick")[index].click()
    browser.execute_script("window.tuong.lastPgn = null")
    browser.find_element(By.ID, "db-export").click()
    browser.wait.until(lambda d: d.execute_script("return window.tuong.lastPgn"))
    exported, problems = records.read_pgn(browser.execute_script("return window.tuong.lastPgn"))
    assert not problems and [r.moves for r in exported] == [g.moves for g in wanted[:2]]
    browser.find_elements(By.CSS_SELECTOR, "#db-body .db-open")[0].click()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == wanted[0].moves, "the game")
    assert state(browser)["headers"]["White"] == wanted[0].red


def test_the_explorer_shows_master_moves_and_a_click_plays_one(browser, db_path):
    connection = db.connect(db_path)
    found = db.explore(connection)
    connection.close()
    set_mode(browser, "")
    browser.wait.until(lambda d: len(rows(d, "masters-body")) == len(found.moves))
    assert f"{found.games} games reach this position" in text(browser, "masters-total")
    top = rows(browser, "masters-body")[0]
    assert str(found.moves[0].games) in top.text
    show(browser, "explorer")
    screenshot(browser, "web-explorer-en.png")
    rows(browser, "masters-body")[0].click()
    until(browser, lambda s: s["ply"] == 1 and s["last"] == found.moves[0].move, "the move")


def test_a_file_of_many_games_opens_as_a_list(browser):
    wanted, _ = records.read_file(str(MANY))
    browser.find_element(By.ID, "file-input").send_keys(str(MANY))
    until(browser, lambda s: s["moves"], "the first game")
    browser.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#file-games-list button"))
                       == len(wanted))
    browser.find_elements(By.CSS_SELECTOR, "#file-games-list button")[4].click()
    confirm(browser)
    until(browser, lambda s: [m["move"] for m in s["moves"]] == wanted[4].moves, "game 5")


def test_a_file_imported_in_the_database_tab_is_counted(browser):
    """The Database tab's file input reads the file and the server's count
    comes back: every game of MANY is in the database already."""
    wanted, _ = records.read_file(str(MANY))
    show(browser, "sec-database")
    browser.find_element(By.ID, "db-file").send_keys(str(MANY))
    browser.wait.until(lambda d: "already in" in d.find_element(By.ID, "db-imported").text)
    shown = browser.find_element(By.ID, "db-imported").text
    assert shown.startswith("0 games added"), shown
    assert f"{len(wanted)} already in" in shown, shown


def test_two_tabs_keep_their_own_games_through_a_reload(browser, server, db_path):
    clear_library(db_path)
    set_mode(browser, "")
    play(browser, "h2e2", "h9g7")
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(server)
    until(browser, lambda s: s is not None, "the second tab")
    browser.execute_script("window.tuong.send({type: 'new', variant: 'xiangqi'})")
    until(browser, lambda s: not s["moves"], "a new game")
    set_mode(browser, "")
    play(browser, "b2e2")
    second = browser.current_window_handle
    browser.wait.until(lambda d: sorted(library_moves(db_path)) == [["b2e2"], ["h2e2", "h9g7"]])
    for handle, moves in ((first, ["h2e2", "h9g7"]), (second, ["b2e2"])):
        browser.switch_to.window(handle)
        browser.refresh()
        until(browser, lambda s, moves=moves: [m["move"] for m in s["moves"]] == moves,
              "the tab's own game")
    browser.switch_to.window(first)
    play(browser, "h0g2")
    browser.wait.until(lambda d: sorted(library_moves(db_path)) ==
                       [["b2e2"], ["h2e2", "h9g7", "h0g2"]])
    # Its library lists the other tab's game (its own is the one on its board).
    browser.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#library-list .lib-open"))
                       == 1 and "(1 move)" in text(d, "library-list"))


def test_the_library_outlives_a_cleared_browser_and_the_old_one_moves_in(browser, db_path):
    clear_library(db_path)
    set_mode(browser, "")
    play(browser, "c3c4", "c6c5")
    browser.wait.until(lambda d: ["c3c4", "c6c5"] in library_moves(db_path))
    # A library kept in the browser before the database: it moves in once.
    old = {"id": 1, "title": "kept in the browser", "date": "2024-01-01 10:00",
           "saved": {"variant": "xiangqi", "nodes": [[0, "b0c2", None, None, None]],
                     "cursor": 1, "play": 1, "headers": {}}, "pgn": ""}
    browser.execute_script("localStorage.clear(); sessionStorage.clear();"
                           "localStorage.setItem('tuong.library', JSON.stringify([arguments[0]]))",
                           old)
    browser.refresh()
    browser.wait.until(lambda d: ["b0c2"] in library_moves(db_path))
    browser.wait.until(lambda d: d.execute_script(
        "return JSON.parse(localStorage.getItem('tuong.library') || '[]').length === 0"))
    browser.wait.until(lambda d: "kept in the browser" in text(d, "library-list")
                       and "2 moves" in text(d, "library-list"))
    assert not state(browser)["moves"]               # a cleared browser starts afresh
    entries = browser.find_elements(By.CSS_SELECTOR, "#library-list li")
    kept = next(li for li in entries if "2 moves" in li.text)
    kept.find_element(By.CSS_SELECTOR, ".lib-open").click()
    until(browser, lambda s: [m["move"] for m in s["moves"]] == ["c3c4", "c6c5"], "it, back")


def test_the_tab_speaks_chinese_and_the_pictures(server, tmp_path, db_path):
    driver = open_browser(server, tmp_path, "zh-CN")
    try:
        until(driver, lambda s: s["lang"] == "zh-Hans", "the browser's language")
        tab = driver.find_element(By.CSS_SELECTOR, '#tabs [data-target="sec-database"]')
        assert tab.text == "数据库"
        labels = text(driver, "db-form")
        assert "棋手" in labels and "赛事" in labels and "这个局面" in labels
        assert text(driver, "db-search") == "搜索"
        driver.wait.until(lambda d: "数据库中有" in text(d, "db-status"))
        search(driver, "")
        driver.wait.until(lambda d: "找到" in text(d, "db-count"))
        Select(driver.find_element(By.ID, "lang")).select_by_value("zh-Hant")
        until(driver, lambda s: s["lang"] == "zh-Hant", "traditional Chinese")
        assert tab.text == "資料庫"
        driver.wait.until(lambda d: "找到" in text(d, "db-count") and rows(d, "db-body"))
        show(driver, "sec-database")
        screenshot(driver, "web-database-zh-Hant.png")
        set_mode(driver, "")
        click_move(driver, "h2e2")
        until(driver, lambda s: s["ply"] == 1, "the move")
        driver.wait.until(lambda d: rows(d, "masters-body"))
        assert "局到達這個局面" in text(driver, "masters-total")
        show(driver, "explorer")
        screenshot(driver, "web-explorer-zh-Hant.png")
    finally:
        driver.quit()
