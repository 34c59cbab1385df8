"""The three small games (tic-tac-toe, Dodgem, the queens game) and the
algorithm comparison, checked against independent reference rules and exact
solvers (tests/game_reference.py, written from the rules text, not from
the engine's code).

- Rules: legal moves move for move, FEN, game end and result, push/pop
  (FEN and hash restored) along seeded random playouts; perft against a
  brute-force count from the starts and from random positions.
- Search: the engine's bestmove at a fixed depth is value-optimal under the
  solvers (tic-tac-toe from every reachable position, Dodgem from every
  position, queens on 3x3 to 5x5 boards with stones), with the exact mate
  distance or final score.
- tuong-compare: every variant returns the same root value at fixed depths
  on random positions of each game, and the textbook node/leaf counts.
- Bad FENs and bad moves; hand-checked queens positions; the games over
  UCI through the real process.
"""
import functools
import random
import re

import pytest

import game_reference as ref
from conftest import need_module
from game_reference import Dodgem, Queens, TicTacToe

from tuong.engine.board import Board
from tuong.engine.compare import Comparison
from tuong.engine.game import MATE_SCORE
from tuong.engine.games import GAMES, board_class
from tuong.engine.search import Searcher
from tuong.tools.compare import VARIANTS

SMALL = ["tictactoe", "dodgem", "queens"]
REFS = {"tictactoe": TicTacToe, "dodgem": Dodgem, "queens": Queens}


def queens_board(rng, n, stone_rate):
    """An empty n x n queens board with random stones, first player to move."""
    return (tuple("*" if rng.random() < stone_rate else "." for _ in range(n * n)), "w")


def queens_position(rng, n, stone_rate, plies):
    return ref.random_position(Queens, rng, plies, start=queens_board(rng, n, stone_rate))[0]


def random_positions(game, seed, count, max_plies):
    """`count` positions (with repeats weeded out) reached by seeded random
    playouts of 0..max_plies moves from the start; for queens, boards of
    3..9 cells a side with stones."""
    rng, out = random.Random(seed), {}
    while len(out) < count:
        if game == "queens":
            n = rng.choice([3, 4, 5, 6, 7, 8, 9])
            pos = queens_position(rng, n, rng.choice([0, 0.1, 0.25]), rng.randint(0, max_plies))
        else:
            pos = ref.random_position(REFS[game], rng, rng.randint(0, max_plies))[0]
        out[pos] = None
    return list(out)


def engine_board(game, pos):
    return GAMES[game](REFS[game].fen(pos))


@functools.lru_cache(maxsize=None)
def dodgem_values():
    """The exact value of every Dodgem position (game_reference.dodgem_solve)."""
    return ref.dodgem_solve(ref.dodgem_all_positions())


def ttt_move_value(pos, move):
    """The exact value (ttt_solve's units) of playing `move` at `pos`."""
    value = -ref.ttt_solve(TicTacToe.moves(pos)[move])
    return value - 1 if value > 0 else value + 1 if value < 0 else 0


def expected_mate(plies, won):
    """UCI's mate field for a result `plies` plies away."""
    return (plies + 1) // 2 if won else -(plies // 2)


# -- the reference itself ----------------------------------------------------------
def test_the_reference_rules_give_the_known_figures():
    # Tic-tac-toe's well-known counts: 5,478 positions, 255,168 games,
    # 127,872 of them lasting all nine moves; a draw with perfect play.
    assert len(ref.ttt_positions()) == 5478
    assert ref.perft(TicTacToe, TicTacToe.start(), 9) == 127872

    @functools.lru_cache(maxsize=None)
    def games(pos):
        children = TicTacToe.moves(pos)
        return 1 if not children else sum(games(c) for c in children.values())
    assert games(TicTacToe.start()) == 255168
    assert ref.ttt_solve(TicTacToe.start()) == 0
    # Dodgem: the start as the rules text gives it, and FEN both ways.
    start = Dodgem.start()
    assert start[1] == "b" and Dodgem.fen(start) == "B2/B2/1WW b"
    assert set(Dodgem.moves(start)) == {"a2b2", "a2a1", "a3b3"}
    assert set(Dodgem.moves(Dodgem.parse("2B/3/W2 b"))) == {"c3d3", "c3c2"}
    assert set(Dodgem.moves(Dodgem.parse("3/1W1/B2 w"))) == {"b2a2", "b2c2", "b2b3"}
    assert set(Dodgem.moves(Dodgem.parse("1W1/3/B2 w"))) == {"b3a3", "b3c3", "b3b4"}
    assert Queens.fen(Queens.parse("12*2/15/15/15/15/15/15/15/15/15/15/15/15/15/15 w")) == \
        "12*2/15/15/15/15/15/15/15/15/15/15/15/15/15/15 w"


def test_dodgem_is_a_first_player_win():
    values = dodgem_values()
    won, plies = values[Dodgem.start()]
    assert won == 1 and plies == 19
    # Every reachable position is decided: nobody can profitably hold a cycle.
    reachable = ref.reachable(Dodgem, [Dodgem.start()])
    assert len(reachable) == 1963
    assert all(values[p][0] != 0 for p in reachable)


def test_the_dodgem_solver_agrees_with_a_path_dependent_search():
    """The retrograde values against a plain negamax in which a position
    recurring on the line is a draw (no memo: it depends on the path), on
    positions whose game ends within a short horizon either way."""
    values = dodgem_values()

    def negamax(pos, path, depth):
        children = Dodgem.moves(pos)
        if not children:
            return -1
        if depth == 0:
            return None                      # undecided within the horizon
        best, unknown = -1, False
        for child in children.values():
            if child in path:
                v = 0
            else:
                v = negamax(child, path | {child}, depth - 1)
                v = None if v is None else -v
            if v is None:
                unknown = True
            elif v > best:
                best = v
        if best == 1:
            return 1
        return None if unknown else best

    checked = 0
    for pos, (value, plies) in sorted(values.items()):
        if plies is not None and plies <= 5:
            assert negamax(pos, frozenset([pos]), plies) == value, Dodgem.fen(pos)
            if plies:                         # and not decided any sooner
                assert negamax(pos, frozenset([pos]), plies - 1) is None, Dodgem.fen(pos)
            checked += 1
    assert checked > 400


# -- rules: playouts, perft ---------------------------------------------------------
def check_position(board, game, pos, rng):
    """The engine's board agrees with the reference at `pos`: FEN, moves,
    game end, result; every move (a sample of 30 on big boards) pushes to
    the reference's child and pops back to the same FEN and hash."""
    rules = REFS[game]
    fen = rules.fen(pos)
    assert board.fen() == fen
    rebuilt = GAMES[game](fen)
    assert rebuilt.fen() == fen and rebuilt.hash == board.hash
    children = rules.moves(pos)
    assert sorted(board.legal_moves()) == sorted(children), fen
    assert board.is_game_over() == (not children)
    assert board.mover_outcome() == (rules.result(pos) if not children else None)
    key = board.hash
    for move in rng.sample(sorted(children), min(30, len(children))):
        child = children[move]
        assert board.is_legal(move)
        board.push(move)
        assert board.fen() == rules.fen(child), (fen, move)
        assert board.hash == GAMES[game](rules.fen(child)).hash
        assert board.pop() == move
        assert board.fen() == fen and board.hash == key
    if game == "queens":
        cells = pos[0]
        assert board.claimed == (sum(c in "QX" for c in cells), sum(c in "qx" for c in cells))
        assert board.size == Queens.size(pos)


@pytest.mark.parametrize("game", SMALL)
def test_random_playouts_follow_the_rules(game):
    rules = REFS[game]
    rng = random.Random(f"playouts-{game}")
    for playout in range(30 if game == "queens" else 60):
        if game == "queens":
            n = [3, 4, 5, 8, 10, 15][playout % 6]
            start = queens_board(rng, n, rng.choice([0, 0.1, 0.3]))
            board = GAMES[game](rules.fen(start))
        else:
            start, board = rules.start(), GAMES[game]()
        final, played = ref.random_position(rules, rng, 40, start=start)
        pos, keys = start, [board.hash]
        for move in played:
            check_position(board, game, pos, rng)
            board.push(move)
            pos = rules.moves(pos)[move]
            keys.append(board.hash)
        check_position(board, game, pos, rng)
        assert pos == final
        assert board.ply == len(keys) - 1
        while board.ply:
            assert board.hash == keys[board.ply]
            board.pop()
        assert board.fen() == rules.fen(start) and board.hash == keys[0]
        with pytest.raises(IndexError):
            board.pop()


def test_copies_are_independent():
    for game in SMALL:
        board = GAMES[game]()
        move = board.legal_moves()[0]
        board.push(move)
        twin = board.copy()
        assert twin.fen() == board.fen() and twin.move_stack == [move] and twin == board
        twin.push(twin.legal_moves()[0])
        assert board.ply == 1 and twin.ply == 2 and twin != board
        assert twin.pop() and twin.pop() == move and twin.fen() == GAMES[game]().fen()
        assert board.game == game and board_class(game) is GAMES[game]
    with pytest.raises(KeyError, match="choose from"):
        board_class("go")


@pytest.mark.parametrize("game,depths", [("tictactoe", range(1, 10)), ("dodgem", range(1, 13)),
                                         ("queens", range(1, 4))])
def test_perft_from_the_start(game, depths):
    rules, board = REFS[game], GAMES[game]()
    for depth in depths:
        assert board.perft(depth) == ref.perft(rules, rules.start(), depth), depth
    depth = max(depths) - 1
    assert sorted(board.divide(depth)) == sorted(
        (m, ref.perft(rules, c, depth - 1)) for m, c in rules.moves(rules.start()).items())


@pytest.mark.parametrize("game,depth", [("tictactoe", 5), ("dodgem", 8), ("queens", 3)])
def test_perft_from_random_positions(game, depth):
    rules = REFS[game]
    for pos in random_positions(game, f"perft-{game}", 40, 12):
        board = engine_board(game, pos)
        for d in range(depth + 1):
            assert board.perft(d) == ref.perft(rules, pos, d), (rules.fen(pos), d)
        assert sorted(board.divide(depth)) == sorted(
            (m, ref.perft(rules, c, depth - 1)) for m, c in rules.moves(pos).items())
    assert board.perft(0) == 1
    with pytest.raises(ValueError):
        board.perft(-1)
    with pytest.raises(ValueError):
        board.divide(0)


def test_queens_perft_on_big_boards():
    rng = random.Random(5)
    for n in (12, 15):
        pos = queens_position(rng, n, 0.2, 6)
        assert engine_board("queens", pos).perft(2) == ref.perft(Queens, pos, 2)
    empty = Queens.parse("/".join(["15"] * 15) + " w")
    assert engine_board("queens", empty).perft(2) == ref.perft(Queens, empty, 2)


def test_queens_keys_tell_stone_layouts_and_sizes_apart():
    """The same queens and claims on boards that differ in their stones or
    their size are different positions: their keys differ (the table is
    shared between searches of different boards)."""
    fens = ["3/3/3 w", "***/***/*** w", "3/1*1/3 w", "3/3/2* w", "4/4/4/4 w", "5/5/5/5/5 w",
            "X2/X*1/QXX b", "X2/X**/QXX b", "X1*/X*1/QXX b"]
    keys = {GAMES["queens"](fen).hash for fen in fens}
    assert len(keys) == len(fens)


# -- exact play --------------------------------------------------------------------
@pytest.fixture(scope="module")
def searcher():
    return Searcher(16)


def test_tictactoe_is_played_exactly_from_every_position(searcher):
    """From every reachable position the move is value-optimal with the
    quickest win / the slowest loss, and the score says so exactly."""
    checked = 0
    for pos in sorted(ref.ttt_positions()):
        if not TicTacToe.moves(pos):
            continue
        board = engine_board("tictactoe", pos)
        value = ref.ttt_solve(pos)
        result = searcher.search(board, depth=9)
        assert ttt_move_value(pos, result.best) == value, (TicTacToe.fen(pos), result)
        if value == 0:
            assert (result.score, result.mate) == (0, None), TicTacToe.fen(pos)
        else:
            assert result.mate == expected_mate(1000 - abs(value), value > 0), TicTacToe.fen(pos)
        checked += 1
    assert checked == 5478 - 958           # 958 positions are ends of the game


def test_tictactoe_takes_wins_and_never_loses_at_low_depth(searcher):
    """With only d plies of look-ahead (d = 1..4) the engine still takes the
    quickest win it can see and never picks a move that loses within d
    plies when it has a better one."""
    for pos in sorted(ref.ttt_positions()):
        children = TicTacToe.moves(pos)
        if not children:
            continue
        value = ref.ttt_solve(pos)            # 1000 - plies: a win; -(1000 - plies): a loss
        for depth in (1, 2, 3, 4):
            best = searcher.search(engine_board("tictactoe", pos), depth=depth).best
            got = ttt_move_value(pos, best)
            where = (TicTacToe.fen(pos), depth, best)
            if value > 0 and 1000 - value <= depth:
                assert got == value, where                       # the quickest win
            if not (value < 0 and 1000 + value <= depth):
                assert not (got < 0 and 1000 + got <= depth), where   # no visible loss


def test_tictactoe_empty_board_is_a_draw(searcher):
    """A draw, and the principal variation is a line of perfect play."""
    result = searcher.search(GAMES["tictactoe"](), depth=9)
    assert (result.score, result.mate) == (0, None)
    pos = TicTacToe.start()
    assert result.pv and result.pv[0] == result.best
    for move in result.pv:
        assert ttt_move_value(pos, move) == 0, result.pv
        pos = TicTacToe.moves(pos)[move]


def test_dodgem_is_played_exactly_from_every_position(searcher):
    """Every Dodgem position (a FEN: no history) at depth 24, deeper than
    the longest forced result (21 plies): a move keeping the value, and the
    exact mate distance."""
    values = dodgem_values()
    longest = max(p for _, p in values.values() if p is not None)
    assert longest == 21
    for pos, (value, plies) in sorted(values.items()):
        children = Dodgem.moves(pos)
        if not children:
            continue
        result = searcher.search(engine_board("dodgem", pos), depth=24)
        assert -values[children[result.best]][0] == value, (Dodgem.fen(pos), result)
        assert result.mate == expected_mate(plies, value > 0), (Dodgem.fen(pos), result)


def test_the_first_player_wins_dodgem_from_the_start(searcher):
    """The engine, Black, against the slowest defence and against random
    replies, from the start with the game's history on the board: it wins
    in 19 plies against the best defence, and always wins."""
    values = dodgem_values()
    result = searcher.search(GAMES["dodgem"](), depth=20)
    assert result.mate == 10
    rng = random.Random(3)
    for game in range(12):
        board, pos = GAMES["dodgem"](), Dodgem.start()
        while Dodgem.moves(pos):
            if pos[1] == "b":
                move = searcher.search(board, depth=22).best
            elif game == 0:                       # the slowest loss
                move = max(Dodgem.moves(pos),
                           key=lambda m: (values[Dodgem.moves(pos)[m]][1], m))
            else:
                move = rng.choice(sorted(Dodgem.moves(pos)))
            board.push(move)
            pos = Dodgem.moves(pos)[move]
            assert board.ply <= 60
        assert pos[1] == "w" and board.mover_outcome() == -1      # White to move, lost
        if game == 0:
            assert board.ply == 19


def test_dodgem_repetition_is_a_draw_in_the_search(searcher):
    """R, lost for the side to move S when given as a FEN, reached by the
    cycle X -> Y -> Z -> R of the game's own moves, where S can move from R
    back to X: with that history S draws by repeating X (score 0, a move
    back into the history); from the FEN alone it is still lost."""
    values = dodgem_values()
    found = 0
    for x in sorted(values):
        for a, y in sorted(Dodgem.moves(x).items()):
            for b, z in sorted(Dodgem.moves(y).items()):
                for c, r in sorted(Dodgem.moves(z).items()):
                    if len({x, y, z, r}) < 4 or x not in Dodgem.moves(r).values():
                        continue
                    value, plies = values[r]
                    if value != -1 or plies < 2:
                        continue
                    alone = searcher.search(engine_board("dodgem", r), depth=plies + 2)
                    assert alone.mate == expected_mate(plies, False), Dodgem.fen(r)
                    board = engine_board("dodgem", x)
                    for move in (a, b, c):
                        board.push(move)
                    result = searcher.search(board, depth=plies + 2)
                    assert (result.score, result.mate) == (0, None), (Dodgem.fen(x), a, b, c)
                    assert holds_the_draw(searcher, board, values), (Dodgem.fen(x), a, b, c)
                    found += 1
    assert found >= 20


def holds_the_draw(searcher, board, values):
    """Play on: the engine for the side to move, the opponent the quickest
    win the solver knows (a repetition of the game ends it drawn). True if
    the engine's side is not beaten."""
    engine_side = board.turn
    seen = {board.fen()} | set(history_fens(board))
    while board.ply < 80:
        if board.is_game_over():
            return board.turn != engine_side
        if board.turn == engine_side:
            move = searcher.search(board, depth=24).best
        else:
            pos = Dodgem.parse(board.fen())
            move = min(Dodgem.moves(pos), key=lambda m: (
                values[Dodgem.moves(pos)[m]][0], values[Dodgem.moves(pos)[m]][1] or 0, m))
        board.push(move)
        if board.fen() in seen:
            return True                          # a repetition: drawn
        seen.add(board.fen())
    return True


def history_fens(board):
    copy, out = board.copy(), []
    while copy.ply:
        copy.pop()
        out.append(copy.fen())
    return out


def test_two_threads_play_exactly_too():
    """Lazy SMP helpers share the table (and, in Dodgem, see the same
    path-dependent repetitions): the results stay exact."""
    s = Searcher(16, threads=2)
    values = dodgem_values()
    for pos, (value, plies) in sorted(values.items())[::3]:
        children = Dodgem.moves(pos)
        if children:
            result = s.search(engine_board("dodgem", pos), depth=24)
            assert -values[children[result.best]][0] == value, Dodgem.fen(pos)
            assert result.mate == expected_mate(plies, value > 0), Dodgem.fen(pos)
    for pos in queens_cases("threads", 40, (4, 5), (0, 0.2), 9):
        margin = ref.queens_solve(pos)
        result = s.search(engine_board("queens", pos), depth=pos[0].count("."))
        assert result.score == ref.queens_score(margin), Queens.fen(pos)
        assert -ref.queens_solve(Queens.moves(pos)[result.best]) == margin, Queens.fen(pos)


def test_a_long_dodgem_game_fills_its_history_safely(searcher):
    """Cars shuffling back and forth: the search still answers late in the
    game, and once the history is full a move is refused, board unchanged."""
    board = GAMES["dodgem"]("3/B2/1W1 b")
    shuffle = ["a2a3", "b1a1", "a3a2", "a1b1"]
    refused = None
    for i in range(2000):
        try:
            board.push(shuffle[i % 4])
        except ValueError as err:
            refused = err
            break
        if i == 600:
            result = searcher.search(board, depth=12)
            assert result.best in board.legal_moves()
    assert refused is not None and "history" in str(refused)
    fen, ply = board.fen(), board.ply
    assert board.legal_moves() and ply >= 600
    with pytest.raises(ValueError):
        board.push(board.legal_moves()[0])
    assert (board.fen(), board.ply) == (fen, ply)
    assert searcher.search(board, depth=12).best in board.legal_moves()


def queens_cases(seed, count, sizes, stone_rates, max_empty):
    """Random positions of the queens game with between 1 and max_empty
    empty cells (so that a search as deep as the empty cells is exact)."""
    rng, out = random.Random(seed), {}
    while len(out) < count:
        n = rng.choice(sizes)
        pos = queens_board(rng, n, rng.choice(stone_rates))
        while pos[0].count(".") > max_empty:
            move = rng.choice(sorted(Queens.moves(pos)))
            pos = Queens.moves(pos)[move]
        if pos[0].count("."):
            out[pos] = None
    return list(out)


@pytest.mark.parametrize("sizes,max_empty,count", [((3,), 9, 60), ((4,), 10, 60),
                                                   ((5,), 9, 80)])
def test_queens_is_played_exactly(searcher, sizes, max_empty, count):
    """Value-optimal: the move keeps the best final margin (so the result
    class too), and the score is the exact final score."""
    for pos in queens_cases(f"queens-{sizes}", count, sizes, (0, 0.15, 0.3), max_empty):
        margin = ref.queens_solve(pos)
        board = engine_board("queens", pos)
        result = searcher.search(board, depth=pos[0].count("."))
        got = -ref.queens_solve(Queens.moves(pos)[result.best])
        fen = Queens.fen(pos)
        assert (got > 0) - (got < 0) == (margin > 0) - (margin < 0), (fen, result)
        assert got == margin, (fen, result)
        assert result.score == ref.queens_score(margin) and result.mate is None, (fen, result)


def test_queens_3x3_and_4x4_from_the_empty_board(searcher):
    for fen, depth in (("3/3/3 w", 9), ("3/1*1/3 w", 8), ("4/4/4/4 w", 16), ("4/1*2/2*1/4 w", 14)):
        pos = Queens.parse(fen)
        margin = ref.queens_solve(pos)
        result = searcher.search(GAMES["queens"](fen), depth=depth)
        assert result.score == ref.queens_score(margin), fen
        assert -ref.queens_solve(Queens.moves(pos)[result.best]) == margin, fen


# -- the algorithm comparison ------------------------------------------------------
@pytest.fixture(scope="module")
def comparison():
    return Comparison()


def all_values(comparison, board, depth):
    """{variant: root value} of every tuong-compare variant."""
    out = {}
    for name, algorithm, table, ordering in VARIANTS:
        result = comparison.run(board, algorithm, depth, table, ordering)
        assert result["finished"]
        out[name] = result["value"]
    return out


def test_there_are_ten_variants():
    assert len(VARIANTS) == 10
    assert {a for _, a, _, _ in VARIANTS} == {"minimax", "alphabeta", "negascout"}


@pytest.mark.parametrize("game,count,depths", [("tictactoe", 15, (1, 2, 3, 4, 6, 9)),
                                               ("dodgem", 15, (1, 2, 3, 5, 8)),
                                               ("queens", 20, (1, 2, 3))])
def test_every_algorithm_gives_the_same_root_value(comparison, game, count, depths):
    for pos in random_positions(game, f"compare-{game}", count, 10):
        board = engine_board(game, pos)
        if board.is_game_over():
            continue
        for depth in depths:
            values = all_values(comparison, board, depth)
            assert len(set(values.values())) == 1, (REFS[game].fen(pos), depth, values)


def test_every_algorithm_gives_the_same_root_value_in_dodgem_games_with_history(comparison):
    """Positions reached by moves on the board, so that repetitions reach
    back above the root."""
    rng = random.Random(11)
    for _ in range(15):
        board = GAMES["dodgem"]()
        for _ in range(rng.randint(4, 16)):
            if board.is_game_over():
                break
            board.push(rng.choice(sorted(board.legal_moves())))
        if board.is_game_over():
            continue
        for depth in (3, 7):
            values = all_values(comparison, board, depth)
            assert len(set(values.values())) == 1, (board.move_stack, depth, values)


def test_every_algorithm_gives_the_same_root_value_in_xiangqi(comparison):
    rng = random.Random(2)
    for _ in range(4):
        board = Board()
        for _ in range(rng.randint(2, 20)):
            board.push(rng.choice(sorted(board.legal_moves())))
        for depth in (2, 3):
            values = all_values(comparison, board, depth)
            assert len(set(values.values())) == 1, (board.fen(), depth, values)


def test_exact_depth_values_match_the_solvers(comparison):
    """To the end of the game the plain algorithms give the exact value."""
    for pos in random_positions("tictactoe", "exact-ttt", 40, 6):
        if not TicTacToe.moves(pos):
            continue
        value = ref.ttt_solve(pos)
        expected = 0 if value == 0 else \
            (MATE_SCORE - (1000 - abs(value))) * (1 if value > 0 else -1)
        for name, algorithm, table, ordering in VARIANTS:
            got = comparison.run(engine_board("tictactoe", pos), algorithm, 9, table, ordering)
            assert got["value"] == expected, (TicTacToe.fen(pos), name)
    for pos in queens_cases("exact-queens", 15, (4, 5), (0, 0.2), 7):
        expected = ref.queens_score(ref.queens_solve(pos))
        for name, algorithm, table, ordering in VARIANTS:
            got = comparison.run(engine_board("queens", pos), algorithm, 7, table, ordering)
            assert got["value"] == expected, (Queens.fen(pos), name)
            assert -ref.queens_solve(Queens.moves(pos)[got["best"]]) == ref.queens_solve(pos)


def test_textbook_counts(comparison):
    empty = comparison.run(GAMES["tictactoe"](), "minimax", 9)
    assert empty["nodes"] == 549946 and empty["leaves"] == 255168 and empty["value"] == 0
    for depth, leaves in ((1, 44), (2, 1920), (3, 79666), (4, 3290240)):
        result = comparison.run(Board(), "minimax", depth)
        assert result["leaves"] == leaves, depth
    with pytest.raises(KeyError):
        comparison.run(Board(), "mtdf", 2)


def test_the_compare_tool_runs_and_finds_no_mismatch(tmp_path, capsys):
    from tuong.tools.compare import main
    path = tmp_path / "rows.csv"
    assert main(["--games", "tictactoe,dodgem,queens", "--max-depth", "2", "--budget", "5",
                 "--csv", str(path)]) == 0
    out = capsys.readouterr().out
    assert "MISMATCH" not in out
    rows = path.read_text().splitlines()
    # Tic-tac-toe to depth 9 whatever --max-depth says; the others to 2 (queens twice).
    assert len(rows) == 1 + 10 * (9 + 2 + 2 + 2)
    with pytest.raises(SystemExit):
        main(["--games", "chess"])


def test_a_budget_cuts_a_run_off(comparison):
    result = comparison.run(Board(), "minimax", 6, False, False, 0.05)
    assert not result["finished"] and result["seconds"] < 1


# -- bad FENs and bad moves -----------------------------------------------------------
BAD_FENS = [
    # (game, FEN, words the message must contain)
    ("tictactoe", "", ["empty"]),
    ("tictactoe", "3/3/3", ["side to move"]),
    ("tictactoe", "3/3/3 x", ["side to move", "'x'"]),
    ("tictactoe", "3/3 w", ["3 rows of 3"]),
    ("tictactoe", "3/3/3/3 w", ["3 rows of 3"]),
    ("tictactoe", "3/4/3 w", ["3 rows of 3"]),
    ("tictactoe", "3/2/3 w", ["3 rows of 3"]),
    ("tictactoe", "3/1Y1/3 w", ["unknown letter", "'Y'"]),
    ("tictactoe", "3/1x1/3 b", ["unknown letter", "'x'"]),
    ("tictactoe", "3/0X2/3 w", ["bad run", "'0'"]),
    ("tictactoe", "3/03/3 w", ["bad run", "'03'"]),
    ("tictactoe", "XX1/3/3 b", ["2 X and 0 O"]),
    ("tictactoe", "O2/3/3 w", ["0 X and 1 O"]),
    ("tictactoe", "X2/3/3 w", ["O's turn"]),
    ("tictactoe", "XO1/3/3 b", ["X's turn"]),
    ("tictactoe", "XXX/OO1/O2 w", ["three in a row"]),
    ("tictactoe", "XXX/OOO/X2 b", ["three in a row"]),
    ("dodgem", "", ["empty"]),
    ("dodgem", "B2/B2/1WW", ["side to move"]),
    ("dodgem", "B2/B2/1WW x", ["side to move", "'x'"]),
    ("dodgem", "B2/B2 b", ["3 rows of 3"]),
    ("dodgem", "B2/B2/1WW/3 b", ["3 rows of 3"]),
    ("dodgem", "B3/B2/1WW b", ["3 rows of 3"]),
    ("dodgem", "B2/B2/1WX b", ["unknown letter", "'X'"]),
    ("dodgem", "B2/b2/1WW b", ["unknown letter", "'b'"]),
    ("dodgem", "B2/B02/1WW b", ["bad run", "'02'"]),
    ("dodgem", "BBB/3/1WW w", ["two cars at most"]),
    ("dodgem", "B2/B2/WWW b", ["two cars at most"]),
    ("dodgem", "3/3/1WW b", ["no car left"]),
    ("dodgem", "B2/B2/3 w", ["no car left"]),
    ("queens", "", ["empty"]),
    ("queens", "5/5/5/5/5", ["side to move"]),
    ("queens", "5/5/5/5/5 x", ["side to move"]),
    ("queens", "2/2 w", ["3 <= N <= 15"]),
    ("queens", "/".join(["16"] * 16) + " w", ["3 <= N <= 15"]),
    ("queens", "5/5/5/5 w", ["N rows of N"]),
    ("queens", "5/5/5/5/4 w", ["N rows of N"]),
    ("queens", "5/5/5/5/6 w", ["N rows of N"]),
    ("queens", "5/5/2Y2/5/5 w", ["unknown letter", "'Y'"]),
    ("queens", "5/5/2o2/5/5 w", ["unknown letter", "'o'"]),
    ("queens", "5/5/05/5/5 w", ["bad run", "'05'"]),
    ("queens", "5/5/0*4/5/5 w", ["bad run", "'0'"]),
    ("queens", "3/3/q2 w", ["0 and 1 queens"]),
    ("queens", "X1X/XXX/QXQ b", ["2 and 0 queens"]),
    ("queens", "X2/XX1/QXX w", ["second player's turn"]),
    ("queens", "X1X/*X1/QXX b", ["a3", "none of whose queens"]),
    ("queens", "X4/5/5/5/5 w", ["a5", "none of whose queens"]),
    ("queens", "X1X1X/1XXX1/XXQXX/1XXX1/X1x1X b", ["c1", "none of whose queens"]),
    ("queens", "5/5/2Q2/5/5 b", ["empty on a queen's line"]),
    ("queens", "X1X1X/1XXX1/XXQXX/1XXX1/X1X2 b", ["e1", "empty on a queen's line"]),
    ("queens", "XxX/XXx/QqX w", ["queen on a1", "another queen's line"]),
    ("queens", "q*Q/*2/*** w", ["b2", "empty on a queen's line"]),
]


@pytest.mark.parametrize("game,fen,words", BAD_FENS,
                         ids=[f"{g}:{f[:40]}" for g, f, _ in BAD_FENS])
def test_bad_fens_are_refused_with_the_reason(game, fen, words):
    with pytest.raises(ValueError) as err:
        GAMES[game](fen)
    for word in words:
        assert word in str(err.value), str(err.value)


@pytest.mark.parametrize("game", SMALL)
def test_a_bad_fen_leaves_the_board_as_it_was(game):
    board = GAMES[game]()
    board.push(board.legal_moves()[0])
    fen, key = board.fen(), board.hash
    with pytest.raises(ValueError):
        board.set_fen("3/3/3/3/3/3/3/3/3/3/3/3/3/3/3/3/3 w")
    assert board.fen() == fen and board.hash == key


def test_good_fens_at_the_edges_are_taken():
    for game, fen in [("tictactoe", "XXX/OO1/3 b"), ("tictactoe", "XOX/XOO/OXX b"),
                      ("tictactoe", "OOO/XX1/X2 w"), ("dodgem", "3/3/1WW w"),
                      ("dodgem", "B2/3/3 b"), ("queens", "3/3/3 w"), ("queens", "***/***/*** w"),
                      ("queens", "/".join(["15"] * 15) + " w"),
                      ("queens", "12*2/" + "/".join(["15"] * 14) + " w"),
                      ("queens", "X1X1X/1XXX1/XXQXX/1XXX1/X1X1X b"),
                      ("queens", "2X/*X1/QXX b")]:
        assert GAMES[game](fen).fen() == fen


def test_queens_with_two_digit_ranks():
    board = GAMES["queens"]("/".join(["15"] * 15) + " w")
    assert "o15" in board.legal_moves() and "a10" in board.legal_moves()
    pos = Queens.parse(board.fen())
    board.push("o15")
    # Rank 15, file o and the long diagonal: 15 + 14 + 14 cells.
    assert board.fen().startswith("XXXXXXXXXXXXXXQ/13XX/12X1X/")
    assert board.claimed == (43, 0)
    board.push("a10")
    # Rank 10 passes over j10 (the diagonal) and stops at o10 (the file).
    assert board.fen().split("/")[5] == "qxxxxxxxxXxxxxX"
    pos = Queens.moves(Queens.moves(pos)["o15"])["a10"]
    assert board.fen() == Queens.fen(pos)
    assert board.claimed == (43, sum(c in "qx" for c in pos[0]))


BAD_MOVES = [
    ("tictactoe", None, ["", "b", "b22", "B2", "2b", "d1", "a4", "a0", "b2 ", " b2", "b2b2",
                         "\u00e92", "a" * 20, 5, None]),
    ("dodgem", None, ["", "a2", "a2b", "A2B2", "a2b2x", "a0a1", "e1e2", "a2e2", "a2a5",
                      "a2-b2", 12, None]),
    ("queens", "5/5/5/5/5 w", ["", "e", "f1", "a6", "a0", "d44", "D4", "d4d4", "q1", None]),
]
ILLEGAL_MOVES = [
    ("tictactoe", "X2/1O1/3 w", ["a3", "b2"]),
    ("tictactoe", "XXX/OO1/3 b", ["c2", "a1"]),            # the game is over
    ("dodgem", None, ["b1b2", "c1c2", "a2a3", "a3a4", "a3b2", "a2c2", "a2a2"]),
    ("dodgem", "3/3/1WW w", ["b1b2", "c1c2"]),            # Black has finished: over
    ("dodgem", "2B/3/1W1 b", ["c3c4", "c3b3", "b1b2"]),
    ("queens", "X1X1X/1XXX1/XXQXX/1XXX1/X1X1X b", ["c3", "a1", "b2"]),
    ("queens", "3/1*1/3 w", ["b2"]),
]


@pytest.mark.parametrize("game,fen,moves", BAD_MOVES + ILLEGAL_MOVES,
                         ids=[f"{g}-{i}" for i, (g, _, _) in enumerate(BAD_MOVES + ILLEGAL_MOVES)])
def test_bad_moves_raise_and_leave_the_board_unchanged(game, fen, moves):
    board = GAMES[game](fen) if fen else GAMES[game]()
    before = (board.fen(), board.hash, board.ply, board.legal_moves())
    malformed = (game, fen, moves) in BAD_MOVES
    for move in moves:
        with pytest.raises(ValueError) as err:
            board.push(move)
        assert ("malformed" if malformed else "illegal") in str(err.value), (move, err.value)
        assert not board.is_legal(move)
        assert (board.fen(), board.hash, board.ply, board.legal_moves()) == before


# -- hand-checked queens positions ------------------------------------------------------
QUEENS_GAMES = [
    # (start FEN, [(move, FEN after it)], (first, second) cells at the end)
    ("5/5/5/5/5 w", [
        # The centre queen claims its row, its file and both diagonals.
        ("c3", "X1X1X/1XXX1/XXQXX/1XXX1/X1X1X b"),
        # a2's lines pass over b2-d2, a3, b3-c4 (claimed) to take e2, a4, d5; b1 is next to it.
        ("a2", "X1XxX/xXXX1/XXQXX/qXXXx/XxX1X w"),
        # Every line of b5 runs over claimed cells: only the queen's own cell.
        ("b5", "XQXxX/xXXX1/XXQXX/qXXXx/XxX1X b"),
        ("e4", "XQXxX/xXXXq/XXQXX/qXXXx/XxX1X w"),
        ("d1", "XQXxX/xXXXq/XXQXX/qXXXx/XxXQX b"),
    ], (19, 6)),
    ("5/5/2*2/5/5 w", [
        # a1's diagonal stops at the stone on c3 (b2 claimed, d4 and e5 not).
        ("a1", "X4/X4/X1*2/XX3/QXXXX b"),
        # e5's diagonal stops at the same stone from the other side: d4 only.
        ("e5", "Xxxxq/X2xx/X1*1x/XX2x/QXXXX w"),
        # b3: the stone stops its row at once; up and on the diagonals it
        # takes b4, c4 and c2, passing over a2-a4, b1, b2, d1 (its own) and
        # b5, d5 (the opponent's), which keep their owners.
        ("b3", "Xxxxq/XXXxx/XQ*1x/XXX1x/QXXXX b"),
        ("d3", "Xxxxq/XXXxx/XQ*qx/XXXxx/QXXXX w"),
    ], (14, 10)),
    ("1*1/***/1*1 w", [
        # Four cells walled off from each other: a queen claims only its own.
        ("a3", "Q*1/***/1*1 b"), ("c3", "Q*q/***/1*1 w"), ("a1", "Q*q/***/Q*1 b"),
        ("c1", "Q*q/***/Q*q w"),
    ], (2, 2)),
    ("3/1*1/3 w", [
        ("a1", "X2/X*1/QXX b"),                     # the diagonal stops at b2 at once
        ("c3", "Xxq/X*x/QXX w"),                    # b3 and c2; a3 and c1 are kept
    ], (5, 3)),
]


@pytest.mark.parametrize("start,steps,counts", QUEENS_GAMES, ids=[s for s, _, _ in QUEENS_GAMES])
def test_hand_checked_queens_games(searcher, start, steps, counts):
    board, pos = GAMES["queens"](start), Queens.parse(start)
    for move, fen in steps:
        assert not board.is_game_over()
        board.push(move)
        pos = Queens.moves(pos)[move]
        assert board.fen() == fen == Queens.fen(pos), move
    assert board.is_game_over() and board.legal_moves() == []
    assert board.claimed == counts
    first, second = counts
    mover_margin = (first - second) * (1 if board.turn == "w" else -1)
    assert board.mover_outcome() == (mover_margin > 0) - (mover_margin < 0)
    # The engine's own score of the finished game, from the side to move.
    result = searcher.search(board, depth=3)
    assert result.best is None and result.mate is None
    assert result.score == ref.queens_score(mover_margin)
    # And a move before the end, searched to the end, foresees it.
    board.pop()
    result = searcher.search(board, depth=4)
    margin = ref.queens_solve(Queens.parse(board.fen()))
    assert result.score == ref.queens_score(margin)


def test_hand_checked_final_scores():
    # 19 against 6 with the second player to move: it has lost by 13 cells.
    assert ref.queens_score(-13) == -10130
    board = GAMES["queens"]("XQXxX/xXXXq/XXQXX/qXXXx/XxXQX b")
    assert board.mover_outcome() == -1
    assert Searcher(1).search(board, depth=1).score == -10130
    board = GAMES["queens"]("Xxxxq/XXXxx/XQ*qx/XXXxx/QXXXX w")
    assert board.mover_outcome() == 1
    assert Searcher(1).search(board, depth=1).score == 10040
    board = GAMES["queens"]("Q*q/***/Q*q w")
    assert board.mover_outcome() == 0
    result = Searcher(1).search(board, depth=1)
    assert (result.best, result.score, result.mate) == (None, 0, None)
    # Heuristic scores: 10 per cell of margin (depth 1 on an open board).
    board = GAMES["queens"]("X1X1X/1XXX1/XXQXX/1XXX1/X1X1X b")
    result = Searcher(1).search(board, depth=1)
    best = max(-Queens.margin(c) for c in Queens.moves(Queens.parse(board.fen())).values())
    assert result.score == 10 * best


def test_finished_small_games_searched():
    s = Searcher(1)
    lost = s.search(GAMES["tictactoe"]("XXX/OO1/3 b"), depth=3)
    assert (lost.best, lost.mate) == (None, 0)
    drawn = s.search(GAMES["tictactoe"]("XOX/XOO/OXX b"), depth=3)
    assert (drawn.best, drawn.score, drawn.mate) == (None, 0, None)
    finished = s.search(GAMES["dodgem"]("3/3/1WW w"), depth=3)
    assert (finished.best, finished.mate) == (None, 0)
    # A side with no legal move has lost: Black boxed in on a1, White on a1.
    for fen in ("3/W2/BW1 b", "BW1/W2/3 b", "3/B2/WB1 w"):
        board = GAMES["dodgem"](fen)
        assert board.legal_moves() == [] and board.mover_outcome() == -1, fen
        result = s.search(board, depth=3)
        assert (result.best, result.mate) == (None, 0), fen


# -- the games over UCI, through the real process -------------------------------------
from test_protocol_uci import best_after  # noqa: E402  (the process tests' helper)

# Black's quickest win against White's slowest loss (from the solver).
DODGEM_WIN = "a3b3 b1b2 b3c3 c1b1 c3c2 b1a1 a2a3 b2b3 a3a2 a1b1 a2b2 b1c1 c2d2 c1c2 b2b1 " \
             "b3a3 b1c1 a3a4 c1d1"
PLAYED = {"tictactoe": ["b2", "a1", "c3"], "dodgem": ["a3b3", "c1c2", "b3c3"],
          "queens": ["d4", "a2"]}


def ref_after(game, moves):
    rules = REFS[game]
    pos = rules.start()
    for move in moves:
        pos = rules.moves(pos)[move]
    return pos


def variant(e, game):
    e.send(f"setoption name UCI_Variant value {game}")


def display_rows(game, pos):
    """The rank lines `d` shows: the rank number and a cell per file."""
    n = Queens.size(pos) if game == "queens" else 3
    return [f"{r + 1:>{len(str(n))}} " + " ".join(pos[0][r * n:(r + 1) * n])
            for r in reversed(range(n))]


@pytest.mark.parametrize("game", SMALL)
def test_uci_plays_each_game(engine, game):
    rules, moves = REFS[game], PLAYED[game]
    pos = ref_after(game, moves)
    e = engine()
    variant(e, game)
    e.send("d")
    assert e.line("Fen: ") == f"Fen: {rules.fen(rules.start())}"
    e.send("position startpos moves " + " ".join(moves))
    e.send("d")
    assert e.line("Fen: ") == f"Fen: {rules.fen(pos)}"
    for row in display_rows(game, pos):
        assert row in e.before, (row, e.before)
    assert re.match(r"Key: [0-9A-F]{16}", e.line("Key: "))
    depth = 2 if game == "queens" else 3
    e.send(f"go perft {depth}")
    total = int(e.expect(r"Nodes searched: (\d+)").group(1))
    assert total == ref.perft(rules, pos, depth)
    divided = dict(re.findall(r"(?m)^([a-o]\d+(?:[a-o]\d+)?): (\d+)", e.before))
    assert {m: int(c) for m, c in divided.items()} == \
        {m: ref.perft(rules, c, depth - 1) for m, c in rules.moves(pos).items()}
    best = best_after(e, "go depth 4").group(1)
    assert best in rules.moves(pos)
    # Back to Xiangqi: its own start.
    variant(e, "xiangqi")
    e.send("d")
    assert e.line("Fen: ") == f"Fen: {Board().fen()}"
    assert e.close() == 0


def test_uci_finished_games_answer_bestmove_none(engine):
    e = engine()
    for game, position, score in [
            ("tictactoe", "startpos moves a1 b1 a2 b2 a3", "mate 0"),   # O to move: X has a file
            ("tictactoe", "fen XXX/OO1/3 b", "mate 0"),
            ("tictactoe", "fen XOX/XOO/OXX b", "cp 0"),                  # a full board
            ("dodgem", "fen 3/3/1WW w", "mate 0"),                      # Black has finished
            ("dodgem", "fen 3/W2/BW1 b", "mate 0"),                     # Black is boxed in
            ("dodgem", "startpos moves " + DODGEM_WIN, "mate 0"),
            ("queens", "fen 1*1/***/1*1 w moves a3 c3 a1 c1", "cp 0"),   # 2 cells each
            ("queens", "fen XQXxX/xXXXq/XXQXX/qXXXx/XxXQX b", "mate 0")]:
        variant(e, game)
        best = best_after(e, f"position {position}", "go depth 5").group(1)
        assert best == "(none)", (game, position)
        assert f"info depth 0 score {score}" in e.before, (game, position, e.before)
    # Only the queens game can end won for the side to move: a positive score.
    best_after(e, "position fen Xxxxq/XXXxx/XQ*qx/XXXxx/QXXXX w", "go depth 5")
    assert int(re.search(r"info depth 0 score cp (-?\d+)", e.before).group(1)) > 0
    assert e.close() == 0


def test_the_dodgem_game_in_the_protocol_test_is_a_black_win():
    pos = ref_after("dodgem", DODGEM_WIN.split())
    assert pos[1] == "w" and not Dodgem.moves(pos) and "B" not in pos[0]


def test_uci_bad_fens_and_moves_are_reported_and_the_engine_goes_on(engine):
    e = engine()
    error_for = e.error_for
    for game, bad_fen, reason, moves, illegal in [
            ("tictactoe", "3/1Y1/3 w", "'Y'", "b2 a1", "b2"),
            ("tictactoe", "XX1/3/3 b", "2 X and 0 O", "b2", "d4"),
            ("dodgem", "3/3/1WW b", "no car left", "a2b2", "b1b2"),
            ("dodgem", "B2/B2/1WW", "side to move", "a3b3 b1b2", "b3b2"),
            ("queens", "2/2 w", "3 <= N <= 15", "d4", "d5"),
            ("queens", "5/5/2Q2/5/5 b", "empty on a queen's line", "d4 a2", "e5")]:
        variant(e, game)
        e.send("position startpos moves " + moves)
        error_for(f"position fen {bad_fen}", "bad FEN", reason)
        e.send("d")
        fen = REFS[game].fen(ref_after(game, moves.split()))
        assert e.line("Fen: ") == f"Fen: {fen}"               # the position is kept
        message = error_for(f"position startpos moves {moves} {illegal} {moves}",
                            f"'{illegal}'", f"move {len(moves.split()) + 1}")
        assert fen in message
        e.send("d")
        assert e.line("Fen: ") == f"Fen: {fen}"               # stopped before the bad move
        assert e.roundtrip("isready", "readyok") < 2
        assert best_after(e, "go depth 2").group(1) in REFS[game].moves(
            ref_after(game, moves.split()))
    error_for("setoption name UCI_Variant value chess", "UCI_Variant")
    e.send("d")
    assert e.line("Fen: ").startswith("Fen: ")
    assert e.close() == 0


def test_uci_scores_tictactoe_exactly(engine):
    """The empty board is a draw; forced wins and losses show the mate
    distance the solver gives."""
    e = engine()
    variant(e, "tictactoe")
    best_after(e, "position startpos", "go depth 9")
    infos = [line for line in e.before.splitlines() if line.startswith("info depth")]
    assert " score cp 0 " in infos[-1]
    cases = {}
    for pos in sorted(ref.ttt_positions()):
        value = ref.ttt_solve(pos)
        if value and TicTacToe.moves(pos):
            plies = 1000 - abs(value)
            cases.setdefault((value > 0, plies), pos)
    assert {k for k in cases} >= {(True, 1), (True, 3), (True, 5), (False, 2), (False, 4)}
    for (won, plies), pos in sorted(cases.items()):
        best = best_after(e, f"position fen {TicTacToe.fen(pos)}", "go depth 9").group(1)
        infos = [line for line in e.before.splitlines() if line.startswith("info depth")]
        mate = expected_mate(plies, won)
        assert f" score mate {mate} " in infos[-1], (TicTacToe.fen(pos), infos[-1])
        assert ttt_move_value(pos, best) == ref.ttt_solve(pos)
    assert e.close() == 0


def test_uci_dodgem_and_queens_exact_scores(engine):
    e = engine()
    variant(e, "dodgem")
    assert best_after(e, "position startpos", "go depth 20").group(1) in Dodgem.moves(
        Dodgem.start())
    assert " score mate 10 " in [l for l in e.before.splitlines() if l.startswith("info depth")][-1]
    variant(e, "queens")
    # Other stone layouts first: their table entries must not answer for
    # this one (with keys blind to stones, these five led the search of the
    # last to a3, a margin of 3).
    for fen in ("3/1*1/*2 w", "*2/3/2* w", "3/*2/1** w", "1*1/1*1/**1 w", "3/*1*/3 w"):
        best_after(e, f"position fen {fen}", f"go depth {Queens.parse(fen)[0].count('.')}")
    best = best_after(e, "position fen 3/1*1/1*1 w", "go depth 7").group(1)
    assert best == "b3"
    assert " score cp 10050 " in [l for l in e.before.splitlines()
                                  if l.startswith("info depth")][-1]
    assert e.close() == 0


def test_the_compare_tool_draws_its_plot(tmp_path):
    need_module("matplotlib")
    from tuong.tools.compare import main
    path = tmp_path / "nodes.png"
    assert main(["--games", "tictactoe", "--max-depth", "2", "--plot", str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
