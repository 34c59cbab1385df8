"""Real game records from public sources, read by tools/records/.

The files under tests/data/records/ (sources, licences, encodings and
notations in its README.txt) are kept byte for byte as published: GB2312,
Big5 and UTF-8; Chinese (simplified and traditional), full-width WXF and
coordinates. For each file the reader must report no Problem, find as many
games as the file has tag sections, keep every tag, and read as many moves as
the file spells out; and every move it reads must be legal for an independent
rules implementation, Fairy-Stockfish (pyffish; skipped without it outside
CI, see conftest.need), with a recorded decisive result agreeing with a
checkmate at the end.

They hold what broke the first reader: XQWizard's footer after a game's
result, tag values with bare quotes inside, WXF in full-width characters.
"""
import functools
import pathlib
import re
import unicodedata

import pytest

from conftest import need_module, to_ranks1
from tuong.tools.records import read_file

DATA = pathlib.Path(__file__).parent / "data" / "records"
FILES = sorted(p.relative_to(DATA).as_posix() for p in DATA.glob("*/*.pgn"))

# The encoding each source publishes in (README.txt), used only by the
# independent reading below, never given to the reader.
ENCODING = {"wukong": "utf-8", "ccpd": "big5", "cchess": "gbk"}

# -- an independent reading of the files ----------------------------------------
_TAG_LINE = re.compile(r'^\s*\[\s*([A-Za-z_]\w*)\s+"(.*)"\s*\]\s*$')
_CHINESE_MOVE = re.compile(r"[前後后中一二三四五]?[帥帅將将仕士相象傌馬马俥車车炮砲包兵卒]"
                           r"[一二三四五六七八九１-９1-9]?[進进退平][一二三四五六七八九１-９1-9]")
_COORD_MOVE = re.compile(r"[a-i][0-9][a-i][0-9]")
_WXF_MOVE = re.compile(r"(?:[KAEBHNRCP][1-9+\-]|[+\-][KAEBHNRCP]|[1-5][1-9])[+\-=.][1-9]")
_RESULTS = ("1-0", "0-1", "1/2-1/2")


@functools.lru_cache(maxsize=None)
def _read(name):
    """read_file's ([Record], [Problem]) for a file, read once for all tests."""
    return read_file(DATA / name)


def _text(name):
    return (DATA / name).read_bytes().decode(ENCODING[name.split("/")[0]])


def _games(name):
    """[(tags, move texts)] of a file, a game per section of tag lines;
    a tag's value runs from the first to the last quote of its line."""
    games, in_tags = [], False
    for line in _text(name).splitlines():
        m = _TAG_LINE.match(line)
        if m:
            if not in_tags:
                games.append(({}, []))
                in_tags = True
            games[-1][0][m.group(1)] = m.group(2)
        elif games:
            in_tags = False
            games[-1][1].append(line)
    out = []
    for tags, lines in games:
        body = unicodedata.normalize("NFKC", re.sub(r"\{[^}]*\}", " ", "\n".join(lines)))
        tokens = [re.sub(r"^\d+\.+", "", t) for t in body.split()]
        moves = [t for t in tokens if _CHINESE_MOVE.fullmatch(t) or _COORD_MOVE.fullmatch(t)
                 or _WXF_MOVE.fullmatch(t)]
        out.append((tags, moves))
    return out


# -- the reader against it ------------------------------------------------------
@pytest.mark.parametrize("name", FILES)
def test_reads_without_problems(name):
    records, problems = _read(name)
    assert [str(p) for p in problems] == []
    assert records


@pytest.mark.parametrize("name", FILES)
def test_as_many_games_as_tag_sections(name):
    records, _ = _read(name)
    assert len(records) == len(_games(name))


@pytest.mark.parametrize("name", FILES)
def test_tags_kept(name):
    records, _ = _read(name)
    games = _games(name)
    assert len(records) == len(games)
    for number, (record, (tags, _)) in enumerate(zip(records, games), 1):
        for key, value in tags.items():
            assert record.tags.get(key, "").strip() == value.strip(), (number, key)
        if tags.get("Result") in _RESULTS:
            assert record.result == tags["Result"], number


@pytest.mark.parametrize("name", FILES)
def test_every_move_read(name):
    records, _ = _read(name)
    games = _games(name)
    assert len(records) == len(games)
    for number, (record, (_, moves)) in enumerate(zip(records, games), 1):
        assert len(record.moves) == len(moves), number
        assert all(re.fullmatch(r"[a-i][0-9][a-i][0-9]", m) for m in record.moves), number


# -- legality under Fairy-Stockfish -----------------------------------------------
def _sf_fen(sf, fen):
    if not fen:
        return sf.start_fen("xiangqi")
    fields = fen.split()
    side = {"r": "w", "w": "w", "b": "b"}[fields[1] if len(fields) > 1 else "w"]
    rest = fields[2:6] if len(fields) >= 6 else ["-", "-", "0", "1"]
    return " ".join([fields[0], side] + rest)


def _replay(sf, record):
    """Every move checked legal in Fairy-Stockfish's position (moves in its
    ranks 1-10: h2e2 -> h3e3); whether the side to move at the end has no
    legal move (checkmate, or stalemate: a loss too), and whether Red made
    the last move."""
    fen = _sf_fen(sf, record.fen)
    assert sf.validate_fen(fen, "xiangqi") == sf.FEN_OK, fen
    played = []                         # a pyffish call costs more than its replay
    for ply, move in enumerate(record.moves):
        assert to_ranks1(move) in sf.legal_moves("xiangqi", fen, played), (ply, move, fen, played)
        played.append(to_ranks1(move))
    red_moved_last = (fen.split()[1] == "w") == (len(played) % 2 == 1)
    return not sf.legal_moves("xiangqi", fen, played), red_moved_last


# The other two wukong files hold the same games as xqdb_traditional.pgn, and
# the tests below compare them move for move (pyffish costs ms a call).
@pytest.mark.parametrize("name", [f for f in FILES if f not in (
    "wukong/xqdb_international.pgn", "wukong/bulk_games_uci.pgn")])
def test_moves_legal_for_fairy_stockfish(name):
    sf = need_module("pyffish")
    records, _ = _read(name)
    assert records
    for number, record in enumerate(records, 1):
        mated, red_moved_last = _replay(sf, record)
        if mated and record.result in ("1-0", "0-1"):
            assert record.result == ("1-0" if red_moved_last else "0-1"), number


CHECKMATES = {"ccpd/01-midgame-00001882.pgn": "1-0", "ccpd/02-midgame-00001682.pgn": "1-0",
              "ccpd/03-midgame-00001904.pgn": "1-0", "ccpd/04-master-00015052.pgn": "0-1",
              "ccpd/05-midgame-00000139.pgn": "0-1", "ccpd/06-midgame-00001240.pgn": "0-1"}


@pytest.mark.parametrize("name", sorted(CHECKMATES))
def test_decisive_results_are_checkmates(name):
    sf = need_module("pyffish")
    (record,), _ = _read(name)
    mated, red_moved_last = _replay(sf, record)
    assert mated
    assert record.result == CHECKMATES[name] == ("1-0" if red_moved_last else "0-1")


# -- the same 15 games in three notations ------------------------------------------
# The source's one discrepancy (README.txt): game 2, Red's 36th move, where the
# Chinese and WXF files give the rear pawn (后兵进一, e3e4) and the coordinate
# file the front one (e5e6); both lines stay legal and agree everywhere else.
DISCREPANCY = (1, 70, "e3e4", "e5e6")


def test_chinese_and_coordinates_agree():
    chinese, _ = _read("wukong/xqdb_traditional.pgn")
    coords, _ = _read("wukong/bulk_games_uci.pgn")
    assert len(chinese) == len(coords) == 15
    game, ply, in_chinese, in_coords = DISCREPANCY
    for number, (a, b) in enumerate(zip(chinese, coords)):
        assert a.tags["Event"] == b.tags["Event"]
        if number == game:
            assert (a.moves[ply], b.moves[ply]) == (in_chinese, in_coords)
            a, b = a.moves[:ply] + a.moves[ply + 1:], b.moves[:ply] + b.moves[ply + 1:]
            assert a == b
        else:
            assert a.moves == b.moves, number


def test_full_width_wxf_and_chinese_agree():
    chinese, _ = _read("wukong/xqdb_traditional.pgn")
    wxf, _ = _read("wukong/xqdb_international.pgn")
    assert len(wxf) == len(chinese) == 15
    assert [r.moves for r in wxf] == [r.moves for r in chinese]
