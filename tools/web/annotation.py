"""A tuong-web game annotated: the engine searches every position of the
line shown, one after the other, and tools/records/annotate.py turns the
searches into marks, scores, comments and a summary, in the page's language
(docs/web-protocol.md, `annotate`).

`Annotation` is that part of a Session (tools/web/session.py), a mixin. The
searches are kept (`annotation`), so that a change of language writes the
comments again without searching again.
"""
from tuong.engine.games import GAMES
from tuong.protocol.client import Limit
from tuong.tools import records
from tuong.tools.records import annotate
from tuong.tools.web import hant
from tuong.tools.web.game import STATE, Refused, number


class Annotation:
    """The annotation runner, for a Session (which supplies the game:
    `variant`, `tree`, `headers`, `start_fen`, `cursor`, `play`, `notation`,
    `lang`, `engine_side`, `engine_name`, `epoch`; the state it sets:
    `annotation`, `annotating`, `analysing`, `summary`, `summary_sides`; and
    `emit`, `_spawn`, `_changed`, `_board`, `_touch`, `_result_at`, and
    Searches' `_search`, `_stale`, `_position`)."""

    async def on_annotate(self, message):
        if self.variant != "xiangqi":
            raise Refused("annotation is for Xiangqi games")
        line = self.cursor.line()
        if not line:
            raise Refused("no moves to annotate")
        if self.engine_side is not None and not self._result_at(self.play):
            raise Refused(f"{self.engine_name} is playing this game: finish it, or choose "
                          f"'{self.engine_name} plays nobody', then annotate",
                          key="{engine} is playing this game: finish it, or choose "
                          "'{engine} plays nobody', then annotate",
                          params={"engine": self.engine_name})
        if self.annotating:
            raise Refused("an annotation is under way: wait for it to finish")
        movetime = number(message.get("movetime", 0.1), "movetime", 0.05, 5)
        self.analysing = False
        self.annotating = True           # from now: a second click waits its turn
        try:
            await self._changed(game=False)
        except BaseException:
            self.annotating = False
            raise
        self._spawn(self._annotate(line, movetime))

    async def _annotate(self, line, movetime):
        try:
            await self._annotate_line(line, movetime)
        finally:
            self.annotating = False
        if self.analysing:               # turned on meanwhile: it starts now
            await self._changed(game=False)

    async def _annotate_line(self, line, movetime):
        stale, total = self._stale(self.epoch), len(line) + 1
        searches = {}
        for ply, node in enumerate([self.tree.root] + line):
            board = self._board(node)
            if board.is_game_over():
                searches[(0, ply)] = annotate.Search(("cp", 0), None, [])
                continue
            result = await self._search("annotation", stale, self._position(node),
                                        Limit(movetime=movetime),
                                        timeout=movetime * 4 + 10)
            if result is None or stale() or any(n.id not in self.tree.nodes for n in line):
                return                   # the game changed, or the engine failed: stop
            info = result.info
            score = ("mate", info.mate) if info.mate is not None else ("cp", info.cp or 0)
            searches[(0, ply)] = annotate.Search(score, result.move, list(info.pv or []))
            self.emit({"type": "annotation", "done": ply + 1, "total": total})
        self.annotation = ([n.id for n in line], searches)
        self._apply_annotation(*self.annotation)
        self.emit({"type": "annotation", "done": total, "total": total,
                   "summary": self.summary})
        self.emit(STATE)

    def _apply_annotation(self, ids, searches):
        """Marks, scores and the annotation's comments on the annotated line,
        in the page's language; the summary."""
        line = [self.tree.nodes[i] for i in ids if i in self.tree.nodes]
        if len(line) != len(ids):
            self.annotation = self.summary = None
            return
        tags = {"FEN": self.start_fen} if self.start_fen != GAMES["xiangqi"]().fen() else {}
        tags.update({"White": self.headers.get("White", "Red"),
                     "Black": self.headers.get("Black", "Black")})
        record = records.Record(tags, [n.move for n in line], [None] * len(line))
        notes = annotate.annotate_game(record, searches, 0, self.notation, self.lang)
        for node, note, comment in zip(line, notes, annotate.comments_for(notes, self.lang)):
            kind, value = note.score_after
            node.data.update(score=annotate.centipawns(note.score_after)
                             if kind != "mate" else None,
                             mate=value if kind == "mate" else None,
                             amark=note.mark, note=hant.for_lang(comment, self.lang))
            self._touch(node)
        self.summary = annotate.summary(record, notes, self.lang)
        self.summary_sides = [
            {"side": side, "name": record.tags.get(tag, "?"), "moves": len(mine),
             "acpl": round(sum(n.cp_loss for n in mine) / len(mine), 1),
             "loss": round(100 * sum(n.loss for n in mine) / len(mine), 1),
             "marks": {mark: sum(n.mark == mark for n in mine) for mark in ("??", "?", "?!")}}
            for side, tag, mine in (("w", "White", [n for n in notes if n.red]),
                                    ("b", "Black", [n for n in notes if not n.red])) if mine]
