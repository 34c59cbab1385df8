"""The repetition rules: perpetual check and perpetual chase (engine/repetition.pyx).

Each case is a hand-built cycle: a position and four moves that bring it
back. Board.repetition() gives the verdict the search uses at the first
recurrence, from the side to move: -1 it loses, 0 a draw, 1 it wins. Every
position was checked by hand; the comments say why the verdict holds.
"""
import pytest

from tuong.engine.board import Board
from tuong.engine.search import Searcher

# name: (FEN, the cycle, verdict under asian rules, verdict under check-only)
CYCLES = {
    # Red's rook steps beside the horse each time it flees: the horse has
    # no defender, so every Red move chases it; Black only runs.
    "rook chases an unprotected horse": (
        "5k3/9/9/9/2n6/9/9/1R7/9/3K5 w", "b2c2 c5b7 c2b2 b7c5", -1, 0),
    # The horse attacks the rook wherever it goes: a rook is worth more, so
    # its defender (the other rook) does not matter.
    "horse chases a protected rook": (
        "r3k4/r8/9/9/1N7/9/2R6/9/9/3K5 w", "b5c7 a8a7 c7b5 a7a8", -1, 0),
    # Same dance, but the rook on i5 guards c5 and the one on b9 guards b7:
    # attacking a protected horse with a rook is no chase. (Black's horse
    # uncovering b9 against b2 is an offer to exchange rooks.)
    "rook attacks a protected horse": (
        "1r3k3/9/9/9/2n5r/9/9/1R7/9/3K5 w", "b2c2 c5b7 c2b2 b7c5", 0, 0),
    # A pawn may chase forever.
    "pawn chases": ("3k5/9/3c5/4P4/9/9/9/9/9/5K3 w", "e6d6 d7e7 d6e6 e7d7", 0, 0),
    # So may the king.
    "king chases": ("5k3/9/9/9/9/9/9/3K5/4p4/9 w", "d2e2 e1d1 e2d2 d1e1", 0, 0),
    # The rook is pinned on the e-file by the rook on e9: it could not take
    # the horse legally, so attacking it is no chase.
    "a pinned rook attacks": (
        "3kr4/9/4R4/9/n8/9/9/9/9/4K4 w", "e7e5 a5b7 e5e7 b7a5", 0, 0),
    # Red keeps offering its rook to Black's (same kind, each can take the
    # other): an offer to exchange, not a chase.
    "rook offers": ("5k3/9/9/1r7/9/R8/9/9/9/4K4 w", "a4b4 b6a6 b4a4 a6b6", 0, 0),
    # The cannon takes b3 or c3 as its screen: it chases the lone horse.
    "cannon chases an unprotected horse": (
        "5k3/9/9/9/2n6/9/1PP6/9/1C7/4K4 w", "b1c1 c5b7 c1b1 b7c5", -1, 0),
    # c5's only defender, the rook on c9, is pinned to its king along rank
    # 9 by Red's rook on a9: it cannot retake, so the horse is unprotected.
    # (Black's horse hits the a9 rook from b7, but not on every move.)
    "defended only by a pinned piece": (
        "R1r2k3/9/9/9/2n6/9/9/1R7/9/3K5 w", "b2c2 c5b7 c2b2 b7c5", -1, 0),
    # The same without the pin: c9 defends c5, so b2-c2 chases nothing.
    "defended by a free piece": (
        "2r2k3/9/9/9/2n6/9/9/1R7/9/3K5 w", "b2c2 c5b7 c2b2 b7c5", 0, 0),
    # Red's pawn becomes and stops being the screen of the cannon on b9:
    # each Red move makes the cannon hit the rook on b5. Black's rook
    # attacks the unguarded cannon on b9, from b7, then (uncovered) from
    # b5: both sides chase the same piece throughout. A draw.
    "both sides chase": (
        "1C3k3/9/5r3/2P2n3/1r7/9/9/9/9/3K5 w", "c6b6 f7b7 b6c6 b7f7", 0, 0),
    # Red checks with every move, Black never: Red loses, under both rules.
    "perpetual check": ("4k4/9/3R5/9/9/9/9/9/9/5K3 w", "d7e7 e9d9 e7d7 d9e9", -1, -1),
    # Red checks on every move; Black's answers are king moves (which never
    # chase): the perpetual check decides, whatever Black's rook attacks.
    "check against a side that does not check": (
        "7C1/9/1c1k5/9/9/9/9/n3RK3/9/7r1 w", "e2d2 d7e7 d2e2 e7d7", -1, -1),
    # Nothing attacked, nothing checked.
    "a plain repetition": (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "h2e2 h9g7 e2h2 g7h9", 0, 0),
}


def cycle_verdict(fen, moves, rules="asian"):
    board = Board(fen)
    board.rules = rules
    for move in moves.split():
        board.push(move)
    return board.repetition()


@pytest.mark.parametrize("name", [k for k, v in CYCLES.items() if v[1]])
def test_cycle_verdicts(name):
    fen, moves, asian, check_only = CYCLES[name]
    assert cycle_verdict(fen, moves) == asian, name
    assert cycle_verdict(fen, moves, "check-only") == check_only, name


def test_a_repetition_is_judged_only_when_it_happens():
    fen, moves, _, _ = CYCLES["rook chases an unprotected horse"]
    board = Board(fen)
    for move in moves.split():
        assert board.repetition() is None
        board.push(move)
    assert board.repetition() == -1


def test_pawns_are_victims_only_across_the_river():
    # A lone Black pawn attacked by Red's rook: on its own side (c6) it is no
    # victim; across the river (c4) it is.
    home = Board("5k3/9/9/2p6/9/9/9/1R7/9/3K5 w")
    home.push("b2b6")
    assert home.chases("w") == []
    crossed = Board("5k3/9/9/9/9/2p6/9/1R7/9/3K5 w")
    crossed.push("b2b4")
    assert crossed.chases("w") == [("b4", "c4")]


def test_chase_relation_rules():
    # The victim worth more: a horse attacking a rook (guarded or not).
    board = Board("3k5/9/9/9/r8/9/1N7/9/9/4K4 b")
    assert ("b3", "a5") in board.chases("w")
    # A rook attacking a guarded horse: no; an unguarded one: yes.
    guarded = Board("3k5/9/9/2r6/2n6/9/9/2R6/9/4K4 w")
    assert guarded.chases("w") == []
    lone = Board("3k5/9/9/9/2n6/9/9/2R6/9/4K4 w")
    assert lone.chases("w") == [("c2", "c5")]
    # Kings and pawns never chase; kings are never chased.
    assert Board("3k5/9/9/9/2n6/2P6/9/9/9/4K4 w").chases("w") == []
    # Two horses that can take each other: an exchange offer; when the
    # attacked horse's own leg is blocked it cannot take back: a chase.
    mutual = Board("3k5/9/9/9/2n6/9/3N5/9/9/4K4 w")
    assert mutual.chases("w") == []
    blocked = Board("3k5/9/9/9/2n6/2p6/3N5/9/9/4K4 w")
    assert ("d3", "c5") in blocked.chases("w")


@pytest.mark.parametrize("rules", ["asian", "check-only"])
def test_the_search_does_not_chase_itself_into_a_loss(rules):
    # Two full cycles of Red's rook chasing the lone horse: now b2-c2 would
    # make the third occurrence, lost for Red under the Asian rules. Red is
    # a rook up, so under either rules it plays something else and wins on.
    fen, moves, _, _ = CYCLES["rook chases an unprotected horse"]
    board = Board(fen)
    board.rules = rules
    for move in (moves + " " + moves).split():
        board.push(move)
    result = Searcher(8).search(board, depth=6)
    if rules == "asian":
        assert result.best != "b2c2"
    assert result.mate is None or result.mate > 0


def test_the_search_claims_the_win_a_chaser_gives():
    # Black's rook chases Red's lone horse (the mirror of the first case,
    # with Black the chaser). After two cycles, Red's horse fleeing back
    # makes the third occurrence: under the Asian rules that wins for Red,
    # and the search must see it; under check-only it is just a draw in a
    # lost position (a rook down).
    fen, moves = "5k3/9/2r6/9/9/1N7/9/9/9/3K5 b", "c7b7 b4c2 b7c7 c2b4"
    assert cycle_verdict(fen, moves) == -1              # Black, to move again, loses
    scores = {}
    for rules in ("asian", "check-only"):
        board = Board(fen)
        board.rules = rules
        for move in (moves + " " + moves).split()[:-1]:
            board.push(move)
        # Red to move: c2b4 makes the third occurrence of the start.
        result = Searcher(8).search(board, depth=4)
        scores[rules] = (result.best, result.score, result.mate)
    assert scores["asian"][0] == "c2b4"
    # A win by the rules scores as a mate at its ply (as Pikafish's does).
    assert scores["asian"][2] is not None and scores["asian"][2] > 0
    assert scores["check-only"][2] is None and scores["check-only"][1] < 20000


def test_a_rule_result_stays_out_of_the_table():
    # The rule win above rests on the game's history. The same position
    # searched without that history, with the same table, is a plain
    # position a rook down: nothing of the rule result may stick.
    fen, moves = "5k3/9/2r6/9/9/1N7/9/9/9/3K5 b", "c7b7 b4c2 b7c7 c2b4"
    board = Board(fen)
    for move in (moves + " " + moves).split()[:-1]:
        board.push(move)
    searcher = Searcher(8)
    assert searcher.search(board, depth=6).mate > 0
    board.push("c2b4")
    fresh = Board(board.fen())                  # Black to move, no history
    result = searcher.search(fresh, depth=6)
    assert result.mate is None and -20000 < result.score < 20000
