"""Playing strength below the full: UCI_LimitStrength / UCI_Elo and Skill
Level. Plain Python over the search's MultiPV lines.

A weakened move is chosen the way a weaker player chooses: from a search
that sees less (a node budget: short combinations are found, long ones
missed), among several candidate moves (MultiPV), with a preference for the
better ones that grows with the level (a softmax over the lines' scores at a
temperature that falls as the level rises), never a move judged much worse
than the best (a cap on the loss, wide for a beginner, narrow for a master,
so that a middle level does not hang a rook for nothing), and with a
beginner's greed for material (captures look better than they are). Under
a clock the move is not played at once: a player takes a share of the time
the move is worth.

The parameters are anchored at a few levels and interpolated between them
(nodes geometrically, the rest linearly). Their Elo is an engine scale:
docs/guide/levels.md says how it was calibrated and what it means.
"""
import math
import random
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from tuong.engine.report import SearchInfo
from tuong.engine.rows import xiangqi_squares

DEFAULT_ELO = 1500
MAX_SKILL = 20            # Skill Level 20 is full strength; 0-19 map onto MIN_ELO..
MATE_SCORE = 30000        # engine/game.pxd's MATE: a line's mate as a score

# The rungs of the scale, weakest first: (Elo, nodes a line, candidate
# lines, temperature cp, largest loss cp, greed, think share). The
# parameters are chosen; each rung's Elo is measured with the shipped
# network: 100 games between neighbouring rungs at 2 s + 0.02 s give the
# steps, and three anchors (maxqi, ElephantEye at depths 3 and 4) place the
# scale (docs/guide/levels.md). A new default network plays the same
# parameters at another strength, so it re-measures them.
ANCHORS = [
    (800, 10, 14, 1800, 6000, 0.60, 0.22),
    (1088, 20, 10, 900, 3000, 0.40, 0.25),
    (1376, 40, 8, 450, 1500, 0.30, 0.27),
    (1651, 80, 6, 220, 800, 0.15, 0.30),
    (1815, 130, 5, 150, 550, 0.10, 0.32),
    (1919, 250, 5, 100, 380, 0.07, 0.35),
    (2092, 450, 5, 70, 260, 0.05, 0.37),
    (2386, 800, 4, 50, 180, 0.03, 0.40),
    (2695, 1400, 4, 35, 120, 0.015, 0.42),
    (2964, 2500, 4, 25, 80, 0.0, 0.45),
]
MIN_ELO = ANCHORS[0][0]
MAX_ELO = ANCHORS[-1][0]

# Material as the greed sees it (centipawns), by FEN letter.
PIECE_VALUE = {"r": 900, "c": 450, "n": 400, "h": 400, "a": 200, "b": 200, "e": 200, "p": 100,
               "k": 0}


@dataclass(frozen=True)
class Level:
    """How a level plays (see the module docstring)."""
    elo: int
    nodes: int                # the search's node budget a candidate line (MultiPV shares it)
    candidates: int           # MultiPV lines chosen from
    temperature: float        # cp: the softmax's; lower plays closer to the best line
    max_loss: int             # cp: no move judged worse than the best by more than this
    greed: float              # share of a captured piece's value a capture looks better by
    think_share: float        # share of the move's time budget used, under a clock

    @property
    def search_nodes(self) -> int:
        """The node limit of the MultiPV search a move is chosen from."""
        return self.nodes * self.candidates


def level_for_elo(elo: int) -> Level:
    """The level of an Elo (clamped to MIN_ELO..MAX_ELO)."""
    elo = max(MIN_ELO, min(MAX_ELO, int(elo)))
    for low, high in zip(ANCHORS, ANCHORS[1:]):
        if low[0] <= elo <= high[0]:
            t = (elo - low[0]) / (high[0] - low[0])
            break

    def linear(i: int) -> float:
        return low[i] + t * (high[i] - low[i])

    nodes = round(math.exp(math.log(low[1]) + t * (math.log(high[1]) - math.log(low[1]))))
    return Level(elo=elo, nodes=nodes, candidates=round(linear(2)), temperature=linear(3),
                 max_loss=round(linear(4)), greed=linear(5), think_share=linear(6))


def elo_for_skill(skill: int) -> Optional[int]:
    """Skill Level 0-19 as an Elo; None for 20 (full strength)."""
    skill = max(0, min(MAX_SKILL, int(skill)))
    if skill == MAX_SKILL:
        return None
    return MIN_ELO + round(skill * (MAX_ELO - MIN_ELO) / (MAX_SKILL - 1))


def line_score(info: SearchInfo) -> int:
    """A line's score in centipawns, a mate as a score beyond every evaluation."""
    if info.mate is not None:
        return MATE_SCORE - abs(info.mate) if info.mate > 0 else -MATE_SCORE + abs(info.mate)
    return info.score or 0


class Lines:
    """An on_info callback that keeps the MultiPV lines of each depth
    (aspiration fails are not lines). A search cut off in an iteration
    reports that iteration's lines mixed with the one's before, so a move is
    chosen among the lines of the last whole iteration (SearchResult.depth)."""

    def __init__(self) -> None:
        self.by_depth: Dict[int, Dict[int, SearchInfo]] = {}

    def __call__(self, info: SearchInfo) -> None:
        if info.bound is None and info.pv:
            self.by_depth.setdefault(info.depth, {})[info.multipv] = info

    def lines(self, depth: Optional[int] = None) -> List[SearchInfo]:
        """The lines reported at `depth` (None: the deepest), best first."""
        if depth is None:
            depth = max(self.by_depth, default=0)
        found = self.by_depth.get(depth, {})
        return sorted(found.values(), key=line_score, reverse=True)


def complete(lines: Lines, result_depth: int, searcher, board, level: Level,
             on_info: Optional[Callable[[SearchInfo], None]] = None,
             banned: Sequence[str] = ()) -> List[SearchInfo]:
    """The lines of the search's last whole iteration (`result_depth`). A
    search cut off before its first was whole (a small node budget over many
    candidates) gets them from a search to one ply, so that the weakest
    levels choose among moves too; `on_info` hears that search's lines as
    well, so a GUI sees what the move is chosen from. `banned`: the moves the
    search left out (searchmoves, banmoves, the tables' losing moves), left
    out of that one too."""
    if not lines.lines(result_depth):
        lines.by_depth.clear()

        def hear(info: SearchInfo) -> None:
            lines(info)
            if on_info is not None:
                on_info(info)

        searcher.search(board, depth=1, multipv=level.candidates, on_info=hear,
                        banned=tuple(banned))
        result_depth = 1
    return lines.lines(result_depth)


def choose(lines: Sequence[SearchInfo], level: Level, rng: random.Random,
           fen: Optional[str] = None) -> SearchInfo:
    """The line a player of `level` plays among the search's `lines` (the
    best first). `fen`, the position searched, lets captures look greedy."""
    best = max(line_score(line) for line in lines)
    squares = xiangqi_squares(fen.split()[0]) if fen and level.greed else None
    weighted = []
    for line in lines:
        score: float = line_score(line)
        if best - score > level.max_loss and score < best:
            continue
        if squares is not None:
            move = line.pv[0]
            target = squares[int(move[3]) * 9 + "abcdefghi".index(move[2])]
            if target is not None:
                score += level.greed * PIECE_VALUE[target.lower()]
        weighted.append((line, score))
    top = max(score for _, score in weighted)
    weights = [math.exp((score - top) / level.temperature) for _, score in weighted]
    return rng.choices([line for line, _ in weighted], weights)[0]


def think_ms(level: Level, soft_ms: Optional[float], rng: random.Random) -> float:
    """How long a player of `level` thinks about a move worth `soft_ms` of
    the clock (none without a clock): a share of it, varied a little."""
    if not soft_ms:
        return 0.0
    return soft_ms * level.think_share * rng.uniform(0.6, 1.4)
