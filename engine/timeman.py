"""Clocks to search budgets: how long to think about one move.

The search takes two numbers (milliseconds from the start of the move):
    soft -- the target; no new iteration starts after it,
    hard -- the cap; a running iteration is aborted there.
Both stay below `time_left - overhead`: the overhead is what the move costs
outside the search (pipes, the GUI, process scheduling), so spending only
`time_left - overhead` means the flag never falls because of us.

Plain Python on purpose: it runs once per move.
"""

# A sudden-death game is treated as if this many more moves had to be made
# on the clock. Xiangqi games are long and a budget that shrinks
# geometrically with the clock never runs out, so there is no need for a
# move-number model.
SUDDEN_DEATH_MOVES = 30

# The hard cap is this many times the target ...
HARD_OVER_SOFT = 5
# ... and never more than this share of the usable time (one move of several
# must not eat the clock). With one move to go the whole period is ours.
HARD_SHARE = 0.25
HARD_SHARE_LAST_MOVE = 0.8

# Spend most of the increment now: it comes back after the move.
INC_SHARE = 0.8


def budget(time_left_ms, inc_ms=0, movestogo=None, overhead_ms=30):
    """(soft_ms, hard_ms) for a move, given our clock.

    time_left_ms: our remaining time (may be <= 0 when the GUI lets the
      clock run negative); inc_ms: added after each of our moves;
    movestogo: moves until the next time control (None or 0 = sudden death);
    overhead_ms: the Move Overhead option.
    Both results are >= 1 and hard >= soft.
    """
    time_left_ms = max(0, int(time_left_ms))
    inc_ms = max(0, int(inc_ms or 0))
    usable = time_left_ms - max(0, int(overhead_ms))
    if usable <= 0:
        # Less than the overhead left: move at once and live on the increment.
        return 1, 1
    moves = SUDDEN_DEATH_MOVES if not movestogo or movestogo <= 0 else min(movestogo, 50)
    last_move = moves == 1
    soft = usable / moves + inc_ms * INC_SHARE
    hard = min(HARD_OVER_SOFT * soft, usable * (HARD_SHARE_LAST_MOVE if last_move else HARD_SHARE))
    # With a large increment and a short clock, soft can exceed the cap;
    # the cap wins.
    soft = min(soft, hard)
    return max(1, int(soft)), max(1, int(hard))


def fixed(movetime_ms, overhead_ms=0):
    """(soft_ms, hard_ms) for 'think exactly this long': the whole time is
    a target and a cap. Overhead is taken off when a clock punishes
    overstepping it (xboard `st`), which UCI `movetime` does not."""
    ms = max(1, int(movetime_ms) - max(0, int(overhead_ms)))
    return ms, ms
