"""Clocks to search budgets: how long to think about one move.

The search takes two numbers (milliseconds from the start of the move):
    soft -- the target; no new iteration starts after it,
    hard -- the cap; a running iteration is aborted there.
Both stay below `time_left - overhead`: the overhead is what the move costs
outside the search (pipes, the GUI, process scheduling), so spending only
`time_left - overhead` means the flag never falls because of us.

Plain Python on purpose: it runs once per move.
"""

# Clocks above this (24 days) are as good as infinite: the 32-bit bound the
# protocols take (protocol/uci.py's HIGHEST), kept here so a plan never asks
# the searcher for more than a `go` could.
MAX_MS = 2**31 - 1

# A sudden-death game is planned as if this many more moves had to be made
# on the clock. Xiangqi games are long; since the plan is redone every move
# the budget shrinks geometrically with the clock and never plans it away.
SUDDEN_DEATH_MOVES = 30
# With an increment larger than what a move costs outside the search, every
# move brings time of its own, so the clock in hand can be spent sooner, in
# the middlegame where it decides most (docs/testing.md: the SPRT of
# 2026-11-24; 12 spent it too soon and lost, 2026-11-28). An increment
# below that overhead brings nothing, so such a clock is planned as sudden
# death.
SUDDEN_DEATH_MOVES_WITH_INC = 20

# The hard cap is this many times the target ...
HARD_OVER_SOFT = 5
# ... and never more than this share of what is left after the overhead (one
# move of several must not eat the clock). With one move to go before the
# control the whole period is ours.
HARD_SHARE = 0.25
HARD_SHARE_LAST_MOVE = 0.8


def budget(time_left_ms, inc_ms=0, movestogo=None, overhead_ms=10):
    """(soft_ms, hard_ms) for a move, given our clock.

    time_left_ms: our remaining time (may be <= 0 when the GUI lets the
      clock run negative); inc_ms: added after each of our moves;
    movestogo: moves until the next time control (None or 0 = sudden death);
    overhead_ms: the Move Overhead option.
    Both results are >= 1, hard >= soft, and hard <= time left - overhead.
    """
    time_left_ms = min(max(0, int(time_left_ms)), MAX_MS)
    inc_ms = min(max(0, int(inc_ms or 0)), MAX_MS)
    overhead_ms = max(0, int(overhead_ms))
    if movestogo and movestogo > 0:
        moves = min(movestogo, 50)
    else:
        moves = SUDDEN_DEATH_MOVES_WITH_INC if inc_ms > overhead_ms else SUDDEN_DEATH_MOVES
    # The time for the planned moves, the increments they bring included,
    # less the overhead of every one of them (as Stockfish reckons it):
    # without an increment, the moves still to come must be affordable too.
    pool = time_left_ms + inc_ms * (moves - 1) - overhead_ms * (moves + 2)
    usable = time_left_ms - overhead_ms
    if pool <= 0 or usable <= 0:
        return 1, 1                              # move at once
    soft = pool / moves
    hard = min(HARD_OVER_SOFT * soft, usable * (HARD_SHARE_LAST_MOVE if moves == 1 else HARD_SHARE))
    soft = min(soft, hard)                       # the cap wins over the target
    return max(1, int(soft)), max(1, int(hard))


def fixed(movetime_ms, overhead_ms=0):
    """(soft_ms, hard_ms) for 'think exactly this long': the whole time is
    a target and a cap. Overhead is taken off when a clock punishes
    overstepping it (xboard `st`), which UCI `movetime` does not."""
    ms = max(1, min(int(movetime_ms), MAX_MS) - max(0, int(overhead_ms)))
    return ms, ms


# -- within a move: when to stop deepening -------------------------------------
# After each iteration the search asks whether to start another. The target
# is the soft budget, scaled by how settled the search looks: more when the
# best move keeps changing or the score is falling, less when the same move
# has come out of several iterations in a row. A new iteration starts only
# while less than NEXT_SHARE of the scaled target is spent: the next one
# typically costs about as much as everything before it.
NEXT_SHARE = 0.7
FIRST_JUDGED_DEPTH = 5          # shallower iterations are too quick to matter
INSTABILITY_WEIGHT = 0.6        # a best-move change adds this share of the target...
INSTABILITY_DECAY = 0.5         # ... and the memory of changes halves each iteration
FALL_UNIT = 120                 # centipawns of score drop that add the whole target again
FALL_MIN, FALL_MAX = 0.8, 1.6   # bounds of the falling-score factor
STABLE_ITERATIONS = 4           # the same best move this many times running ...
STABLE_FACTOR = 0.75            # ... scales the target by this


class IterationClock:
    """Whether to start another iteration, judged after each one."""

    def __init__(self, soft_ms):
        self.soft_ms = soft_ms
        self.instability = 0.0
        self.best = None
        self.same_best = 0
        self.reference = None           # the score a few iterations back

    def target_ms(self, best, score):
        """Record an iteration's result and return the scaled target."""
        self.instability *= INSTABILITY_DECAY
        if best != self.best:
            if self.best is not None:
                self.instability += 1.0
            self.same_best = 0
        self.best = best
        self.same_best += 1
        falling = 1.0
        if self.reference is not None:
            falling = 1.0 + (self.reference - score) / FALL_UNIT
            falling = min(max(falling, FALL_MIN), FALL_MAX)
        # Track the score slowly, so one jittery iteration is not a fall.
        self.reference = score if self.reference is None else (self.reference + score) / 2
        target = (self.soft_ms or 0) * (1.0 + INSTABILITY_WEIGHT * self.instability) * falling
        if self.same_best >= STABLE_ITERATIONS:
            target *= STABLE_FACTOR
        return target

    def go_on(self, depth, best, score, elapsed_ms):
        """After iteration `depth` found `best` with `score` (from the side
        to move, centipawns) at `elapsed_ms` on this move's clock. Without a
        target (pondering, fixed depth...) it only keeps count."""
        target = self.target_ms(best, score)
        if not self.soft_ms:
            return True
        if depth < FIRST_JUDGED_DEPTH:
            return elapsed_ms < self.soft_ms
        return elapsed_ms < target * NEXT_SHARE
