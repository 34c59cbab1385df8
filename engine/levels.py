"""Playing strength below the full: UCI_LimitStrength / UCI_Elo and Skill
Level. Plain Python over the search's MultiPV lines.

A weakened move is chosen the way a weaker player chooses: from a search
that sees less (a node budget: short combinations are found, long ones
missed; even the weakest sees a capture and its recapture, the search's
quiescence at one ply, so a piece left hanging is seen and a move that
hangs one is seen as such, while a threat two moves deep is not), among
several candidate moves (MultiPV), with a preference for the better ones
that grows with the level (a softmax over the lines' scores at a
temperature that falls as the level rises: among moves of about the same
worth a beginner's choice is nearly random, but a piece's worth is not
given away at random), never a move judged much worse than the best (a cap
on the loss, wide for a beginner, narrow for a master), with a beginner's
greed for material (a capture that does not lose the piece back, by static
exchange, looks better than it is), and without the aimless shuffle (a
move that takes a piece back to where it just came from looks worse than
it is). Under a clock the move is not played at once: a player takes a
share of the time the move is worth.

The parameters are anchored at a few levels and interpolated between them
(nodes geometrically, the rest linearly). Their Elo is an engine scale:
docs/guide/levels.md says how it was calibrated and what it means.
"""
import math
import random
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from tuong.engine.board import Board, static_exchange_at_least
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
    (800, 10, 14, 1800, 6000, 0.75, 0.22),
    (1088, 20, 10, 900, 3000, 0.75, 0.25),
    (1376, 40, 8, 450, 1500, 0.75, 0.27),
    (1651, 80, 6, 220, 800, 0.70, 0.30),
    (1815, 130, 5, 150, 550, 0.60, 0.32),
    (1919, 250, 5, 100, 380, 0.45, 0.35),
    (2092, 450, 5, 70, 260, 0.30, 0.37),
    (2386, 800, 4, 50, 180, 0.20, 0.40),
    (2695, 1400, 4, 35, 120, 0.10, 0.42),
    (2964, 2500, 4, 25, 80, 0.0, 0.45),
]
MIN_ELO = ANCHORS[0][0]
MAX_ELO = ANCHORS[-1][0]

# A move that takes a piece back where it came from on its side's last
# RETURN_MOVES moves (returns()) looks worse by RETURN_PENALTY temperatures:
# chosen e^-1.5, about a fifth, as often as a move as good that is not one.
RETURN_MOVES = 2
RETURN_PENALTY = 1.5

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
    greed: float              # chance a capture that wins material at once is taken outright
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


def score_cp(score: Optional[int], mate: Optional[int]) -> int:
    """A search's score (`score` centipawns, or a mate in `mate` moves,
    negative when being mated) as centipawns, a mate as a score beyond every
    evaluation: MATE_SCORE less its distance."""
    if mate is not None:
        return MATE_SCORE - abs(mate) if mate > 0 else -MATE_SCORE + abs(mate)
    return score or 0


def line_score(info: SearchInfo) -> int:
    """A line's score in centipawns, a mate as a score beyond every evaluation."""
    return score_cp(info.score, info.mate)


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


def returns(move: str, history: Sequence[str]) -> bool:
    """Whether `move` takes a piece back to a square it left on one of its
    side's last RETURN_MOVES moves (`history`: the game's moves, the
    opponent's last one last): a1-a2 then a2-a1, or a1-a2, a2-b2, b2-a1, with
    the opponent's moves between. Followed by squares, not pieces: the
    piece on `move`'s square is taken to be the one that went there."""
    square = move[:2]
    for own in history[-2::-2][:RETURN_MOVES]:
        if own[2:] == square:
            square = own[:2]
            if square == move[2:]:
                return True
    return False


def choose(lines: Sequence[SearchInfo], level: Level, rng: random.Random,
           fen: Optional[str] = None, history: Sequence[str] = ()) -> SearchInfo:
    """The line a player of `level` plays among the search's `lines` (the
    best first). `fen`, the position searched, lets captures look greedy;
    `history`, the moves of the game that led to it (the opponent's last
    one last), lets a move back where a piece came from look aimless."""
    best = max(line_score(line) for line in lines)
    allowed = [line for line in lines
               if best - line_score(line) <= level.max_loss or line_score(line) >= best]
    squares = xiangqi_squares(fen.split()[0]) if fen else None

    def taken(line: SearchInfo) -> Optional[str]:
        move = line.pv[0]
        return squares[int(move[3]) * 9 + "abcdefghi".index(move[2])] \
            if squares is not None else None

    if fen is not None and level.greed and rng.random() < level.greed:
        # Greed: a capture that wins material at once, by static exchange, is
        # taken without a second look (the most valuable such; the better line).
        board = Board(fen)
        grabs = [line for line in allowed if taken(line) is not None
                 and static_exchange_at_least(board, line.pv[0], 1)]
        if grabs:
            return max(grabs, key=lambda line: (PIECE_VALUE[str(taken(line)).lower()],
                                                line_score(line)))
    weighted = []
    for line in allowed:
        score = float(line_score(line))
        if history and taken(line) is None and returns(line.pv[0], history):
            score -= RETURN_PENALTY * level.temperature
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
