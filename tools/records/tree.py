"""A game as a tree of moves: the main line and its variations.

Every position reached is kept. A node's first child continues its line;
the others are variations, in the order they were made. The main line
changes only when asked: `promote` moves a variation up one place at its
branch point, `delete` removes one; both can be taken back with
`undo_edit`. Adding a move that a node already has goes to that child.

The tree knows moves only as text: whether a move is legal is the caller's
business (records replay them on a board, tuong-web's session checks them
before adding). Nodes carry the game's own comment and mark, and a free
`data` dict for what a program derives from them (the position, the move
as written, scores).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

UNDO_DEPTH = 100                        # edits that undo_edit can take back
"""How many edits (promote, delete) `GameTree.undo_edit` can take back."""


@dataclasses.dataclass(eq=False)
class Node:
    """One move (None at the root: the start position) and what follows it.
    Made by `GameTree.add`, not by the caller."""
    move: str | None = None
    """The move as a0-i9 text (`"h2e2"`); None at the root."""
    comment: str | None = None          # the game's comment after the move (root: before any)
    """The game's comment after the move (at the root: before any move), or None."""
    mark: str | None = None             # "!", "?", "!?", "?!", "!!", "??" as the record has it
    """The move's mark as the record has it: `"!"`, `"?"`, `"!?"`, `"?!"`,
    `"!!"`, `"??"`, or None."""
    parent: Node | None = dataclasses.field(default=None, repr=False)
    """The node before this move; None at the root."""
    children: list[Node] = dataclasses.field(default_factory=list, repr=False)
    """The moves played after this one: the first continues the line, the
    others are variations, in the order they were made."""
    id: int = 0
    """The node's number in its tree (`GameTree.node(id)`); the root's is 0."""
    data: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    """Free room for what a program derives from the node (the position, the
    move as written, scores); records leave it empty."""

    @property
    def ply(self) -> int:
        """Moves from the root to here."""
        count, node = 0, self
        while node.parent is not None:
            count, node = count + 1, node.parent
        return count

    def path(self) -> list[Node]:
        """The nodes from the root's first move down to this one."""
        nodes, node = [], self
        while node.parent is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def moves(self) -> list[str]:
        """The moves that lead here."""
        return [node.move for node in self.path()]  # type: ignore[misc]

    def tip(self) -> Node:
        """The end of this node's line: first children all the way down."""
        node = self
        while node.children:
            node = node.children[0]
        return node

    def line(self) -> list[Node]:
        """The whole line through this node: its path, then first children."""
        nodes, node = self.path(), self
        while node.children:
            node = node.children[0]
            nodes.append(node)
        return nodes

    def is_main(self) -> bool:
        """Whether this node is on the main line."""
        node = self
        while node.parent is not None:
            if node.parent.children[0] is not node:
                return False
            node = node.parent
        return True

    def walk(self) -> Iterator[Node]:
        """This node and everything below it, depth first, main lines first."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


class GameTree:
    """A start position, the tree of moves from it, and the undo history of
    its edits. Nodes are found by `id` (stable while the tree lives).
    `start_fen` is the start position (None: the initial position).

    ```python
    tree = GameTree()
    node, made = tree.add(tree.root, "h2e2")
    tree.add_line(node, ["h9g7", "h0g2"])
    tree.add(node, "b9c7")                      # a variation
    print([n.move for n in tree.main_line()])   # ['h2e2', 'h9g7', 'h0g2']
    ```
    """

    def __init__(self, start_fen: str | None = None) -> None:
        self.start_fen = start_fen
        """The start position's FEN, or None for the initial position."""
        self.root = Node()
        """The start position: a node without a move."""
        self.nodes: dict[int, Node] = {0: self.root}
        """Every node of the tree by its id."""
        self._next_id = 1
        self._edits: list[tuple[str, Node, int, Node]] = []
        self.version = 0                 # bumped by every change (structure or content)
        """A count bumped by every change (a move added, a promote, a delete,
        an undo): a program caching something of the tree compares it."""

    def __len__(self) -> int:
        return len(self.nodes)

    def node(self, node_id: int) -> Node:
        """The node with this id; KeyError if there is none (e.g. deleted)."""
        return self.nodes[node_id]

    def main_line(self) -> list[Node]:
        """The main line's nodes, from the first move (the root's first
        children all the way down); empty without moves."""
        return self.root.line()

    def add(self, parent: Node, move: str, comment: str | None = None,
            mark: str | None = None) -> tuple[Node, bool]:
        """The child of `parent` for `move`, made if it is new (it then
        continues the line when `parent` has no child, else starts a
        variation); returns (node, whether it was made). The move is not
        checked: legality is the caller's business."""
        for child in parent.children:
            if child.move == move:
                return child, False
        child = Node(move, comment, mark, parent, id=self._next_id)
        self._next_id += 1
        parent.children.append(child)
        self.nodes[child.id] = child
        self.version += 1
        return child, True

    def add_line(self, parent: Node, moves: list[str]) -> Node:
        """Add moves one after another from `parent`; the last node."""
        node = parent
        for move in moves:
            node, _ = self.add(node, move)
        return node

    def promote(self, node: Node) -> bool:
        """Move the variation that holds `node` one place up at its branch
        point (the nearest one above it); False if it is the main line."""
        branch = node
        while branch.parent is not None and branch.parent.children[0] is branch:
            branch = branch.parent
        if branch.parent is None:
            return False
        siblings = branch.parent.children
        index = siblings.index(branch)
        siblings[index - 1], siblings[index] = siblings[index], siblings[index - 1]
        self._remember(("promote", branch.parent, index, branch))
        return True

    def delete(self, node: Node) -> Node:
        """Remove `node` and everything after it; its parent (where a
        cursor inside it should go). The root cannot be deleted."""
        parent = node.parent
        if parent is None:
            raise ValueError("the start position cannot be deleted")
        index = parent.children.index(node)
        del parent.children[index]
        for gone in node.walk():
            del self.nodes[gone.id]
        self._remember(("delete", parent, index, node))
        return parent

    def undo_edit(self, limit: int | None = None) -> Node | None:
        """Take back the last promote or delete; the node it concerned, or
        None when there is nothing to take back, or when its place is gone
        (the edit is then dropped and the tree stays as it is: an older
        edit is taken back only where it still fits). ValueError, and the
        edit stays to take back, when a deletion brought back would make
        the tree hold more than `limit` nodes."""
        if not self._edits:
            return None
        kind, parent, index, node = self._edits[-1]
        if kind == "delete" and limit is not None:
            size = sum(1 for _ in node.walk())
            if len(self.nodes) + size > limit:
                raise ValueError(f"it brings back {size:,} moves, and the tree would hold "
                                 f"more than {limit:,}")
        self._edits.pop()
        if not self._in_place(kind, parent, index, node):
            return None                  # its place is gone: nothing changes
        if kind == "promote":
            siblings = parent.children
            siblings[index - 1], siblings[index] = siblings[index], siblings[index - 1]
        else:
            parent.children.insert(index, node)
            for back in node.walk():
                self.nodes[back.id] = back
        self.version += 1
        return node

    def _in_place(self, kind: str, parent: Node, index: int, node: Node) -> bool:
        """Whether an edit can be taken back where it was made: its branch
        point is still in the tree and, for a promote, the variation it
        moved still stands where the promote put it (an earlier undo whose
        place was gone left it elsewhere); for a delete, its move was not
        played again there. An edit that is not in place is dropped, and
        the tree is left as it is."""
        if self.nodes.get(parent.id) is not parent:
            return False
        siblings = parent.children
        if kind == "promote":
            return 0 < index < len(siblings) and siblings[index - 1] is node
        return all(child.move != node.move for child in siblings)

    @property
    def can_undo_edit(self) -> bool:
        """Whether there is an edit (promote, delete) that undo_edit can take back."""
        return bool(self._edits)

    def _remember(self, edit: tuple[str, Node, int, Node]) -> None:
        self._edits.append(edit)
        del self._edits[:-UNDO_DEPTH]
        self.version += 1
