"""A tuong-web game in and out: a file or text imported as the game, the
game exported as PGN (or, for another variant, its small record), and the
game a page kept, restored (docs/web-protocol.md).

`RecordsIO` is that part of a Session (tools/web/session.py), a mixin. A
big import or a restore reads its moves on the session's chores thread.
"""
import time

from tuong.engine.games import GAMES
from tuong.tools import records
from tuong.tools.records.tree import GameTree
from tuong.tools.web import hant
from tuong.tools.web.database import opening_label
from tuong.tools.web.game import (
    LANGS, MAX_IMPORT, NOTATIONS, VARIANTS, Level, Refused, copy_tree, file_bytes, first_game,
    fill, manual_result, number, text_field, tree_from_saved)


class RecordsIO:
    """Import, export and restore, for a Session (which supplies the game:
    `variant`, `tree`, `headers`, `start_fen`, `cursor`, `play`, `notation`,
    `lang`, `level`, `engine_side`, `previous`, `clocks`, `_restored`; and
    `emit`, `_notice`, `_chore`, `_spawn`, `_changed`, `_set_game`,
    `_keep_previous`, `_line_result`, `_end`, `_kept_clocks`, `_offer_file`)."""

    async def on_import(self, message):
        text, data = message.get("text"), message.get("data")
        name = text_field(message.get("name", "game.pgn"), "name")
        if data is not None:
            job = (records.read_bytes, file_bytes(data), name)
        elif isinstance(text, str) and len(text) <= MAX_IMPORT:
            stripped = text.strip()
            if not stripped:
                raise Refused("nothing to import")
            single = records.looks_like_fen_lines(stripped) or \
                "\n" not in stripped and "[" not in stripped and "/" in stripped
            job = (records.read_fen_lines, stripped) if single else (records.read_pgn, stripped)
        else:
            raise Refused(f"import needs text or data (at most {MAX_IMPORT} bytes)",
                          key="import needs text or data (at most {n} bytes)",
                          params={"n": MAX_IMPORT})
        record, count, problems = await self._chore(first_game, job, self.notation)
        if record is None:
            reason = str(problems[0]) if problems else "no game or position found"
            raise Refused(f"cannot import: {reason}", key="cannot import", detail=reason)
        tree, tags = record
        self._keep_previous()
        self.engine_side = None          # an imported game is for study: the engine waits
        self._set_game("xiangqi", tree, tags)
        self.cursor = self.play = tree.root.tip()
        if count > 1:
            self._notice("{count} games in the file: the first ({white} - {black}) is loaded",
                         count=count, white=tags.get("White", "?"), black=tags.get("Black", "?"))
            self._spawn(self._offer_file(job, name))     # the list to choose from
        dropped = [p for p in problems if p.game in (0, 1)]     # 0: the file's own text
        if dropped:
            said = "; ".join(str(p) for p in dropped[:3])
            self._notice("some of the file was not read", said, text=said)
        await self._changed()

    async def on_export(self, message):
        """The game as PGN: its headers, its own comments, its variations;
        the annotation's comments too when `annotations` is true."""
        if self.variant != "xiangqi":
            self.emit({"type": "pgn", "name": f"{self.variant}.txt", "text": self._small_record()})
            return
        with_notes = message.get("annotations", False)
        if not isinstance(with_notes, bool):
            raise Refused("annotations must be true or false")
        self.emit({"type": "pgn", "name": "tuong-game.pgn", "text": self.pgn(with_notes)})

    def pgn(self, with_notes=False):
        tags = {"Event": "?", "Site": "?", "Date": time.strftime("%Y.%m.%d"), "Round": "?",
                "White": "?", "Black": "?"}
        tags.update(self.headers)
        if self.start_fen != GAMES["xiangqi"]().fen():
            tags.update({"SetUp": "1", "FEN": self.start_fen})
        main = self.tree.main_line()
        if "Opening" not in tags and self.start_fen == GAMES["xiangqi"]().fen():
            named = opening_label([n.move for n in main], self.lang)
            if named:
                tags["Opening"] = named
        result = self._line_result(self.tree.root)
        if tags.get("Result", "*") != "*":
            result = None                # the record's own result is never rewritten
        if result:
            tags["Termination"] = result["reason"]
        export = GameTree(self.start_fen)     # the game's own words, or with the annotation's
        export.root.comment = self.tree.root.comment
        copy_tree(self.tree.root, export, export.root, with_notes)
        record = records.Record(tags, [n.move for n in main], [n.comment for n in main],
                                result["result"] if result else tags.get("Result", "*"),
                                tree=export)
        writable = self.notation if self.notation != "coords" else "iccs"
        text = records.format_pgn(record, writable)
        return hant.movetext(text) if self.lang == "zh-Hant" and writable == "chinese" else text

    def _small_record(self):
        result = self._line_result(self.tree.root)
        lines = [f'[Variant "{self.variant}"]', f'[FEN "{self.start_fen}"]',
                 f'[Result "{result["result"] if result else "*"}"]', ""]
        lines.append(" ".join(n.move for n in self.tree.main_line()))
        return "\n".join(lines) + "\n"

    async def on_restore(self, message):
        """The game a page kept; every refusal says `restore:` first (the page
        then keeps that game aside rather than lose it)."""
        try:
            await self._restore(message)
        except Refused as refusal:
            text = str(refusal)
            text = text if text.startswith("restore") else f"restore: {text}"
            raise Refused(text, key="restore: the game could not be restored",
                          detail=text.removeprefix("restore:").strip()) from None

    async def _restore(self, message):
        game = message.get("game")
        if not isinstance(game, dict):
            raise Refused("restore needs a game object")
        variant = game.get("variant")
        if variant not in VARIANTS:
            raise Refused("restore: unknown variant")
        fen = game.get("start_fen")
        if fen is not None:
            text_field(fen, "restore: start_fen", 300)
        mode = game.get("mode") if isinstance(game.get("mode"), dict) else {}
        engine = mode.get("engine")
        level = Level.parse(mode["level"]) if "level" in mode else self.level
        notation, lang = game.get("notation", "wxf"), game.get("lang", "en")
        if engine not in ("w", "b", None) or notation not in NOTATIONS or lang not in LANGS:
            raise Refused("restore: bad mode or settings")
        headers = game.get("headers", {})
        if not isinstance(headers, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and len(v) <= 200
                for k, v in headers.items()):
            raise Refused("restore: headers must be an object of strings")
        tree, made = tree_from_saved(game)
        cursor = int(number(game.get("cursor", len(made) - 1), "cursor", 0, len(made) - 1))
        play = int(number(game.get("play", cursor), "play", 0, len(made) - 1))
        if "nodes" not in game and "cursor" in game:      # the older form: a ply of the line
            cursor = play = len(made) - 1 if game.get("result") else cursor
        clocks = game.get("clocks")
        if clocks is not None and (not isinstance(clocks, dict) or any(
                side in clocks and (isinstance(clocks[side], bool) or
                                    not isinstance(clocks[side], (int, float)) or
                                    clocks[side] != clocks[side]) for side in ("w", "b"))):
            raise Refused("restore: clocks must be an object of seconds")
        await self._chore(fill, variant, tree, notation)   # Refused on an illegal move
        self.notation, self.lang, self.level, self.engine_side = notation, lang, level, engine
        self._set_game(variant, tree, headers, made[cursor], made[play])
        if self.clocks is not None:
            clocks = self._kept_clocks(clocks)      # never more than a page still open had
        if clocks and self.clocks is not None:
            # The time left when the page last kept the game: a reload does not give
            # the sides their time back. At most the base and every increment since.
            most = self.level.base + self.level.inc * (made[play].data["ply"] // 2 + 1)
            for side in ("w", "b"):
                if side in clocks:
                    self.clocks[side] = min(most, max(0.0, float(clocks[side])))
        if isinstance(game.get("result"), dict) and "nodes" not in game:
            self._end(made[-1], manual_result(game["result"]))
        self.previous = None             # a restore is the same page coming back
        self._restored = True
        await self._changed()
