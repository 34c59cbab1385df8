"""A tuong-web session's engine: started on the first search, set for the
game, its searches run one at a time on the session's worker thread, their
lines remembered (for hints) and streamed to the page as `info`.

`Searches` is that part of a Session (tools/web/session.py), a mixin: the
session has the game (`variant`, `start_fen`, `level`, `notation`, `lang`),
the loop and the worker, `epoch` and `view`, `emit` and `_notice`.
"""
import time

from tuong.protocol.client import EngineError, Limit, UnsupportedError
from tuong.tools.records import annotate
from tuong.tools.web import hant
from tuong.tools.web.game import Refused

INFO_INTERVAL = 0.1              # at most this often per line, unless the depth grows


class Searches:
    """The engine and its searches, for a Session."""

    def _stop_search(self):
        search = self.search
        if search is not None:
            search.request_stop()

    def _ensure_engine(self):
        """The engine, started (or restarted) and set for this game (worker thread)."""
        if self.engine is not None and not self.engine.alive:
            self.engine.close()
            self.engine = None
            broken, name = self._broken, self.engine_name
            self.loop.call_soon_threadsafe(lambda: self._notice(
                "{engine} stopped; restarted", broken, f"{name} stopped ({broken}); restarted",
                engine=name))
        if self.engine is None:
            self.engine = self.open_engine()
            if self.closed:                  # the page went while the engine started
                self.engine.close()
                raise Refused("the page is closed")
            self._broken = None
            self._set = {}                   # nothing known of a new engine: set all
        if self.engine.variant != self.variant:
            try:
                self.engine.configure({"UCI_Variant": self.variant})
            except UnsupportedError:
                raise Refused(f"{self.engine_name} does not play {self.variant}",
                              key="{engine} does not play {variant}",
                              params={"engine": self.engine_name, "variant": self.variant}) \
                    from None
        return self.engine

    def _stale(self, epoch, view=None):
        """A test of whether a search started now has been overtaken."""
        return lambda: self.closed or epoch != self.epoch or (view is not None and
                                                              view != self.view)

    async def _search(self, kind, stale, position, limit, multipv=1, on_info=None, timeout=None):
        """Run one search on the worker; its PlayResult, or None when it went
        stale (see _stale) before or during it, or the engine failed. The
        engine's own book (OwnBook, where it has one) plays its moves in a
        game; hints, analysis and annotation always search."""
        def job():
            if stale():
                return None
            engine = self._ensure_engine()
            # The level's strength plays the game; hints, analysis and
            # annotation are the engine's full strength.
            elo = self.level.elo if kind == "move" else None
            wanted = {"MultiPV": multipv, "OwnBook": kind == "move",
                      "UCI_LimitStrength": elo is not None}
            if elo is not None:
                wanted["UCI_Elo"] = elo
            changes = {name: value for name, value in wanted.items()
                       if name.lower() in engine.options and self._set.get(name) != value}
            if changes:
                engine.configure(changes)
                self._set.update(changes)
            try:
                analysis = engine.analyse(position, limit, timeout=timeout)
                self.search, self.search_kind = analysis, kind
                if stale() or (kind == "move" and self.hurry):
                    analysis.request_stop()
                for info in analysis:
                    if on_info is not None:
                        on_info(info)
                return analysis.result
            except EngineError as error:
                self._broken = str(error)
                raise
            finally:
                self.search = self.search_kind = None
        try:
            result = await self.loop.run_in_executor(self.worker, job)
        except EngineError as error:
            self._notice("{engine} failed", str(error), engine=self.engine_name)
            return None
        return None if stale() else result

    def _position(self, node):
        return (self.start_fen, node.moves())

    def _limit(self):
        level = self.level
        if level.kind == "clock":
            clocks = self._clock_view()
            return Limit(red_clock=clocks["w"], black_clock=clocks["b"],
                         red_inc=level.inc, black_inc=level.inc)
        return Limit(**{level.kind: level.value})

    def _info_handler(self, stale, board):
        """An on_info for searches of `board`: remember the lines, stream them."""
        fen, red, ply = board.fen(), board.turn == "w", board.ply
        sent = {}

        def on_info(info):
            if info.pv is None or not info.pv or (info.cp is None and info.mate is None):
                return
            if info.multipv in (None, 1):
                self._remember(board, info)
            line = info.multipv or 1
            now = time.monotonic()
            last = sent.get(line)
            if last and last[1] >= (info.depth or 0) and now - last[0] < INFO_INTERVAL:
                return
            sent[line] = (now, info.depth or 0)
            sign = 1 if red else -1
            message = {"type": "info", "ply": ply, "fen": fen, "multipv": line,
                       "depth": info.depth, "nodes": info.nodes, "nps": info.nps,
                       "score": None if info.cp is None else sign * info.cp,
                       "mate": None if info.mate is None else sign * info.mate,
                       "pv": list(info.pv), "line": " ".join(self._line(board, info.pv))}
            self.loop.call_soon_threadsafe(self._emit_if, stale, message)
        return on_info

    def _emit_if(self, stale, message):
        if not stale():
            self.emit(message)

    def _line(self, board, pv):
        if self.variant != "xiangqi":
            return list(pv)
        return [hant.for_lang(text, self.lang) for text in annotate._line(board, pv, self.notation)]

    def _remember(self, board, info):
        """Keep a search's line for hints: for its position, and (the
        predicted reply) for the position after its first move."""
        if len(self.lines) > 10_000:
            self.lines.clear()
        scratch = board.copy()
        cp, mate = info.cp, info.mate
        for start in range(min(2, len(info.pv))):
            key = scratch.fen()
            known = self.lines.get(key)
            depth = (info.depth or 0) - start
            if known is None or known[3] <= depth:
                self.lines[key] = (list(info.pv[start:]), cp, mate, depth)
            if info.pv[start] not in scratch.legal_moves():
                break
            scratch.push(info.pv[start])
            cp = None if cp is None else -cp
            mate = None if mate is None else -mate
