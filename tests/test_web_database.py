"""tuong-web's games database at the session's level (tools/web/database.py):
searches and the explorer's master moves answer as tuong.tools.db does for
the same database, a game opens for study and a selection exports, a file
of many games is offered as a list, the library is kept per page (two pages
never write over each other's game), a database that cannot be opened is
said and the rest works, and hostile messages are refused with a key."""
import asyncio
import base64
import json
import shutil

import pytest

from tuong.tools import db, records
from tuong.tools.db import ecco, library
from tuong.tools.web.session import Session

from conftest import DATA
from test_web_session import Page, run

RECORDS = DATA / "records"
MANY = RECORDS / "wukong" / "xqdb_traditional.pgn"          # 15 games in one file


@pytest.fixture(scope="module")
def games_db(tmp_path_factory):
    """A database of the test records (the library empty)."""
    path = tmp_path_factory.mktemp("webdb") / "games.sqlite"
    connection = db.connect(path)
    db.import_files(connection, [str(RECORDS)], workers=1)
    connection.close()
    return path


@pytest.fixture
def fresh_db(games_db, tmp_path):
    """A copy of the database that a test may change."""
    path = tmp_path / "games.sqlite"
    shutil.copy(games_db, path)
    return path


class DbPage(Page):
    """A page whose session has the games database at `path`."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    async def __aenter__(self):
        self.session = Session(lambda: None, self.emit, "tuong", db_path=self.path)
        return self

    async def answer(self, kind, **message):
        """Send, and the first message of type `kind` (or an error) it brought."""
        count = len(self.sent)
        await self.session.handle(message)
        return next(m for m in self.sent[count:] if m["type"] in (kind, "error"))


def ids(games):
    return [game["id"] if isinstance(game, dict) else game.id for game in games]


SEARCHES = [
    ({}, db.Search()),
    ({"player": "胡荣华"}, db.Search(player="胡荣华")),
    ({"player": "胡榮華"}, db.Search(player="胡榮華")),     # traditional finds simplified
    ({"result": "1-0"}, db.Search(result="1-0")),
    ({"ecco": "C"}, db.Search(ecco="C")),
    ({"date_from": "1980", "date_to": "1999.12"}, db.Search(date_from="1980", date_to="1999.12")),
    ({"event": "全国"}, db.Search(event="全国")),
    ({"limit": 3, "offset": 2}, db.Search(limit=3, offset=2)),
]


def test_searches_answer_as_the_database_does(games_db):
    connection = db.connect(games_db)

    async def body():
        async with DbPage(games_db) as page:
            info = await page.answer("db_info", type="db_info")
            assert info["available"] and info["games"] == db.count(connection, db.Search())
            assert info["games"] > 40
            for fields, query in SEARCHES:
                answer = await page.answer("db_games", type="db_search", ref=7,
                                           **{"limit": 50, **fields})
                query.limit = fields.get("limit", 50)
                assert answer["type"] == "db_games", answer
                assert answer["ref"] == 7
                assert ids(answer["games"]) == ids(db.search(connection, query)), fields
                assert answer["total"] == db.count(connection, query), fields
                for game in answer["games"]:
                    if game["ecco"]:
                        assert game["ecco_name"] == ecco.shipped().name(game["ecco"], "en")
            # "This position": the games that reach the board shown, transpositions included.
            await page.send(type="mode", engine=None)
            await page.send(type="move", move="h2e2")
            answer = await page.answer("db_games", type="db_search", position=True, limit=200)
            query = db.Search(position=(None, ["h2e2"]), limit=200)
            assert ids(answer["games"]) == ids(db.search(connection, query))
            assert answer["total"] == db.count(connection, query) > 0
    run(body())
    connection.close()


def test_the_explorer_shows_the_master_moves_as_the_database_counts_them(games_db):
    connection = db.connect(games_db)

    def expected(moves):
        found = db.explore(connection, moves=moves)
        return found.games, [(m.move, m.games, m.red, m.draw, m.black, m.average_year)
                             for m in found.moves]

    def shown(state):
        masters = state["masters"]
        return masters["games"], [(m["move"], m["games"], m["red"], m["draw"], m["black"],
                                   m["average_year"]) for m in masters["moves"]]

    async def body():
        async with DbPage(games_db) as page:
            await page.send(type="mode", engine=None)
            state = page.current()
            assert shown(state) == expected([]) and state["masters"]["games"] > 30
            line = []
            for _ in range(4):                   # down the most played line
                move = state["masters"]["moves"][0]["move"]
                state = await page.send(type="move", move=move)
                line.append(move)
                assert shown(state) == expected(line), line
            first = state["masters"]["moves"][0] if state["masters"]["moves"] else None
            if first:
                assert first["text"] and first["move"] in state["legal"]
            state = await page.send(type="settings", lang="zh-Hans", notation="chinese")
            assert shown(state) == expected(line)
            if first:
                assert any("一" <= ch <= "龥" for ch in state["masters"]["moves"][0]["text"])
    run(body())
    connection.close()


def test_a_game_opens_for_study_and_a_selection_exports(games_db):
    connection = db.connect(games_db)
    games = db.search(connection, db.Search(player="胡荣华", limit=3))
    assert games

    async def body():
        async with DbPage(games_db) as page:
            state = await page.send(type="db_open", id=games[0].id)
            assert state["type"] == "state" and state["mode"]["engine"] is None
            assert [m["move"] for m in state["moves"]] == games[0].moves
            assert state["headers"]["White"] == games[0].red
            assert state["record_names"]
            answer = await page.answer("pgn", type="db_export", ids=ids(games))
            read, problems = records.read_pgn(answer["text"])
            assert not problems and [r.moves for r in read] == [g.moves for g in games]
            assert answer["games"] == len(games)
    run(body())
    connection.close()


def test_a_file_of_many_games_is_a_list_to_choose_from(fresh_db):
    data = base64.b64encode(MANY.read_bytes()).decode()
    wanted, _ = records.read_file(str(MANY))

    async def body():
        async with DbPage(fresh_db) as page:
            await page.send(type="import", data=data, name=MANY.name)
            await page.until(lambda: any(m["type"] == "file_games" for m in page.sent),
                             "the list of the file's games")
            listed = page.last("file_games")
            assert len(listed["games"]) == len(wanted) == 15
            assert listed["games"][3]["red"] == wanted[3].red
            state = await page.send(type="import_pick", index=3)
            assert [m["move"] for m in state["moves"]] == wanted[3].moves
            # Into the database: every game kept once.
            before = db.count(db.connect(fresh_db), db.Search())
            answer = await page.answer("db_imported", type="db_import", data=data,
                                       name=MANY.name)
            again = await page.answer("db_imported", type="db_import", data=data,
                                      name=MANY.name)
            assert again["games"] == 0 and again["duplicates"] == 15
            info = await page.answer("db_info", type="db_info")
            assert info["games"] == before + answer["games"]
            assert page.last("file_games")["name"] == MANY.name
    run(body())


def saved_game(*moves, white="A"):
    return {"variant": "xiangqi", "start_fen": None, "comment": None,
            "nodes": [[i, move, None, None, None] for i, move in enumerate(moves)],
            "cursor": len(moves), "play": len(moves), "headers": {"White": white},
            "mode": {"engine": None, "level": {"kind": "nodes", "value": 20000}},
            "notation": "wxf", "lang": "en"}


def test_two_pages_each_keep_their_game_and_both_come_back(fresh_db):
    async def body():
        async with DbPage(fresh_db) as one, DbPage(fresh_db) as two:
            first = await one.answer("library_saved", type="library_save", id=None, ref=1,
                                     title="one", saved=saved_game("h2e2"))
            second = await two.answer("library_saved", type="library_save", id=None, ref=1,
                                      title="two", saved=saved_game("b2e2", white="B"))
            assert first["available"] and first["ref"] == 1
            assert first["id"] != second["id"]
            # Each page goes on in its own row.
            await one.answer("library_saved", type="library_save", id=first["id"], title="one",
                             saved=saved_game("h2e2", "h9g7"))
            await two.answer("library_saved", type="library_save", id=second["id"],
                             title="two", saved=saved_game("b2e2", "b9c7", white="B"))
        # Both pages reload: each finds its game.
        async with DbPage(fresh_db) as again:
            listed = await again.answer("library", type="library_list")
            by_id = {game["id"]: game for game in listed["games"]}
            assert listed["total"] == 2
            assert [n[1] for n in by_id[first["id"]]["saved"]["nodes"]] == ["h2e2", "h9g7"]
            assert [n[1] for n in by_id[second["id"]]["saved"]["nodes"]] == ["b2e2", "b9c7"]
            state = await again.send(type="restore", game=by_id[second["id"]]["saved"])
            assert state["restored"] and [m["move"] for m in state["moves"]] == ["b2e2", "b9c7"]
            # A row another page deleted: the game is kept in a new one, never lost.
            deleted = await again.answer("library_deleted", type="library_delete",
                                         id=first["id"])
            assert deleted["deleted"]
            kept = await again.answer("library_saved", type="library_save", id=first["id"],
                                      title="one", saved=saved_game("h2e2"))
            assert kept["id"] not in (first["id"], second["id"])
    run(body())
    connection = db.connect(fresh_db)
    assert library.count(connection) == 2
    connection.close()


def test_opening_names_come_from_the_ecco_classifier():
    line = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]

    async def body():
        async with Page() as page:
            await page.send(type="mode", engine=None)
            for move in line:
                state = await page.send(type="move", move=move)
            code = ecco.classify(line)
            assert state["opening"] == f"{code} {ecco.shipped().name(code, 'en')}"
            state = await page.send(type="settings", lang="zh-Hant", notation="chinese")
            assert state["opening"] == f"{code} {ecco.shipped().name(code, 'zh-Hant')}"
            assert '[Opening "' + state["opening"] in (await page.send(type="export"))["text"]
    run(body())


HOSTILE = [
    {"type": "db_search", "limit": 10 ** 9},
    {"type": "db_search", "limit": "50"},
    {"type": "db_search", "limit": True},
    {"type": "db_search", "offset": -1},
    {"type": "db_search", "player": "x" * 5000},
    {"type": "db_search", "player": ["a"]},
    {"type": "db_search", "result": "2-0"},
    {"type": "db_search", "ecco": "Z99"},
    {"type": "db_search", "date_from": "soon"},
    {"type": "db_search", "position": "yes"},
    {"type": "db_open", "id": "1"},
    {"type": "db_open", "id": True},
    {"type": "db_open", "id": -5},
    {"type": "db_open", "id": 10 ** 9},
    {"type": "db_export", "ids": []},
    {"type": "db_export", "ids": list(range(1, 2000))},
    {"type": "db_export", "ids": ["a"]},
    {"type": "db_export", "ids": {"a": 1}},
    {"type": "db_import", "data": "%%%", "name": "x.pgn"},
    {"type": "db_import", "data": 5},
    {"type": "import_pick", "index": 0},
    {"type": "library_save", "saved": "x", "title": "t"},
    {"type": "library_save", "saved": {"variant": "chess"}, "title": "t"},
    {"type": "library_save", "saved": {"variant": "xiangqi", "nodes": [[5, "h2e2"]]}},
    {"type": "library_save", "saved": saved_game("h2e2"), "title": "t" * 500},
    {"type": "library_save", "saved": saved_game("h2e2"), "id": True},
    {"type": "library_delete", "id": None},
    {"type": "library_list", "limit": 0},
]


def test_hostile_messages_are_refused_with_a_key_and_the_session_goes_on(fresh_db):
    async def body():
        async with DbPage(fresh_db) as page:
            await page.send(type="settings", lang="zh-Hans", notation="chinese")
            before = page.current()
            for message in HOSTILE:
                count = len(page.sent)
                await page.session.handle(json.loads(json.dumps(message)))
                errors = [m for m in page.sent[count:] if m["type"] == "error"]
                assert len(errors) == 1, message
                assert errors[0]["key"] and errors[0]["local"], (message, errors[0])
                assert "internal error" not in errors[0]["message"], message
            assert page.current()["fen"] == before["fen"]
            refused = await page.answer("error", type="db_open", id=10 ** 9)
            assert refused["local"] == "数据库中没有这局棋"
            refused = await page.answer("error", type="db_search", limit=10 ** 9)
            assert "必须是" in refused["local"]
            connection = db.connect(fresh_db)
            assert library.count(connection) == 0
            connection.close()
    run(body())


def test_a_database_that_cannot_be_opened_is_said_and_the_rest_works(tmp_path):
    broken = tmp_path / "not-a-database.sqlite"
    broken.write_bytes(b"this is not SQLite" * 100)

    async def body():
        async with DbPage(broken) as page:
            await page.send(type="settings", lang="zh-Hant", notation="chinese")
            info = await page.answer("db_info", type="db_info")
            assert info["available"] is False and info["local"].startswith("無法開啟對局資料庫")
            refused = await page.answer("error", type="db_search")
            assert refused["key"] == "the games database cannot be opened"
            saved = await page.answer("library_saved", type="library_save", ref=3,
                                      saved=saved_game("h2e2"), title="t")
            assert saved["available"] is False and saved["ref"] == 3
            listed = await page.answer("library", type="library_list")
            assert listed["available"] is False
            state = await page.send(type="mode", engine=None)
            state = await page.send(type="move", move="h2e2")
            assert state["masters"] is None and state["ply"] == 1
        async with Page() as page:                  # no database at all
            assert page.current()["masters"] is None
    run(body())
    assert asyncio.iscoroutinefunction(Session.on_db_info)
