"""tuong-web's session logic (tools/web/session.py), without a browser or a
server: messages in, messages out, a real tuong engine (or the fake engine
of the client tests, to make it crash)."""
import asyncio
import base64
import pathlib
import sys

from tuong.engine import levels
from tuong.engine.board import Board
from tuong.protocol.client import open_engine
from tuong.tools.cli import default_engine
from tuong.tools.web.session import STATE, Session

from conftest import HANG, DATA

FAKE = str(pathlib.Path(__file__).resolve().parent / "fake_engine.py")
START = Board().fen()


class Page:
    """A session and what it sent, driven from one event loop. States are
    taken in as the page takes them (static/tree.js): the nodes they carry are kept,
    and each state gets `moves` (the shown line, as node views) and `saved`
    (what the page would keep), to test against."""

    def __init__(self, engine_argv=None):
        self.sent, self.nodes = [], {}
        self.engine_argv = engine_argv or default_engine()

    async def __aenter__(self):
        self.session = Session(lambda: open_engine(self.engine_argv), self.emit, "tuong")
        return self

    async def __aexit__(self, *exc):
        await self.session.close()

    def emit(self, message):
        self.sent.append(self.take(self.session.state()) if message is STATE else message)

    def current(self):
        return self.take(self.session.state())

    def take(self, state):
        if state["reset"]:
            self.nodes.clear()
        for node in state["nodes"]:
            self.nodes[node["id"]] = node
        state["moves"] = self.line(state["cursor"])
        state["saved"] = self.saved(state)
        return state

    def line(self, node_id):
        """The shown line: the moves to `node_id`, then its first children."""
        path, node = [], self.nodes[node_id]
        while node["parent"] is not None:
            path.append(node)
            node = self.nodes[node["parent"]]
        path.reverse()
        node = self.nodes[node_id]
        while node["children"]:
            node = self.nodes[node["children"][0]]
            path.append(node)
        return path

    def saved(self, state):
        """The game as the page keeps it: nodes in order, parents first."""
        order, index, stack = [], {}, [self.root()]
        while stack:
            node = stack.pop()
            index[node["id"]] = len(order)
            order.append(node)
            stack.extend(self.nodes[c] for c in reversed(node["children"]))
        manual = ("resignation", "time forfeit", "agreement", "illegal move")
        return {"variant": state["variant"], "start_fen": state["start_fen"],
                "comment": order[0]["comment"],
                "nodes": [[index[n["parent"]], n["move"], n["comment"], n["mark"],
                           n["result"] if n["result"] and n["result"]["termination"] in manual
                           else None] for n in order[1:]],
                "cursor": index[state["cursor"]], "play": index[state["play"]],
                "mode": state["mode"], "notation": state["notation"], "lang": state["lang"],
                "headers": state["headers"]}

    def root(self):
        return next(n for n in self.nodes.values() if n["parent"] is None)

    async def send(self, **message):
        await self.session.handle(message)
        return self.sent[-1]

    async def ask(self, kind, **message):
        """Send, then wait for the answer of type `kind` (a type or a tuple
        of them) or an error."""
        kinds = (kind, "error") if isinstance(kind, str) else kind + ("error",)
        count = len(self.sent)
        await self.session.handle(message)
        await self.until(lambda: any(m["type"] in kinds for m in self.sent[count:]),
                         f"a {kind}")
        return next(m for m in self.sent[count:] if m["type"] in kinds)

    def last(self, kind):
        return next(m for m in reversed(self.sent) if m["type"] == kind)

    async def until(self, test, what):
        for _ in range(HANG * 20):
            if test():
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    async def engine_moved(self):
        await self.until(lambda: not self.session.thinking, "the engine's move")
        await asyncio.sleep(0.05)
        return self.current()


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, HANG * 6))


def test_play_hint_undo_against_the_engine():
    async def body():
        async with Page() as page:
            # Past the opening book (move 30), so that the engine searches its reply.
            await page.send(type="new", fen=START.replace(" 0 1", " 0 30"))
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 2000})
            state = await page.send(type="move", move="h2e2")
            assert state["thinking"] and state["legal"] == []
            state = await page.engine_moved()
            assert len(state["moves"]) == 2 and state["turn"] == "w"
            reply = state["moves"][1]
            board = Board()
            board.push("h2e2")
            assert reply["move"] in board.legal_moves()
            assert reply["text"] and reply["fen"] == state["fen"]
            # The hint comes from the engine's last search: its predicted reply.
            hint = await page.ask("hint", type="hint")
            assert hint["type"] == "hint" and hint["source"] == "last search"
            board.push(reply["move"])
            assert hint["move"] in board.legal_moves()
            state = await page.send(type="undo")     # back to the start; the moves stay
            assert state["ply"] == 0 and state["fen"].split()[0] == START.split()[0] \
                and state["legal"] and len(state["moves"]) == 2
    run(body())


def test_a_named_level_plays_the_game_and_the_pgn_records_it():
    """A level with an Elo sets the engine's UCI_LimitStrength and UCI_Elo
    for its moves in the game; the exported PGN names the engine with its
    level and carries its Elo; a bad Elo is refused and changes nothing."""
    async def body():
        async with Page() as page:
            await page.send(type="new", fen=START.replace(" 0 1", " 0 30"))
            before = page.current()["mode"]
            for elo in (levels.MIN_ELO - 1, levels.MAX_ELO + 1, "1600", True):
                await page.session.handle({"type": "mode", "engine": "b",
                                           "level": {"kind": "nodes", "value": 2000, "elo": elo}})
                assert page.sent[-1]["type"] == "error", elo
            assert page.current()["mode"] == before
            state = await page.send(type="mode", engine="b",
                                    level={"kind": "nodes", "value": 2000, "elo": 1200})
            assert state["mode"]["level"]["elo"] == 1200
            await page.send(type="move", move="h2e2")
            state = await page.engine_moved()
            assert len(state["moves"]) == 2
            assert page.session._set.get("UCI_LimitStrength") is True
            assert page.session._set.get("UCI_Elo") == 1200
            hint = await page.ask("hint", type="hint")            # hints: full strength
            assert hint["type"] == "hint"
            exported = await page.send(type="export")
            assert '[Black "tuong (level 1200)"]' in exported["text"], exported["text"][:400]
            assert '[BlackElo "1200"]' in exported["text"]
    run(body())


def test_dodgem_names_its_winner():
    """Black moves first in Dodgem: its last car leaving the board is Black's win."""
    async def body():
        async with Page() as page:
            await page.send(type="new", variant="dodgem", fen="2B/3/W1W b")
            await page.send(type="mode", engine=None)
            state = await page.send(type="move", move="c3d3")
            assert "Black wins" in str(state.get("result")), state.get("result")
            await page.send(type="new", variant="dodgem", fen="W2/3/2B w")
            state = await page.send(type="move", move="a3a4")
            assert "White wins" in str(state.get("result")), state.get("result")
    run(body())


def test_hint_without_a_known_line_searches():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            hint = await page.ask("hint", type="hint")
            assert hint["type"] == "hint" and hint["source"] == "new search"
            assert hint["move"] in Board().legal_moves()
    run(body())


def test_bad_messages_get_errors_and_keep_the_state():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            await page.send(type="move", move="h2e2")
            before = page.current()
            hostile = [
                {"type": "move", "move": "h2e9"}, {"type": "move", "move": "quit\nuci"},
                {"type": "move", "move": 7}, {"type": "nonsense"}, {"type": 3}, {},
                {"type": "new", "variant": "chess"},
                {"type": "new", "fen": "rnbakabnr/9/9/9/9/9/9/9/9/RNBAKABNR w"},
                {"type": "new", "fen": "x" * 10_000},
                {"type": "mode", "engine": "x"},
                {"type": "mode", "engine": "b", "level": {"kind": "nodes", "value": -5}},
                {"type": "mode", "engine": "b", "level": {"kind": "depth", "value": "9"}},
                {"type": "mode", "engine": "b", "level": {"kind": "clock", "base": 1e12}},
                {"type": "goto", "ply": 99}, {"type": "undo", "plies": "all"},
                {"type": "analyse", "on": "yes"}, {"type": "analyse", "on": True, "multipv": 50},
                {"type": "settings", "notation": "klingon"},
                {"type": "import", "text": "[Event \"x\"]\n1. C9.9 *"},
                {"type": "import", "data": "!!!not base64"},
                {"type": "import", "data": base64.b64encode(b"XQ" + bytes(100)).decode(),
                 "name": "broken.xqf"},
                {"type": "import", "text": ""},
                {"type": "restore", "game": {"variant": "xiangqi", "moves": ["h2e2", "a0a9"]}},
                {"type": "restore", "game": "nope"},
                {"type": "resign", "extra": [1, 2, 3]},
                {"type": "mode", "engine": "b", "level": {"kind": []}},
                {"type": "restore", "game": {"variant": "xiangqi", "start_fen": "bad",
                                             "mode": {"level": {"kind": "clock", "base": 60}}}},
                # A link to "#fen=%20": the FEN only blanks.
                {"type": "restore", "game": {"variant": "xiangqi", "start_fen": " ", "moves": []}},
                {"type": "restore", "game": {"variant": "queens", "start_fen": "\t"}},
            ]
            for message in hostile:
                await page.session.handle(message)
                assert page.sent[-1]["type"] == "error", message
                assert page.sent[-1]["message"]
                if message.get("type") == "restore":   # the page keeps such a game aside
                    assert page.sent[-1]["message"].startswith("restore"), page.sent[-1]
            after = page.current()
            assert after["moves"] == before["moves"] and after["fen"] == before["fen"]
            assert after["mode"] == before["mode"] and after["clocks"] is None
    run(body())


def test_setup_refuses_an_illegal_position_with_its_reason():
    async def body():
        async with Page() as page:
            error = await page.send(type="new", fen="4k4/9/9/9/9/9/9/9/9/4K4 w")
            assert error["type"] == "error" and "generals face each other" in error["message"]
            error = await page.send(type="new", fen="3k5/9/9/9/9/1P7/9/9/9/4K4 w")
            assert error["type"] == "error" and "pawn cannot stand on b4" in error["message"]
            state = await page.send(type="new", fen="3k5/9/9/9/9/9/9/9/4R4/4K4 w")
            assert state["type"] == "state" and state["start_fen"].startswith("3k5/")
    run(body())


def test_the_rules_end_the_game():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            # Two rooks mate on the back rank; the red general holds the d-file.
            await page.send(type="new", fen="4k4/R8/1R7/9/9/9/9/9/9/3K5 w")
            state = await page.send(type="move", move="b7b9")
            assert state["result"]["result"] == "1-0"
            assert state["result"]["termination"] == "checkmate"
            assert state["legal"] == [] and state["check"] == "e9"
            error = await page.send(type="move", move="e9e8")
            assert error["type"] == "error"
    run(body())


def test_import_export_round_trip_and_restore():
    async def body():
        async with Page() as page:
            pgn = (DATA / "records").rglob("*.pgn")
            source = next(iter(sorted(pgn)))
            text = source.read_bytes()
            state = await page.send(type="import", data=base64.b64encode(text).decode(),
                                    name=source.name)
            assert state["type"] in ("state", "notice")
            state = page.last("state")
            moves = [m["move"] for m in state["moves"]]
            assert moves and state["mode"]["engine"] is None
            exported = await page.send(type="export")
            await page.send(type="new")
            state = await page.send(type="import", text=exported["text"])
            assert [m["move"] for m in state["moves"]] == moves
            saved = state["saved"]
            await page.send(type="new")
            state = await page.send(type="restore", game=saved)
            assert [m["move"] for m in state["moves"]] == moves
            for notation in ("chinese", "vietnamese", "iccs", "coords", "wxf"):
                state = await page.send(type="settings", notation=notation)
                assert state["notation"] == notation and state["moves"][0]["text"]
    run(body())


def test_xqf_and_fen_import():
    async def body():
        async with Page() as page:
            xqf = next(iter(sorted((DATA / "xqf").glob("*.xqf"))))
            state = await page.send(type="import", name=xqf.name,
                                    data=base64.b64encode(xqf.read_bytes()).decode())
            assert page.last("state")["moves"] or state["type"] == "state"
            state = await page.send(type="import", text="3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")
            assert state["start_fen"].startswith("3k5/9") and state["moves"] == []
    run(body())


def test_analysis_streams_multipv_lines_and_stops():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            await page.send(type="analyse", on=True, multipv=3)
            await page.until(lambda: {m["multipv"] for m in page.sent if m["type"] == "info"}
                             >= {1, 2, 3}, "three analysis lines")
            info = page.last("info")
            assert info["ply"] == 0 and info["line"] and info["pv"][0] in Board().legal_moves()
            await page.send(type="move", move="h2e2")
            await page.until(lambda: page.last("info")["ply"] == 1, "analysis of the new position")
            await page.send(type="analyse", on=False)
            await page.until(lambda: page.session.search is None, "the analysis to stop")
    run(body())


def test_annotation_marks_and_comments():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7", "e2e6"):   # the cannon takes a pawn, and is lost
                await page.send(type="move", move=move)
            await page.send(type="annotate", movetime=0.1)
            await page.until(lambda: any(m["type"] == "annotation" and "summary" in m
                                         for m in page.sent), "the annotation")
            done = page.last("annotation")
            assert done["done"] == done["total"] == 4 and len(done["summary"]) == 2
            state = page.last("state")
            assert all(m["note"] and not m["comment"] for m in state["moves"])
            assert state["moves"][2]["amark"] in ("??", "?") and state["moves"][2]["mark"] is None
    run(body())


def test_clock_game_flag_falls():
    async def body():
        async with Page() as page:
            state = await page.send(type="mode", engine="b",
                                    level={"kind": "clock", "base": 1, "inc": 0})
            assert state["clocks"]["running"] == "w"
            await page.until(lambda: page.current()["result"] is not None, "the flag to fall")
            state = page.current()
            assert state["result"]["termination"] == "time forfeit"
            assert state["result"]["result"] == "0-1"
    run(body())


def test_a_restored_clock_game_keeps_the_time_left():
    """A reload does not give the sides their time back: the page keeps the
    clocks with the game, and a restore sets them (never above the base and
    the increments since); bad clocks are refused as a restore's error."""
    async def body():
        async with Page() as page:
            state = await page.send(type="mode", engine="b",
                                    level={"kind": "clock", "base": 60, "inc": 1})
            saved = dict(page.saved(state), mode=state["mode"], notation=state["notation"],
                         lang=state["lang"], headers=state["headers"])
            state = await page.send(type="restore", game=dict(saved, clocks={"w": 12.5, "b": 30}))
            assert state["restored"] and 11.5 < state["clocks"]["w"] <= 12.5
            assert state["clocks"]["b"] == 30 and state["clocks"]["running"] == "w"
            state = await page.send(type="restore", game=dict(saved, clocks={"w": 1e9, "b": -3}))
            assert state["clocks"]["w"] <= 61 and state["clocks"]["b"] == 0
            for bad in ({"w": "soon"}, {"w": float("nan")}, [1, 2], {"b": True}):
                error = await page.send(type="restore", game=dict(saved, clocks=bad))
                assert error["type"] == "error" and error["message"].startswith("restore: clocks")
            state = await page.send(type="restore", game=saved)     # none kept: a fresh clock
            assert state["clocks"]["b"] == 60
    run(body())


def test_small_games_through_the_same_page():
    async def body():
        async with Page() as page:
            state = await page.send(type="new", variant="tictactoe")
            assert state["files"] == 3 and state["ranks"] == 3
            await page.send(type="mode", engine="b", level={"kind": "depth", "value": 9})
            await page.send(type="move", move="b2")
            state = await page.engine_moved()
            assert len(state["moves"]) == 2
            await page.send(type="new", variant="dodgem")
            state = await page.send(type="mode", engine="w")     # Black (the user) starts
            assert state["turn"] == "b" and "a2b2" in state["legal"]
            state = await page.send(type="new", variant="queens")
            assert state["files"] == 8
    run(body())


def test_a_dodgem_position_that_recurs_draws_the_game():
    """The rule the docs state and the search plays by: a Dodgem game whose
    position comes back (the same side to move) is drawn, not played on."""
    async def body():
        async with Page() as page:
            await page.send(type="new", variant="dodgem")
            await page.send(type="mode", engine=None)
            for move in ("a3b3", "b1a1", "b3b2", "a1b1"):
                state = await page.send(type="move", move=move)
                assert state["result"] is None, move
            state = await page.send(type="move", move="b2b3")
            assert state["result"]["result"] == "1/2-1/2"
            assert state["result"]["termination"] == "repetition"
    run(body())


def test_a_crashing_engine_is_reported_and_replaced():
    async def body():
        async with Page([sys.executable, FAKE, "--mode", "crash", "--at", "1"]) as page:
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 100})
            await page.send(type="move", move="h2e2")
            await page.until(lambda: any(m["type"] == "notice" for m in page.sent), "a notice")
            await page.engine_moved()
            assert page.current()["mode"]["engine"] is None
            # The next search starts a new engine (this fake crashes at its first go again).
            await page.send(type="mode", engine="b")
            await page.until(lambda: sum(m["type"] == "notice" for m in page.sent) >= 2,
                             "the second engine's failure")
        assert page.session.engine is None or not page.session.engine.alive
    run(body())


def test_taking_back_after_the_engine_resigned_takes_back_the_move_it_resigned_to():
    """The engine's resignation goes with the player's move before it (taken
    back alone the engine would resign again); the player's own resignation
    is taken back by itself."""
    async def body():
        async with Page([sys.executable, FAKE, "--mode", "resign", "--at", "2"]) as page:
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 100})
            await page.send(type="move", move="h2e2")
            await page.engine_moved()                    # its first answer is a move
            await page.send(type="move", move="h0g2")
            await page.until(lambda: page.current()["result"], "the resignation")
            assert page.current()["result"]["termination"] == "resignation"
            state = await page.send(type="undo")
            assert state["result"] is None and state["ply"] == 2 and not state["thinking"]
            state = await page.send(type="resign")
            assert state["result"]["reason"].startswith("Red")
            state = await page.send(type="undo")
            assert state["result"] is None and state["ply"] == 2
    run(body())


def test_a_set_up_position_that_is_already_mate_has_its_result():
    async def body():
        async with Page() as page:
            state = await page.send(type="new", fen="R2k5/1R7/9/9/9/9/9/9/9/4K4 b")
            assert state["result"]["termination"] == "checkmate" and state["legal"] == []
    run(body())


def test_a_draw_offer_during_analysis_answers_at_once():
    async def body():
        async with Page() as page:
            await page.send(type="new", fen=START.replace(" 0 1", " 0 30"))
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 1000})
            await page.send(type="move", move="h2e2")
            await page.engine_moved()
            await page.send(type="goto", ply=0)
            await page.send(type="analyse", on=True)
            answer = await page.ask(("notice", "state"), type="draw")
            assert answer["type"] in ("error", "notice", "state")
            state = await page.send(type="undo")          # the page is still heard
            assert state["type"] == "state"
    run(body())


def _line_moves(state):
    return [m["move"] for m in state["moves"]]


def test_move_now_and_a_new_move_in_the_middle_keep_every_move():
    """Issue 37, faults 1 and 2: "move now" back in a game, and a different
    move in the middle of one, start variations; nothing is deleted; a
    variation can be promoted, deleted, and both taken back."""
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            game = ["h2e2", "h9g7", "i0i1", "i9h9", "h0g2", "b9c7", "b2b6", "c6c5", "b0c2", "a9b9"]
            for move in game:
                await page.send(type="move", move=move)
            start = page.current()
            ids = [m["id"] for m in start["moves"]]
            await page.send(type="goto", node=ids[1])                 # ply 2
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 500})
            await page.send(type="go")
            state = await page.engine_moved()
            root = page.root()
            assert _line_moves({"moves": page.line(root["children"][0])}) == game
            assert len(page.nodes[ids[1]]["children"]) == 2           # the engine's variation
            await page.send(type="mode", engine=None)
            # A different move at ply 4 of the main line: a variation, the rest kept.
            await page.send(type="goto", node=ids[3])
            state = await page.send(type="move", move="b0c2")
            assert state["ply"] == 5 and len(page.nodes[ids[3]]["children"]) == 2
            variation = state["cursor"]
            assert [m["move"] for m in page.line(ids[9])] == game
            state = await page.send(type="promote", node=variation)
            assert page.nodes[ids[3]]["children"][0] == variation
            state = await page.send(type="undo_edit")
            assert page.nodes[ids[3]]["children"][0] == ids[4]
            state = await page.send(type="delete", node=variation)
            assert page.nodes[ids[3]]["children"] == [ids[4]] and state["cursor"] == ids[3]
            state = await page.send(type="undo_edit")
            assert page.nodes[ids[3]]["children"] == [ids[4], variation]
            # The game round-trips through the page's saved form.
            saved = state["saved"]
            await page.send(type="new")
            state = await page.send(type="restore", game=saved)
            assert state["saved"]["nodes"] == saved["nodes"]
    run(body())


def test_export_keeps_headers_variations_and_own_comments():
    """Fault 3: headers, variations and the game's own comments survive an
    import and an export; the commentary is not written into the record;
    the annotation's comments only when asked."""
    pgn = ('[Event "Club final"]\n[Site "Hanoi"]\n[Date "2024.05.01"]\n[Red "Lan"]\n'
           '[Black "Minh"]\n[Opening "Central cannon"]\n[ECCO "B05"]\n[Result "1-0"]\n'
           '[WhiteTimeControl "2.5+0.025"]\n[BlackTimeControl "10+0.1"]\n[Format "ICCS"]\n\n'
           '1. H2-E2 {the central cannon} H9-G7 (1... H7-E7 {mirror} '
           '2. B0-C2) 2. H0-G2 1-0\n')
    async def body():
        async with Page() as page:
            state = await page.send(type="import", text=pgn)
            assert state["type"] == "state", state
            assert state["headers"]["Event"] == "Club final" and state["headers"]["White"] == "Lan"
            exported = (await page.send(type="export"))["text"]
            for tag in ('[Event "Club final"]', '[Site "Hanoi"]', '[Date "2024.05.01"]',
                        '[Red "Lan"]', '[Black "Minh"]', '[Opening "Central cannon"]',
                        '[ECCO "B05"]', '[Result "1-0"]', '[WhiteTimeControl "2.5+0.025"]',
                        '[BlackTimeControl "10+0.1"]'):
                assert tag in exported, (tag, exported)
            assert "{the central cannon}" in exported and "{mirror}" in exported
            assert "(" in exported and "moves the" not in exported
            await page.send(type="new")
            state = await page.send(type="import", text=exported)
            assert state["saved"]["nodes"] == page.saved(state)["nodes"]
            assert len(page.root()["children"][0:1]) == 1
            first = page.nodes[page.root()["children"][0]]
            assert len(first["children"]) == 2 and first["comment"] == "the central cannon"
            state = await page.send(type="headers", headers={"Event": "Renamed", "Site": ""})
            assert state["headers"]["Event"] == "Renamed" and "Site" not in state["headers"]
            error = await page.send(type="headers", headers={"Event": 'a"b'})
            assert error["type"] == "error"
    run(body())


def test_a_game_against_the_engine_names_both_players():
    async def body():
        async with Page() as page:
            await page.send(type="settings", player="Hoa")
            state = await page.send(type="mode", engine="b",
                                    level={"kind": "nodes", "value": 500, "elo": 1200})
            assert state["headers"]["White"] == "Hoa"
            assert state["headers"]["Black"] == "tuong (level 1200)"
            exported = (await page.send(type="export"))["text"]
            assert '[Red "Hoa"]' in exported and '[BlackElo "1200"]' in exported
    run(body())


def test_annotation_during_a_game_is_refused_with_a_reason_and_its_summary_follows():
    """Faults 5 and 6: annotating a game the engine is playing is refused
    (it would stop the engine without a word); the summary is in the state,
    in the page's language, and goes with a new game."""
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 300})
            await page.send(type="move", move="h2e2")
            await page.engine_moved()
            error = await page.send(type="annotate", movetime=0.05)
            assert error["type"] == "error" and "playing" in error["message"]
            assert page.current()["mode"]["engine"] == "b"
            await page.send(type="mode", engine=None)
            await page.send(type="annotate", movetime=0.05)
            # A second click while it runs: refused, not a second annotation beside it.
            error = await page.send(type="annotate", movetime=0.05)
            assert error["type"] == "error" and "under way" in error["message"]
            await page.until(lambda: page.current()["summary"], "the summary")
            progress = [m for m in page.sent if m["type"] == "annotation"]
            assert [m["done"] for m in progress] == sorted(m["done"] for m in progress)
            english = page.current()["summary"]
            state = await page.send(type="settings", lang="vi")
            assert state["summary"] != english and "Đỏ" in state["summary"][0]
            state = await page.send(type="new")
            assert state["summary"] is None
    run(body())


def test_new_game_and_resignation_can_be_undone_and_a_draw_keeps_the_time_used():
    """Fault 7: the game a new one replaced comes back with `reopen`; a
    resignation is taken back; a draw agreed keeps the time spent."""
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7"):
                await page.send(type="move", move=move)
            await page.send(type="new")
            state = await page.send(type="reopen")
            assert _line_moves(state) == ["h2e2", "h9g7"] and state["ply"] == 2
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 300})
            await page.send(type="move", move="b0c2")
            await page.engine_moved()
            state = await page.send(type="resign")
            assert state["result"]["termination"] == "resignation"
            state = await page.send(type="undo")
            assert state["result"] is None and state["legal"]
            await page.send(type="mode", engine="b",
                            level={"kind": "clock", "base": 60, "inc": 0})
            await asyncio.sleep(0.5)
            await page.ask(("state", "notice"), type="draw")
            state = page.current()
            assert state["result"]["termination"] == "agreement", state["result"]
            assert state["clocks"]["w"] < 59.7 and state["clocks"]["running"] is None
    run(body())


def test_what_the_review_found_stays_fixed():
    """A restored subtree reaches the page in today's notation; reopen
    twice never points at a deleted move; a side's clock is charged when
    the game moves on without its move; a fallen flag is not taken back;
    a refused restore says so with `restore:`; an imported long comment is
    cut to what a restore takes."""
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7"):
                await page.send(type="move", move=move)
            await page.send(type="new")
            await page.send(type="reopen")
            second = page.root()["children"][0]
            second = page.nodes[second]["children"][0]
            await page.send(type="delete", node=second)
            await page.send(type="settings", notation="iccs")
            state = await page.send(type="undo_edit")
            assert [m["text"] for m in state["moves"]] == ["H2-E2", "H9-G7"]
            await page.send(type="delete", node=second)
            await page.send(type="new")
            await page.send(type="reopen")
            state = await page.send(type="reopen")   # nothing was replaced since: refused
            assert state["type"] == "error"
            state = page.current()
            assert state["cursor"] in page.nodes and state["play"] in page.nodes

            await page.send(type="new")
            await page.send(type="mode", engine="b",
                            level={"kind": "clock", "base": 60, "inc": 0})
            await asyncio.sleep(0.6)
            state = await page.send(type="mode", engine=None)   # Red's clock stops: charged
            assert state["clocks"]["w"] < 59.5, state["clocks"]

            await page.send(type="mode", engine="b", level={"kind": "clock", "base": 1, "inc": 0})
            await page.until(lambda: page.current()["result"] is not None, "the flag")
            error = await page.send(type="undo")
            assert error["type"] == "error" and "flag" in error["message"]

            error = await page.send(type="restore", game={"variant": "xiangqi",
                                                         "moves": ["h2e2"], "cursor": 7})
            assert error["type"] == "error" and error["message"].startswith("restore: ")
            state = await page.send(type="restore", game={"variant": "xiangqi",
                                                         "moves": ["h2e2"], "cursor": 1})
            assert state["restored"] and state["ply"] == 1
            assert page.current()["restored"] is False       # said once

            long = "x" * 3000
            state = await page.send(type="import", text=f"1. h2e2 {{{long}}} *")
            assert len(state["moves"][0]["comment"]) <= 2000
            await page.send(type="new")
            state = await page.send(type="restore", game=state["saved"])
            assert state["type"] == "state"
    run(body())


def test_browsing_does_not_cut_the_annotation_short():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7"):
                await page.send(type="move", move=move)
            started = asyncio.get_running_loop().time()
            await page.send(type="annotate", movetime=0.4)
            for _ in range(10):
                await page.send(type="goto", ply=0)
                await page.send(type="goto", ply=2)
                await asyncio.sleep(0.05)
            await page.until(lambda: page.current()["summary"], "the annotation")
            # Three positions of 0.4 s each: browsing stopped none of them.
            assert asyncio.get_running_loop().time() - started >= 1.2
    run(body())


def test_a_game_stops_growing_where_a_page_could_not_keep_it(monkeypatch):
    """Past MAX_NODES moves a new move is refused (the player's) or ends
    the engine's play with a notice (the engine's), so every game a page
    holds can be restored."""
    import tuong.tools.web.session as session_module
    monkeypatch.setattr(session_module, "MAX_NODES", 3)

    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7", "h0g2"):
                await page.send(type="move", move=move)
            error = await page.send(type="move", move="i9h9")
            assert error["type"] == "error" and "as many as a page keeps" in error["message"]
            await page.send(type="goto", ply=2)
            state = await page.send(type="move", move="h0g2")     # already there: allowed
            assert state["type"] == "state" and state["ply"] == 3
            await page.send(type="mode", engine="b", level={"kind": "nodes", "value": 200})
            await page.until(lambda: any(m["type"] == "notice" and "as many" in m["text"]
                                         for m in page.sent), "the engine's stop")
            await page.until(lambda: page.current()["mode"]["engine"] is None, "no engine")
    run(body())


def test_an_undone_deletion_cannot_grow_the_game_past_what_a_page_keeps(monkeypatch):
    """Delete a line, play up to the limit, take the deletion back: refused,
    so "undo edit" is no way around MAX_NODES."""
    import tuong.tools.web.session as session_module
    monkeypatch.setattr(session_module, "MAX_NODES", 3)

    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in ("h2e2", "h9g7"):
                await page.send(type="move", move=move)
            await page.send(type="delete", node=page.root()["children"][0])
            for move in ("b2e2", "b9c7", "b0c2"):
                await page.send(type="move", move=move)
            error = await page.send(type="undo_edit")
            assert error["type"] == "error" and "cannot take back the deletion" in error["message"]
            assert len(page.current()["saved"]["nodes"]) == 3
            await page.send(type="delete", node=page.root()["children"][0])
            state = await page.send(type="undo_edit")    # room again: it comes back
            assert state["type"] == "state" and len(state["saved"]["nodes"]) == 3
    run(body())


def test_the_opening_is_named_as_the_game_goes_and_written_into_the_pgn():
    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            state = await page.send(type="move", move="h2e2")
            assert state["opening"] == "Central Cannon"
            state = await page.send(type="move", move="h7e7")
            assert state["opening"] == "Central Cannon: Same Direction Cannons"
            state = await page.send(type="settings", lang="zh-Hans")
            assert state["opening"] == "顺炮"
            exported = (await page.send(type="export"))["text"]
            assert '[Opening "顺炮"]' in exported
            await page.send(type="headers", headers={"Opening": "my own name"})
            exported = (await page.send(type="export"))["text"]
            assert '[Opening "my own name"]' in exported       # the record's own wins
    run(body())
