"""tuong-tune: fit the evaluation's weights to game results (Texel's method).

    tuong-tune POSITIONS [-o new.json] [--weights start.json] [--validation 0.1]
               [--lambda 0] [--l2 0.001] [--iterations 300] [--report 10]
               [--seed 1] [--limit N] [--freeze KEY,KEY..]

POSITIONS is a file of tuong-positions (`<board> <side> <result> <score>`
lines; .gz read as gzip). The evaluation is a linear function of its
tunable weights (engine.board.eval_features), so the positions become a
sparse matrix X once, and the evaluation of every position under weights
w is X @ w (+ a tiny rounding term of the palace attack, kept fixed). With
p = sigmoid(K * eval) for Red, the loss is the mean logistic loss
-(t log p + (1 - t) log(1 - p)) against the target t: the game's result,
or with --lambda L, (1 - L) * result + L * sigmoid(K * recorded score).

1. A --validation share of the positions (seeded) is held out.
2. K is fitted first: the 1-D minimum of the loss over K, weights as given.
3. The weights are fitted by L-BFGS-B with the analytic gradient
   X^T (p - t) K / n, plus --l2 * mean(((w - w0) / 100)^2), a pull toward
   the starting weights (a 100 cp change of every weight costs --l2), which
   also settles the directions the data cannot tell apart (a piece's
   material against its whole table). Each weight stays within the range
   the weights file allows; weights no training position uses stay as they
   are, and so do the --freeze'd keys. Tables stay left-right symmetric by
   construction (files f-i are d-a). attack_weight, missing_advisor and
   missing_elephant enter the evaluation non-linearly and are kept.
4. The loss on both sets is printed before, every --report iterations and
   after; the weights are rounded to integers and written to -o.

Needs numpy and scipy: pip install -e '.[tune]'.
"""
import gzip
import sys
import time

from tuong.engine import weights as W
from tuong.engine.board import MAX_FEATURES_PER_POSITION, Board, _trace_fens, evaluate
from tuong.engine.evaluate import load_weights
from tuong.tools import doc_parser
from tuong.tools.cli import check_input, check_output, integer, real

CHUNK = 20000          # positions traced at a time (bounds the scratch memory)


def read_positions(path, limit=None):
    """(fens, results, scores): scores are NaN where none was recorded."""
    try:
        return _read_positions(path, limit)
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text (byte {err.start}: {err.reason})") from None
    except (gzip.BadGzipFile, EOFError) as err:
        raise ValueError(f"{path}: {err}") from None


def _read_positions(path, limit):
    opener = gzip.open if str(path).endswith(".gz") else open
    fens, results, scores = [], [], []
    with opener(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 4:
                raise ValueError(f"{path}:{number}: expected '<board> <side> <result> <score>'")
            try:
                result = float(fields[2])
                score = float("nan") if fields[3] == "-" else float(fields[3])
            except ValueError:
                raise ValueError(f"{path}:{number}: bad result or score") from None
            if result not in (0.0, 0.5, 1.0):
                raise ValueError(f"{path}:{number}: result must be 1, 0.5 or 0")
            fens.append(f"{fields[0]} {fields[1]}")
            results.append(result)
            scores.append(score)
            if limit and len(fens) >= limit:
                break
    if not fens:
        raise ValueError(f"{path}: no positions")
    return fens, results, scores


def feature_matrix(fens):
    """(X, residual): X a CSR matrix, one row per position, one column per
    tunable weight; evaluate (Red's view) = X @ w + residual."""
    import numpy as np
    from scipy import sparse
    parts, residuals = [], []
    for start in range(0, len(fens), CHUNK):
        chunk = fens[start:start + CHUNK]
        room = len(chunk) * MAX_FEATURES_PER_POSITION
        indices, values = np.empty(room, np.intc), np.empty(room, np.float64)
        starts, residual = np.empty(len(chunk) + 1, np.longlong), np.empty(len(chunk))
        used = _trace_fens(chunk, indices, values, starts, residual)
        parts.append(sparse.csr_matrix((values[:used].copy(), indices[:used].copy(), starts),
                                       shape=(len(chunk), len(W.FEATURES))))
        residuals.append(residual)
    return sparse.vstack(parts, format="csr"), np.concatenate(residuals)


def softplus(z):
    import numpy as np
    return np.logaddexp(0.0, z)


def sigmoid(z):
    from scipy.special import expit
    return expit(z)


def logistic_loss(z, t):
    """Mean of -(t log sigmoid(z) + (1 - t) log(1 - sigmoid(z)))."""
    return float((softplus(z) - t * z).mean())


def fit_k(evals, results):
    """The K minimising the logistic loss of sigmoid(K * eval) against results."""
    import numpy as np
    from scipy.optimize import minimize_scalar
    best = minimize_scalar(lambda log_k: logistic_loss(np.exp(log_k) * evals, results),
                           bounds=(np.log(1e-5), np.log(0.1)), method="bounded",
                           options={"xatol": 1e-6})
    return float(np.exp(best.x))


class Problem:
    """The training loss and its gradient, in scaled variables: weight j is
    w0[j] + v[j] / scale[j], where scale[j] is the root mean square of its
    column (so that every variable moves the loss alike; L-BFGS converges
    much faster). Frozen weights are not variables at all."""

    def __init__(self, X, residual, target, k, w0, l2, free):
        import numpy as np
        self.X, self.residual, self.target, self.k = X, residual, target, k
        self.w0, self.l2 = np.asarray(w0, float), l2
        self.free = np.flatnonzero(free)
        rms = np.sqrt(np.asarray(X.multiply(X).mean(axis=0)).ravel())
        self.scale = np.where(rms > 0, rms, 1.0)[self.free]
        self.Xf = X[:, self.free].tocsr()
        self.XfT = self.Xf.T.tocsr()
        self.base = X @ self.w0 + residual          # the evaluation at the start
        self.n = X.shape[0]

    def weights(self, v):
        w = self.w0.copy()
        w[self.free] += v / self.scale
        return w

    def __call__(self, v):
        import numpy as np
        delta = v / self.scale
        z = self.k * (self.base + self.Xf @ delta)
        loss = logistic_loss(z, self.target)
        residual = sigmoid(z) - self.target
        grad = self.k * (self.XfT @ residual) / self.n / self.scale
        # The pull toward the start: l2 * mean((delta / 100)^2) over all weights.
        m = len(self.w0)
        loss += self.l2 * float(np.sum((delta / 100) ** 2)) / m
        grad += self.l2 * 2 * delta / 100 ** 2 / m / self.scale
        return loss, grad

    def bounds(self):
        lows, highs = zip(*W.bounds())
        out = []
        for j, s in zip(self.free, self.scale):
            out.append(((lows[j] - self.w0[j]) * s, (highs[j] - self.w0[j]) * s))
        return out


def tune(args, out=print):
    import numpy as np
    from scipy.optimize import minimize
    clock = time.monotonic()
    start_weights = W.read(args.weights) if args.weights else W.default()
    load_weights(args.weights)                    # the rounding term follows the start
    fens, results, scores = read_positions(args.positions, args.limit)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(fens))
    n_val = int(round(len(fens) * args.validation))
    if len(fens) - n_val < 2:
        raise ValueError("too few positions to train on")
    X, residual = feature_matrix([fens[i] for i in order])
    results = np.asarray(results)[order]
    scores = np.asarray(scores)[order]
    w0 = np.asarray(W.vector(start_weights), float)
    evals = X @ w0 + residual
    # The trace must reproduce the engine's evaluation: check a sample.
    for i in range(0, len(fens), max(1, len(fens) // 50)):
        board = Board(fens[order[i]])
        assert evals[i] == evaluate(board) * (1 if board.turn == "w" else -1), fens[order[i]]
    train, val = slice(n_val, None), slice(0, n_val)
    out(f"{len(fens)} positions ({len(fens) - n_val} training, {n_val} validation), "
        f"{X.nnz / len(fens):.1f} features a position; traced in {time.monotonic() - clock:.1f} s")

    k = fit_k(evals[train], results[train])
    target = results.copy()
    if args.lambda_:
        recorded = ~np.isnan(scores)
        target[recorded] = (1 - args.lambda_) * results[recorded] + \
            args.lambda_ * sigmoid(k * scores[recorded])
        out(f"targets: (1 - {args.lambda_}) x result + {args.lambda_} x sigmoid(K x score) "
            f"for the {recorded.sum()} positions with a score")
    out(f"K = {k:.6f} (fitted on the training set: sigmoid(K x 400) = {sigmoid(k * 400):.3f})")

    def losses(w):
        e = X @ w + residual
        return (logistic_loss(k * e[train], target[train]),
                logistic_loss(k * e[val], target[val]) if n_val else float("nan"))

    before = losses(w0)
    out(f"loss before: train {before[0]:.6f}  validation {before[1]:.6f}")

    used = np.asarray((X[train] != 0).sum(axis=0)).ravel() > 0
    free = used.copy()
    for key in args.freeze:
        free[slice(*W.SPANS[key])] = False
    problem = Problem(X[train], residual[train], target[train], k, w0, args.l2, free)
    iteration = [0]

    def report(v):
        iteration[0] += 1
        if args.report and iteration[0] % args.report == 0:
            tr, va = losses(problem.weights(v))
            out(f"  iteration {iteration[0]:4d}: train {tr:.6f}  validation {va:.6f}  "
                f"({time.monotonic() - clock:.0f} s)")

    fit_clock = time.monotonic()
    result = minimize(problem, np.zeros(len(problem.free)), jac=True, method="L-BFGS-B",
                      bounds=problem.bounds(), callback=report,
                      options={"maxiter": args.iterations, "maxcor": 20, "ftol": 1e-12,
                               "gtol": 1e-9})
    fitted = problem.weights(result.x)
    if args.anchor:
        # Only K times the evaluation matters to the loss; the search's
        # margins are in centipawns, so put the scale back where a piece
        # says (the loss is the same, with K scaled the other way).
        piece, value = args.anchor
        index = W.SPANS["material"][0] + W.MATERIAL_PIECES.index(piece)
        scale = value / fitted[index]
        fitted = fitted * scale
        k /= scale
        out(f"anchored {piece} = {value}: every weight x {scale:.3f}, K = {k:.6f}")
    after_exact = losses(fitted)
    comment = (f"tuong-tune {args.positions}: {len(fens) - n_val} training positions, "
               f"K {k:.6f}, lambda {args.lambda_}, l2 {args.l2}; loss train "
               f"{before[0]:.6f} -> {after_exact[0]:.6f}, validation {before[1]:.6f} -> "
               f"{after_exact[1]:.6f}")
    clipped = sum(not low <= round(v) <= high for v, (low, high) in zip(fitted, W.bounds()))
    if clipped:
        out(f"warning: {clipped} weights past their range were clipped to it (the loss "
            "after rounding below says what that cost)")
    new = W.with_vector(start_weights, fitted, comment=comment)
    after = losses(np.asarray(W.vector(new), float))
    out(f"L-BFGS-B: {result.nit} iterations, {result.nfev} evaluations in "
        f"{time.monotonic() - fit_clock:.1f} s ({result.message})")
    out(f"loss after:  train {after_exact[0]:.6f}  validation {after_exact[1]:.6f}")
    out(f"rounded:     train {after[0]:.6f}  validation {after[1]:.6f}")
    changes = ", ".join(f"{p} {start_weights['material'][p]}->{new['material'][p]}"
                        for p in W.MATERIAL_PIECES)
    out(f"material: {changes}; tempo {start_weights['tempo']}->{new['tempo']}")
    if args.output:
        W.write(new, args.output)
        out(f"wrote {args.output} ({time.monotonic() - clock:.1f} s in all)")
    return {"k": k, "before": before, "after": after, "weights": new}


def main(argv=None):
    parser = doc_parser("tuong-tune", __doc__)
    parser.add_argument("positions", help="positions file (tuong-positions)")
    parser.add_argument("-o", "--output", help="weights file to write")
    parser.add_argument("--weights", help="starting weights (default: engine/weights.json)")
    parser.add_argument("--validation", type=real(0), default=0.1,
                        help="share held out (default 0.1)")
    parser.add_argument("--lambda", dest="lambda_", type=real(0), default=0.0, metavar="L",
                        help="weight of the recorded score in the target (default 0)")
    parser.add_argument("--l2", type=real(0), default=0.001,
                        help="pull toward the starting weights (default 0.001)")
    parser.add_argument("--iterations", type=integer(1), default=300)
    parser.add_argument("--report", type=integer(0), default=10,
                        help="print every N iterations (0: never)")
    parser.add_argument("--seed", type=integer(0, 2**32 - 1), default=1,
                        help="the validation split")
    parser.add_argument("--limit", type=integer(1), help="read at most this many positions")
    parser.add_argument("--anchor", metavar="PIECE=VALUE",
                        help="rescale the fitted weights so that PIECE (A B N R C P) is worth "
                             "VALUE, e.g. R=900: the loss does not change (but for weights "
                             "the scale takes past their range, clipped and said), the "
                             "search's centipawn margins keep their meaning; not with --freeze")
    parser.add_argument("--freeze", default="",
                        help=f"keys kept as they are, e.g. material,tempo "
                             f"(tunable: {', '.join(W.SPANS)})")
    args = parser.parse_args(argv)
    args.freeze = [k for k in args.freeze.split(",") if k]
    if args.anchor:
        piece, _, value = args.anchor.partition("=")
        if piece not in W.MATERIAL_PIECES or not value.isdigit() or int(value) <= 0:
            parser.error(f"--anchor: expected PIECE=VALUE with PIECE in "
                         f"{' '.join(W.MATERIAL_PIECES)}, e.g. R=900")
        args.anchor = (piece, int(value))
        if args.freeze:
            # The anchor scales every weight, so it would move the frozen ones too.
            parser.error("--anchor scales every weight: it cannot keep --freeze'd keys as "
                         "they are (tune without --anchor, or freeze nothing)")
    bad = [k for k in args.freeze if k not in W.SPANS]
    if bad:
        parser.error(f"--freeze: {bad[0]!r} is not a tunable key ({', '.join(W.SPANS)})")
    if not args.validation < 1 or not args.lambda_ <= 1:
        parser.error("--validation must be in [0, 1), --lambda in [0, 1]")
    check_input(parser, args.positions)
    if args.weights:
        check_input(parser, args.weights, "--weights")
    if args.output:
        check_output(parser, args.output, "-o")
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        parser.error("needs numpy and scipy: pip install -e '.[tune]'")
    try:
        tune(args, out=lambda line: print(line, flush=True))
    except (OSError, ValueError) as err:
        # A bad positions or weights file, found as it is read (before the fit).
        parser.error(err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
