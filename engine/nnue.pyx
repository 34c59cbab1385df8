# The network evaluation: an efficiently updatable network (NNUE) in
# integer arithmetic. engine/network.py says what a network file holds and
# reads it; this module keeps the network in C arrays and evaluates.
#
# Inputs: one feature a piece, as each side sees the board (a perspective):
#   (mine or theirs, type K A B N R C P, square) = 2 x 7 x 90 = 1260,
# where Black sees the board upside down (rank r is 9 - r), so a position and
# its colour-flipped twin give the same two perspectives swapped.
# Layer 1 (the feature transformer): 1260 -> H int16 values a perspective,
# the accumulator, kept up to date by make/unmake (three columns a move at
# most: the piece off its square, onto the new one, the captured piece off);
# beside it a direct piece-square path, 1260 -> 1.
# Output: clipped ReLU of [side to move's H, the other side's H] -> 1:
#   eval = (sum_i clamp(a_i, 0, QA) * w_i + b + (psqt[us] - psqt[them]) / 2)
#          * SCALE / (QA * QB)
# with QA the accumulator's unit and QB the output weights' unit, both read
# from the file (tuong-train writes 255 and 1024),
# and the piece-square path in the output's unit too (QA * QB / SCALE a
# centipawn), fine enough that its rounding does not show.
# The loops (engine/nnue_simd.h) run over int16 arrays that the C compiler
# vectorises: compiled for the base instruction set of the target (SSE2 on
# any x86-64, NEON on aarch64) and, on x86-64, also for AVX2 and AVX-512BW,
# the widest the processor has chosen at load time; so one wheel serves
# every machine, and every path gives the same numbers (a test).
#
# King buckets (a version 2 network): the feature transformer has a block of
# 1260 features for each place of the perspective's own general in its
# palace, folded left-right (a general on the f-file sees the board
# mirrored, as if on the d-file): 3 ranks x 2 files = 6 blocks. A general's
# move that changes its block or mirror makes that perspective's next
# accumulator a refresh (marked with view -1, done when it is needed); every
# other move updates both perspectives incrementally within their views.
# The piece-square path is never bucketed.
#
# A hidden layer (a version 3 network): M units after the transformer, each
#   z_j = clamp(sum_i clamp(a_i, 0, QA) * L_ji + Lb_j, 0, QA * QH)
# over both perspectives' H values (side to move's first), and the output
# adds (sum_j z_j * Lv_j) / QH to the sum above (a skip connection); z is
# kept in its full precision (units of QA * QH): rounding it to the
# accumulator's 1/QA only added error (about a centipawn at the worst, in
# the test of the quantised network against the float one). The loader refuses a unit
# whose sum could leave 32 bits (QA * sum |L_j| + |Lb_j| >= 2^31), so the
# loop may add in any order and every path gives the same numbers.

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

from tuong.engine.game cimport bounded_eval
from tuong.engine.accumulator cimport Accumulator, AccumulatorRing, NN_RING, NN_MAX_HIDDEN
from tuong.engine.position cimport (
    Position, Move, KIND_OF, RED, BLACK, EMPTY, move_from, move_to, file_of, rank_of,
    king_square,
)

cdef extern from "nnue_simd.h":
    ctypedef struct TuongLoops:
        const char* name
        void (*update2)(int16_t*, const int16_t*, const int16_t*, const int16_t*, int) noexcept nogil
        void (*update3)(int16_t*, const int16_t*, const int16_t*, const int16_t*,
                        const int16_t*, int) noexcept nogil
        void (*add)(int16_t*, const int16_t*, int) noexcept nogil
        int32_t (*clipped_dot)(const int16_t*, const int16_t*, int, int16_t) noexcept nogil
        void (*layer)(const int16_t*, const int16_t*, const int16_t*, const int32_t*, int, int,
                      int16_t, int32_t*) noexcept nogil
    TuongLoops tuong_loops
    int tuong_simd_available(int path) noexcept nogil
    int tuong_simd_select(int path) noexcept nogil

SIMD_PATHS = ("portable", "avx2", "avx512")

cdef enum:
    N_FEATURES = 1260
    NO_FEATURE = 0xFFFF
    MAX_LAYER = 32

cdef int nn_active = 0
cdef int generation = 0           # bumped by every install: old rings are stale
cdef int hidden = 0
cdef int buckets = 1              # feature blocks by the general's place (1: none)
cdef int qa = 255, qb = 1024, scale = 400   # install() sets them from the file
cdef int16_t* ft_bias = NULL      # [hidden]
cdef int16_t* ft_weights = NULL   # [N_FEATURES][hidden]
cdef int32_t* psqt_weights = NULL # [N_FEATURES]
cdef int16_t* out_weights = NULL  # [2 * hidden]: side to move's, then the other's
cdef int32_t out_bias = 0
cdef int layer = 0                # units of the hidden layer (0: none)
cdef int qh = 1024
cdef int16_t* layer_weights = NULL    # [layer][2 * hidden]
cdef int32_t* layer_bias = NULL       # [layer]
cdef int16_t* layer_out = NULL        # [layer]
# FEATURE[perspective][kind][square]: the feature of a piece of that kind
# (0..13) on that 16x16 square, or NO_FEATURE off the board.
cdef uint16_t FEATURE[2][14][256]
# The same with the files reversed (a perspective whose general is on the f-file).
cdef uint16_t MIRRORED[2][14][256]
# VIEW[perspective][square of its own general]: block * 2 + mirror (the
# perspective's view: which 1260 features, and whether mirrored).
cdef int32_t VIEW[2][256]

_description = None               # the network in force: its file's name and description


cdef void init_features():
    cdef int persp, kind, sq, f, r, colour, kind_type
    for persp in range(2):
        for kind in range(14):
            colour, kind_type = kind // 7, kind % 7
            for sq in range(256):
                f, r = file_of(sq), rank_of(sq)
                if f < 0 or f > 8 or r < 0 or r > 9:
                    FEATURE[persp][kind][sq] = NO_FEATURE
                    continue
                if persp == BLACK:
                    r = 9 - r
                FEATURE[persp][kind][sq] = ((colour != persp) * 7 + kind_type) * 90 + r * 9 + f
                MIRRORED[persp][kind][sq] = ((colour != persp) * 7 + kind_type) * 90 + r * 9 \
                    + 8 - f
    for persp in range(2):
        for sq in range(256):
            f, r = file_of(sq), rank_of(sq)
            if persp == BLACK:
                r = 9 - r
            if 3 <= f <= 5 and 0 <= r <= 2:          # the palace, from its own side
                VIEW[persp][sq] = (r * 2 + (f == 4)) * 2 + (f == 5)
            else:
                VIEW[persp][sq] = 0


init_features()
# The widest loops the processor runs (measured: the fastest on this machine).
for _path in (2, 1):
    if tuong_simd_select(_path) == 0:
        break


cdef inline int32_t view_of(const Position* p, int persp) noexcept nogil:
    return VIEW[persp][king_square(p, persp)] if buckets > 1 else 0


cdef inline int ft_feature(int32_t view, int persp, int kind, int sq) noexcept nogil:
    """The transformer's feature of a piece for a perspective in its view."""
    if view & 1:
        return (view >> 1) * N_FEATURES + MIRRORED[persp][kind][sq]
    return (view >> 1) * N_FEATURES + FEATURE[persp][kind][sq]


cdef void refresh_perspective(const Position* p, Accumulator* a, int persp) noexcept nogil:
    """One perspective's accumulator from scratch: biases plus every piece's column."""
    cdef int piece, sq, kind, i
    cdef int32_t view = view_of(p, persp)
    cdef const int16_t* column
    memcpy(a.values[persp], ft_bias, hidden * sizeof(int16_t))
    a.psqt[persp] = 0
    a.view[persp] = view
    for piece in range(16, 48):
        sq = p.square[piece]
        if sq == 0:
            continue
        kind = KIND_OF[piece]
        column = ft_weights + ft_feature(view, persp, kind, sq) * hidden
        tuong_loops.add(a.values[persp], column, hidden)
        a.psqt[persp] += psqt_weights[FEATURE[persp][kind][sq]]


cdef void refresh(const Position* p, Accumulator* a) noexcept nogil:
    """The accumulators of p from scratch."""
    refresh_perspective(p, a, RED)
    refresh_perspective(p, a, BLACK)


cdef inline Accumulator* current(Position* p) noexcept nogil:
    """The position's accumulator, refreshed first if the ring is stale (or
    a perspective after its general changed block)."""
    cdef AccumulatorRing* ring = &p.nn
    cdef Accumulator* a
    if ring.generation != generation or ring.depth <= 0:
        refresh(p, &ring.entries[ring.top])
        ring.generation = generation
        ring.depth = 1
    a = &ring.entries[ring.top]
    if a.view[RED] < 0:
        refresh_perspective(p, a, RED)
    if a.view[BLACK] < 0:
        refresh_perspective(p, a, BLACK)
    return a


cdef void nn_push(Position* p, Move m) noexcept nogil:
    """Before make(p, m): the next ring entry, the current one with the move's
    columns added and taken away."""
    cdef AccumulatorRing* ring = &p.nn
    cdef const Accumulator* src = current(p)
    cdef int top = (ring.top + 1) % NN_RING
    cdef Accumulator* dst = &ring.entries[top]
    cdef int frm = move_from(m), to = move_to(m)
    cdef int kind = KIND_OF[p.board[frm]], captured = p.board[to]
    cdef int persp, i, add, sub, cap
    cdef int32_t view
    cdef const int16_t* w_add
    cdef const int16_t* w_sub
    cdef const int16_t* w_cap
    cdef const int16_t* s
    cdef int16_t* d
    for persp in range(2):
        add = FEATURE[persp][kind][to]
        sub = FEATURE[persp][kind][frm]
        dst.psqt[persp] = src.psqt[persp] + psqt_weights[add] - psqt_weights[sub]
        if captured:
            cap = FEATURE[persp][KIND_OF[captured]][to]
            dst.psqt[persp] -= psqt_weights[cap]
        view = src.view[persp]
        dst.view[persp] = view
        if buckets > 1 and kind == persp * 7 and VIEW[persp][to] != view:
            dst.view[persp] = -1          # its general changed block: refreshed when needed
            continue
        add = ft_feature(view, persp, kind, to)
        sub = ft_feature(view, persp, kind, frm)
        w_add = ft_weights + add * hidden
        w_sub = ft_weights + sub * hidden
        s = src.values[persp]
        d = dst.values[persp]
        if captured:
            cap = ft_feature(view, persp, KIND_OF[captured], to)
            w_cap = ft_weights + cap * hidden
            tuong_loops.update3(d, s, w_add, w_sub, w_cap, hidden)
        else:
            tuong_loops.update2(d, s, w_add, w_sub, hidden)
    ring.top = top
    if ring.depth < NN_RING:
        ring.depth += 1


cdef void nn_pop(Position* p) noexcept nogil:
    """After unmake(p): back to the entry below (stale if there is none)."""
    cdef AccumulatorRing* ring = &p.nn
    ring.top = (ring.top + NN_RING - 1) % NN_RING
    ring.depth -= 1


cdef int nn_evaluate(Position* p) noexcept nogil:
    """The network's score of p, centipawns, from the side to move."""
    cdef const Accumulator* a = current(p)
    cdef int us = p.side, them = p.side ^ 1
    cdef int j
    cdef int64_t layer_total = 0
    cdef int32_t z[MAX_LAYER]
    cdef int64_t total = <int64_t> tuong_loops.clipped_dot(a.values[us], out_weights, hidden, qa) \
        + tuong_loops.clipped_dot(a.values[them], out_weights + hidden, hidden, qa) + out_bias \
        + (<int64_t> a.psqt[us] - a.psqt[them]) // 2
    if layer:
        tuong_loops.layer(a.values[us], a.values[them], layer_weights, layer_bias, hidden, layer,
                          qa, z)
        for j in range(layer):
            if z[j] > 0:
                layer_total += min(z[j], <int64_t> qa * qh) * layer_out[j]
        total += layer_total // qh
    return bounded_eval(total * scale // (qa * qb))


cdef int nn_accumulator_matches(Position* p) noexcept nogil:
    """Whether p's accumulators (as make/unmake kept them) equal a refresh."""
    cdef Accumulator fresh
    cdef const Accumulator* kept = current(p)
    cdef int persp, i
    refresh(p, &fresh)
    for persp in range(2):
        if kept.psqt[persp] != fresh.psqt[persp] or kept.view[persp] != fresh.view[persp]:
            return 0
        for i in range(hidden):
            if kept.values[persp][i] != fresh.values[persp][i]:
                return 0
    return 1


# -- Python ------------------------------------------------------------------

cdef void release() noexcept:
    global ft_bias, ft_weights, psqt_weights, out_weights, layer_weights, layer_bias, layer_out
    free(ft_bias)
    free(ft_weights)
    free(psqt_weights)
    free(out_weights)
    free(layer_weights)
    free(layer_bias)
    free(layer_out)
    ft_bias = ft_weights = out_weights = layer_weights = layer_out = NULL
    psqt_weights = layer_bias = NULL


cdef void* copy_of(bytes data) except NULL:
    cdef void* out = malloc(len(data) if len(data) else 1)
    if out is NULL:
        raise MemoryError()
    memcpy(out, <const char*> data, len(data))
    return out


def install(net, name=""):
    """Put a checked network (engine.network.Network) in force. Every
    position's accumulators become stale; the engine refreshes them."""
    global nn_active, generation, hidden, qa, qb, scale, out_bias, _description, buckets
    global ft_bias, ft_weights, psqt_weights, out_weights, layer, qh
    global layer_weights, layer_bias, layer_out
    if not 0 < net.hidden <= NN_MAX_HIDDEN or net.features != N_FEATURES \
            or net.buckets not in (1, 6) or not 0 <= net.layer <= MAX_LAYER:
        raise ValueError(f"network of {net.features} x {net.hidden} ({net.buckets} buckets, "
                         f"layer {net.layer}): this build evaluates {N_FEATURES} features, "
                         f"1 or 6 buckets, at most {NN_MAX_HIDDEN} hidden values and a "
                         f"hidden layer of at most {MAX_LAYER}")
    nn_active = 0
    release()
    ft_bias = <int16_t*> copy_of(net.ft_bias)
    ft_weights = <int16_t*> copy_of(net.ft_weights)
    psqt_weights = <int32_t*> copy_of(net.psqt_weights)
    out_weights = <int16_t*> copy_of(net.out_weights)
    layer_weights = <int16_t*> copy_of(net.layer_weights)
    layer_bias = <int32_t*> copy_of(net.layer_bias)
    layer_out = <int16_t*> copy_of(net.layer_out)
    hidden, qa, qb, scale, out_bias = net.hidden, net.qa, net.qb, net.scale, net.out_bias
    layer, qh = net.layer, net.qh
    buckets = net.buckets
    generation += 1
    nn_active = 1
    _description = (name, net.description)


def simd_paths():
    """The loops' paths this processor runs: "portable" always, "avx2" and
    "avx512" where it has them."""
    return [name for number, name in enumerate(SIMD_PATHS) if tuong_simd_available(number)]


def simd():
    """The path in use."""
    return tuong_loops.name.decode()


def use_simd(name):
    """Use a path of simd_paths() (tests and benchmarks compare them);
    ValueError for one this processor does not run."""
    if name not in SIMD_PATHS or tuong_simd_select(SIMD_PATHS.index(name)) != 0:
        raise ValueError(f"this processor runs {', '.join(simd_paths())}, not {name!r}")


def disable():
    """Back to the hand-crafted evaluation."""
    global nn_active, _description
    nn_active = 0
    _description = None


def active():
    """(file name, description) of the network in force, or None."""
    return _description if nn_active else None


def features_of(position_squares, bucketed=False):
    """The active features of a position for both perspectives, as the
    trainer computes them: position_squares is [(kind 0..13, file, rank)];
    returns (red's, black's) lists. `bucketed`: the transformer's features
    of a 6-bucket network (block and mirror by the perspective's general)."""
    out = ([], [])
    kings = {kind: (f, r) for kind, f, r in position_squares if kind % 7 == 0}
    for persp in range(2):
        block, mirror = 0, False
        if bucketed:
            f, r = kings[persp * 7]
            rr = r if persp == RED else 9 - r
            block, mirror = rr * 2 + (f == 4), f == 5
        for kind, f, r in position_squares:
            rr = r if persp == RED else 9 - r
            ff = 8 - f if mirror else f
            out[persp].append(block * N_FEATURES +
                              ((kind // 7 != persp) * 7 + kind % 7) * 90 + rr * 9 + ff)
    return out
