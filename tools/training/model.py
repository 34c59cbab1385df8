"""The float network tuong-train trains: its weights (the feature
transformer, the piece-square path, the output and the optional hidden
layer), its forward and backward passes, its quantisation into the engine's
network file (engine/network.py), and the piece-square path's start from the
hand-crafted evaluation. The training loop that fits it is train.py's."""
import math

from tuong.engine import network, weights

SCALE = 400             # centipawns per unit of the float network's output
QA, QB = 255, 1024
QH = 1024               # the hidden layer's weights' unit


class Model:
    """The float network: W (1260 x buckets, H), b (H), P (1260) centipawns,
    V (2H), c; with a hidden layer of M units, also L (2H, M), Lb (M), Lv (M),
    whose output adds to V's (a skip connection: the layer learns what the
    linear output misses)."""

    def __init__(self, hidden, rng, buckets=1, layer=0):
        import numpy as np
        self.hidden, self.buckets, self.layer = hidden, buckets, layer
        self.W = (rng.standard_normal((network.FEATURES * buckets, hidden)) * 0.05) \
            .astype(np.float32)
        self.b = np.full(hidden, 0.1, dtype=np.float32)
        self.P = hand_crafted_psqt().astype(np.float32)
        self.V = (rng.standard_normal(2 * hidden) * 0.01).astype(np.float32)
        self.c = np.zeros(1, dtype=np.float32)
        if layer:
            # Drawn after the rest, so a network without the layer starts
            # from the same weights as before the layer existed.
            self.L = (rng.standard_normal((2 * hidden, layer)) / math.sqrt(2 * hidden)) \
                .astype(np.float32)
            self.Lb = np.full(layer, 0.5, dtype=np.float32)      # mid-range: every unit learns
            self.Lv = (rng.standard_normal(layer) * 0.01).astype(np.float32)

    @classmethod
    def from_network(cls, net):
        """The float network a network file holds (its integers over their
        units), to train on from there: quantise() gives the same file back."""
        import numpy as np
        if net.scale != SCALE or (net.qa, net.qb) != (QA, QB) or (net.layer and net.qh != QH):
            raise ValueError("its units are not the trainer's (QA, QB, QH, scale)")
        model = cls.__new__(cls)
        model.hidden, model.buckets, model.layer = net.hidden, net.buckets, net.layer

        def ints(data, code, unit):
            return (np.frombuffer(data, dtype=code).astype(np.float64) / unit).astype(np.float32)

        model.W = ints(net.ft_weights, "<i2", QA).reshape(network.FEATURES * net.buckets,
                                                           net.hidden)
        model.b = ints(net.ft_bias, "<i2", QA)
        model.P = ints(net.psqt_weights, "<i4", QA * QB / SCALE)
        model.V = ints(net.out_weights, "<i2", QB)
        model.c = np.array([net.out_bias / (QA * QB)], dtype=np.float32)
        if net.layer:
            model.L = ints(net.layer_weights, "<i2", QH).reshape(net.layer, 2 * net.hidden).T.copy()
            model.Lb = ints(net.layer_bias, "<i4", QA * QH)
            model.Lv = ints(net.layer_out, "<i2", QB)
        return model

    def params(self):
        extra = [self.L, self.Lb, self.Lv] if self.layer else []
        return [self.W, self.b, self.P, self.V, self.c] + extra

    def forward(self, x_us, x_them, p_us=None, p_them=None):
        """Centipawns from the side to move, and what backward() needs.
        p_us, p_them: the piece-square path's rows when they are not the
        transformer's (a bucketed network)."""
        import numpy as np
        a_us = x_us @ self.W + self.b
        a_them = x_them @ self.W + self.b
        h_us = np.clip(a_us, 0, 1)
        h_them = np.clip(a_them, 0, 1)
        H = self.hidden
        net = h_us @ self.V[:H] + h_them @ self.V[H:] + self.c[0]
        h = z = g = None
        if self.layer:
            h = np.concatenate([h_us, h_them], axis=1)
            z = h @ self.L + self.Lb
            g = np.clip(z, 0, 1)
            net = net + g @ self.Lv
        p_us = x_us if p_us is None else p_us
        p_them = x_them if p_them is None else p_them
        psqt = (p_us @ self.P - p_them @ self.P) / 2
        return net * SCALE + psqt, (a_us, a_them, h_us, h_them, p_us, p_them, h, z, g)

    def backward(self, x_us, x_them, cache, grad_out):
        """Gradients of the parameters, given d loss / d eval (centipawns)."""
        import numpy as np
        a_us, a_them, h_us, h_them, p_us, p_them, h, z, g_layer = cache
        H = self.hidden
        g = (grad_out * SCALE).astype(np.float32)
        dV = np.concatenate([h_us.T @ g, h_them.T @ g])
        dc = np.array([g.sum()], dtype=np.float32)
        d_us = np.outer(g, self.V[:H])
        d_them = np.outer(g, self.V[H:])
        extra = []
        if self.layer:
            dLv = g_layer.T @ g
            dz = np.outer(g, self.Lv) * ((z > 0) & (z < 1))
            dL = h.T @ dz
            dh = dz @ self.L.T
            d_us += dh[:, :H]
            d_them += dh[:, H:]
            extra = [dL.astype(np.float32), dz.sum(axis=0).astype(np.float32),
                     dLv.astype(np.float32)]
        d_us *= (a_us > 0) & (a_us < 1)
        d_them *= (a_them > 0) & (a_them < 1)
        dW = x_us.T @ d_us + x_them.T @ d_them
        db = d_us.sum(axis=0) + d_them.sum(axis=0)
        half = (grad_out / 2).astype(np.float32)
        dP = p_us.T @ half - p_them.T @ half
        return [dW.astype(np.float32), db.astype(np.float32), np.asarray(dP, np.float32).ravel(),
                dV.astype(np.float32), dc] + extra

    def quantise(self, description=""):
        """The network file's Network."""
        import numpy as np

        def q16(values, unit, limit=32767):
            return np.clip(np.round(values * unit), -limit, limit).astype("<i2").tobytes()

        # The engine sums the output in 32 bits, and each accumulator of up
        # to 32 pieces in 16: the loader refuses weights that could overflow.
        # (The hidden layer it sums in 64 bits.)
        out_limit = min(32767, (2 ** 31 - 1) // (2 * QA * 2 * self.hidden))
        W = np.clip(self.W, -(32767 / QA - 1) / 33, (32767 / QA - 1) / 33)
        layer = {}
        if self.layer:
            # Each unit's sum must fit 32 bits (QA * sum |L_j| + |Lb_j| < 2^31):
            # a unit past that (a float sum |L_j| beyond 8,000; never seen) is
            # scaled down into it.
            L, Lb = self.L.T.astype(np.float64), self.Lb.astype(np.float64)
            bound = QA * QH * (np.abs(L).sum(axis=1) + np.abs(Lb)) + QA * L.shape[1]
            shrink = np.minimum(1.0, (2 ** 31 - 1) / bound)[:, None]
            layer = dict(
                layer=self.layer, qh=QH, layer_weights=q16(L * shrink, QH),
                layer_bias=np.round(Lb * shrink[:, 0] * QA * QH).astype("<i4").tobytes(),
                layer_out=q16(self.Lv, QB))
        return network.Network(
            hidden=self.hidden, ft_bias=q16(np.clip(self.b, -1, 1), QA), ft_weights=q16(W, QA),
            psqt_weights=np.round(self.P * QA * QB / SCALE).astype("<i4").tobytes(),
            out_weights=q16(self.V, QB, out_limit),
            out_bias=int(round(float(self.c[0]) * QA * QB)), qa=QA, qb=QB, scale=SCALE,
            description=description, buckets=self.buckets, **layer)


def hand_crafted_psqt():
    """The piece-square path's start: the shipped hand-crafted material and
    piece-square values, as each perspective sees them (its own pieces
    plus, the other side's minus)."""
    import numpy as np
    data = weights.read(weights.DEFAULT_PATH)
    material = [0] + [data["material"][letter] for letter in weights.MATERIAL_PIECES]
    P = np.zeros(network.FEATURES)
    for theirs in (0, 1):
        for t in range(7):
            table = data["piece_square"][weights.PIECES[t]]
            for r in range(10):
                for f in range(9):
                    # Their piece on relative rank r stands on its own rank 9 - r.
                    own_rank = 9 - r if theirs else r
                    value = material[t] + table[9 - own_rank][f if f <= 4 else 8 - f]
                    P[(theirs * 7 + t) * 90 + r * 9 + f] = -value if theirs else value
    return P
