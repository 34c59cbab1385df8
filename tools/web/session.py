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
import time
from concurrent.futures import ThreadPoolExecutor

from tuong.engine.games import GAMES
from tuong.protocol.client import Limit
from tuong.tools import records
from tuong.tools.records import annotate, commentary, notation as notations
from tuong.tools.records.tree import GameTree
from tuong.tools.web import hant, words
from tuong.tools.web.database import DatabaseMessages, opening_label
from tuong.tools.web.clock import ClockKeeper, Clocks
from tuong.tools.web.searching import Searches
from tuong.tools.web.game import (
    HEADER_NAMES, LANGS, MAX_IMPORT, MAX_MOVES, MAX_NODES, MAX_TEXT, NOTATIONS, SIDE_NAMES,
    VARIANTS, Level, Refused, copy_tree, describe, describe_root, fill, first_game, grid_of,
    file_bytes, manual_result, new_board, number, opening_book, text_field, texts,
    tree_from_saved)

DRAW_ACCEPT_CP = 30              # the engine takes a draw unless it is better by more
HINT_LIMIT = Limit(movetime=0.5)
STATE = {"type": "state"}        # emitted as a marker: the sender builds the state (see above)


class Session(Clocks, Searches, DatabaseMessages):
    """The game of one page. `open_engine()` starts an engine (a
    protocol.client.Engine); `emit(message)` sends to the page and may be
    called only on the event loop's thread (STATE: see the module's doc).
    `keeper`: the server's ClockKeeper (tools/web/clock.py), that keeps a
    game's clocks for its page's return. `db_path`: the games database
    (tools/web/database.py; None: none)."""

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

    def _commentary(self, node):
        """The book's commentary on the move into `node`, in the page's
        notation and language (made when first shown)."""
        if node.parent is None or self.variant != "xiangqi":
            return None
        key = (self.notation, self.lang)
        cached = node.data.get("says")
        if cached is None or cached[0] != key:
            board = self._board(node.parent)
            cached = (key, hant.for_lang(commentary.sentence(
                commentary.facts(board, node.move, self.notation), self.lang), self.lang))
            node.data["says"] = cached
        return cached[1]

    def _end(self, node, result):
        node.data["result"] = result
        self._touch(node)

    # -- state ----------------------------------------------------------------

    def _node_view(self, node):
        data = node.data
        return {"id": node.id, "parent": None if node.parent is None else node.parent.id,
                "move": node.move, "text": hant.for_lang(data.get("text"), self.lang),
                "ply": data["ply"],
                "fen": data["fen"], "children": [child.id for child in node.children],
                "comment": node.comment, "note": data.get("note"),
                "mark": node.mark, "amark": data.get("amark"), "score": data.get("score"),
                "mate": data.get("mate"), "capture": data.get("capture", False),
                "result": self._result_at(node)}

    def state(self):
        """The state message: the nodes changed since the last one (all of
        them, with `reset`, after the game was replaced)."""
        board = self._board(self.cursor)
        fen = board.fen()
        grid = grid_of(fen)
        engine_turn = self.engine_side == board.turn and self.cursor is self.play
        over = self._result_at(self.cursor) is not None or board.is_game_over()
        legal = [] if over or engine_turn or self.thinking or \
            self.engine_side == board.turn else sorted(board.legal_moves())
        check = None
        if self.variant == "xiangqi" and board.in_check():
            king = "K" if board.turn == "w" else "k"
            for r, row in enumerate(grid):
                if king in row:
                    check = f"{'abcdefghi'[row.index(king)]}{9 - r}"
        if self._reset:
            changed = list(self.tree.root.walk())
        else:
            changed = [self.tree.nodes[i] for i in sorted(self._dirty) if i in self.tree.nodes]
        message = {"type": "state", "variant": self.variant, "files": len(grid[0]),
                   "ranks": len(grid), "start_fen": self.start_fen, "reset": self._reset,
                   "nodes": [self._node_view(node) for node in changed],
                   "cursor": self.cursor.id, "ply": self.cursor.data["ply"],
                   "play": self.play.id, "fen": fen, "turn": board.turn, "grid": grid,
                   "legal": legal, "check": check, "last": self.cursor.move,
                   "result": self._line_result(self.cursor),
                   "commentary": self._commentary(self.cursor),
                   "opening": self._opening(self.cursor),
                   "mode": {"engine": self.engine_side, "level": self.level.as_dict()},
                   "clocks": self._clock_view(), "thinking": self.thinking,
                   "analysing": self.analysing, "multipv": self.multipv,
                   "notation": self.notation, "lang": self.lang, "player": self.player,
                   "engine_name": self.engine_name, "headers": self.headers,
                   "record_names": self._record_names(),
                   "summary": self.summary, "can_undo_edit": self.tree.can_undo_edit,
                   "summary_sides": self.summary_sides if self.summary else None,
                   "can_reopen": self.previous is not None, "book": self._book_moves(board),
                   "masters": self._masters(board),
                   "restored": self._restored}
        self._dirty.clear()
        self._reset = self._restored = False
        return message

    def _opening(self, node):
        """The opening's name of the line shown (Xiangqi from the start)."""
        if self.variant != "xiangqi" or self.start_fen != GAMES["xiangqi"]().fen():
            return None
        return opening_label([n.move for n in node.line()], self.lang)

    def _book_moves(self, board):
        """The opening book's moves for the shown position (the explorer)."""
        book = opening_book() if self.variant == "xiangqi" else None
        if book is None:
            return []
        moves = book.probe(board.fen(), board.legal_moves())
        total = sum(m.weight for m in moves) or 1
        return [{"move": m.move,
                 "text": hant.for_lang(notations.write(board, m.move, self.notation), self.lang),
                 "weight": m.weight, "share": round(100 * m.weight / total, 1),
                 "games": m.games, "score": m.score} for m in moves]

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

    # -- the engine: searches (tools/web/searching.py), the engine's move ------

    async def _engine_move(self, epoch):
        """The engine's move where the game goes on (whatever the page shows)."""
        play = self.play
        board = self._board(play)
        limit = self._limit()
        timeout = 24 * 3600.0            # nodes or depth: as long as it takes
        if self.level.kind == "clock":
            timeout = (limit.red_clock if board.turn == "w" else limit.black_clock) + 5.0
        elif self.level.kind == "movetime":
            timeout = self.level.value + 10.0
        stale = self._stale(epoch)
        result = await self._search("move", stale, self._position(play), limit,
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
            self._end(play, {"result": "0-1" if board.turn == "w" else "1-0",
                             "termination": "resignation" if result.move is None
                             else "illegal move",
                             "reason": f"{side} ({self.engine_name}) " +
                             ("resigns" if result.move is None else
                              f"played an illegal move {result.move}")})
        else:
            try:
                self._room_for_a_move(play, result.move)
            except Refused as refusal:       # no room for its move: the engine stops playing
                self.engine_side = None
                self.emit({"type": "notice", "text": str(refusal)})
                await self._changed()
                return
            sign = 1 if board.turn == "w" else -1
            info = result.info
            follow = self.cursor is play
            self.play = self._add(play, result.move,
                                  None if info.cp is None else sign * info.cp,
                                  None if info.mate is None else sign * info.mate)
            if follow:                   # the page watched the game: it sees the reply
                self.cursor = self.play
        await self._changed()

    async def _analyse(self, epoch, view):
        board = self._board(self.cursor)
        stale = self._stale(epoch, view)
        await self._search("analysis", stale, self._position(self.cursor), Limit(infinite=True),
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

    async def on_undo(self, message):
        """Take back: where the game goes on moves back (by default to the
        player's last turn); the moves stay in the tree."""
        plies = message.get("plies")
        node = self.play
        result = node.data.get("result")
        if result and result["termination"] == "time forfeit":
            raise Refused("a fallen flag is not taken back (the time is spent): "
                          "go on as an analysis board, or start a new game")
        if self.engine_side is not None and result:
            if plies is None:
                # The player's own resignation (or an agreed draw) is taken back by
                # itself. The engine's (it resigned, or played an illegal move, on its
                # turn) goes with the player's move before it: taken back alone, the
                # engine would only think again and resign again.
                loser = {"1-0": "b", "0-1": "w"}.get(result.get("result"))
                plies = 1 if loser == self.engine_side and result.get("termination") in (
                    "resignation", "illegal move") else 0
            self._end(node, None)
        if plies is None:
            turn = self._board(node).turn
            plies = 2 if self.engine_side is not None and turn != self.engine_side \
                and not self.thinking else 1
        else:
            plies = int(number(plies, "plies", 0, MAX_MOVES))
        for _ in range(plies):
            if node.parent is None:
                break
            node = node.parent
        self.thinking = False
        self.cursor = self.play = node
        await self._changed()

    async def on_goto(self, message):
        if "node" in message:
            self.cursor = self._node(message)
        else:
            line = [self.tree.root] + self.cursor.line()
            self.cursor = line[int(number(message.get("ply"), "ply", 0, len(line) - 1))]
        await self._changed(game=False)

    async def on_promote(self, message):
        if not self.tree.promote(self._node(message)):
            raise Refused("that move is on the main line already")
        self._touch(*self._branch_points())
        await self._changed(game=False)

    async def on_delete(self, message):
        node = self._node(message)
        if node.parent is None:
            raise Refused("the start position cannot be deleted")
        inside = {n.id for n in node.walk()}
        parent = self.tree.delete(node)
        self._touch(parent)
        if self.cursor.id in inside:
            self.cursor = parent
        if self.play.id in inside:       # the game went on in what was deleted
            self.play = parent
            await self._changed()
            return
        await self._changed(game=False)

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

    def _branch_points(self):
        """Every node with variations: their order may have changed."""
        return [node for node in self.tree.nodes.values() if len(node.children) > 1] + \
            [node.parent for node in self.tree.nodes.values()
             if node.parent is not None and len(node.parent.children) == 1]

    async def on_comment(self, message):
        node = self._node(message)
        text = text_field(message.get("text", ""), "text", MAX_TEXT).strip()
        node.comment = text or None
        self._touch(node)
        self.emit(STATE)

    async def on_headers(self, message):
        headers = message.get("headers")
        if not isinstance(headers, dict) or len(headers) > len(HEADER_NAMES):
            raise Refused("headers must be an object of PGN tags")
        for name, value in headers.items():
            if name not in HEADER_NAMES:
                raise Refused(f"headers: {name[:40]!r} is not one of {', '.join(HEADER_NAMES)}",
                              key="headers: {name} is not one of {names}", params={
                                  "name": repr(name[:40]), "names": ", ".join(HEADER_NAMES)})
            value = text_field(value, f"headers: {name}", 200).strip()
            if name == "Result" and value not in records.RESULTS + ("",):
                raise Refused(f"headers: Result must be one of {', '.join(records.RESULTS)}",
                              key="headers: Result must be one of {results}",
                              params={"results": ", ".join(records.RESULTS)})
            if any(ch in value for ch in '\n\r"\\'):
                raise Refused(f"headers: {name} may not hold quotes, backslashes or new lines",
                              key="headers: {name} may not hold quotes, backslashes or new lines",
                              params={"name": name})
        for name, value in headers.items():
            if value.strip():
                self.headers[name] = value.strip()
            else:
                self.headers.pop(name, None)
        self.emit(STATE)

    async def on_mode(self, message):
        engine = message.get("engine")
        if engine not in ("w", "b", None):
            raise Refused("engine must be w, b or null")
        level = Level.parse(message["level"]) if "level" in message else self.level
        if engine is not None and self.engine_side is None:
            if self._record_names():     # a studied record: the game is a record of its own
                self._own_record()
            self.play = self.cursor      # a game against the engine starts from the board shown
        self.engine_side, self.thinking = engine, False
        if "level" in message and (level != self.level or level.kind == "clock"):
            self.level = level           # a clock given is a clock started afresh
            self._reset_clocks()
        self._name_players()
        await self._changed()

    async def on_go(self, message):
        """The engine moves now. Thinking on its move, it stops and plays the
        best move it has. Else it plays one move for the side to move, from
        the position shown (a variation there if the game went on otherwise),
        and who it plays in the game stays as it was."""
        if self.thinking:
            self.hurry = True            # a search not yet started stops as it starts
            if self.search_kind == "move":
                self._stop_search()
            return
        board = self._board(self.cursor)
        if self._result_at(self.cursor) or board.is_game_over():
            raise Refused("the game is over")
        self.play, self._go_now = self.cursor, True
        await self._changed()

    def _own_record(self):
        """A game against the engine from a studied record starts a record of
        its own: the moves to the board shown, without the record's names,
        tags or comments; the studied record comes back with `reopen`."""
        moves = self.cursor.moves()
        self._keep_previous()
        self._set_game(self.variant, self._fresh_tree(self.variant, self.start_fen), {})
        for move in moves:
            self.cursor = self._add(self.cursor, move)
        self._notice("a game against {engine} starts its own record from the board shown; "
                     "the studied one comes back with Bring back", engine=self.engine_name)

    async def on_analyse(self, message):
        on = message.get("on", not self.analysing)
        if not isinstance(on, bool):
            raise Refused("on must be true or false")
        self.multipv = int(number(message.get("multipv", self.multipv), "multipv", 1, 5))
        self.analysing = on
        await self._changed(game=False)

    async def on_hint(self, message):
        board = self._board(self.cursor)
        if board.is_game_over():
            raise Refused("the game is over: no move to hint")
        if self.thinking:
            raise Refused(f"{self.engine_name} is thinking", key="{engine} is thinking",
                          params={"engine": self.engine_name})
        known = self.lines.get(board.fen())
        if known is None and self.analysing:
            raise Refused("the analysis has no line yet: ask again in a moment")
        self._spawn(self._hint(board, known))

    async def _hint(self, board, known):
        source = "last search"
        if known is None:
            stale = self._stale(self.epoch, self.view)
            result = await self._search("hint", stale, self._position(self.cursor), HINT_LIMIT,
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
        if self._result_at(self.play):
            raise Refused("the game is over")
        return "b" if self.engine_side == "w" else "w"

    async def on_resign(self, message):
        side = self._user_side()
        self._charge_clock(increment=False)
        name = SIDE_NAMES[self.variant][0 if side == "w" else 1]
        self._end(self.play, {"result": "0-1" if side == "w" else "1-0",
                              "termination": "resignation", "reason": f"{name} resigns"})
        self.cursor, self.thinking = self.play, False
        await self._changed()

    async def on_draw(self, message):
        side = self._user_side()
        if self.thinking:
            raise Refused(f"offer the draw on your own move, not while {self.engine_name} thinks",
                          key="offer the draw on your own move, not while {engine} thinks",
                          params={"engine": self.engine_name})
        board = self._board(self.play)
        if board.turn != side:
            raise Refused("offer the draw on your own move")
        known = self.lines.get(board.fen())
        if known is None and self.analysing and self.cursor is not self.play:
            raise Refused("go to the end of the game to offer a draw")
        if known is None and self.analysing:
            raise Refused("the analysis has no line yet: offer again in a moment")
        self._spawn(self._draw(board, known))

    async def _draw(self, board, known):
        epoch, play = self.epoch, self.play
        if known is None:
            stale = self._stale(epoch)
            await self._search("draw", stale, self._position(play), HINT_LIMIT,
                               on_info=self._info_handler(stale, board))
            known = self.lines.get(board.fen())
            if stale():
                return
            if known is None:
                raise Refused("the engine could not judge the offer")
        _, cp, mate, _ = known            # the user's view (the user is to move)
        engine_cp = -(cp if cp is not None else (100_000 if mate > 0 else -100_000))
        if engine_cp > DRAW_ACCEPT_CP:
            self._notice("{engine} declines the draw", engine=self.engine_name)
            return
        self._charge_clock(increment=False)    # the time spent on the offer stays spent
        self._end(play, {"result": "1/2-1/2", "termination": "agreement",
                         "reason": "Draw by agreement"})
        self.cursor = play
        await self._changed()

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
