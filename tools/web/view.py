"""What a tuong-web page is told: the `state` message (docs/web-protocol.md)
with the nodes changed since the last one, the board shown, its legal
moves, the opening's name, the opening book's moves, the book's commentary
on the move shown.

`StateView` is that part of a Session (tools/web/session.py), a mixin. The
server calls `state()` when it writes (see session.py's doc: STATE).
"""
from tuong.engine.games import GAMES
from tuong.tools.records import commentary, notation as notations
from tuong.tools.web import hant
from tuong.tools.web.database import opening_label
from tuong.tools.web.game import grid_of, opening_book


class StateView:
    """The state message, for a Session (which supplies the game: `variant`,
    `tree`, `headers`, `start_fen`, `cursor`, `play`, `notation`, `lang`,
    `player`, `engine_side`, `engine_name`, `level`, `thinking`,
    `analysing`, `multipv`, `summary`, `summary_sides`, `previous`; what
    changed: `_dirty`, `_reset`, `_restored`; and `_board`, `_result_at`,
    `_line_result`, `_record_names`, Clocks' `_clock_view`, and
    DatabaseMessages' `_masters`)."""

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
