"""A match's results: the tally per encounter (Stats, with the pentanomial
pairs the SPRT needs), the live line while games finish (Progress), and
the report at the end (final_report: the score, Elo, LOS and SPRT verdict
of two engines, or a crosstable of more). The Elo and SPRT arithmetic is
tools/match/sprt.py's.
"""
import math
import sys

from tuong.tools.match.sprt import elo_bounds, elo_estimate

POINTS = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}


class Stats:
    """Results per encounter, from the first engine's side."""

    def __init__(self, config):
        self.config = config
        self.wdl = {}                      # (first, second) -> [w, d, l]
        self.penta = {}                    # (first, second) -> [LL, LD, WL+DD, WD, WW]
        self.half_pairs = {}               # pair key -> first engine's score in the 1st game
        self.terminations = {}

    def add(self, job, game):
        red_points = POINTS[game.result][0]
        score = red_points if job.red == job.first else 1 - red_points
        key = (job.first, job.second)
        wdl = self.wdl.setdefault(key, [0, 0, 0])
        wdl[0 if score == 1 else 1 if score == 0.5 else 2] += 1
        self.terminations[game.termination] = self.terminations.get(game.termination, 0) + 1
        if job.pair in self.half_pairs:
            pair_score = self.half_pairs.pop(job.pair) + score
            self.penta.setdefault(key, [0] * 5)[round(pair_score * 2)] += 1
        else:
            self.half_pairs[job.pair] = score

    def head_to_head(self):
        w, d, l = self.wdl.get((0, 1), [0, 0, 0])
        return w, d, l

    def sprt_llr(self):
        return self.config.sprt.llr(self.head_to_head(), self.penta.get((0, 1), [0] * 5))

    def engine_totals(self, index):
        """(points, games, draws) of one engine over all its encounters."""
        points = games = draws = 0
        for (a, b), (w, d, l) in self.wdl.items():
            if index in (a, b):
                mine, theirs = (w, l) if index == a else (l, w)
                points += mine + d / 2
                games += w + d + l
                draws += d
        return points, games, draws


def _bar(done, total, width=20):
    filled = int(width * done / total) if total else width
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _elo_text(w, d, l):
    elo, error = elo_estimate(w, d, l)
    elo_text = f"{elo:+.1f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")
    if math.isfinite(error):
        return f"Elo {elo_text} +/- {error:.1f}"
    if w + d + l == 0:
        return f"Elo {elo_text} +/- inf"
    # After a few games, or near 0% or 100%, the symmetric bar is infinite; give the bounds too.
    low, high = (f"{b:+.0f}" if math.isfinite(b) else ("+inf" if b > 0 else "-inf")
                 for b in elo_bounds(w, d, l))
    return f"Elo {elo_text} +/- inf (95%: {low} to {high})"


class Progress:
    """A live line: rewritten in place on a terminal, one line per game otherwise."""

    def __init__(self, config, stats, total, stream=sys.stdout):
        self.config, self.stats, self.total, self.stream = config, stats, total, stream
        self.tty = stream.isatty()
        self.width = 0

    def update(self, done, job, game):
        names = [e.name for e in self.config.engines]
        if len(names) == 2:
            w, d, l = self.stats.head_to_head()
            n = w + d + l
            line = (f"{_bar(done, self.total)} {done}/{self.total}  {names[0]} vs {names[1]}  "
                    f"W {w} D {d} L {l}  {100 * (w + d / 2) / n:.1f}%  {_elo_text(w, d, l)}")
            if self.config.sprt:
                s = self.config.sprt
                line += f"  LLR {self.stats.sprt_llr():.2f} ({s.lower:.2f}, {s.upper:.2f})"
        else:
            line = f"{_bar(done, self.total)} {done}/{self.total}"
        last = (f"game {job.number}: {names[job.red]} - {names[job.black]} {game.result} "
                f"({game.termination})")
        if self.tty:
            text = f"{line}  | {last}"
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(f"{last}  | {line}\n")
        self.stream.flush()

    def finish(self):
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()


def final_report(config, stats, decision):
    names = [e.name for e in config.engines]
    lines = []
    if len(names) == 2:
        w, d, l = stats.head_to_head()
        n = w + d + l
        score = (w + d / 2) / n if n else 0.5
        lines.append(f"Score of {names[0]} vs {names[1]}: {w} - {l} - {d}  [{score:.3f}] {n}")
        los = 0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l)))) if w + l else 0.5
        lines.append(f"{_elo_text(w, d, l)}, LOS {100 * los:.1f} %, "
                     f"draw ratio {100 * d / n if n else 0:.1f} %")
        penta = stats.penta.get((0, 1), [0] * 5)
        lines.append(f"Pentanomial [LL, LD, WL+DD, WD, WW]: {penta}")
        if config.sprt:
            verdict = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)"}.get(
                decision, "no decision")
            lines.append(f"{config.sprt.describe()}: LLR {stats.sprt_llr():.2f}, {verdict}")
    else:
        lines.append(_crosstable(config, stats))
    if stats.terminations:
        lines.append("Terminations: " + ", ".join(
            f"{k} {v}" for k, v in sorted(stats.terminations.items(), key=lambda kv: -kv[1])))
    return "\n".join(lines)


def _crosstable(config, stats):
    names = [e.name for e in config.engines]
    rows = []
    for i in range(len(names)):
        points, games, draws = stats.engine_totals(i)
        rows.append((points / games if games else 0, i, points, games, draws))
    rows.sort(reverse=True)
    width = max(len(n) for n in names)
    header = (f"{'Rank':<5}{'Name':<{width + 2}}{'Elo':>7}{'+/-':>7}{'Games':>7}{'Score':>8}"
              f"{'Draw':>7}  ")
    header += " ".join(f"{n[:8]:>8}" for n in names)
    out = [header]
    for rank, (_, i, points, games, draws) in enumerate(rows, 1):
        wins = points - draws / 2
        elo, error = elo_estimate(int(wins), draws, games - int(wins) - draws)
        cells = []
        for j in range(len(names)):
            if i == j or ((min(i, j), max(i, j)) not in stats.wdl):
                cells.append(f"{'-':>8}")
                continue
            w, d, l = stats.wdl[(min(i, j), max(i, j))]
            mine = (w if i < j else l) + d / 2
            cells.append(f"{mine:g}/{w + d + l}".rjust(8))
        score = 100 * points / games if games else 0
        draw = 100 * draws / games if games else 0
        out.append(f"{rank:<5}{names[i]:<{width + 2}}{elo:>+7.0f}{error:>7.0f}{games:>7}"
                   f"{score:>7.1f}%{draw:>6.1f}%  " + " ".join(cells))
    return "\n".join(out)

