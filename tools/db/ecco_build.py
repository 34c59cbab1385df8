"""Building and measuring the ECCO model (tools/db/ecco.py) from a games
database that holds tagged games:

    python -m tuong.tools.db.ecco_build --db games.sqlite [--names FOLDER...]
        [--holdout 10] [--out tools/db/ecco.bin]

Games are split by their moves (a hash, so the split is the same every
run): one in `--holdout` is held out, the model is built from the rest and
measured on the held-out games (exact code), then rebuilt from all of them
and written to --out. --names: record folders whose records name codes (the
corpus's opening studies, Dataset/開局, with line names as their Event; and
its games filed by opening, 以開局分類/NAME/): a code's name is the most
frequent line name of its studies, else the folder its games are most filed in.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence

from tuong.tools.db import ecco
from tuong.tools.db.store import connect
from tuong.tools.records import game_files, read_file

_CHAPTER = re.compile(r"第[^章\s]{1,4}章\s*(.+?)\s*(?:第[^節节\s]{1,4}[節节]|$)")
_LEADING = re.compile(r"^\s*(?:\[[^\]]*\]|第\S{1,4}局|\d+(?=\s))\s*")
_CUT = re.compile(r"[(（]|-{2,}|、")
_CODE = re.compile(r"^[A-E]\d\d$")


def tagged_games(db_path: str) -> list[tuple[list[str], str]]:
    """(moves, code) of every game from the start with a well-formed ECCO tag."""
    connection = connect(db_path, create=False)
    rows = connection.execute(
        "SELECT moves, ecco FROM games WHERE fen IS NULL AND ecco IS NOT NULL")
    return [(moves.split(), code) for moves, code in rows if _CODE.match(code)]


def held_out(moves: Sequence[str], every: int) -> bool:
    """Whether a game is in the held-out part (one in `every`, by its moves)."""
    digest = hashlib.blake2b(" ".join(moves).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % every == 0


def measure(games: list[tuple[list[str], str]], every: int) -> tuple[float, int, int]:
    """(exact share, held-out games, classified) of a model built without
    the held-out games, on them."""
    train = [game for game in games if not held_out(game[0], every)]
    test = [game for game in games if held_out(game[0], every)]
    model = ecco.build(train)
    right = classified = 0
    for moves, code in test:
        found = model.classify(moves)
        classified += found is not None
        right += found == code
    return right / max(len(test), 1), len(test), classified


def clean_line_name(event: str) -> str:
    """An opening study's Event as a line name: a book's chapter title
    (第一章 順炮直車對橫車 第三節 ... gives 順炮直車對橫車), else the Event
    without its leading number and its bracketed or numbered tail."""
    event = event.replace("　", " ").replace("佈局研究--", "")
    chapter = _CHAPTER.search(event)
    if chapter:
        text = chapter.group(1)
    else:
        text = _CUT.split(_LEADING.sub("", event), 1)[0]
    text = " ".join(text.split()).strip(" -:：,，.")
    half = text.split(" ")
    if len(half) % 2 == 0 and half[:len(half) // 2] == half[len(half) // 2:]:
        text = " ".join(half[:len(half) // 2])        # an Event written twice
    return text


def learn_names(folders: Sequence[str]) -> dict[str, str]:
    """Each code's name from the records under `folders` (see the module)."""
    lines: dict[str, Counter[str]] = defaultdict(Counter)
    filed: dict[str, Counter[str]] = defaultdict(Counter)
    for path in game_files(folders):
        records, _ = read_file(path)
        parent = os.path.basename(os.path.dirname(path))
        for record in records:
            code = (record.tags.get("ECCO") or "").strip().upper()
            if not _CODE.match(code):
                continue
            event = record.tags.get("Event") or ""
            if not any(ch.isdigit() for ch in parent) and "開局" not in path.split(os.sep)[-2:]:
                filed[code][parent] += 1
            if "開局" in path.split(os.sep) and event:
                name = clean_line_name(event)
                if name:
                    lines[code][name] += 1
    names = {code: counter.most_common(1)[0][0] for code, counter in filed.items()}
    names.update({code: counter.most_common(1)[0][0] for code, counter in lines.items()})
    return names


def main(argv: Sequence[str] | None = None) -> int:
    """Build, measure and write the model; print the held-out figures."""
    parser = argparse.ArgumentParser(prog="ecco_build", description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a games database with ECCO-tagged games")
    parser.add_argument("--names", nargs="*", default=[], help="folders to learn names from")
    parser.add_argument("--holdout", type=int, default=10, help="hold out one game in N")
    parser.add_argument("--out", default=str(ecco.MODEL_PATH), help="the model file to write")
    args = parser.parse_args(argv)
    games = tagged_games(args.db)
    share, tested, classified = measure(games, args.holdout)
    print(f"{len(games):,} tagged games; held out {tested:,}: {share:.1%} exact, "
          f"{classified:,} given a code")
    model = ecco.build(games, learn_names(args.names) if args.names else {})
    ecco.save(model, args.out)
    print(f"{len(model.codes):,} positions, {len(set(model.codes.values()))} codes, "
          f"{len(model.names)} names -> {args.out} ({os.path.getsize(args.out):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
