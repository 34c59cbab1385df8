"""The three scripts a user wrote from the documentation site alone (issue
55; tests/typing/scripts/, which tests/test_typing.py checks with `mypy
--strict`) run and do what they say: a FEN's line in Chinese, a collection
rewritten in WXF, a game between a level and full strength saved as PGN."""
import os
import re
import subprocess
import sys

from conftest import DATA, ROOT

from tuong.engine.board import Board
from tuong.tools.records import game_files, read_file

SCRIPTS = ROOT / "tests" / "typing" / "scripts"
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def run(script, *args, cwd):
    """The script run as a user runs it (`python SCRIPT ARGS`, in `cwd`, the
    venv's scripts on PATH: `open_engine("tuong")` finds its tuong there)."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


def test_analyse_fen_prints_the_line_in_chinese(tmp_path):
    board = Board()
    board.push("h2e2")                                       # Black to move
    done = run("analyse_fen.py", board.fen(), 5, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.fullmatch(r"depth (\d+), (\S+) for Red: (.+)\n", done.stdout)
    assert found and found.group(1) == "5", done.stdout
    assert re.fullmatch(r"[+-]\d+|#[+-]\d+", found.group(2)), done.stdout
    moves = found.group(3).split()
    assert len(moves) >= 2 and all(CHINESE.search(move) for move in moves), moves
    assert moves[0][0] in "车車马馬相象仕士将將炮砲卒", moves      # a Black piece moves first


def test_analyse_fen_names_a_position_it_refuses(tmp_path):
    done = run("analyse_fen.py", "3k5/4R4/4K4/9/9/9/9/9/9/9 b - - 0 1", cwd=tmp_path)
    assert done.returncode == 1 and "not sent" in done.stderr, done.stdout + done.stderr


def test_rewrite_wxf_writes_the_same_games_in_wxf(tmp_path):
    source = DATA / "records" / "cchess"                     # 4 games, in Chinese
    out = tmp_path / "wxf.pgn"
    done = run("rewrite_wxf.py", out, source, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == f"4 games written in WXF to {out}, 0 left out\n", done.stdout
    originals = [record for path in game_files([str(source)])
                 for record in read_file(path)[0]]
    rewritten, problems = read_file(out)
    assert not problems and len(rewritten) == len(originals) == 4
    assert {record.notation for record in originals} == {"chinese"}
    assert {record.notation for record in rewritten} == {"wxf"}
    assert '[Format "WXF"]' in out.read_text(encoding="utf-8")
    for old, new in zip(originals, rewritten):
        assert (new.moves, new.result, new.fen, new.red) == \
            (old.moves, old.result, old.fen, old.red)


def test_level_game_saves_a_game_with_its_result_and_the_level_named(tmp_path):
    out = tmp_path / "game.pgn"
    done = run("level_game.py", out, "--depth", 2, "--max-plies", 24, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"saved to {out}" in done.stdout
    (record,), problems = read_file(out)            # a valid PGN: every move legal
    assert not problems
    assert record.result in ("1-0", "0-1", "1/2-1/2") and record.tags["Result"] == record.result
    assert record.red == "tuong (level 1500)" and record.black == "tuong"
    assert 1 <= len(record.moves) <= 24
    assert done.stdout.startswith(record.result + " "), done.stdout
