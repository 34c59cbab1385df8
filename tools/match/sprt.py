"""Match statistics: the Elo difference with its 95% error bar, and the SPRT.

Elo is logistic Elo from the mean score s: elo = -400 log10(1/s - 1). Its
error bar is cutechess's: the trinomial (win/draw/loss) standard error of
the mean score, times 1.96, mapped through the same curve (half the width
of the interval).

The SPRT is the generalized SPRT (GSPRT) of fishtest and fastchess, in
logistic Elo: the log-likelihood ratio of the observed outcome frequencies
under the two maximum-likelihood distributions whose expected score is that
of elo0 and of elo1. Model: pentanomial by default, over game pairs (each
opening is played twice with colours swapped; a pair's outcome is one of
LL, LD, WL|DD, WD, WW, scored 0 .. 1 by steps of 1/4), because pairs cancel
most of an opening's bias and so decide sooner; `model=trinomial` uses
single games (W/D/L). The test stops when LLR >= log((1-beta)/alpha)
(H1: elo1 accepted) or LLR <= log(beta/(1-alpha)) (H0).
"""
import math

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)                    # loss, draw, win
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)      # LL, LD, WL+DD, WD, WW
Z95 = 1.959963984540054


def score_to_elo(score):
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1) + 0.0    # + 0.0: no '-0.0' in tables


def elo_to_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def elo_estimate(wins, draws, losses):
    """(elo, 95% error margin) from a W/D/L record; inf when undefined."""
    n = wins + draws + losses
    if n == 0:
        return 0.0, math.inf
    s = (wins + draws / 2) / n
    variance = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n
    dev = Z95 * math.sqrt(variance / n)
    low, high = s - dev, s + dev
    if low <= 0 or high >= 1:
        return score_to_elo(s), math.inf
    return score_to_elo(s), (score_to_elo(high) - score_to_elo(low)) / 2


def elo_bounds(wins, draws, losses):
    """95% interval of the Elo difference from the Wilson score interval on
    the points (a game a trial; conservative when there are draws). Unlike
    the normal interval it stays informative at or near a 0% or 100% score:
    100 wins in 100 games give a lower bound of +566."""
    n = wins + draws + losses
    if n == 0:
        return -math.inf, math.inf
    s = (wins + draws / 2) / n
    z2 = Z95 * Z95
    centre = (s + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(s * (1 - s) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = score_to_elo(centre - half) if s > 0 else -math.inf    # exact, not by rounding
    high = score_to_elo(centre + half) if s < 1 else math.inf
    return low, high


def _constrained_mle(freqs, scores, mean):
    """The distribution closest (max likelihood) to `freqs` whose expected
    score is `mean`: q_i = p_i / (1 + lam (a_i - mean)), lam found by
    bisection on sum q_i (a_i - mean) = 0 (decreasing in lam)."""
    shifted = [a - mean for a in scores]
    lo = -1 / max(shifted) + 1e-12
    hi = -1 / min(shifted) - 1e-12
    for _ in range(200):
        lam = (lo + hi) / 2
        if sum(p * x / (1 + lam * x) for p, x in zip(freqs, shifted)) > 0:
            lo = lam
        else:
            hi = lam
    return [p / (1 + lam * x) for p, x in zip(freqs, shifted)]


def llr(counts, scores, elo0, elo1):
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for
    outcome `counts` with per-outcome `scores` (trinomial or pentanomial).
    Empty categories get a count of 1e-3 (as fishtest regularizes) so that
    lopsided records still give a finite ratio."""
    n = sum(counts)
    if n == 0:
        return 0.0
    counts = [c if c > 0 else 1e-3 for c in counts]
    total = sum(counts)
    freqs = [c / total for c in counts]
    q0 = _constrained_mle(freqs, scores, elo_to_score(elo0))
    q1 = _constrained_mle(freqs, scores, elo_to_score(elo1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(freqs, q0, q1))


class Sprt:
    def __init__(self, elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05, model="pentanomial"):
        if not elo0 < elo1:
            raise ValueError(f"SPRT needs elo0 < elo1 (got {elo0}, {elo1})")
        if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
            raise ValueError(f"SPRT needs 0 < alpha, beta and alpha + beta < 1 "
                             f"(got {alpha}, {beta})")
        if model not in ("pentanomial", "trinomial"):
            raise ValueError(f"unknown SPRT model {model!r}: use pentanomial or trinomial")
        self.elo0, self.elo1, self.alpha, self.beta, self.model = elo0, elo1, alpha, beta, model
        self.lower = math.log(beta / (1 - alpha))
        self.upper = math.log((1 - beta) / alpha)

    def llr(self, wdl, pentanomial):
        """`wdl` = (wins, draws, losses); `pentanomial` = [LL, LD, WL+DD, WD, WW]."""
        if self.model == "pentanomial":
            return llr(pentanomial, PENTANOMIAL_SCORES, self.elo0, self.elo1)
        wins, draws, losses = wdl
        return llr([losses, draws, wins], TRINOMIAL_SCORES, self.elo0, self.elo1)

    def decision(self, value):
        """'H1' (elo1 accepted), 'H0' (elo0 accepted) or None (continue)."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def describe(self):
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} "
                f"beta={self.beta:g} ({self.model}, bounds {self.lower:.2f} {self.upper:.2f})")
