"""A tuong-web game's tree edited from the page: the move shown chosen,
a variation promoted, a line deleted, a comment and the record's headers
written (docs/web-protocol.md). Nothing is deleted that the page has not
asked to delete; `undo_edit` (in the Session) brings a deletion back.

`Editing` is that part of a Session (tools/web/session.py), a mixin.
"""
from tuong.tools import records
from tuong.tools.web.game import HEADER_NAMES, MAX_TEXT, STATE, Refused, number, text_field


class Editing:
    """The tree's edits, for a Session (which supplies `tree`, `headers`,
    `cursor`, `play`, `emit`, `_node`, `_touch`, `_changed`)."""

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
