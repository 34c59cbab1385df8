"""One page of tuong-web: its game, its engine and its messages.

The page sends intentions (docs/web-protocol.md); a Session checks each one
(a move must be legal where it is played, a FEN a legal position, a number
within its range), changes the game and answers with the whole `state`. The
engine is a process driven through protocol/client/: nothing the page
sends reaches it as text, only moves this module has found legal and limits
it has built.

Threads: the session lives on the server's event loop; every engine call
runs on the session's one worker thread, in order. A change of the game
bumps `epoch` and stops the running search; a change of what the page shows
(the cursor, the analysis settings) bumps `view` and stops an analysis but
not the engine's thinking on its move. A search whose epoch (or view) has
passed is thrown away, so a late engine move never lands on a new game.
"""
import asyncio
import base64
import binascii
import dataclasses
import string
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from tuong.engine import levels
from tuong.engine.games import GAMES
from tuong.engine.rows import parse_rows
from tuong.protocol.client import EngineError, Limit, UnsupportedError
from tuong.tools.records import annotate, commentary, notation as notations
from tuong.tools import records
from tuong.tools.match import referee

VARIANTS = tuple(GAMES)
NOTATIONS = ("wxf", "chinese", "vietnamese", "iccs", "coords")
LANGS = ("en", "vi")
MAX_MOVES = 1000                 # a restored or imported game longer than this is refused
MAX_IMPORT = 2_000_000           # bytes of an imported file or text
DRAW_ACCEPT_CP = 30              # the engine takes a draw unless it is better by more
HINT_LIMIT = Limit(movetime=0.5)
CLOCK_MARGIN = 0.2               # seconds of lag forgiven before a flag falls
INFO_INTERVAL = 0.1              # at most this often per line, unless the depth grows
SIDE_NAMES = {"xiangqi": ("Red", "Black"), "tictactoe": ("X", "O"),
              "dodgem": ("White", "Black"), "queens": ("First player", "Second player")}


class Refused(Exception):
    """A message the session will not carry out; its text goes to the page."""


@dataclasses.dataclass(frozen=True)
class Level:
    """How hard the engine plays: nodes, depth, movetime or a clock; and,
    in a game, its strength (`elo`: UCI_LimitStrength with UCI_Elo, None
    for full strength; engine/levels.py)."""
    kind: str = "nodes"
    value: float = 20000
    base: float = 0.0
    inc: float = 0.0
    elo: Optional[int] = None

    RANGES = {"nodes": (1, 100_000_000), "depth": (1, 64), "movetime": (0.05, 600)}

    @classmethod
    def parse(cls, data):
        if not isinstance(data, dict):
            raise Refused("level must be an object")
        kind = data.get("kind")
        if not isinstance(kind, str):
            raise Refused("level kind must be nodes, depth, movetime or clock")
        elo = data.get("elo")
        if elo is not None:
            elo = int(_number(elo, "elo", levels.MIN_ELO, levels.MAX_ELO))
        if kind == "clock":
            base, inc = _number(data.get("base"), "base", 1, 36000), \
                _number(data.get("inc", 0), "inc", 0, 600)
            return cls("clock", 0, base, inc, elo)
        if kind not in cls.RANGES:
            raise Refused("level kind must be nodes, depth, movetime or clock")
        low, high = cls.RANGES[kind]
        value = _number(data.get("value"), kind, low, high)
        return cls(kind, int(value) if kind != "movetime" else value, elo=elo)

    def as_dict(self):
        if self.kind == "clock":
            return {"kind": "clock", "base": self.base, "inc": self.inc, "elo": self.elo}
        return {"kind": self.kind, "value": self.value, "elo": self.elo}


def _number(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise Refused(f"{name} must be a number")
    if not low <= value <= high:
        raise Refused(f"{name} must be between {low:g} and {high:g}")
    return value


def _grid(fen):
    """A FEN's placement as rows of cells, top row first ('' for empty)."""
    rows = parse_rows(fen.split()[0], string.ascii_letters, "board")
    return [["" if cell is None else cell for cell in row] for row in rows]


def _result_for(first_wins):
    return "1-0" if first_wins else "0-1"


@dataclasses.dataclass
class Move:
    move: str
    text: str
    fen: str
    score: Optional[int] = None      # Red's view (the first player's in the small games)
    mate: Optional[int] = None
    mark: Optional[str] = None
    comment: Optional[str] = None
    capture: bool = False


class Session:
    """The game of one page. `open_engine()` starts an engine (a
    protocol.client.Engine); `emit(message)` sends to the page and may be
    called only on the event loop's thread."""

    def __init__(self, open_engine, emit, engine_name="engine"):
        self.open_engine, self.emit, self.engine_name = open_engine, emit, engine_name
        self.loop = asyncio.get_running_loop()
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="tuong-web-engine")
        self.engine = None
        self._set = {}                   # options set on the engine (MultiPV, OwnBook)
        self.search = None               # the running client Analysis, if any
        self.epoch = 0                   # bumped by every change of the game
        self.view = 0                    # bumped by every change of the shown position
        self.search_kind = None          # "move", "analysis" or "hint"
        self.tasks = set()
        self.notation, self.lang = "wxf", "en"
        self.engine_side, self.level = "b", Level()
        self.analysing, self.multipv = False, 1
        self.thinking = False
        self.lines = {}                  # fen -> (pv, cp, mate, depth): known best lines
        self.annotated = None            # the annotation's searches, by ply
        self.closed = False
        self.flag_task = self._last_task = None
        self._new_game("xiangqi", None)

    # -- the game -------------------------------------------------------------

    def _new_game(self, variant, fen):
        board_class = GAMES[variant]
        try:
            board = board_class(fen) if fen else board_class()
        except (ValueError, TypeError) as error:
            raise Refused(f"not a legal position: {error}") from None
        self.variant, self.start_fen = variant, board.fen()
        self.moves, self.cursor = [], 0
        self.result = self._judge(board) if board.is_game_over() else None
        self.annotated = None
        self._reset_clocks()

    def _board(self, upto=None):
        """A board at ply `upto` (the cursor by default)."""
        board = GAMES[self.variant](self.start_fen)
        if self.variant == "xiangqi":
            board.rules = "asian"
        for entry in self.moves[:self.cursor if upto is None else upto]:
            board.push(entry.move)
        return board

    def _write(self, board, move):
        if self.variant != "xiangqi":
            return move
        return notations.write(board, move, self.notation)

    def _describe(self, board, move):
        """A move's entry: its text, the position after it, and the facts."""
        comment = None
        if self.variant == "xiangqi":
            comment = commentary.sentence(commentary.facts(board, move, self.notation), self.lang)
        text = self._write(board, move)
        pieces = sum(c.isalpha() for c in board.fen().split()[0])
        board.push(move)
        capture = sum(c.isalpha() for c in board.fen().split()[0]) < pieces
        return Move(move, text, board.fen(), comment=comment, capture=capture)

    def _push(self, move, score=None, mate=None):
        """Play a legal move at the cursor; later moves are dropped."""
        board = self._board()
        if move not in board.legal_moves():
            raise Refused(f"illegal move {move!r} here")
        del self.moves[self.cursor:]
        entry = self._describe(board, move)
        entry.score, entry.mate = score, mate
        self.moves.append(entry)
        self.cursor = len(self.moves)
        self.annotated = None
        self.result = self._judge(board)

    def _judge(self, board):
        """The result if the position on `board` ends the game."""
        if self.variant == "xiangqi":
            last_capture = max((i + 1 for i, m in enumerate(self.moves[:board.ply]) if m.capture),
                               default=0)
            verdict = referee.judge(board, referee.Rules(), last_capture)
            return None if verdict is None else \
                dict(zip(("result", "termination", "reason"), verdict))
        outcome = board.outcome()
        if outcome is None:
            return None
        mover_first = board.turn == GAMES[self.variant]().turn
        if outcome == 0:
            return {"result": "1/2-1/2", "termination": "game over", "reason": "Draw"}
        first_wins = (outcome > 0) == mover_first
        # SIDE_NAMES is by FEN side (w, b), not by who moves first: in Dodgem
        # Black ('b') moves first.
        winner = board.turn if outcome > 0 else ("b" if board.turn == "w" else "w")
        name = SIDE_NAMES[self.variant][0 if winner == "w" else 1]
        return {"result": _result_for(first_wins), "termination": "game over",
                "reason": f"{name} wins"}

    def _replace_texts(self):
        """Rewrite move texts and commentary in the current notation and language."""
        board = self._board(0)
        for entry in self.moves:
            described = self._describe(board.copy(), entry.move)
            entry.text = described.text
            if self.annotated is None:
                entry.comment = described.comment
            board.push(entry.move)
        if self.annotated is not None:
            self._apply_annotation(self.annotated)

    # -- clocks ---------------------------------------------------------------

    def _reset_clocks(self):
        self.clocks = {"w": self.level.base, "b": self.level.base} \
            if self.level.kind == "clock" else None
        self.clock_since = None          # (side, monotonic start) of the running clock

    def _clock_side(self):
        """The side whose clock runs: the side to move at the end of a game
        in progress against the engine (browsing back does not stop it)."""
        if self.clocks is None or self.result or self.engine_side is None:
            return None
        board = self._board(len(self.moves))
        return None if board.is_game_over() else board.turn

    def _start_clock(self):
        side = self._clock_side()
        if self.clock_since and self.clock_since[0] == side:
            return                       # it runs already
        self.clock_since = (side, time.monotonic()) if side else None

    def _charge_clock(self):
        """Stop the running clock: take its time, add the increment. True
        if its flag fell."""
        if not self.clock_since or self.clocks is None:
            return False
        side, since = self.clock_since
        self.clock_since = None
        self.clocks[side] -= time.monotonic() - since
        if self.clocks[side] < -CLOCK_MARGIN:
            self.clocks[side] = 0.0
            loser = SIDE_NAMES[self.variant][0 if side == "w" else 1]
            self.result = {"result": "0-1" if side == "w" else "1-0",
                           "termination": "time forfeit", "reason": f"{loser} loses on time"}
            return True
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

    # -- state ----------------------------------------------------------------

    def state(self):
        board = self._board()
        fen = board.fen()
        grid = _grid(fen)
        at_end = self.cursor == len(self.moves)
        engine_turn = self.engine_side == board.turn and at_end
        over = board.is_game_over() or (self.result is not None and at_end)
        legal = [] if over or engine_turn or self.thinking else sorted(board.legal_moves())
        check = None
        if self.variant == "xiangqi" and board.in_check():
            king = "K" if board.turn == "w" else "k"
            for r, row in enumerate(grid):
                if king in row:
                    check = f"{'abcdefghi'[row.index(king)]}{9 - r}"
        saved = {"variant": self.variant, "start_fen": self.start_fen,
                 "moves": [m.move for m in self.moves], "cursor": self.cursor,
                 "mode": {"engine": self.engine_side, "level": self.level.as_dict()},
                 "notation": self.notation, "lang": self.lang,
                 "result": self.result if self.result and
                 self.result["termination"] in ("resignation", "time forfeit", "agreement")
                 else None}
        return {"type": "state", "variant": self.variant, "files": len(grid[0]),
                "ranks": len(grid), "start_fen": self.start_fen,
                "moves": [dataclasses.asdict(m) for m in self.moves], "cursor": self.cursor,
                "fen": fen, "turn": board.turn, "grid": grid, "legal": legal, "check": check,
                "last": self.moves[self.cursor - 1].move if self.cursor else None,
                "result": self.result, "mode": saved["mode"], "clocks": self._clock_view(),
                "thinking": self.thinking, "analysing": self.analysing,
                "multipv": self.multipv, "notation": self.notation, "lang": self.lang,
                "engine_name": self.engine_name, "saved": saved}

    async def _changed(self, game=True):
        """After a change: stop what the engine does that no longer applies,
        start what it should do now (move, or analyse the shown position),
        tell the page. `game`: the game changed, not only the view."""
        self.view += 1
        if game:
            self.epoch += 1
            self._stop_search()
            self.thinking = False
        elif self.search_kind != "move":
            self._stop_search()
        end = self._board(len(self.moves))
        if game:
            self._start_clock()
            if self.flag_task is not None:
                self.flag_task.cancel()
                self.flag_task = None
            if self.clock_since:
                self._spawn(self._watch_flag(self.epoch))
                self.flag_task = self._last_task
            if not self.result and not end.is_game_over() and self.engine_side == end.turn:
                self.thinking = True
                self._spawn(self._engine_move(self.epoch))
        if self.analysing and not self.thinking and not self._board().is_game_over():
            self._spawn(self._analyse(self.epoch, self.view))
        self.emit(self.state())

    def _spawn(self, coroutine):
        """Run a coroutine beside the message loop (searches take long: the
        page must stay heard). A refusal inside becomes an `error`; any other
        failure a notice, and the engine stops playing a side."""
        async def guarded():
            try:
                await coroutine
            except Refused as refusal:
                self.emit({"type": "error", "message": str(refusal)})
                if self.thinking:
                    self.thinking, self.engine_side = False, None
                    await self._changed()
            except asyncio.CancelledError:
                raise
            except Exception as error:          # a bug must not leave `thinking` set
                self.emit({"type": "notice", "text": f"internal error: {error!r}"})
                self.thinking, self.engine_side = False, None
                await self._changed()
        task = self.loop.create_task(guarded())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(lambda _: coroutine.close())   # cancelled before it started
        self._last_task = task

    # -- the engine -----------------------------------------------------------

    def _stop_search(self):
        search = self.search
        if search is not None:
            search.request_stop()

    def _ensure_engine(self):
        """The engine, started (or restarted) and set for this game (worker thread)."""
        if self.engine is not None and not self.engine.alive:
            self.engine.close()
            self.engine = None
            self._notify_threadsafe(f"{self.engine_name} stopped ({self._broken}); restarted")
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
                raise Refused(f"{self.engine_name} does not play {self.variant}") from None
        return self.engine

    def _notify_threadsafe(self, text):
        self.loop.call_soon_threadsafe(self.emit, {"type": "notice", "text": text})

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
                if stale():
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
            self.emit({"type": "notice", "text": f"{self.engine_name} failed: {error}"})
            return None
        return None if stale() else result

    def _position(self, upto=None):
        upto = self.cursor if upto is None else upto
        return (self.start_fen, [m.move for m in self.moves[:upto]])

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
        return annotate._line(board, pv, self.notation)

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

    async def _engine_move(self, epoch):
        """The engine's move at the end of the game (whatever the page shows)."""
        board = self._board(len(self.moves))
        limit = self._limit()
        timeout = 24 * 3600.0            # nodes or depth: as long as it takes
        if self.level.kind == "clock":
            timeout = (limit.red_clock if board.turn == "w" else limit.black_clock) + 5.0
        elif self.level.kind == "movetime":
            timeout = self.level.value + 10.0
        stale = self._stale(epoch)
        result = await self._search("move", stale, self._position(len(self.moves)), limit,
                                    on_info=self._info_handler(stale, board), timeout=timeout)
        if stale():
            return
        self.thinking = False
        if result is None:
            self.engine_side = None      # the engine failed: the user goes on without it
            await self._changed()
            return
        if self._charge_clock():
            await self._changed()
            return
        side = SIDE_NAMES[self.variant][0 if board.turn == "w" else 1]
        if result.move is None or result.move not in board.legal_moves():
            self.result = {"result": "0-1" if board.turn == "w" else "1-0",
                           "termination": "resignation" if result.move is None else "illegal move",
                           "reason": f"{side} ({self.engine_name}) " +
                           ("resigns" if result.move is None else
                            f"played an illegal move {result.move}")}
        else:
            sign = 1 if board.turn == "w" else -1
            info = result.info
            self.cursor = len(self.moves)
            self._push(result.move,
                       None if info.cp is None else sign * info.cp,
                       None if info.mate is None else sign * info.mate)
        await self._changed()

    async def _analyse(self, epoch, view):
        board = self._board()
        stale = self._stale(epoch, view)
        await self._search("analysis", stale, self._position(), Limit(infinite=True),
                           self.multipv, self._info_handler(stale, board))

    # -- messages -------------------------------------------------------------

    async def handle(self, message):
        """Carry out one message from the page; a refusal becomes an `error`."""
        try:
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise Refused("a message is an object with a string `type`")
            handler = getattr(self, "on_" + message["type"], None)
            if handler is None:
                raise Refused(f"unknown message type {message['type'][:40]!r}")
            await handler(message)
        except Refused as refusal:
            self.emit({"type": "error", "message": str(refusal)})

    async def on_new(self, message):
        variant = message.get("variant", "xiangqi")
        if variant not in VARIANTS:
            raise Refused(f"variant must be one of {', '.join(VARIANTS)}")
        fen = message.get("fen")
        if fen is not None and (not isinstance(fen, str) or len(fen) > 300):
            raise Refused("fen must be a string (at most 300 characters)")
        self._new_game(variant, fen.strip() if fen else None)
        await self._changed()

    async def on_move(self, message):
        move = message.get("move")
        if not isinstance(move, str) or len(move) > 8:
            raise Refused("move must be a short string such as h2e2")
        if self.thinking:
            raise Refused(f"{self.engine_name} is thinking: wait for its move or take back")
        board = self._board()
        if self.result and self.cursor == len(self.moves):
            raise Refused(f"the game is over ({self.result['reason']})")
        if self.engine_side is not None and self.cursor != len(self.moves):
            raise Refused("in a game against the engine, moves are played at the end "
                          "(go to the end, or take back)")
        if self.engine_side == board.turn:
            raise Refused("it is the engine's turn")
        if move not in board.legal_moves():
            raise Refused(f"illegal move {move!r} here")
        if self._charge_clock():
            await self._changed()
            return
        self._push(move)
        await self._changed()

    async def on_undo(self, message):
        plies = message.get("plies")
        self.cursor = len(self.moves)        # a take-back starts from the end of the game
        if plies is None:
            board = self._board()
            plies = 2 if self.engine_side is not None and board.turn != self.engine_side \
                and not self.thinking else 1
            if self.result and self.result["termination"] in ("resignation", "time forfeit",
                                                               "agreement"):
                plies = 0
        else:
            plies = int(_number(plies, "plies", 1, MAX_MOVES))
        self.thinking = False
        self.cursor = max(0, self.cursor - plies)
        del self.moves[self.cursor:]
        self.result = None
        self.annotated = None
        await self._changed()

    async def on_goto(self, message):
        self.cursor = int(_number(message.get("ply"), "ply", 0, len(self.moves)))
        await self._changed(game=False)

    async def on_mode(self, message):
        engine = message.get("engine")
        if engine not in ("w", "b", None):
            raise Refused("engine must be w, b or null")
        level = Level.parse(message["level"]) if "level" in message else self.level
        self.engine_side, self.thinking = engine, False
        if level != self.level or level.kind == "clock":
            self.level = level
            self._reset_clocks()
        await self._changed()

    async def on_go(self, message):
        board = self._board()
        if self.result or board.is_game_over():
            raise Refused("the game is over")
        del self.moves[self.cursor:]
        self.engine_side = board.turn
        await self._changed()

    async def on_analyse(self, message):
        on = message.get("on", not self.analysing)
        if not isinstance(on, bool):
            raise Refused("on must be true or false")
        self.multipv = int(_number(message.get("multipv", self.multipv), "multipv", 1, 5))
        self.analysing = on
        await self._changed(game=False)

    async def on_hint(self, message):
        board = self._board()
        if board.is_game_over():
            raise Refused("the game is over: no move to hint")
        if self.thinking:
            raise Refused(f"{self.engine_name} is thinking")
        known = self.lines.get(board.fen())
        if known is None and self.analysing:
            raise Refused("the analysis has no line yet: ask again in a moment")
        self._spawn(self._hint(board, known))

    async def _hint(self, board, known):
        source = "last search"
        if known is None:
            stale = self._stale(self.epoch, self.view)
            result = await self._search("hint", stale, self._position(), HINT_LIMIT,
                                        on_info=self._info_handler(stale, board))
            if stale():
                return
            if result is None or result.move is None:
                raise Refused("no hint: the engine gave no move")
            known = self.lines.get(board.fen()) or ([result.move], result.info.cp,
                                                    result.info.mate, result.info.depth or 0)
            source = "new search"
        pv, cp, mate, depth = known
        sign = 1 if board.turn == "w" else -1
        self.emit({"type": "hint", "move": pv[0], "pv": pv, "line": " ".join(self._line(board, pv)),
                   "score": None if cp is None else sign * cp,
                   "mate": None if mate is None else sign * mate, "depth": depth,
                   "source": source})

    def _user_side(self):
        if self.engine_side is None:
            raise Refused("resign and draw offers are for a game against the engine")
        return "b" if self.engine_side == "w" else "w"

    async def on_resign(self, message):
        side = self._user_side()
        if self.result:
            raise Refused("the game is over")
        self.cursor = len(self.moves)
        name = SIDE_NAMES[self.variant][0 if side == "w" else 1]
        self.result = {"result": "0-1" if side == "w" else "1-0", "termination": "resignation",
                       "reason": f"{name} resigns"}
        self.thinking = False
        await self._changed()

    async def on_draw(self, message):
        side = self._user_side()
        if self.result:
            raise Refused("the game is over")
        if self.thinking:
            raise Refused(f"offer the draw on your own move, not while {self.engine_name} thinks")
        board = self._board(len(self.moves))
        if board.turn != side:
            raise Refused("offer the draw on your own move")
        known = self.lines.get(board.fen())
        if known is None and self.analysing and self.cursor != len(self.moves):
            raise Refused("go to the end of the game to offer a draw")
        if known is None and self.analysing:
            raise Refused("the analysis has no line yet: offer again in a moment")
        self._spawn(self._draw(board, known))

    async def _draw(self, board, known):
        epoch = self.epoch
        if known is None:
            stale = self._stale(epoch)
            await self._search("hint", stale, self._position(len(self.moves)), HINT_LIMIT,
                               on_info=self._info_handler(stale, board))
            known = self.lines.get(board.fen())
            if stale():
                return
            if known is None:
                raise Refused("the engine could not judge the offer")
        _, cp, mate, _ = known            # the user's view (the user is to move)
        engine_cp = -(cp if cp is not None else (100_000 if mate > 0 else -100_000))
        if engine_cp > DRAW_ACCEPT_CP:
            self.emit({"type": "notice", "text": f"{self.engine_name} declines the draw"})
            return
        self.cursor = len(self.moves)
        self.result = {"result": "1/2-1/2", "termination": "agreement",
                       "reason": "Draw by agreement"}
        await self._changed()

    async def on_settings(self, message):
        notation = message.get("notation", self.notation)
        lang = message.get("lang", self.lang)
        if notation not in NOTATIONS:
            raise Refused(f"notation must be one of {', '.join(NOTATIONS)}")
        if lang not in LANGS:
            raise Refused(f"lang must be one of {', '.join(LANGS)}")
        if (notation, lang) != (self.notation, self.lang):
            self.notation, self.lang = notation, lang
            self._replace_texts()
        self.emit(self.state())

    async def on_import(self, message):
        text, data = message.get("text"), message.get("data")
        name = message.get("name", "game.pgn")
        if not isinstance(name, str) or len(name) > 200:
            raise Refused("name must be a short string")
        if data is not None:
            if not isinstance(data, str) or len(data) > MAX_IMPORT * 4 // 3 + 4:
                raise Refused(f"data must be base64 of at most {MAX_IMPORT} bytes")
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                raise Refused("data is not valid base64") from None
            found, problems = records.read_bytes(raw, name)
        elif isinstance(text, str) and len(text) <= MAX_IMPORT:
            stripped = text.strip()
            if not stripped:
                raise Refused("nothing to import")
            single = "\n" not in stripped and "[" not in stripped and "/" in stripped
            found, problems = records.read_fen_lines(stripped) if single \
                else records.read_pgn(stripped)
        else:
            raise Refused(f"import needs text or data (at most {MAX_IMPORT} bytes)")
        if not found:
            reason = str(problems[0]) if problems else "no game or position found"
            raise Refused(f"cannot import: {reason}")
        record = found[0]
        if len(record.moves) > MAX_MOVES:
            raise Refused(f"cannot import a game of more than {MAX_MOVES} moves")
        self._new_game("xiangqi", record.fen)
        for move, comment in zip(record.moves, record.comments + [None] * len(record.moves)):
            self._push(move)
            if comment:
                self.moves[-1].comment = comment
        self.engine_side = None          # an imported game is for study: the engine waits
        if len(found) > 1:
            self.emit({"type": "notice", "text": f"{len(found)} games in the file: "
                       f"the first ({record.title()}) is loaded"})
        await self._changed()

    async def on_export(self, message):
        if self.variant != "xiangqi":
            self.emit({"type": "pgn", "name": f"{self.variant}.txt", "text": self._small_record()})
            return
        engine = self.engine_name if self.level.elo is None else \
            f"{self.engine_name} (level {self.level.elo})"
        tags = {"Event": "tuong-web game", "Site": "tuong-web",
                "Date": time.strftime("%Y.%m.%d"),
                "White": engine if self.engine_side == "w" else "Player",
                "Black": engine if self.engine_side == "b" else "Player"}
        if self.engine_side in ("w", "b") and self.level.elo is not None:
            tags["WhiteElo" if self.engine_side == "w" else "BlackElo"] = str(self.level.elo)
        if self.start_fen != GAMES["xiangqi"]().fen():
            tags.update({"SetUp": "1", "FEN": self.start_fen})
        if self.result:
            tags["Termination"] = self.result["reason"]
        record = records.Record(tags, [m.move for m in self.moves],
                                [m.comment for m in self.moves],
                                self.result["result"] if self.result else "*")
        writable = self.notation if self.notation != "coords" else "iccs"
        text = records.format_pgn(record, writable, marks=[m.mark for m in self.moves])
        self.emit({"type": "pgn", "name": "tuong-game.pgn", "text": text})

    def _small_record(self):
        lines = [f'[Variant "{self.variant}"]', f'[FEN "{self.start_fen}"]',
                 f'[Result "{self.result["result"] if self.result else "*"}"]', ""]
        lines.append(" ".join(m.move for m in self.moves))
        return "\n".join(lines) + "\n"

    async def on_restore(self, message):
        game = message.get("game")
        if not isinstance(game, dict):
            raise Refused("restore needs a game object")
        variant, moves = game.get("variant"), game.get("moves", [])
        if variant not in VARIANTS:
            raise Refused("restore: unknown variant")
        if not isinstance(moves, list) or len(moves) > MAX_MOVES or \
                not all(isinstance(m, str) and len(m) <= 8 for m in moves):
            raise Refused("restore: moves must be a list of moves")
        fen = game.get("start_fen")
        if fen is not None and (not isinstance(fen, str) or len(fen) > 300):
            raise Refused("restore: bad start_fen")
        mode = game.get("mode") if isinstance(game.get("mode"), dict) else {}
        engine = mode.get("engine")
        level = Level.parse(mode["level"]) if "level" in mode else self.level
        notation, lang = game.get("notation", "wxf"), game.get("lang", "en")
        if engine not in ("w", "b", None) or notation not in NOTATIONS or lang not in LANGS:
            raise Refused("restore: bad mode or settings")
        try:                                 # the whole game is replayed before it is taken
            board = GAMES[variant](fen) if fen else GAMES[variant]()
            for move in moves:
                if move not in board.legal_moves():
                    raise Refused(f"restore: illegal move {move!r}")
                board.push(move)
        except (ValueError, TypeError) as error:
            raise Refused(f"restore: {error}") from None
        cursor = int(_number(game.get("cursor", len(moves)), "cursor", 0, len(moves)))
        self.notation, self.lang, self.level = notation, lang, level
        self._new_game(variant, fen)
        for move in moves:
            self._push(move)
        self.cursor = cursor
        result = game.get("result")
        if isinstance(result, dict) and result.get("result") in records.RESULTS and \
                result.get("termination") in ("resignation", "time forfeit", "agreement"):
            self.result = {k: str(result.get(k, ""))[:200]
                           for k in ("result", "termination", "reason")}
        self.engine_side = engine
        await self._changed()

    async def on_annotate(self, message):
        if self.variant != "xiangqi":
            raise Refused("annotation is for Xiangqi games")
        if not self.moves:
            raise Refused("no moves to annotate")
        movetime = _number(message.get("movetime", 0.1), "movetime", 0.05, 5)
        self.analysing, self.engine_side, self.thinking = False, None, False
        await self._changed()
        self._spawn(self._annotate(movetime))

    async def _annotate(self, movetime):
        stale, total = self._stale(self.epoch), len(self.moves) + 1
        searches = {}
        for ply in range(total):
            board = self._board(ply)
            if board.is_game_over():
                searches[(0, ply)] = annotate.Search(("cp", 0), None, [])
                continue
            result = await self._search("annotation", stale, self._position(ply),
                                        Limit(movetime=movetime),
                                        timeout=movetime * 4 + 10)
            if result is None or stale():
                return                   # the game changed, or the engine failed: stop
            info = result.info
            score = ("mate", info.mate) if info.mate is not None else ("cp", info.cp or 0)
            searches[(0, ply)] = annotate.Search(score, result.move, list(info.pv or []))
            self.emit({"type": "annotation", "done": ply + 1, "total": total})
        summary = self._apply_annotation(searches)
        self.annotated = searches
        self.emit({"type": "annotation", "done": total, "total": total, "summary": summary})
        self.emit(self.state())

    def _apply_annotation(self, searches):
        tags = {"FEN": self.start_fen} if self.start_fen != GAMES["xiangqi"]().fen() else {}
        tags.update({"White": "Red", "Black": "Black"})
        record = records.Record(tags, [m.move for m in self.moves], [None] * len(self.moves))
        notes = annotate.annotate_game(record, searches, 0, self.notation, self.lang)
        for entry, note, comment in zip(self.moves, notes,
                                        annotate.comments_for(notes, self.lang)):
            kind, value = note.score_after
            entry.score = annotate.centipawns(note.score_after) if kind != "mate" else None
            entry.mate = value if kind == "mate" else None
            entry.mark, entry.comment = note.mark, comment
        return annotate.summary(record, notes, self.lang)

    # -- the end ----------------------------------------------------------------

    async def close(self):
        """Stop the search, end the engine and the worker (the page has gone)."""
        self.closed = True
        self.epoch += 1
        self._stop_search()
        for task in list(self.tasks):
            task.cancel()

        def shut():
            if self.engine is not None:
                self.engine.close()
        try:
            await asyncio.wait_for(self.loop.run_in_executor(self.worker, shut), 10)
        except (asyncio.TimeoutError, RuntimeError):
            if self.engine is not None:
                self.engine._kill()
        self.worker.shutdown(wait=False)
