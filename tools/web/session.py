"""One page of tuong-web: its game, its engine and its messages.

The page sends intentions (docs/web-protocol.md); a Session checks each one
(a move must be legal where it is played, a FEN a legal position, a number
within its range), changes the game and tells the page what changed. The
game is a tree of moves (tools/records/tree.py): a move that differs from
the next one starts a variation, and nothing the page has not asked to
delete is ever deleted. The engine is a process driven through
protocol/client/: nothing the page sends reaches it as text, only moves
this module has found legal and limits it has built.

Where things happen: the `cursor` is the node the page shows; `play` is
the node where the game against the engine goes on (the engine thinks
there, the clocks run for its side to move). A move by the player makes
its node both. Browsing moves only the cursor.

Threads: the session lives on the server's event loop; every engine call
runs on the session's one worker thread, in order, and long pure work (a
big import, a restore, rewriting every move in a new notation) runs on a
second thread and is taken in on the loop. A change of the game bumps
`epoch` and stops the running search; a change of what the page shows
bumps `view` and stops an analysis but not the engine's thinking on its
move. A search whose epoch (or view) has passed is thrown away, so a late
engine move never lands on a new game.

What goes out: `emit(STATE)` says "the state changed"; whoever sends
(the server, at the moment it writes) calls `state()`, which carries the
nodes changed since the last state it built. A page that reads slowly
thus gets one state, not a queue of them.
"""
import asyncio
from concurrent.futures import ThreadPoolExecutor

from tuong.protocol.client import Limit
from tuong.tools import records
from tuong.tools.records.tree import GameTree
from tuong.tools.web import words
from tuong.tools.web.annotation import Annotation
from tuong.tools.web.clock import ClockKeeper, Clocks
from tuong.tools.web.database import DatabaseMessages
from tuong.tools.web.editing import Editing
from tuong.tools.web.game import (
    HEADER_NAMES, LANGS, MAX_MOVES, MAX_NODES, NOTATIONS, STATE, VARIANTS, Level, Refused,
    describe, describe_root, new_board, number, text_field, texts)
from tuong.tools.web.playing import Playing
from tuong.tools.web.records_io import RecordsIO
from tuong.tools.web.searching import Searches
from tuong.tools.web.view import StateView

__all__ = ["STATE", "Session"]


class Session(StateView, Playing, Editing, RecordsIO, Annotation, Clocks, Searches,
              DatabaseMessages):
    """The game of one page. `open_engine()` starts an engine (a
    protocol.client.Engine); `emit(message)` sends to the page and may be
    called only on the event loop's thread (STATE: see the module's doc).
    `keeper`: the server's ClockKeeper (tools/web/clock.py), that keeps a
    game's clocks for its page's return. `db_path`: the games database
    (tools/web/database.py; None: none). Its parts, a mixin a job: the
    state message (view.py), the game against the engine (playing.py), the
    tree's edits (editing.py), import, export and restore (records_io.py),
    the annotation (annotation.py), the clocks, the searches, the database."""

    def __init__(self, open_engine, emit, engine_name="engine",
                 keeper: ClockKeeper | None = None, db_path=None):
        self.open_engine, self.emit, self.engine_name = open_engine, emit, engine_name
        self._init_database(db_path)
        self.keeper = keeper
        self.loop = asyncio.get_running_loop()
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="tuong-web-engine")
        self.chores = ThreadPoolExecutor(1, thread_name_prefix="tuong-web-chores")
        self.engine = None
        self._set = {}                   # options set on the engine (MultiPV, OwnBook)
        self.search = None               # the running client Analysis, if any
        self.epoch = 0                   # bumped by every change of the game
        self.view = 0                    # bumped by every change of the shown position
        self.search_kind: str | None = None   # "move", "analysis" or "hint"
        self.tasks: set[asyncio.Task] = set()
        self.notation, self.lang, self.player = "wxf", "en", "Player"
        self.engine_side: str | None = "b"
        self.level = Level()
        self.analysing, self.multipv = False, 1
        self.thinking = self.hurry = self._go_now = False   # hurry: "move now" (on_go)
        self.lines: dict[str, tuple] = {}   # fen -> (pv, cp, mate, depth): known best lines
        self.annotation = None           # (the line's node ids, the searches) once annotated
        self.annotating = False
        self.summary = None
        self.summary_sides = None        # the summary's numbers per side, for the page's table
        self.closed = False
        self.flag_task = self._last_task = None
        self.previous = None             # the game a new one replaced (`reopen` brings it back)
        self._dirty: set[int] = set()
        self._reset = True
        self._restored = False           # the next state answers a restore
        self._set_game("xiangqi", self._fresh_tree("xiangqi", None), {})
        if keeper is not None:
            keeper.live.add(self)

    # -- the game -------------------------------------------------------------

    def _fresh_tree(self, variant, fen):
        tree = GameTree(new_board(variant, fen).fen() if fen else None)
        describe_root(variant, tree)
        return tree

    def _set_game(self, variant, tree, headers, cursor=None, play=None):
        """Take a described tree as the game (the page gets all of it)."""
        self.variant, self.tree = variant, tree
        self.start_fen = tree.root.data["fen"]
        # The record's other tags are kept as they were (records.kept_tag), for its export.
        self.headers = {k: v for k, v in headers.items()
                        if k in HEADER_NAMES or records.kept_tag(k)}
        if self.headers.get("Result") not in records.RESULTS:
            self.headers.pop("Result", None)
        self.cursor = cursor or tree.root
        self.play = play or self.cursor
        self.annotation = self.summary = None
        self._reset, self._dirty = True, set()
        self._reset_clocks()
        self._name_players()

    def _keep_previous(self):
        """Remember the game about to be replaced, if it has moves (`reopen`)."""
        if self.tree.root.children:
            self.previous = (self.variant, self.tree, dict(self.headers), self.cursor,
                             self.play, self.engine_side)

    def _record_names(self):
        """Whether the record names its players itself (not as tuong names
        a game against the engine): those names are never written over."""
        return not all(words.is_default_name(self.headers.get(tag), self.engine_name, self.player)
                       for tag in ("White", "Black"))

    def _name_players(self, ours=None):
        """A game against the engine names it (with its level) and the
        player, in the page's language, unless the record names its players
        (`ours`: whether the names are tuong's, known before a change)."""
        ours = not self._record_names() if ours is None else ours
        if self.variant != "xiangqi" or self.engine_side is None or not ours:
            return
        engine = words.engine_label(self.engine_name, self.level.elo, self.lang)
        mine, theirs = ("Black", "White") if self.engine_side == "w" else ("White", "Black")
        self.headers[theirs] = engine
        self.headers[mine] = words.player_name(self.player, self.lang)
        self.headers.pop("WhiteElo", None)
        self.headers.pop("BlackElo", None)
        if self.level.elo is not None:
            self.headers[theirs + "Elo"] = str(self.level.elo)

    def _board(self, node):
        """A board at `node`, with the history that leads there."""
        board = new_board(self.variant, self.start_fen)
        for move in node.moves():
            board.push(move)
        return board

    def _touch(self, *nodes):
        self._dirty.update(node.id for node in nodes)

    def _add(self, parent, move, score=None, mate=None):
        """The node for a legal `move` from `parent` (made if new; a new
        one after existing children is a variation)."""
        node, made = self.tree.add(parent, move)
        if made:
            describe(self.variant, self._board(parent), node, self.notation)
            self._touch(parent, node)
        if score is not None or mate is not None:
            node.data.update(score=score, mate=mate)
            self._touch(node)
        return node

    def _room_for_a_move(self, parent, move):
        """Refused when a new move would make the game larger than a page
        can keep (MAX_NODES moves, a line of MAX_MOVES)."""
        if any(child.move == move for child in parent.children):
            return
        if len(self.tree) > MAX_NODES:
            raise Refused(f"the game holds {MAX_NODES:,} moves, as many as a page keeps: "
                          "delete some variations first", params={"n": f"{MAX_NODES:,}"},
                          key="the game holds {n} moves, as many as a page keeps: "
                          "delete some variations first")
        if parent.data["ply"] >= MAX_MOVES:
            raise Refused(f"a line of {MAX_MOVES:,} moves is as long as a page keeps",
                          key="a line of {n} moves is as long as a page keeps",
                          params={"n": f"{MAX_MOVES:,}"})

    def _result_at(self, node):
        return node.data.get("result") or node.data.get("end")

    def _line_result(self, node):
        """The result of the line through `node`: the first one on it."""
        for step in [self.tree.root] + node.line():
            result = step.data.get("result") or (None if step.children else step.data.get("end"))
            if result:
                return result
        return None

    def _end(self, node, result):
        node.data["result"] = result
        self._touch(node)

    # -- after a change (the state message: tools/web/view.py) ------------------

    async def _changed(self, game=True):
        """After a change: stop what the engine does that no longer applies,
        start what it should do now (move, or analyse the shown position),
        tell the page. `game`: the game changed, not only the view."""
        self.view += 1
        if game:
            self.epoch += 1
            self._stop_search()
            self.thinking = False
        elif self.search_kind not in ("move", "annotation", "draw"):
            self._stop_search()          # an analysis or a hint of what is no longer shown
        if game:
            self._start_clock()
            if self.flag_task is not None:
                self.flag_task.cancel()
                self.flag_task = None
            if self.clock_since:
                self._spawn(self._watch_flag(self.epoch))
                self.flag_task = self._last_task
            play, now, self._go_now, self.hurry = self.play, self._go_now, False, False
            if not self._result_at(play) and (now or self.engine_side is not None and
                                              self._board(play).turn == self.engine_side):
                self.thinking = True
                self._spawn(self._engine_move(self.epoch))
        if self.analysing and not self.thinking and not self.annotating and \
                not self._result_at(self.cursor) and \
                not self._board(self.cursor).is_game_over():
            self._spawn(self._analyse(self.epoch, self.view))
        self.emit(STATE)

    def _spawn(self, coroutine):
        """Run a coroutine beside the message loop (searches take long: the
        page must stay heard). A refusal inside becomes an `error`; any other
        failure a notice, and the engine stops playing a side."""
        async def guarded():
            try:
                await coroutine
            except Refused as refusal:
                self.emit(self._refusal(refusal))
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

    async def _chore(self, function, *args):
        """Run pure work off the event loop (one at a time, in order)."""
        return await self.loop.run_in_executor(self.chores, function, *args)

    # -- the analysis (searches: searching.py; the engine's move: playing.py) -

    async def _analyse(self, epoch, view):
        board = self._board(self.cursor)
        stale = self._stale(epoch, view)
        await self._search("analysis", stale, self._position(self.cursor), Limit(infinite=True),
                           self.multipv, self._info_handler(stale, board))

    # -- messages (more in playing.py, editing.py, records_io.py, annotation.py)

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
            self.emit(self._refusal(refusal))

    def _refusal(self, refusal):
        """The `error` for a refusal: its English sentence (`message`), and
        the sentence in the page's language with its key (words.fields)."""
        return {"type": "error", "message": str(refusal),
                **words.fields(refusal.key, refusal.params, refusal.detail, self.lang)}

    def _notice(self, key, detail=None, text=None, **params):
        """A `notice` of `key` (words.notice); `text`: its English, if not the key's."""
        message = words.notice(key, self.lang, detail, **params)
        self.emit({**message, "text": text} if text else message)

    def _node(self, message, field="node"):
        node_id = message.get(field)
        if isinstance(node_id, bool) or not isinstance(node_id, int) or \
                node_id not in self.tree.nodes:
            raise Refused(f"{field} must be the id of a move of this game")
        return self.tree.nodes[node_id]

    async def on_new(self, message):
        variant = message.get("variant", "xiangqi")
        if variant not in VARIANTS:
            raise Refused(f"variant must be one of {', '.join(VARIANTS)}")
        fen = message.get("fen")
        if fen is not None:
            fen = text_field(fen, "fen", 300).strip()
        tree = self._fresh_tree(variant, fen)
        self._keep_previous()
        self._set_game(variant, tree, {})
        await self._changed()

    async def on_reopen(self, message):
        """Bring back the game that the last new game, set-up or import replaced."""
        if self.previous is None:
            raise Refused("no game to bring back")
        variant, tree, headers, cursor, play, engine_side = self.previous
        self.previous = None
        self._keep_previous()
        self.engine_side = engine_side
        self._set_game(variant, tree, headers, cursor, play)
        self._retext()                   # the notation may have changed since
        await self._changed()

    async def on_move(self, message):
        move = message.get("move")
        if not isinstance(move, str) or len(move) > 8:
            raise Refused("move must be a short string such as h2e2")
        if self.thinking:
            raise Refused(f"{self.engine_name} is thinking: wait for its move or take back",
                          key="{engine} is thinking: wait for its move or take back",
                          params={"engine": self.engine_name})
        board = self._board(self.cursor)
        result = self._result_at(self.cursor)
        if result:
            raise Refused(f"the game is over ({result['reason']})", key="the game is over")
        if self.engine_side == board.turn:
            raise Refused("it is the engine's turn")
        if move not in board.legal_moves():
            raise Refused(f"illegal move {move!r} here", key="illegal move {move} here",
                          params={"move": repr(move)})
        self._room_for_a_move(self.cursor, move)
        if self.engine_side is not None and self.cursor is self.play and self._charge_clock():
            await self._changed()
            return
        self.cursor = self.play = self._add(self.cursor, move)
        await self._changed()

    async def on_undo_edit(self, message):
        try:
            # The root is a node of the tree but not a move: MAX_NODES moves, + 1.
            node = self.tree.undo_edit(limit=MAX_NODES + 1)
        except ValueError:
            raise Refused(f"cannot take back the deletion: the game would hold more than "
                          f"{MAX_NODES:,} moves, as many as a page keeps",
                          key="cannot take back the deletion: the game would hold more than "
                          "{n} moves, as many as a page keeps",
                          params={"n": f"{MAX_NODES:,}"}) from None
        if node is None:
            raise Refused("nothing to take back (or its place is gone)")
        self._retext()                   # what comes back was written in its day's notation
        self._reset = True               # and the page may not hold it any more
        await self._changed(game=False)

    def _retext(self):
        """Every move written again in the current notation (Xiangqi's)."""
        if self.variant == "xiangqi":
            for node_id, text in texts(self.variant, self.tree, self.notation).items():
                self.tree.nodes[node_id].data["text"] = text

    async def on_analyse(self, message):
        on = message.get("on", not self.analysing)
        if not isinstance(on, bool):
            raise Refused("on must be true or false")
        self.multipv = int(number(message.get("multipv", self.multipv), "multipv", 1, 5))
        self.analysing = on
        await self._changed(game=False)

    async def on_settings(self, message):
        notation = message.get("notation", self.notation)
        lang = message.get("lang", self.lang)
        player = message.get("player", self.player)
        if notation not in NOTATIONS:
            raise Refused(f"notation must be one of {', '.join(NOTATIONS)}")
        if lang not in LANGS:
            raise Refused(f"lang must be one of {', '.join(LANGS)}")
        player = text_field(player, "player", 60).strip() or "Player"
        if any(ch in player for ch in '\n\r"\\'):
            raise Refused("player may not hold quotes, backslashes or new lines")
        relang = lang != self.lang
        if player != self.player or relang:
            ours = not self._record_names()
            self.player, self.lang = player, lang
            self._name_players(ours)     # the default names in the page's language
        if notation != self.notation and self.variant == "xiangqi":
            self.notation = notation
            tree = self.tree
            written = await self._chore(texts, self.variant, tree, notation)
            if tree is self.tree and notation == self.notation:
                for node_id, text in written.items():
                    node = tree.nodes.get(node_id)
                    if node is not None:
                        node.data["text"] = text
                self._reset = True       # every move's text changed
        self.notation = notation
        if relang:
            if self.annotation is not None:
                self._apply_annotation(*self.annotation)
        self.emit(STATE)

    # -- the end ----------------------------------------------------------------

    async def close(self):
        """Stop the search, end the engine and the workers (the page has gone)."""
        if not self.closed:
            self._keep_clocks()
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
        self.chores.shutdown(wait=False, cancel_futures=True)
        self._close_database()

