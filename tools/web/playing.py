"""A tuong-web game against the engine: who the engine plays and at what
level, the engine's move, and the player's requests in the game: move now,
take back, a hint, resign, offer a draw (docs/web-protocol.md).

`Playing` is that part of a Session (tools/web/session.py), a mixin. The
engine's move, a hint and the judging of a draw offer are searches
(tools/web/searching.py); the clocks are tools/web/clock.py's.
"""
from tuong.protocol.client import Limit
from tuong.tools.match.referee import MATE_CP
from tuong.tools.web.game import MAX_MOVES, SIDE_NAMES, Level, Refused, number

DRAW_ACCEPT_CP = 30              # the engine takes a draw unless it is better by more
HINT_LIMIT = Limit(movetime=0.5)


class Playing:
    """The game against the engine, for a Session (which supplies the game:
    `variant`, `start_fen`, `cursor`, `play`, `engine_side`, `engine_name`,
    `level`, `epoch`, `view`, `thinking`, `hurry`, `_go_now`, `analysing`,
    `lines`, `search_kind`; and `emit`, `_notice`, `_spawn`, `_changed`,
    `_board`, `_add`, `_end`, `_result_at`, `_room_for_a_move`, `_set_game`,
    `_fresh_tree`, `_keep_previous`, `_record_names`, `_name_players`;
    Searches' `_search`, `_stale`, `_stop_search`, `_position`, `_limit`,
    `_info_handler`, `_line`; Clocks' `_charge_clock`, `_reset_clocks`)."""

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
        engine_cp = -(cp if cp is not None else (MATE_CP if mate > 0 else -MATE_CP))
        if engine_cp > DRAW_ACCEPT_CP:
            self._notice("{engine} declines the draw", engine=self.engine_name)
            return
        self._charge_clock(increment=False)    # the time spent on the offer stays spent
        self._end(play, {"result": "1/2-1/2", "termination": "agreement",
                         "reason": "Draw by agreement"})
        self.cursor = play
        await self._changed()
