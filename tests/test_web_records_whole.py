"""Issue 54, the browser program's server: what a user gives tuong-web comes
back whole. A record's result and marks are its own; a reload does not give
time back; "move now" hurries the engine and hands it no side; a record's
players keep their names; a large export reaches the page; the server's
words come in the page's language (and traditional Chinese is traditional);
an edit taken back whose place is gone is no internal error."""
import asyncio
import json
import random
import re
import subprocess
import sys

import pytest

from conftest import HANG, need_module
from test_web_session import Page, run
from tuong.engine.board import Board
from tuong.tools.match import referee
from tuong.tools.web import game as web_game
from tuong.tools.web.clock import ClockKeeper
from tuong.tools.web.session import Session

START = Board().fen()
NO_CAP = referee.Rules(max_plies=10**9)        # the rules, without the referee's cap


def quiet_game(seed, plies, first=None):
    """A random legal line of `plies` moves from the start that no rule ends
    (no mate, repetition ruling or no-capture draw on the way)."""
    rng = random.Random(seed)
    while True:
        board = Board()
        board.rules = "asian"
        moves = []
        for ply in range(1, plies + 1):
            legal = sorted(board.legal_moves())
            move = first if ply == 1 and first else rng.choice(legal)
            board.push(move)
            moves.append(move)
            if referee.judge(board, NO_CAP) is not None:
                break
        else:
            return moves


def iccs(moves):
    out = []
    for i in range(0, len(moves), 2):
        pair = " ".join(f"{m[:2].upper()}-{m[2:].upper()}" for m in moves[i:i + 2])
        out.append(f"{i // 2 + 1}. {pair}")
    return " ".join(out)


# -- item 3: a record's result ---------------------------------------------------------

def test_a_long_records_result_is_shown_and_exported_as_it_is():
    moves = quiet_game(3, 310)
    pgn = ('[Event "Long"]\n[Red "A"]\n[Black "B"]\n[Result "1-0"]\n[Format "ICCS"]\n\n'
           f"{iccs(moves)} 1-0\n")

    async def body():
        async with Page() as page:
            state = await page.send(type="import", text=pgn)
            assert state["type"] == "state", state
            assert len(state["moves"]) == 310
            assert state["result"] is None, state["result"]        # no 300-ply "draw"
            for ply in (300, 301, 310):
                state = await page.send(type="goto", ply=ply)
                assert state["result"] is None
            exported = (await page.send(type="export"))["text"]
            assert '[Result "1-0"]' in exported and exported.rstrip().endswith("1-0")
            assert "1/2-1/2" not in exported and "300-ply" not in exported
    run(body())


def test_a_game_against_the_engine_has_no_ply_cap():
    board = Board()
    board.rules = "asian"
    for move in quiet_game(5, 305):
        board.push(move)
    assert board.ply == 305 and web_game.judge("xiangqi", board) is None


# -- item 4: a record's own marks ----------------------------------------------------

def test_export_keeps_the_records_own_marks():
    pgn = '[Event "Marks"]\n\n1. h2e2! h9g7 2. h0g2!? *\n'

    async def body():
        async with Page() as page:
            await page.send(type="import", text=pgn)
            for node in page.session.tree.nodes.values():   # as an annotation marks them
                if node.parent is not None:
                    node.data["amark"] = "??"
            plain = (await page.send(type="export", annotations=False))["text"]
            movetext = plain.split("\n\n", 1)[1]
            assert "!" in movetext and "!?" in movetext and "??" not in movetext, movetext
            noted = (await page.send(type="export", annotations=True))["text"]
            movetext = noted.split("\n\n", 1)[1]
            assert "!?" in movetext and movetext.count("??") == 1, movetext   # h9g7 had none
    run(body())


# -- item 11: a reload keeps the clocks ----------------------------------------------

class KeptPage(Page):
    """A Page whose session shares the server's ClockKeeper."""

    def __init__(self, keeper):
        super().__init__()
        self.keeper = keeper

    async def __aenter__(self):
        from tuong.protocol.client import open_engine
        self.session = Session(lambda: open_engine(self.engine_argv), self.emit, "tuong",
                               self.keeper)
        return self


def test_a_reload_does_not_give_back_the_time_spent_on_the_move():
    async def body():
        keeper = ClockKeeper()
        async with KeptPage(keeper) as page:
            state = await page.send(type="mode", engine="b",
                                    level={"kind": "clock", "base": 60, "inc": 0})
            assert state["clocks"]["running"] == "w"
            saved = dict(state["saved"], clocks={"w": 60, "b": 60})   # what the page keeps
            await asyncio.sleep(0.4)
        # The page went away (a reload) and comes back with the game it kept.
        async with KeptPage(keeper) as page:
            await asyncio.sleep(0.2)
            state = await page.send(type="restore", game=saved)
            assert state["restored"] and state["clocks"]["running"] == "w"
            assert state["clocks"]["w"] <= 60 - 0.6, state["clocks"]   # it ran all along
            assert state["clocks"]["b"] == 60
        # The old page not yet closed when the new one restores: the same.
        async with KeptPage(keeper) as first:
            state = await first.send(type="mode", engine="b",
                                     level={"kind": "clock", "base": 30, "inc": 0})
            kept = dict(state["saved"], clocks={"w": 30, "b": 30})
            await asyncio.sleep(0.3)
            async with KeptPage(keeper) as second:
                state = await second.send(type="restore", game=kept)
                assert state["clocks"]["w"] <= 30 - 0.3, state["clocks"]
    run(body())


# -- item 12: "move now" ---------------------------------------------------------------

def test_move_now_stops_the_search_and_plays_at_once():
    async def body():
        async with Page() as page:
            await page.send(type="new", fen=START.replace(" 0 1", " 0 30"))   # past the book
            await page.send(type="mode", engine="b", level={"kind": "movetime", "value": 600})
            state = await page.send(type="move", move="h2e2")
            assert state["thinking"]
            await asyncio.sleep(0.3)
            await page.send(type="go")
            await page.send(type="go")           # a second press changes nothing
            state = await page.engine_moved()     # not after 600 s
            assert len(state["moves"]) == 2 and state["mode"]["engine"] == "b"
    run(body())


def test_move_now_on_the_players_turn_hands_the_engine_no_side():
    async def body():
        async with Page() as page:
            await page.send(type="settings", player="Hoa")
            await page.send(type="new", fen=START.replace(" 0 1", " 0 30"))
            state = await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 300})
            headers = dict(state["headers"])
            assert headers["White"] == "Hoa"
            await page.send(type="go")            # Red's move, played by the engine once
            state = await page.engine_moved()
            assert len(state["moves"]) == 2, [m["move"] for m in state["moves"]]
            assert state["mode"]["engine"] == "b" and state["headers"] == headers
            assert state["turn"] == "w" and state["legal"]          # the player's turn again
    run(body())


# -- item 13: a record's players -------------------------------------------------------

def test_a_game_against_the_engine_from_a_record_starts_its_own():
    pgn = ('[Event "测试"]\n[Red "测试红方"]\n[Black "测试黑方"]\n[Result "*"]\n\n'
           '1. h2e2 h9g7 2. h0g2 i9h9 *\n')

    async def body():
        async with Page() as page:
            state = await page.send(type="import", text=pgn)
            assert state["headers"]["White"] == "测试红方"
            await page.send(type="settings", player="Hoa")
            assert page.current()["headers"]["White"] == "测试红方"   # a name is no default
            state = await page.send(type="goto", ply=2)
            await page.send(type="mode", engine="w", level={"kind": "nodes", "value": 300})
            notice = page.last("notice")
            assert notice["key"].startswith("a game against {engine} starts its own record")
            state = await page.engine_moved()
            assert "测试红方" not in state["headers"].values()
            assert state["headers"]["Black"] == "Hoa" and "Event" not in state["headers"]
            assert [m["move"] for m in state["moves"]][:2] == ["h2e2", "h9g7"]
            assert state["can_reopen"]
            await page.send(type="mode", engine=None)
            state = await page.send(type="reopen")
            names = (state["headers"]["White"], state["headers"]["Black"])
            assert names == ("测试红方", "测试黑方")
            assert [m["move"] for m in state["moves"]] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    run(body())


# -- item 16: the page's language ------------------------------------------------------

def test_refusals_and_default_names_in_the_pages_language():
    async def body():
        async with Page() as page:
            await page.send(type="settings", lang="zh-Hans")
            error = await page.send(type="new", fen="4k4/9/9/9/9/9/9/9/9/3KK4 w - - 0 1")
            assert error["type"] == "error"
            assert error["message"] == "not a legal position: too many Red kings: a set has 1"
            assert error["key"] == "not a legal position: too many {piece}s: a set has {n}"
            assert error["params"] == {"piece": "Red king", "n": "1"}
            assert error["local"] == "局面不合法：红帅太多，一副棋只有 1 个"
            error = await page.send(type="import", text='[Event "x"]\n1. C9.9 *')
            assert error["key"] == "cannot import" and error["detail"]
            assert error["local"].startswith("无法导入: ") and error["message"].startswith(
                "cannot import: ")
            error = await page.send(type="headers", headers={"Event": 'a"b'})
            assert error["local"].startswith("棋局信息：Event 不能包含")
            state = await page.send(type="mode", engine="b",
                                    level={"kind": "nodes", "value": 300, "elo": 800})
            assert state["headers"]["White"] == "棋手"
            assert state["headers"]["Black"] == "tuong (等级 800)"
            state = await page.send(type="settings", lang="vi")
            assert state["headers"]["White"] == "Người chơi"
            assert state["headers"]["Black"] == "tuong (cấp 800)"
            await page.send(type="settings", lang="zh-Hant")
            error = await page.send(type="new", fen="4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1")
            assert error["local"] == "局面不合法：將帥在同一線上直接照面"
    run(body())


SIMPLIFIED = set("马车进后帅将")


def test_traditional_chinese_is_traditional_throughout():
    async def body():
        async with Page() as page:
            await page.send(type="settings", lang="zh-Hant", notation="chinese")
            await page.send(type="mode", engine=None)
            await page.send(type="move", move="h0g2")
            state = await page.send(type="move", move="b9c7")
            texts = [m["text"] for m in state["moves"]]
            assert texts[0] == "馬二進三" and not SIMPLIFIED & set("".join(texts)), texts
            assert state["commentary"] and not SIMPLIFIED & set(state["commentary"])
            hint = await page.ask("hint", type="hint")
            assert hint["type"] == "hint" and not SIMPLIFIED & set(hint["line"]), hint
            exported = (await page.send(type="export"))["text"]
            assert "馬二進三" in exported and not SIMPLIFIED & set(exported.split("\n\n", 1)[1])
            # The record's own words stay as they were written.
            await page.send(type="comment", node=state["moves"][0]["id"], text="马跳")
            exported = (await page.send(type="export"))["text"]
            assert "{马跳}" in exported
    run(body())


# -- item 22: an undo whose place is gone ----------------------------------------------

def test_an_undo_whose_place_is_gone_is_refused_not_an_internal_error():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7"):
                await page.send(type="move", move=move)
            state = await page.send(type="goto", ply=1)
            state = await page.send(type="move", move="b9c7")       # a variation at ply 2
            variation = state["cursor"]
            parent = state["moves"][0]["id"]
            await page.send(type="promote", node=variation)
            await page.send(type="delete", node=variation)
            await page.send(type="delete", node=parent)
            await page.send(type="goto", ply=0)
            await page.send(type="move", move="h2e2")
            before = page.current()
            for _ in range(4):
                answer = await page.send(type="undo_edit")
                assert answer["type"] in ("error", "state"), answer
            after = page.current()
            assert [m["move"] for m in after["moves"]] == [m["move"] for m in before["moves"]]
    run(body())


# -- item 14: a large export, through the server -------------------------------------

need_module("starlette")
need_module("uvicorn")
websockets = need_module("websockets")


@pytest.fixture(scope="module")
def server():
    process = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.web", "--no-browser", "--port", "0",
         "--idle-timeout", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://([\d.]+):(\d+)/", line)
    assert match, line + process.stderr.read()
    process.ws = f"ws://{match.group(1)}:{match.group(2)}/ws"
    yield process
    process.terminate()
    process.wait(HANG)


async def receive(ws, kind):
    while True:
        message = json.loads(await ws.recv())
        if message["type"] in (kind, "error"):
            return message


def test_a_large_export_reaches_the_page(server):
    """900 moves, each with a comment of 2,000 Chinese characters: 5.4 MB of
    UTF-8 (10.8 MB as \\u escapes), more than the outbox's 4 MiB in one message."""
    from websockets.asyncio.client import connect
    lines = [quiet_game(seed, 300, first) for seed, first in
             ((11, "h2e2"), (12, "b2e2"), (13, "h0g2"))]
    nodes, comment = [], "象棋" * 1000
    for line in lines:
        parent = 0
        for move in line:
            nodes.append([parent, move, comment, None, None])
            parent = len(nodes)
    game = {"variant": "xiangqi", "nodes": nodes, "cursor": 0, "play": 0,
            "mode": {"engine": None}, "notation": "iccs", "lang": "zh-Hans"}

    async def body():
        async with connect(server.ws, max_size=None) as ws:
            await receive(ws, "state")
            await ws.send(json.dumps({"type": "restore", "game": game}, ensure_ascii=False))
            state = await receive(ws, "state")
            assert state["type"] == "state" and state["restored"], state
            await ws.send(json.dumps({"type": "export"}))
            pgn = await receive(ws, "pgn")
            assert pgn["type"] == "pgn" and pgn["text"].count(comment) == len(nodes)
            await ws.send(json.dumps({"type": "goto", "ply": 1}))   # the page goes on
            assert (await receive(ws, "state"))["ply"] == 1
    asyncio.run(asyncio.wait_for(body(), HANG * 12))
