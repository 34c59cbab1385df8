"""The clocks of a tuong-web game, and the clocks kept for a page that comes back.

`Clocks` is the part of a Session (tools/web/session.py) that keeps the time:
the side whose clock runs is the side to move where the game against the
engine goes on; a clock that stops is charged the time it ran (and the
increment, after a move); a flag that falls ends the game on time.

`ClockKeeper` is the server's, one for all its pages: when a page goes away
(a reload, a lost connection) in a game on a clock, the time left is kept,
and the clock goes on running, as a clock on a table does. The page that
comes back restores its game with the clocks it last saw, which are older
(the time spent on the current move is not in them): the restore takes the
lesser of the two, so a reload never gives time back. A game is known by
its start, its moves to where it goes on, its level and who the engine plays.
"""
import asyncio
import collections
import time
import weakref
from typing import Optional

from tuong.tools.web.game import SIDE_NAMES

CLOCK_MARGIN = 0.2               # seconds of lag forgiven before a flag falls


class ClockKeeper:
    """The clocks of games whose page went away, for `keep_for` seconds (at
    most `most` of them), and the sessions with clocks that still run."""

    def __init__(self, keep_for: float = 3600.0, most: int = 64) -> None:
        self.keep_for, self.most = keep_for, most
        self.kept: collections.OrderedDict = collections.OrderedDict()
        self.live: weakref.WeakSet = weakref.WeakSet()

    def park(self, key: tuple, view: dict) -> None:
        """Keep a game's clocks (`view`: as Clocks._clock_view gives them)."""
        self.kept.pop(key, None)
        self.kept[key] = (view, time.monotonic())
        while len(self.kept) > self.most:
            self.kept.popitem(last=False)

    def find(self, key: tuple, asker=None) -> Optional[dict]:
        """The time left now ({"w": s, "b": s}) of the game known by `key`:
        from a page still open on it (another than `asker`: the page that
        went away may not be closed yet), else from the clocks kept (then
        let go: one page comes back to them)."""
        now = time.monotonic()
        for key_, (_, at) in list(self.kept.items()):
            if now - at > self.keep_for:
                del self.kept[key_]
        for session in list(self.live):
            if session is not asker and session.clocks is not None and \
                    session.clock_key() == key:
                view = session._clock_view()
                return {"w": view["w"], "b": view["b"]}
        if key not in self.kept:
            return None
        view, at = self.kept.pop(key)
        left = {"w": view["w"], "b": view["b"]}
        if view.get("running") in left:
            side = view["running"]
            left[side] = max(0.0, left[side] - (now - at))
        return left


class Clocks:
    """A Session's clocks (a mixin: the session has the game, `level`,
    `engine_side`, `play`, `epoch`, `_board`, `_result_at`, `_end`,
    `_changed`)."""

    keeper: Optional[ClockKeeper] = None

    def _reset_clocks(self):
        self.clocks = {"w": self.level.base, "b": self.level.base} \
            if self.level.kind == "clock" else None
        self.clock_since = None          # (side, monotonic start) of the running clock

    def _clock_side(self):
        """The side whose clock runs: the side to move where the game
        against the engine goes on (browsing does not stop it)."""
        if self.clocks is None or self.engine_side is None or self._result_at(self.play):
            return None
        return self._board(self.play).turn

    def _start_clock(self):
        side = self._clock_side()
        if self.clock_since and self.clock_since[0] == side:
            return                       # it runs already
        if self.clock_since and self._charge_clock(increment=False):
            return                       # the time that ran is charged; its flag fell
        side = self._clock_side()
        self.clock_since = (side, time.monotonic()) if side else None

    def _charge_clock(self, increment=True):
        """Stop the running clock: take its time, add the increment. True
        if its flag fell (the game at `play` is then lost on time)."""
        if not self.clock_since or self.clocks is None:
            return False
        side, since = self.clock_since
        self.clock_since = None
        self.clocks[side] -= time.monotonic() - since
        if self.clocks[side] < -CLOCK_MARGIN:
            self.clocks[side] = 0.0
            loser = SIDE_NAMES[self.variant][0 if side == "w" else 1]
            self._end(self.play, {"result": "0-1" if side == "w" else "1-0",
                                  "termination": "time forfeit",
                                  "reason": f"{loser} loses on time"})
            return True
        if increment:
            self.clocks[side] += self.level.inc
        return False

    def _clock_view(self):
        if self.clocks is None:
            return None
        view = dict(self.clocks)
        running = None
        if self.clock_since:
            running, since = self.clock_since
            view[running] = max(0.0, view[running] - (time.monotonic() - since))
        return {"w": round(view["w"], 2), "b": round(view["b"], 2), "running": running}

    async def _watch_flag(self, epoch):
        side, since = self.clock_since
        await asyncio.sleep(max(0.0, self.clocks[side] + CLOCK_MARGIN - (time.monotonic() - since))
                            + 0.05)
        if epoch == self.epoch and self.clock_since and self.clock_since[0] == side:
            self._charge_clock()
            self.thinking = False
            await self._changed()

    def clock_key(self):
        """What the keeper knows this game by (see ClockKeeper)."""
        return (self.variant, self.start_fen, tuple(self.play.moves()),
                tuple(sorted(self.level.as_dict().items())), self.engine_side)

    def _keep_clocks(self):
        """The page goes away: its clocks are kept (and go on running) for
        the page that comes back, if its game is on a running clock."""
        if self.keeper is None:
            return
        self.keeper.live.discard(self)
        if self.clocks is not None and self.engine_side is not None and \
                not self._result_at(self.play):
            self.keeper.park(self.clock_key(), self._clock_view())

    def _kept_clocks(self, clocks):
        """A restored game's clocks, `clocks` as its page kept them (or None):
        never more than the keeper's, where it has the game."""
        kept = self.keeper.find(self.clock_key(), self) if self.keeper is not None else None
        if kept is None:
            return clocks
        clocks = dict(clocks or {})
        for side in ("w", "b"):
            clocks[side] = min(kept[side], clocks.get(side, kept[side]))
        return clocks
