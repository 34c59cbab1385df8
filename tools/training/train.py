"""tuong-train: train the evaluation network on self-play positions and write it.

    tuong-train DATA... -o NET.nnue [--hidden 128] [--epochs 12] [--batch 16384]
                [--lr 0.001] [--lambda 1.0] [--validation 0.05] [--seed 1]
                [--scale K] [--limit N] [--threads N] [--chunk 2500000] [--mix BLOCK]
                [--newest N] [--buckets 1|6] [--layer M] [--psqt-rate R] [--init NET]
                [--resume]

DATA are positions files from tuong-datagen --out. The network is the one
engine/nnue.pyx evaluates (engine/network.py: 1260 piece-square features
a perspective -> HIDDEN, clipped ReLU, both perspectives -> 1, and a direct
piece-square path; with --buckets 6, a block of 1260 features a place of the
perspective's own general, the palace folded left-right; with --layer M, a
hidden layer of M clipped-ReLU units after the transformer, whose output adds
to the linear one). Training is on
the CPU with numpy and scipy's sparse products: each position's two
perspectives are sparse rows of 1260 (x buckets) inputs.

The target blends the search's score and the game's result:
    target = lambda * sigmoid(score / K) + (1 - lambda) * result
(result 1, 1/2, 0 for the side to move), and the loss is the mean squared
error of sigmoid(eval / K). K, the scale that turns centipawns into an
expected result, is fitted first on the data (the K that best predicts the
results from the scores) unless --scale gives it. Every position is also
used mirrored left-right (Xiangqi's rules are symmetric). The last
--validation share of the data (games apart from the training ones, but for
the one the cut falls in: the files are in game order)
is held out; the training and validation losses are printed after every
epoch, with a progress bar within it. The learning rate is cut by 3 after
two thirds of the epochs (from epoch 7 of 10). The piece-square path starts from the
hand-crafted evaluation's material and piece-square values, so training
starts from a sane evaluation. Its values are centipawns, so at --lr
(about one unit a step at most) they hardly move in a whole run: gen6's
ended within 0.15 cp of where they started. --psqt-rate R multiplies
their learning rate (400, the output's scale, lets them learn as fast as
the rest; 1, the default, is how every network up to gen7 trained; on
4,000,000 gen7 positions, 3 epochs, both reached a validation loss of
0.00096: the transformer learns the material itself). The network of the
epoch with the lowest validation loss is quantised and written, with the
training's figures in its description. --init NET starts from a network
file's weights instead (its integers over their units, so that writing it
untrained gives the same file back): the next generation fine-tuned on the
previous one's self-play; the network's shape is the run's, and its
validation loss before the first step is printed as epoch 0.

The data need not fit in memory: they are read --chunk positions at a
time (the chunks in a new random order each epoch, the positions within
one shuffled); data within one chunk train exactly as if read whole.
A chunk is a stretch of the files, so of one generation's games, unless
--mix BLOCK deals the training data's blocks of BLOCK positions (a few
dozen games each) at random among the chunks every epoch: then each chunk
is drawn from all the files, and the last chunk of an epoch does not pull
the network towards one file's games. --newest N does the opposite on
purpose: the last N positions before the validation share (the newest
generation's games, when their files are named last) are always the last
chunks of an epoch, so each epoch ends on the games most like those the
next network will meet.
After every epoch the whole state (weights, the optimiser's moments, the
random generator, the losses so far, the best epoch's weights) is written
to NET.nnue.ckpt; --resume goes on from there after an interruption (the
same data and settings; --epochs may grow).
"""
import fcntl
import math
import os
import sys
import time
import zlib

from tuong.engine import network
from tuong.engine.rows import mirror_square
from tuong.tools import doc_parser
from tuong.tools.cli import check_input, check_output, integer, quiet_broken_pipe, real
# The float network: its own module; its names stay importable from here.
from tuong.tools.training.model import QA, QB, QH, SCALE, Model, hand_crafted_psqt  # noqa: F401
from tuong.tools.training.checkpoint import Run, check_resume, saved_meta, saved_scale  # noqa: F401


def need_numpy():
    try:
        import numpy  # noqa: F401
        import scipy.sparse  # noqa: F401
    except ImportError:
        # A missing extra is answered like a bad argument: one line, status 2.
        print("tuong-train: error: needs numpy and scipy: pip install 'tuong[train]'",
              file=sys.stderr)
        sys.exit(2)


# -- features ------------------------------------------------------------------

def features(square, kind, side, mirror=False, buckets=1):
    """Feature indices (n, 32) for the side to move's perspective and the
    other's, -1 where there is no piece, from decoded records
    (tools/dataset.decode); mirrored left-right if asked. With 6 buckets,
    the transformer's features: a block of 1260 by the place of the
    perspective's own general in its palace, the board mirrored when that
    general is on the f-file (engine/nnue.pyx does the same)."""
    import numpy as np
    present = square >= 0
    sq = np.where(present, square, 0).astype(np.int32)
    if mirror:
        sq = mirror_square(sq)
    rank, file = sq // 9, sq % 9
    colour, piece_type = kind // 7, kind % 7
    out = []
    for who in (side, 1 - side):
        persp = who[:, None].astype(np.int32)
        rel_rank = np.where(persp == 0, rank, 9 - rank)
        theirs = (colour != persp).astype(np.int32)
        f = (theirs * 7 + piece_type) * 90 + rel_rank * 9 + file
        if buckets > 1:
            own = present & (kind == persp * 7)          # the perspective's general
            king_file, king_rank = (file * own).sum(axis=1), (rel_rank * own).sum(axis=1)
            block = king_rank * 2 + (king_file == 4)
            flip = (king_file == 5)[:, None]
            f = block[:, None] * network.FEATURES + np.where(flip, f - file + 8 - file, f)
        out.append(np.where(present, f, -1).astype(np.int16))   # features < 7560
    return out


def sparse_rows(idx, n_features=network.FEATURES):
    """A CSR matrix (n, n_features) with a 1 at each index >= 0 of each row."""
    import numpy as np
    import scipy.sparse as sp
    mask = idx >= 0
    counts = mask.sum(axis=1)
    indptr = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    cols = idx[mask]
    data = np.ones(len(cols), dtype=np.float32)
    return sp.csr_matrix((data, cols, indptr), shape=(len(idx), n_features))


# -- the optimiser and the loss ------------------------------------------------

class Adam:
    """Adam; `rates` scales the learning rate of each parameter (1 each by
    default)."""

    def __init__(self, params, lr, rates=None):
        import numpy as np
        self.lr, self.t = lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.rates = list(rates) if rates is not None else [1.0] * len(params)

    def step(self, params, grads, beta1=0.9, beta2=0.999, eps=1e-8):
        import numpy as np
        self.t += 1
        corr = math.sqrt(1 - beta2 ** self.t) / (1 - beta1 ** self.t)
        for p, g, m, v, rate in zip(params, grads, self.m, self.v, self.rates):
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            p -= self.lr * rate * corr * m / (np.sqrt(v) + eps)


def sigmoid(x):
    import numpy as np
    return 1 / (1 + np.exp(-np.clip(x, -50, 50)))


def fit_scale(score, result):
    """The K (centipawns) for which sigmoid(score / K) best predicts the
    results (least squares), searched on a log grid then refined."""
    import numpy as np
    s = score.astype(np.float64)

    def error(k):
        return float(np.mean((sigmoid(s / k) - result) ** 2))

    grid = np.exp(np.linspace(np.log(50), np.log(2000), 60))
    best = min(grid, key=error)
    lo, hi = best / 1.1, best * 1.1
    for _ in range(40):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        lo, hi = (a, hi) if error(a) > error(b) else (lo, b)
    return (lo + hi) / 2


# -- data ------------------------------------------------------------------------

class Data:
    """Positions as feature rows and targets, both mirrors (and, for a
    bucketed network, the piece-square path's own rows: pus, pthem)."""

    def __init__(self, decoded, scale, lam, buckets=1):
        import numpy as np
        side = decoded["side"].astype(np.int32)
        square, kind = decoded["square"], decoded["kind"]
        us, them = features(square, kind, side, buckets=buckets)
        mus, mthem = features(square, kind, side, mirror=True, buckets=buckets)
        self.us = np.concatenate([us, mus])
        self.them = np.concatenate([them, mthem])
        self.pus = self.pthem = None
        if buckets > 1:
            us, them = features(square, kind, side)
            mus, mthem = features(square, kind, side, mirror=True)
            self.pus, self.pthem = np.concatenate([us, mus]), np.concatenate([them, mthem])
        result = decoded["result"].astype(np.float64) * np.where(side == 0, 1, -1)
        wdl = (result + 1) / 2
        target = lam * sigmoid(decoded["score"] / scale) + (1 - lam) * wdl
        self.target = np.concatenate([target, target]).astype(np.float32)

    def __len__(self):
        return len(self.target)

    def rows(self, which, buckets=1):
        """The sparse rows of positions `which` (a slice or indices):
        (transformer us, them, piece-square us, them or None, None)."""
        n = network.FEATURES * buckets
        x = (sparse_rows(self.us[which], n), sparse_rows(self.them[which], n))
        if self.pus is None:
            return x + (None, None)
        return x + (sparse_rows(self.pus[which]), sparse_rows(self.pthem[which]))


def loss_and_grad(model, x_us, x_them, target, scale, p_us=None, p_them=None):
    import numpy as np
    out, cache = model.forward(x_us, x_them, p_us, p_them)
    pred = sigmoid(out / scale)
    diff = pred - target
    loss = float(np.mean(diff ** 2))
    grad_out = 2 * diff * pred * (1 - pred) / scale / len(target)
    return loss, out, cache, grad_out


def evaluate_loss(model, data, scale, batch):
    total = 0.0
    for start in range(0, len(data), batch):
        sl = slice(start, start + batch)
        x_us, x_them, p_us, p_them = data.rows(sl, model.buckets)
        loss, *_ = loss_and_grad(model, x_us, x_them, data.target[sl], scale, p_us, p_them)
        total += loss * len(data.target[sl])
    return total / max(1, len(data))


class Source:
    """The positions of the data files as one sequence, read by ranges."""

    def __init__(self, paths, limit=None):
        from tuong.tools.training import dataset
        self.parts = [(str(path), dataset.count(path)) for path in paths]
        total = sum(count for _, count in self.parts)
        self.total = min(total, limit) if limit else total

    def read(self, start, stop):
        """Positions start .. stop - 1, decoded (dataset.decode's arrays)."""
        return self.read_ranges([(start, stop)])

    def read_ranges(self, ranges):
        """The positions of several (start, stop) ranges, one after another."""
        import numpy as np
        from tuong.tools.training import dataset
        pieces = []
        for start, stop in ranges:
            offset = 0
            for path, count in self.parts:
                low, high = max(start, offset), min(stop, offset + count)
                if low < high:
                    pieces.append(dataset.read_range(path, low - offset, high - low))
                offset += count
        return {key: np.concatenate([p[key] for p in pieces]) for key in pieces[0]}

    def signature(self):
        """The files and the records used of each (a file that grew since,
        read to the same --limit, is the same data)."""
        used, left = [], self.total
        for path, count in self.parts:
            used.append([os.path.basename(path), min(count, left)])
            left -= used[-1][1]
        return used


def deal_chunks(rng, train_end, chunk, mix=0, newest=0):
    """One epoch's chunks, in training order: each a list of (start, stop)
    ranges of positions 0 .. train_end - 1, together each position once.
    Without `mix`, chunk after chunk of the files in a random order (one
    chunk: the generator is not drawn from, so a run that fits in one chunk
    is the whole-data run); with it, blocks of `mix` positions dealt at
    random among as many chunks as keep each within `chunk` positions, each
    chunk's blocks in file order. With
    `newest`, the last `newest` positions are dealt the same way apart,
    and their chunks come last."""
    split = max(0, train_end - newest)
    older = _deal(rng, 0, split, chunk, mix) if split else []
    return older + (_deal(rng, split, train_end, chunk, mix) if split < train_end else [])


def _deal(rng, begin, end, chunk, mix):
    starts = list(range(begin, end, chunk))
    if len(starts) == 1:
        return [[(begin, end)]]
    if not mix:
        return [[(starts[i], min(starts[i] + chunk, end))]
                for i in rng.permutation(len(starts))]
    import numpy as np
    mix = min(mix, chunk)
    blocks = np.arange(begin, end, mix)
    # As many hands as keep each within `chunk` positions (chunk // mix blocks).
    hands = max(len(starts), -(-len(blocks) // max(1, chunk // mix)))
    dealt = np.array_split(rng.permutation(len(blocks)), hands)
    return [[(int(blocks[i]), int(min(blocks[i] + mix, end))) for i in np.sort(hand)]
            for hand in dealt]


def train(run, source, train_end, scale, lam, epochs, batch, lr, chunk, log=print,
          progress=True, checkpoint=None, mix=0, newest=0):
    """Adam on mini-batches from positions 0 .. train_end - 1 of `source`
    (the rest validates), the learning rate cut by 3 for the last third;
    the run's history [(epoch, train loss, validation loss)] when done.
    The run is saved to `checkpoint` after every epoch."""
    model, opt, rng = run.model, run.opt, run.rng
    held_out = train_end < source.total
    for epoch in range(run.epoch + 1, epochs + 1):
        # Set every epoch (a resume with more epochs moves the cut later).
        opt.lr = lr / 3 if epoch >= max(2, epochs * 2 // 3 + 1) else lr
        chunks = deal_chunks(rng, train_end, chunk, mix, newest)
        total, seen = 0.0, 0
        for number, ranges in enumerate(chunks, 1):
            data = Data(source.read_ranges(ranges), scale, lam, model.buckets)
            order = rng.permutation(len(data))
            label = f"epoch {epoch}/{epochs}" + (f" chunk {number}/{len(chunks)}"
                                                 if len(chunks) > 1 else "")
            bar = _bar(range(0, len(order), batch), label, progress)
            for start in bar:
                idx = order[start:start + batch]
                x_us, x_them, p_us, p_them = data.rows(idx, model.buckets)
                loss, _, cache, grad_out = loss_and_grad(model, x_us, x_them,
                                                          data.target[idx], scale, p_us, p_them)
                opt.step(model.params(), model.backward(x_us, x_them, cache, grad_out))
                total += loss * len(idx)
                seen += len(idx)
                if hasattr(bar, "set_postfix"):
                    bar.set_postfix(loss=f"{total / seen:.6f}")
        valid = validation_loss(model, source, train_end, scale, lam, chunk, batch)
        run.history.append((epoch, total / max(1, seen), valid))
        log(f"epoch {epoch}: train loss {total / max(1, seen):.6f}, validation loss {valid:.6f}")
        if held_out and valid < min((v for _, _, v in run.history[:-1]), default=math.inf):
            run.best = [p.copy() for p in model.params()]
        run.epoch = epoch
        if checkpoint:
            run.save(checkpoint)
    if held_out and run.best is not None:
        # The epoch that predicted the held-out games best: later ones fit
        # the training games' noise (the data are few for the network).
        for param, kept in zip(model.params(), run.best):
            param[...] = kept
    return run.history


def validation_loss(model, source, train_end, scale, lam, chunk, batch):
    """The loss on the held-out positions (train_end on); nan if there are none."""
    total, rows = 0.0, 0
    for begin in range(train_end, source.total, chunk):
        data = Data(source.read(begin, min(begin + chunk, source.total)), scale, lam,
                    model.buckets)
        total += evaluate_loss(model, data, scale, batch) * len(data)
        rows += len(data)
    return total / rows if rows else float("nan")


def _bar(iterable, label, progress):
    if not progress:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=label, unit="batch", leave=False, file=sys.stderr)


@quiet_broken_pipe
def main(argv=None):
    parser = doc_parser("tuong-train", __doc__)
    parser.add_argument("data", nargs="+", help="positions files (tuong-datagen --out)")
    parser.add_argument("-o", "--output", required=True, help="network file to write")
    parser.add_argument("--hidden", type=integer(16, network.MAX_HIDDEN),
                        help="units of the feature transformer, a multiple of 16 (default 128)")
    parser.add_argument("--buckets", type=int, choices=network.BUCKETS,
                        help="king buckets of the feature transformer (6: the folded palace)")
    parser.add_argument("--layer", type=integer(0, network.MAX_LAYER),
                        help="units of a hidden layer after the transformer (0: none)")
    parser.add_argument("--init", metavar="NET",
                        help="start from this network file's weights (fine-tuning; its shape "
                             "is the run's) instead of random ones")
    parser.add_argument("--epochs", type=integer(1, 1000), default=12,
                        help="passes over the data in all, a resumed run's included (default 12)")
    parser.add_argument("--batch", type=integer(64, 1 << 20), default=16384,
                        help="positions a step (default 16384)")
    parser.add_argument("--lr", type=real(1e-6, 1.0), default=0.001,
                        help="Adam's learning rate, a third of it for the last third of the "
                             "epochs (default 0.001)")
    parser.add_argument("--lambda", dest="lam", type=real(0, 1), default=1.0,
                        help="weight of the search score in the target (the rest: the result)")
    parser.add_argument("--validation", type=real(0, 0.5), default=0.05,
                        help="the share of the positions, the last ones, kept out to "
                             "validate on (default 0.05)")
    parser.add_argument("--scale", type=real(1, 100000), help="K, centipawns (default: fitted)")
    parser.add_argument("--limit", type=integer(1), help="use at most this many positions")
    parser.add_argument("--seed", type=int, default=1,
                        help="the initial weights and the order of the data (default 1)")
    parser.add_argument("--threads", type=integer(1, 256), help="BLAS threads (default: all)")
    parser.add_argument("--chunk", type=integer(1000), default=2_500_000,
                        help="positions read at a time (memory: about 300 bytes each)")
    parser.add_argument("--mix", type=integer(0), default=0, metavar="BLOCK",
                        help="deal blocks of BLOCK positions among the chunks every epoch, "
                             "so each chunk draws on all the files (0: a chunk is a stretch)")
    parser.add_argument("--newest", type=integer(0), default=0, metavar="N",
                        help="train the last N training positions (the newest generation's, "
                             "its files named last) last in every epoch (0: all in one order)")
    parser.add_argument("--psqt-rate", type=real(0, 100000), default=1.0, metavar="R",
                        help="the piece-square path's learning rate as a multiple of --lr "
                             "(its values are centipawns: 400 learns at the output's scale)")
    parser.add_argument("--resume", action="store_true",
                        help="go on from NET.nnue.ckpt, the last finished epoch")
    args = parser.parse_args(argv)
    start_net = None
    if args.init:
        check_input(parser, args.init, "--init")
        try:
            start_net = network.read(args.init)
        except (network.NetworkError, OSError) as e:
            parser.error(f"--init: {e}")
        for name in ("hidden", "buckets", "layer"):
            given, its = getattr(args, name), getattr(start_net, name)
            if given is not None and given != its:
                parser.error(f"--init: {args.init} has {name} {its}, not --{name} {given}")
            setattr(args, name, its)
    args.hidden = args.hidden or 128
    args.buckets = args.buckets or 1
    args.layer = args.layer or 0
    if args.hidden % 16:
        parser.error("--hidden must be a multiple of 16")
    for path in args.data:
        check_input(parser, path, "DATA")
    check_output(parser, args.output, "--output")
    need_numpy()
    checkpoint = args.output + ".ckpt"
    if args.resume:
        check_resume(parser, checkpoint, args.epochs)
    if args.threads:
        try:
            from threadpoolctl import threadpool_limits
            threadpool_limits(args.threads)
        except ImportError:
            # Say so: a run meant to share the machine would take every core.
            print("tuong-train: --threads needs threadpoolctl (pip install 'tuong[train]'); "
                  "the numeric library uses its own count", file=sys.stderr)
    import numpy as np
    from tuong.tools.training import dataset
    try:
        source = Source(args.data, args.limit)
    except (OSError, dataset.DatasetError) as e:
        parser.error(str(e))
    n = source.total
    if n < 100:
        parser.error(f"{n} positions: too few to train on")
    started = time.time()
    # One run a network: two would write each other's checkpoints.
    lock = open(checkpoint + ".lock", "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        parser.error(f"another run is training {args.output} ({checkpoint}.lock is held)")
    resumed_scale = saved_scale(checkpoint) if args.resume and not args.scale else None
    if args.scale:
        scale = args.scale
    elif resumed_scale is not None:      # the run's own K: a fit again may differ in its
        scale = resumed_scale            # last digits (the order of float sums)
    else:                                # fitted on (at most) the first 4 million
        try:
            sample = source.read(0, min(n, 4_000_000))
        except dataset.DatasetError as e:
            parser.error(str(e))
        side = sample["side"].astype(np.int32)
        wdl = (sample["result"] * np.where(side == 0, 1, -1) + 1) / 2
        scale = fit_scale(sample["score"], wdl)
        del sample
    print(f"{n:,} positions from {len(args.data)} file(s); K = {scale:.1f} cp"
          f"{' (fitted)' if not args.scale else ''}", flush=True)
    train_end = n - int(n * args.validation)
    print(f"training on {2 * train_end:,} rows (mirrors included), "
          f"validating on {2 * (n - train_end):,}"
          f"{f', in chunks of {args.chunk:,} positions' if train_end > args.chunk else ''}",
          flush=True)
    rng = np.random.default_rng(args.seed)
    if start_net is None:
        model = Model(args.hidden, rng, args.buckets, args.layer)
    else:
        try:
            model = Model.from_network(start_net)
        except ValueError as e:
            parser.error(f"--init: {args.init}: {e}")
    settings = {"data": source.signature(), "hidden": args.hidden, "buckets": args.buckets,
                "batch": args.batch,
                "lr": args.lr, "lambda": args.lam, "validation": args.validation,
                "scale": round(scale, 6), "seed": args.seed, "chunk": args.chunk}
    # Absent when off: older checkpoints still resume.
    if args.layer:
        settings["layer"] = args.layer
    if args.mix:
        settings["mix"] = args.mix
    if args.newest:
        settings["newest"] = args.newest
    if args.psqt_rate != 1:
        settings["psqt_rate"] = args.psqt_rate
    if start_net is not None:
        settings["init"] = [os.path.basename(args.init),
                            zlib.crc32(network.encode(start_net))]
    rates = [args.psqt_rate if p is model.P else 1.0 for p in model.params()]
    run = Run(model, Adam(model.params(), args.lr, rates), rng, settings)
    if args.resume:
        try:
            run.load(checkpoint)
        except (ValueError, OSError, KeyError) as e:
            parser.error(f"--resume: {e}")
        except Exception as e:      # a cut file: zipfile.BadZipFile, EOFError, ...
            parser.error(f"--resume: {checkpoint} cannot be read ({type(e).__name__}: {e}); "
                         "delete it to start again")
        print(f"resuming after epoch {run.epoch} of {args.epochs}", flush=True)
    elif start_net is not None and train_end < n:
        before = validation_loss(model, source, train_end, scale, args.lam, args.chunk,
                                 args.batch)
        print(f"epoch 0 ({args.init}): validation loss {before:.6f}", flush=True)
    try:
        history = train(run, source, train_end, scale, args.lam, args.epochs, args.batch,
                        args.lr, args.chunk, log=lambda line: print(line, flush=True),
                        checkpoint=checkpoint, mix=args.mix, newest=args.newest)
    except dataset.DatasetError as e:
        parser.error(str(e))
    except KeyboardInterrupt:
        print(f"\ninterrupted: {checkpoint} holds epoch {run.epoch}; --resume goes on",
              file=sys.stderr)
        return 130
    best_epoch, final_train, final_valid = min(history, key=lambda h: h[2]) \
        if train_end < n else history[-1]
    print(f"keeping epoch {best_epoch} (the lowest validation loss)", flush=True)
    minutes = (time.time() - started) / 60
    description = (f"{n} positions, hidden {args.hidden}"
                   f"{f', {args.buckets} king buckets' if args.buckets > 1 else ''}"
                   f"{f', layer {args.layer}' if args.layer else ''}, "
                   f"epoch {best_epoch} of {args.epochs}, "
                   f"lambda {args.lam}, "
                   f"{f'psqt rate {args.psqt_rate:g}, ' if args.psqt_rate != 1 else ''}"
                   f"{f'from {os.path.basename(args.init)}, ' if args.init else ''}"
                   f"K {scale:.0f}, loss {final_train:.5f}/{final_valid:.5f}, seed {args.seed}")
    network.write(args.output, model.quantise(description))
    print(f"wrote {args.output} ({description}) in {minutes:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
