"""tuong-db: the games database. Imports of real records (tests/data/records:
master games of the Chinese Chess Practical Dataset, CC BY 4.0, and the same
15 games in three notations), every explore count checked against a count
made here from the records themselves, searches, resume, and the command line."""
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tuong.engine.board import Board
from tuong.tools import db
from tuong.tools.db import ecco, importer
from tuong.tools.records import game_files, read_file

DATA = Path(__file__).parent / "data"
RECORDS = DATA / "records"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("db")
    connection = db.connect(folder / "games.sqlite")
    report = db.import_files(connection, [str(RECORDS), str(DATA / "xqf")], workers=2)
    yield connection, report
    connection.close()


def records_of(paths):
    """Every game the reader keeps from `paths`, read here independently."""
    games = []
    for path in game_files([str(p) for p in paths]):
        if path.lower().endswith((".pgn", ".xqf")):
            games.extend(read_file(path)[0])
    return games


def independent_counts(records):
    """{key: (games, {move: [red, draw, black, games]})} by the stated rule:
    a game counts once for a position, at its first arrival, its next move the
    one played from there; games the importer keeps once are counted once."""
    distinct = {}
    for record in records:
        fen = record.fen if record.fen and Board(record.fen).fen() != Board().fen() else None
        red = db.fold(record.red).replace(" ", "")
        black = db.fold(record.tags.get("Black")).replace(" ", "")
        day = db.store.day_of(record.tags.get("Date"))
        same = [other for other in distinct.get((fen, tuple(record.moves)), [])
                if importer.same_game((red, black, day), other[:3])]
        if not same:
            distinct.setdefault((fen, tuple(record.moves)), []).append((red, black, day, record))
    counts = defaultdict(lambda: [0, defaultdict(lambda: [0, 0, 0, 0])])
    for (fen, moves), copies in distinct.items():
        for *_, record in copies:
            board = Board(fen) if fen else Board()
            seen = set()
            for ply in range(len(moves) + 1):
                key = db.store.signed_key(board.hash)
                if key not in seen:
                    seen.add(key)
                    counts[key][0] += 1
                    if ply < len(moves):
                        stats = counts[key][1][moves[ply]]
                        outcome = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}.get(record.result)
                        if outcome is not None:
                            stats[outcome] += 1
                        stats[3] += 1
                if ply < len(moves):
                    board.push(moves[ply])
    return counts


def test_every_explore_count_matches_an_independent_count(imported):
    connection, report = imported
    counts = independent_counts(records_of([RECORDS, DATA / "xqf"]))
    assert report.games > 40
    checked = 0
    for key, (games, moves) in counts.items():
        if games < 2 and checked > 300:
            continue
        total = connection.execute("SELECT count(*) FROM positions WHERE key = ?",
                                   (key,)).fetchone()[0]
        assert total == games
        rows = connection.execute(
            "SELECT next, count(*), sum(outcome = 1), sum(outcome = 0), sum(outcome = -1) "
            "FROM positions WHERE key = ? AND next IS NOT NULL GROUP BY next", (key,)).fetchall()
        found = {db.store.decode_move(code): [red or 0, draw or 0, black or 0, n]
                 for code, n, red, draw, black in rows}
        assert found == {move: stats for move, stats in moves.items()}
        checked += 1
    start = db.explore(connection)
    assert start.games == counts[db.position_key()][0]
    assert {m.move: m.games for m in start.moves} == \
        {m: s[3] for m, s in counts[db.position_key()][1].items()}


def test_the_json_form_of_explore(imported, tmp_path):
    connection, _ = imported
    path = connection.execute("PRAGMA database_list").fetchone()[2]
    done = subprocess.run([sys.executable, "-m", "tuong.tools.db.cli", "--db", path, "explore",
                           "--moves", "h2e2", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["games"] == db.explore(connection, moves=["h2e2"]).games > 0
    first = answer["moves"][0]
    assert set(first) >= {"move", "games", "red", "draw", "black"}
    assert first["games"] >= first["red"] + first["draw"] + first["black"]
    assert sum(m["games"] for m in answer["moves"]) <= answer["games"]


def test_the_same_games_in_three_notations_are_kept_once(tmp_path):
    connection = db.connect(tmp_path / "g.sqlite")
    report = db.import_files(connection, [str(RECORDS / "wukong")], workers=1)
    # 15 games in three notations; game 2's sources disagree at one move (README.txt)
    assert report.games == 16
    assert report.duplicates == 45 - 16


def test_a_game_is_one_across_collections_that_write_it_differently():
    one = ("湖北柳大华", "中国台北吴贵临", 19960418)
    assert importer.same_game(one, ("柳大华", "吴贵临", 19960417))
    assert importer.same_game(one, ("柳大华", "吴贵临", None))
    assert not importer.same_game(one, ("柳大华", "吴贵临", 19970418))
    assert not importer.same_game(one, ("胡荣华", "吴贵临", 19960418))


def test_an_import_again_adds_nothing_and_an_interrupted_one_goes_on(tmp_path):
    whole = db.connect(tmp_path / "whole.sqlite")
    expected = db.import_files(whole, [str(RECORDS)], workers=1).games
    again = db.import_files(whole, [str(RECORDS)], workers=1)
    assert again.games == 0 and again.files == 0 and again.resumed > 0

    cut = db.connect(tmp_path / "cut.sqlite")
    importer.BATCH_FILES, saved = 5, importer.BATCH_FILES

    def interrupt(report, seen):
        if report.files == 12:
            raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            db.import_files(cut, [str(RECORDS)], workers=1, progress=interrupt)
    finally:
        importer.BATCH_FILES = saved
    kept = cut.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 0 < kept < expected
    db.import_files(cut, [str(RECORDS)], workers=2)
    assert cut.execute("SELECT count(*) FROM games").fetchone()[0] == expected
    for table in ("positions", "files"):
        assert cut.execute(f"SELECT count(*) FROM {table}").fetchone() == \
            whole.execute(f"SELECT count(*) FROM {table}").fetchone()


def test_a_broken_game_is_named_and_the_rest_imported(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    good = next((RECORDS / "ccpd").glob("*master*.pgn"))
    shutil.copy(good, folder / "good.pgn")
    (folder / "bad.pgn").write_text('[Event "x"]\n[Red "A"]\n[Black "B"]\n\n'
                                    '1. h2e2 h9g7 2. zz *\n\n'
                                    '[Event "y"]\n[Red "C"]\n[Black "D"]\n\n1. h2e2 h7e7 *\n')
    connection = db.connect(tmp_path / "g.sqlite")
    report = db.import_files(connection, [str(folder)], workers=1)
    assert report.games == 2
    assert len(report.problems) == 1
    assert "bad.pgn" in report.problems[0] and "game 1" in report.problems[0]


def test_searches(imported):
    connection, _ = imported
    some = connection.execute("SELECT red, black FROM games WHERE red_f != '' AND red_f != '?' "
                              "AND red != red_f LIMIT 1").fetchone()
    if some is not None:            # a name in traditional characters finds the simplified
        simplified = db.fold(some[0])
        assert db.search(connection, db.Search(player=simplified))
    everything = db.count(connection, db.Search())
    red_wins = db.count(connection, db.Search(result="1-0"))
    assert 0 < red_wins < everything
    dated = db.search(connection, db.Search(date_from="1990", date_to="1999", limit=None))
    assert all(1990 <= int(g.date[:4]) <= 1999 for g in dated if g.date[:4].isdigit())
    tagged = connection.execute("SELECT ecco FROM games WHERE ecco IS NOT NULL LIMIT 1").fetchone()
    if tagged:
        found = db.search(connection, db.Search(ecco=tagged[0][:2], limit=None))
        assert found and all(g.ecco.startswith(tagged[0][:2]) for g in found)
    with pytest.raises(db.QueryError):
        db.search(connection, db.Search(ecco="Z99"))
    with pytest.raises(db.QueryError):
        db.search(connection, db.Search(date_from="soon"))


def test_a_position_search_finds_transpositions(tmp_path):
    (tmp_path / "two.pgn").write_text(
        '[Event "a"]\n[Red "A"]\n[Black "B"]\n\n1. h2e2 h9g7 2. b0c2 i9h9 *\n\n'
        '[Event "b"]\n[Red "C"]\n[Black "D"]\n\n1. b0c2 h9g7 2. h2e2 g6g5 *\n')
    connection = db.connect(tmp_path / "g.sqlite")
    db.import_files(connection, [str(tmp_path / "two.pgn")], workers=1)
    found = db.search(connection, db.Search(position=(None, ["h2e2", "h9g7", "b0c2"])))
    assert [g.event for g in found] == ["a", "b"]
    explored = db.explore(connection, moves=["b0c2", "h9g7", "h2e2"])
    assert explored.games == 2
    assert sorted(m.move for m in explored.moves) == ["g6g5", "i9h9"]
    with pytest.raises(db.QueryError):
        db.explore(connection, moves=["h2e3"])


def run_db(*args):
    return subprocess.run([sys.executable, "-m", "tuong.tools.db.cli", *args],
                          capture_output=True, text=True)


def test_the_command_line_says_what_is_wrong_in_one_line(tmp_path):
    missing = run_db("--db", str(tmp_path / "none.sqlite"), "search")
    assert missing.returncode == 2 and len(missing.stderr.splitlines()) == 1
    assert not (tmp_path / "none.sqlite").exists()
    base = tmp_path / "g.sqlite"
    assert run_db("--db", str(base), "import", str(RECORDS / "cchess")).returncode in (0, 1)
    for args in (["explore", "--fen", "not a fen"], ["explore", "--moves", "h2e9"],
                 ["search", "--from", "soon"], ["search", "--ecco", "Q1"],
                 ["import", str(tmp_path / "nowhere")]):
        done = run_db("--db", str(base), *args)
        assert done.returncode == 2, (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    not_db = tmp_path / "text.sqlite"
    not_db.write_text("hello " * 1000)
    done = run_db("--db", str(not_db), "info")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_export_writes_the_searched_games_in_a_notation(imported, tmp_path):
    connection, _ = imported
    path = connection.execute("PRAGMA database_list").fetchone()[2]
    out = tmp_path / "out.pgn"
    done = run_db("--db", path, "export", "--result", "0-1", "--notation", "wxf", "-o", str(out))
    assert done.returncode == 0, done.stderr
    records, problems = read_file(out)
    assert not [p for p in problems if not p.game_kept]
    assert len(records) == db.count(connection, db.Search(result="0-1"))
    assert all(r.result == "0-1" and r.notation == "wxf" for r in records)


def test_the_default_place_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert db.default_path() == tmp_path / "tuong" / "games.sqlite"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert db.default_path() == Path(os.path.expanduser("~")) / ".local/share/tuong/games.sqlite"


def test_the_ecco_model_learns_codes_and_holds_out_fairly():
    games = [(["h2e2", "h9g7", "h0g2", "i9h9"], "C00"), (["h2e2", "h9g7", "h0g2", "i9h9"], "C00"),
             (["h2e2", "h7e7"], "D00"), (["h2e2", "h7e7"], "D00"), (["g3g4"], "E00"),
             (["g3g4"], "E00")]
    model = ecco.build(games)
    assert model.classify(["h2e2", "h9g7", "h0g2", "i9h9", "b0c2"]) == "C00"
    assert model.classify(["h2e2", "h7e7", "h0g2"]) == "D00"
    assert model.classify(["a3a4"]) in (None, "C00", "D00", "E00")


def test_the_shipped_ecco_model_classifies_tagged_master_games():
    records = [r for r in records_of([RECORDS / "ccpd"]) if r.tags.get("ECCO") and not
               (r.fen and Board(r.fen).fen() != Board().fen()) and len(r.moves) > 20]
    assert len(records) >= 5
    right = sum(ecco.classify(r.moves) == r.tags["ECCO"] for r in records)
    assert right >= 0.8 * len(records)
