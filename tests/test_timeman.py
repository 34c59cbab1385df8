"""engine/timeman.py: clocks to (soft, hard) budgets."""
import itertools

import pytest

from tuong.engine.timeman import budget, fixed

CLOCKS = [0, 1, 10, 29, 30, 31, 50, 100, 500, 1000, 5000, 60_000, 3_600_000]
INCS = [0, 10, 100, 1000, 5000]
MTGS = [None, 0, 1, 2, 5, 40, 200]
OVERHEADS = [0, 30, 100]


def test_budget_is_ordered_and_inside_the_usable_time():
    for left, inc, mtg, overhead in itertools.product(CLOCKS, INCS, MTGS, OVERHEADS):
        soft, hard = budget(left, inc, mtg, overhead)
        case = f"budget({left}, {inc}, {mtg}, {overhead}) = {soft, hard}"
        assert 1 <= soft <= hard, case
        # Never beyond time left minus the overhead (1 ms is the floor: a
        # search cannot take less, and depth 1 is never aborted anyway).
        assert hard <= max(1, left - overhead), case


def test_soft_is_a_fraction_and_hard_a_cap():
    soft, hard = budget(60_000, 0, None, 30)
    assert 1500 <= soft <= 2500          # about a thirtieth of a minute
    assert hard == 5 * soft


def test_increment_is_mostly_spent():
    without = budget(60_000, 0)[0]
    with_inc = budget(60_000, 2000)[0]
    assert with_inc - without >= 1500


def test_last_move_before_the_control_may_use_most_of_the_clock():
    soft, hard = budget(10_000, 0, movestogo=1, overhead_ms=30)
    assert 7000 <= hard <= 9970
    assert budget(10_000, 0, movestogo=40)[1] < 2500


def test_clock_below_the_overhead_means_move_at_once():
    assert budget(20, 0, None, 30) == (1, 1)
    assert budget(500, 0, None, 30) == (1, 1)        # 30 moves x 30 ms do not fit
    assert budget(-500, 100, None, 30) == (1, 1)     # GUIs may send negative clocks


def test_absurd_clocks_are_capped_before_they_reach_c():
    soft, hard = budget(10**30, 10**30, None, 30)
    assert hard < 2**31


def test_fixed_time_takes_off_the_overhead_only_when_asked():
    assert fixed(1000) == (1000, 1000)
    assert fixed(1000, 30) == (970, 970)
    assert fixed(10, 30) == (1, 1)


def test_a_one_second_game_spends_its_clock():
    """At 1 s + 10 ms (the tenth-of-the-time match) the default Move Overhead
    leaves the first moves about three times the increment: at 30 ms it
    reserved 960 of the 1,000 ms for the overheads of the moves to come, and
    tuong played the whole game on its increment."""
    assert budget(1000, 10)[0] >= 30
    left = 1000
    for _ in range(60):                      # each move spends its target
        soft, _ = budget(left, 10)
        left += 10 - soft - 1
    assert left < 500                        # the bank went into the moves


MOVE_OVERHEADS = [10, 30]       # the default (engine/timeman.py's budget) and what it was


@pytest.mark.parametrize("overhead", MOVE_OVERHEADS)
def test_one_second_plus_ten_ms_never_loses_even_at_the_cap_every_move(overhead):
    """The brief's worst case: 1 s + 10 ms per move, and every move runs to
    its hard cap and then loses 5 ms more outside the search (pipes, GUI;
    less than the increment and the Move Overhead)."""
    left = 1000
    for move in range(500):
        soft, hard = budget(left, 10, None, overhead)
        left -= hard + 5
        assert left > 0, f"flag fell on move {move + 1}"
        left += 10
    assert left > 30             # the clock settles instead of draining away


def spend(move, soft, hard):
    """A search keeps near its target but now and then (every 8th move, say
    a fail low) runs to the cap."""
    return hard if move % 8 == 7 else soft


# (start, inc, latency, moves) for each Move Overhead: its default (10 ms,
# engine/timeman.py's budget) and the 30 ms it was, the latency outside the
# search below it (a GUI slower than that needs a higher Move Overhead).
# Without an increment every move's latency comes out of the clock, so the
# game lengths are what such a clock can hold: the reserve a 10 ms overhead
# keeps (32 moves' worth) holds fewer moves than 30's did (3 s + 0 at 5 ms:
# 120 moves, against 221).
GAMES = {
    10: [(1000, 10, 9, 500), (3000, 0, 5, 100), (10_000, 100, 9, 300), (60_000, 0, 9, 120),
         (60_000, 10, 9, 120)],
    30: [(1000, 10, 9, 500), (3000, 0, 5, 150), (10_000, 100, 29, 300), (60_000, 0, 29, 120),
         (60_000, 10, 29, 120)],
}


@pytest.mark.parametrize("start,inc,latency,moves,overhead", [
    (*game, overhead) for overhead, games in GAMES.items() for game in games])
def test_whole_games_never_lose_on_time(start, inc, latency, moves, overhead):
    """Plus `latency` ms outside the search each move, below the Move Overhead."""
    left = start
    for move in range(moves):
        soft, hard = budget(left, inc, None, overhead)
        left -= spend(move, soft, hard) + latency
        assert left > 0, f"flag fell on move {move + 1}"
        left += inc


def test_movestogo_periods_never_lose_on_time():
    """40 moves in 10 s, repeating."""
    left = 10_000
    for move in range(200):
        to_go = 40 - move % 40
        soft, hard = budget(left, 0, to_go, 30)
        left -= spend(move, soft, hard) + 25
        assert left > 0, f"flag fell on move {move + 1}"
        if to_go == 1:
            left += 10_000


def test_iteration_clock_spends_more_when_unsettled_and_less_when_settled():
    from tuong.engine.timeman import FIRST_JUDGED_DEPTH, IterationClock
    depth = FIRST_JUDGED_DEPTH

    def last_target(bests, scores):
        clock = IterationClock(1000)
        for best, score in zip(bests, scores):
            target = clock.target_ms(best, score)
        return target

    steady = last_target(["a"] * 6, [20] * 6)
    changing = last_target(["a", "b", "a", "b", "a", "b"], [20] * 6)
    falling = last_target(["a"] * 6, [200, 150, 100, 50, 0, -50])
    assert steady < 1000 < changing and falling > steady
    # The decision itself: go on while under NEXT_SHARE of the target.
    clock = IterationClock(1000)
    assert clock.go_on(depth, "a", 0, 100)
    assert not clock.go_on(depth + 1, "a", 0, 900)
    # Without a target (pondering, fixed depth) it never stops the search.
    assert IterationClock(None).go_on(depth, "a", 0, 10 ** 9)


def test_an_increment_game_does_not_end_with_its_clock_unspent():
    """10 s + 0.1 s, each move spending 0.65 of its target (what tuong
    spent late in its games against Fairy-Stockfish) and 10 ms outside the
    search: the clock in hand settles near 1.6 s. Planned over 30 moves, as
    without an increment, it settled near 2.5 s, and tuong ended such games
    with 2.8 s unused (Fairy-Stockfish 0.8 s)."""
    left = 10_000
    for _move in range(150):
        soft, hard = budget(left, 100, None, 30)
        left -= int(0.65 * soft) + 10
        left += 100
    assert 1000 < left < 2200
