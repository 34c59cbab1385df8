"""The search: mates found with the right distance, limits, stop from
another thread, MultiPV and banned moves, and the evaluation's symmetry.
Every search here is bounded by depth or nodes, never by wall time."""
import threading
import time

import pytest
from conftest import DATA, mirror_colours, mirror_files

from tuong.engine.board import START_FEN, Board
from tuong.engine.board import evaluate
from tuong.engine.evaluate import load_weights
from tuong.engine.search import Searcher
from tuong.protocol.options import default_threads

THREADS = default_threads()       # TUONG_THREADS=2 runs these with Lazy SMP helpers


def make_searcher(hash_mb=16, threads=THREADS):
    return Searcher(hash_mb, threads=threads)

# Mate positions found by random playouts and kept only where Fairy-Stockfish
# (go depth 16) reports the same `score mate N` independently.
MATES = [
    (1, "2b1Ckb2/4a2R1/9/p6np/6pn1/2P6/P3Prc1P/B6R1/4AN3/2B1KA3 b - - 0 20"),
    (1, "4k1b2/4a1c2/rcN2a3/2p1P3p/p4nb2/2P1C3P/P4p3/4r4/4A4/RNB1KAB2 b - - 0 19"),
    (1, "2b2a2n/4k4/5a3/9/9/2N5p/8r/9/4A1c2/4K4 b - - 0 59"),
    (2, "n1b6/3ka4/4Pa3/7N1/3n5/P5B2/9/B8/4A4/3RK4 w - - 0 93"),
    (2, "C2k1P3/4a4/4b4/2c3R1n/3c5/7r1/9/9/1rp1K4/6R2 b - - 0 24"),
    (2, "2ba1kb2/9/n4a3/p7p/1NP6/3Rpc1r1/P3P3P/4B4/6R2/4KAB1c w - - 0 11"),
    (3, "5k3/1N2ac3/3a4b/3P4p/9/P3P1B2/1RN2n3/9/5C3/3AK4 w - - 0 32"),
    (3, "2b1k4/4a4/8b/3N1R3/9/9/9/3A5/3K5/2B2A3 w - - 0 14"),
    (3, "1rR2a3/1P2k4/5a3/8C/9/9/4r4/2C6/3K3n1/6R2 b - - 0 18"),
]


@pytest.fixture(scope="module")
def searcher():
    return make_searcher(16)


def test_mate_suite_sample(searcher):
    """Every 15th position of tools/data/mates.epd (mates in 2-4 confirmed
    by Fairy-Stockfish), 200k nodes each: nearly all are proven at their
    distance, and no search claims the winning side is being mated. (All
    of them, beside Fairy-Stockfish: `tuong-bench mates`.)"""
    from tuong.tools.bench import mate_positions
    sample = mate_positions()[::15]
    found = 0
    for fen, n in sample:
        searcher.clear()
        result = searcher.search(Board(fen), nodes=200_000)
        assert result.mate is None or result.mate > 0, fen
        found += result.mate is not None and 0 < result.mate <= n
    assert found >= 0.9 * len(sample), f"{found} of {len(sample)}"


@pytest.mark.parametrize("mate,fen", MATES)
def test_finds_mate_with_its_distance(searcher, mate, fen):
    searcher.clear()
    board = Board(fen)
    result = searcher.search(board, depth=2 * mate + 3)
    assert result.mate == mate and result.score is None
    assert board.fen() == fen                   # the caller's board is untouched
    board.push(result.best)
    if mate == 1:
        assert board.is_game_over()
    else:
        # The defender now sees its loss, at the right distance.
        assert searcher.search(board, depth=2 * mate + 2).mate == -(mate - 1)


def test_mated_side_has_no_move(searcher):
    result = searcher.search(Board("3k5/9/9/9/9/9/9/9/9/3RK4 b"), depth=5)
    assert result.best is None and result.ponder is None


def test_info_lines_per_iteration(searcher):
    infos = []
    result = searcher.search(Board(), depth=6, on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5, 6]
    last = infos[-1]
    assert last.pv[0] == result.best
    # Helpers may still count a few nodes after the last report.
    assert last.nodes == result.nodes if THREADS == 1 else last.nodes <= result.nodes
    assert last.seldepth >= 6 and 0 <= last.hashfull <= 1000
    assert isinstance(last.score, int) and last.mate is None and last.bound is None
    board = Board()
    for move in last.pv:                     # the PV is a legal line
        board.push(move)


def test_two_threads_report_every_depth_once_with_a_legal_line():
    """With helpers the main worker takes a helper's line for any depth a
    helper completed first (and stops its own search of that depth), so
    every depth is still reported once, in order, each with a legal line
    from the root, and the last is the depth asked for."""
    searcher = Searcher(16, threads=2)
    for fen in (START_FEN, "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w"):
        for depth in (9, 12):
            searcher.clear()
            infos = []
            result = searcher.search(Board(fen), depth=depth, on_info=infos.append)
            assert [i.depth for i in infos] == list(range(1, depth + 1))
            assert result.depth == depth and result.best == infos[-1].pv[0]
            for info in infos:
                board = Board(fen)
                for move in info.pv:
                    board.push(move)


def test_node_limit(searcher):
    result = searcher.search(Board(), nodes=20_000)
    assert result.best in Board().legal_moves()
    assert 20_000 <= result.nodes < 30_000


def test_stop_from_another_thread_returns_a_legal_move(searcher):
    board = Board(START_FEN)
    threading.Timer(0.3, searcher.stop).start()
    started = time.monotonic()
    result = searcher.search(board)            # no limit: runs until stopped
    assert time.monotonic() - started < 5
    assert result.best in board.legal_moves() and result.depth >= 1


def test_banned_moves_and_multipv(searcher):
    board = Board()
    infos = []
    result = searcher.search(board, depth=5, banned=["h2e2", "b2e2"], multipv=3,
                             on_info=infos.append)
    assert result.best not in ("h2e2", "b2e2")
    final = [i for i in infos if i.depth == 5]
    assert [i.multipv for i in final] == [1, 2, 3]
    firsts = [i.pv[0] for i in final]
    assert len(set(firsts)) == 3 and not {"h2e2", "b2e2"} & set(firsts)
    assert final[0].score >= final[1].score >= final[2].score


def test_all_moves_banned_gives_no_move(searcher):
    board = Board("3k5/9/9/9/9/9/9/9/9/R3K4 b")
    assert searcher.search(board, depth=3, banned=board.legal_moves()).best is None


def test_hash_resize_and_clear():
    searcher = make_searcher(1)
    searcher.search(Board(), depth=7)
    assert searcher.hashfull() > 0
    searcher.clear()
    assert searcher.hashfull() == 0
    searcher.resize(4)
    with pytest.raises(ValueError):
        searcher.resize(0)


def test_search_is_deterministic():
    # With one thread; Lazy SMP helpers race by design.
    a = Searcher(8, threads=1).search(Board(), depth=8)
    b = Searcher(8, threads=1).search(Board(), depth=8)
    assert (a.best, a.score, a.nodes) == (b.best, b.score, b.nodes)


@pytest.mark.parametrize("fen", [START_FEN] + [fen for _, fen in MATES])
def test_evaluation_is_colour_and_file_symmetric(fen):
    board = Board(fen)
    mirrored = Board(mirror_colours(fen))
    # The same position seen by the other colour scores the same for the
    # side to move; from Red's point of view the score is negated.
    assert evaluate(mirrored) == evaluate(board)
    red_view = evaluate(board) * (1 if board.turn == "w" else -1)
    assert evaluate(mirrored) * (1 if mirrored.turn == "w" else -1) == -red_view
    assert evaluate(Board(mirror_files(fen))) == evaluate(board)   # (more in test_tuning)


def test_repetition_rules():
    board = Board()
    for move in ["h2e2", "h9g7", "e2h2", "g7h9"]:
        assert board.repetition() is None
        board.push(move)
    assert board.repetition() == 0               # a plain repetition draws
    # Red checks on every move of the cycle, Black never: Red loses.
    board = Board("4k4/9/3R5/9/9/9/9/9/9/5K3 w")
    for move in ["d7e7", "e9d9", "e7d7", "d9e9"]:
        board.push(move)
    assert board.repetition() == -1
    board.pop()
    board.pop()
    board.push("e7d7")
    assert board.repetition() is None


def test_search_avoids_perpetual_check_loss():
    # After Rd7-e7+ Kd9, Re7-d7+ Ke9 the checks would repeat: the search must
    # not score the repeating check as a draw for Red.
    board = Board("4k4/9/3R5/9/9/9/9/9/9/5K3 w")
    for move in ["d7e7", "e9d9", "e7d7", "d9e9", "d7e7", "e9d9"]:
        board.push(move)
    result = make_searcher(8).search(board, depth=6)
    assert result.best != "e7d7"


def test_search_ends_once_a_mate_is_settled(searcher):
    infos = []
    result = searcher.search(Board(MATES[0][1]), on_info=infos.append)   # no limit
    assert result.mate == 1 and infos[-1].depth < 20


def test_a_settled_mate_is_searched_on_when_a_depth_is_asked(searcher):
    # The early stop above saves a clock's time; `go depth` gets its depth.
    infos = []
    result = searcher.search(Board(MATES[0][1]), depth=30, on_info=infos.append)
    assert result.mate == 1 and infos[-1].depth == 30


def test_forced_move_is_played_at_once_under_a_clock():
    board = Board("3k5/9/9/9/9/9/9/9/3r5/4K4 w")   # the king's only move
    assert board.legal_moves() == ["e0f0"]
    result = make_searcher(1).search(board, soft_ms=5000, hard_ms=10000)
    assert result.depth == 1 and result.best == "e0f0"


def test_forced_move_is_searched_under_movetime():
    # `go movetime` (a cut-off alone) means "search exactly this long".
    board = Board("3k5/9/9/9/9/9/9/9/3r5/4K4 w")
    result = make_searcher(1).search(board, hard_ms=200)
    assert result.depth > 1 and result.best == "e0f0"


# Mates that the search once hid. A node budget or a depth at the edge of
# finding a mate also depends on the evaluation, so the tests below search
# with the weights they were written against (w3, the default until the w4
# tuning): each fails with them on the build before its fix, and a later
# tuning of the default weights cannot make them pass or fail for reasons
# of its own.
W3 = DATA / "w3-weights.json"


@pytest.fixture
def w3_weights(restore_weights):
    load_weights(W3)


@pytest.mark.slow
def test_quiet_wins_survive_pruning_in_a_mate_window(w3_weights):
    """In Xiangqi a quiet move that gives no check can win at once (the other
    side is left without a legal move): here f3f8 Kd9-e9 f8d8 is a mate in 2
    whose last move is such a move. When a helper thread has put a mate
    score in the table, the main thread searches that node with a window
    asking for a forced win. Pruning there once skipped every quiet move and
    stored the fail-low as a bound: about one search in sixty reported the
    slower mate in 3. Pruning in such windows is allowed again (it made
    proving mates several times cheaper) but such a fail-low is not stored;
    one search in about 15,000 with threads still reports the mate in 3
    (0 in 20,000 before pruning was allowed; the cause is not pinned down),
    so one miss in 400 is tolerated and the old fault (about 7 expected)
    is still caught. One thread is exact. (With the later weights, w5 and w6,
    the mate in 2 comes out at depth 8, not 7: these weights are w3's.)"""
    fen = "3k5/9/9/9/9/3C5/5R3/3A5/9/2BA1K3 w - - 0 1"
    assert Searcher(16).search(Board(fen), depth=7).mate == 2
    searcher = Searcher(16, threads=3)
    mates = []
    for _ in range(400):
        searcher.clear()
        mates.append(searcher.search(Board(fen), depth=7).mate)
    assert set(mates) <= {2, 3} and mates.count(3) <= 1



def test_a_pass_does_not_hold_where_beta_is_a_mate_against_the_side(w3_weights):
    """e3e1 leaves Red one move, d8d9, a capture that loses to e9d9 mate.
    A null move at Red's node, whose beta is a mate against Red, held there
    (passing is better than the only move: a zugzwang) and hid the mate in 2
    at every depth: the search reported a mate in 5 at depth 10."""
    result = Searcher(16).search(Board("2bck4/3R5/3ab4/9/2p6/9/4r4/3K5/9/9 b - - 0 1"), depth=10)
    assert (result.best, result.mate) == ("e3e1", 2)


def test_pruning_in_a_mate_window_keeps_proving_mates_cheap(w3_weights):
    """Once a mate is found, the search looks for shorter ones with a window
    that asks for a forced win. Searching every quiet move there made the
    proof of this mate in 3 cost more than 100,000 nodes (a mate in 7 was
    all the search had by then); with the usual pruning it takes under
    95,000."""
    fen = "2bak1b2/4a4/n8/p8/4c4/P7P/6n2/5A3/1r5r1/2RA1K1NR b - - 0 1"
    assert Searcher(16).search(Board(fen), nodes=100_000).mate == 3


def test_a_mate_in_hand_makes_the_search_for_a_shorter_one_cheaper(w3_weights):
    """The search proves a mate in 5 here before the mate in 4. Once it
    holds a mate, the next iteration asks only for one as short (alpha just
    below it), so mate distance pruning cuts every longer line: the mate in
    4 comes within 39,000 nodes. With a full window it took about 40,500
    and the search ended on the mate in 5."""
    fen = "2b1ka3/4a4/5c3/8p/2P2R3/4r4/9/3A1n3/5K3/9 b - - 0 1"
    assert Searcher(16).search(Board(fen), nodes=39_000).mate == 4


def test_futility_at_the_reduced_depth_proves_mates_sooner(w3_weights):
    """Futility judges a late quiet move at the depth it would be searched
    to after its reduction: in a window asking for a mate every such move
    is futile, so the proof of a mate skips them higher up the tree. This
    mate in 4 comes within 25,000 nodes; judged at the node's own depth it
    took about 50,000."""
    fen = "C1bak2n1/4a4/4b4/9/5r3/4P2p1/P2N5/B4r2c/4K4/3A5 b - - 0 1"
    assert Searcher(16).search(Board(fen), nodes=25_000).mate == 4


@pytest.mark.parametrize("fen, before", [
    ("4c4/4k4/3Pn4/4R4/9/9/8P/3AB4/9/4KAB2 w - - 0 1", "a mate in 8"),
    ("3aka3/4nc3/R8/9/p1p3N1p/9/P1P3P2/9/9/2BAKAB2 w - - 0 1", "no mate"),
])
def test_no_pass_for_a_side_with_few_legal_moves(w3_weights, fen, before):
    """With 5 legal moves or fewer a side may be in zugzwang: a null move
    there (passing is better than any move) hid these mates in 4 within
    100,000 nodes; the search found only `before`."""
    assert Searcher(16).search(Board(fen), nodes=100_000).mate == 4


def test_python_cannot_free_a_searchers_memory():
    """The methods that free the workers, their states and the helper
    threads are C-only: Python code cannot pull memory from under a search."""
    searcher = make_searcher(threads=2)
    for name in ("_free_workers", "_close_helpers", "_free_states"):
        assert not hasattr(searcher, name), name
    assert searcher.search(Board(), depth=3).best          # still searches
