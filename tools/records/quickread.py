"""The quick way of reading a move (tools/records/notation.py's parse and
LineReader): `_direct` finds the move a read description names from where
the pieces stand (a Placement, tools/records/placement.py), looking only at
the pieces the text may name, instead of describing every legal move of the
position; `_label_index` turns a front/middle/rear word (or a 1-5 index)
into a place from the front, which the long way's matching shares.

A description is a notation reader's tuple (kind, place, direction, amount);
when the quick way finds no single legal move it answers None and the caller
takes the long way, which gives the same answers
(tests/test_notation_fast.py).
"""
from tuong.engine.board import Board
from tuong.tools.records.placement import Placement


def _label_index(label, count):
    """A front/middle/rear word (or a 1-5 index) -> index from the front."""
    if label == "front":
        return 1
    if label == "rear":
        return count
    if label == "middle":
        return 2 if count == 3 else None
    return label


def _direct(board: Board, placement: Placement, read: tuple, check: bool = True) -> str | None:
    """The move a read description names, found from where the pieces stand:
    each piece it may name (the pieces of its kind on its file, or the one
    at its place on each file that has several) gives at most one move of
    that direction and distance; the answer when exactly one is legal,
    else None (the caller then takes the long way, which explains).

    Exactly the long way's answer: its first choice (the canonical
    descriptions that match) is among these candidates, and so is its
    second (the file form, or the tandem form, every piece of the kind
    named by its file or its place), which is these candidates exactly; a
    single candidate is therefore its only answer.

    Unless `check`, a piece alone on its file gives its move unchecked:
    the caller plays it, which checks it, and takes the long way if it is
    refused."""
    kind, place, direction, amount = read
    if place[0] == "file":
        ranks = placement.on_file(kind, place[1])
        if len(ranks) == 1:              # most moves: a piece alone on its file
            move = placement.move(kind, place[1], ranks[0], direction, amount)
            return move if move is not None and (not check or board.is_legal(move)) else None
        named = [(place[1], rank) for rank in ranks]
    else:
        _, label, _, file = place
        files = placement.crowded(kind) if file is None else \
            {file: placement.on_file(kind, file)}
        named = []
        for file, ranks in files.items():
            count = len(ranks)
            index = _label_index(label, count) if count > 1 else None
            if index is not None and 1 <= index <= count:
                named.append((file, ranks[index - 1]))
    found = None
    for file, rank in named:
        move = placement.move(kind, file, rank, direction, amount)
        if move is not None and board.is_legal(move):
            if found is not None:
                return None              # several: the long way says which is meant, or why not
            found = move
    return found
