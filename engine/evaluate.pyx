# Static evaluation, from the side to move:
#   material and piece-square values, kept up to date by make/unmake in
#   position.pyx, plus terms computed here from the board at each call:
#   - mobility of rooks, horses and cannons (a horse with a blocked leg or
#     nowhere to go is half a horse);
#   - cannons worth more than horses on a full board, less on an empty one;
#   - king safety: the enemy rooks, horses, cannons and pawns that strike
#     into the palace, weighed more heavily when advisors and elephants are
#     missing, and the "hollow cannon" (an enemy cannon facing the king on
#     an open file, the start of many mating attacks).
# Every term is computed the same way for both sides and mirrored, so the
# score of a colour-flipped position is exactly the negation.
#
# Every weight comes from a weights file (engine/weights.py says what each
# one is and reads the file); install() puts one into the tables, and
# load_weights() reads and installs one. Importing this module loads
# nothing: the engine session loads the default file when it starts, and
# the first board made from a FEN (engine/board.pyx) loads it if nobody has
# installed weights yet (ensure_loaded()), so tools and tests need not.
# The code only counts. The counting is shared by evaluate() and trace(),
# which returns the evaluation as a linear combination of the tunable
# weights for the tuner (tools/training/tune.py), so the two cannot disagree.

import json

from tuong.engine.position cimport (
    Position, RED, BLACK, RED_TAG, BLACK_TAG, EMPTY, OFF, KIND_OF, KING, HORSE, ROOK, CANNON,
    PAWN, PIECE_SQUARE, side_tag, rank_of, file_of, square_at, ORTH, HORSE_LEG, HORSE_JUMP,
)
from tuong.engine.position cimport IN_PALACE, IN_HALF
from tuong.engine.game cimport bounded_eval
# The file format and the feature layout: plain Python that imports nothing
# of the core (so no circle), and reads no file when imported.
from tuong.engine import weights as _weights


# The weights, in centipawns (see engine/weights.py); set by install(),
# zero until then.
cdef bint installed = False
_installed = None                   # the weights in force (a dict), None before any
cdef int TEMPO
cdef int ROOK_MOBILITY              # per square a rook can reach
cdef int CANNON_MOBILITY            # per empty square a cannon can move to
cdef int HORSE_MOBILITY[9]          # by the number of squares a horse can reach
cdef int CANNON_OVER_HORSE
cdef int HOLLOW_CANNON              # an enemy cannon on the king's open file
cdef int ATTACK_WEIGHT[7]           # K A B N R C P: units per piece striking the palace
cdef int ATTACK_PENALTY[16]         # by units
cdef int MISSING_ADVISOR            # quarters added to the attack's multiplier
cdef int MISSING_ELEPHANT

cdef enum:
    MAX_UNITS = 15                  # the attack's units are capped here
    QUARTERS = 4                    # the attack multiplier's unit: 4 quarters = x1
    LONE_ATTACKER = 2               # one attacker alone counts 1/2
    OFFICERS_EVEN = 6               # cannons and horses are even with this many
                                    # rooks, horses and cannons on the board

# Where each weight's coefficient goes in trace()'s feature vector: the
# order of engine.weights.FEATURES.
cdef int N_FEATURES = len(_weights.FEATURES)
cdef int F_MATERIAL = _weights.OFFSETS["material"]          # A B N R C P
cdef int F_PIECE_SQUARE = _weights.OFFSETS["piece_square"]  # [type][9 - rank][file a-e]
cdef int F_ROOK_MOBILITY = _weights.OFFSETS["rook_mobility"]
cdef int F_CANNON_MOBILITY = _weights.OFFSETS["cannon_mobility"]
cdef int F_HORSE_MOBILITY = _weights.OFFSETS["horse_mobility"]
cdef int F_CANNON_OVER_HORSE = _weights.OFFSETS["cannon_over_horse"]
cdef int F_ATTACK_PENALTY = _weights.OFFSETS["attack_penalty"]
cdef int F_HOLLOW_CANNON = _weights.OFFSETS["hollow_cannon"]
cdef int F_TEMPO = _weights.OFFSETS["tempo"]

cdef unsigned char PALACE[2][256]    # PALACE[side][sq]: sq is in side's palace
cdef unsigned char PALACE_RAYS[2][256]   # bit i: the ray ORTH[i] from sq crosses it


cdef void init_tables():
    cdef int sq, side, i, t
    for side in range(2):
        for sq in range(256):
            PALACE[side][sq] = IN_PALACE[sq] and IN_HALF[side][sq]
    for side in range(2):
        for sq in range(256):
            PALACE_RAYS[side][sq] = 0
            if 0 <= file_of(sq) <= 8 and 0 <= rank_of(sq) <= 9:
                for i in range(4):
                    t = sq + ORTH[i]
                    while 0 <= file_of(t) <= 8 and 0 <= rank_of(t) <= 9:
                        if PALACE[side][t]:
                            PALACE_RAYS[side][sq] |= 1 << i
                        t += ORTH[i]


init_tables()


def load_weights(path=None):
    """Read a weights file (the shipped engine/weights.json if path is
    None) and put it into the evaluation's tables; return its weights.
    WeightsError (a ValueError) naming the problem if the file is missing
    or bad: then nothing changes. Boards that exist keep their old
    incremental score until Board._rescore() (the engine process does that
    for its board); new ones use the new weights."""
    data = _weights.read(_weights.DEFAULT_PATH if path is None else path)
    install(data)
    return data


def current_weights():
    """The weights in force (a copy), or None if none have been loaded."""
    return None if _installed is None else json.loads(json.dumps(_installed))


cdef int ensure_loaded() except -1:
    """Load the default weights file unless weights are installed."""
    if not installed:
        load_weights()
    return 0


def ensure_weights():
    """Load the default weights file unless weights are installed."""
    ensure_loaded()


def install(dict data):
    """Put validated weights (engine.weights.validate) into the C tables.
    Use load_weights(path), which reads and validates first."""
    global TEMPO, ROOK_MOBILITY, CANNON_MOBILITY, CANNON_OVER_HORSE, HOLLOW_CANNON
    global MISSING_ADVISOR, MISSING_ELEPHANT, installed, _installed
    cdef int kind, f, r, value
    material = [0] + [data["material"][letter] for letter in _weights.MATERIAL_PIECES]
    for kind in range(7):
        table = data["piece_square"][_weights.PIECES[kind]]
        for f in range(9):
            for r in range(10):
                value = material[kind] + table[9 - r][f if f <= 4 else 8 - f]
                PIECE_SQUARE[kind][square_at(f, r)] = value
                # Black's table is Red's turned upside down, negated.
                PIECE_SQUARE[kind + 7][square_at(f, 9 - r)] = -value
    TEMPO = data["tempo"]
    ROOK_MOBILITY = data["rook_mobility"]
    CANNON_MOBILITY = data["cannon_mobility"]
    CANNON_OVER_HORSE = data["cannon_over_horse"]
    HOLLOW_CANNON = data["hollow_cannon"]
    MISSING_ADVISOR = data["missing_advisor"]
    MISSING_ELEPHANT = data["missing_elephant"]
    for f in range(9):
        HORSE_MOBILITY[f] = data["horse_mobility"][f]
    for f in range(16):
        ATTACK_PENALTY[f] = data["attack_penalty"][f]
    for kind in range(7):
        letter = _weights.PIECES[kind]
        ATTACK_WEIGHT[kind] = data["attack_weight"].get(letter, 0)
    installed = True
    _installed = json.loads(json.dumps(data))


cdef struct SideCounts:
    # What one side's terms count; the weights turn them into centipawns.
    int rook_squares          # squares its rooks can reach
    int cannon_squares        # empty squares its cannons can move to
    int horse_reach[2]        # per horse slot, squares it can reach (-1: none)
    int units                 # the attack on the enemy palace, before the cap
    int attackers             # pieces striking into it
    int missing_advisors      # the enemy's
    int missing_elephants


cdef void side_counts(const Position* p, int side, SideCounts* c) noexcept nogil:
    """Mobility of `side`'s rooks, horses and cannons, and its attack on
    the enemy palace."""
    cdef const unsigned char* b = p.board
    cdef int tag = side_tag(side), enemy = side ^ 1
    cdef int theirs = side_tag(enemy)
    cdef int piece, sq, i, d, t, count, hits, forward
    cdef const unsigned char* palace = PALACE[enemy]
    c.rook_squares = 0
    c.cannon_squares = 0
    c.units = 0
    c.attackers = 0
    # Rooks: every square up to and including the first piece in each line.
    for piece in range(tag + 7, tag + 9):
        sq = p.square[piece]
        if sq == 0:
            continue
        hits = 0
        for i in range(4):
            d = ORTH[i]
            t = sq + d
            while b[t] == EMPTY:
                c.rook_squares += 1
                hits |= palace[t]
                t += d
            if b[t] != OFF:
                hits |= palace[t]
                if b[t] & theirs:
                    c.rook_squares += 1
        if hits:
            c.units += ATTACK_WEIGHT[ROOK]
            c.attackers += 1
    # Horses: each of eight jumps whose leg is free and whose landing square
    # is not taken by one of our own pieces.
    for piece in range(tag + 5, tag + 7):
        sq = p.square[piece]
        c.horse_reach[piece - tag - 5] = -1
        if sq == 0:
            continue
        count = 0
        hits = 0
        for i in range(8):
            t = sq + HORSE_JUMP[i]
            if b[sq + HORSE_LEG[i]] == EMPTY and not (b[t] & (tag | OFF)):
                count += 1
                hits |= palace[t]
        c.horse_reach[piece - tag - 5] = count
        if hits:
            c.units += ATTACK_WEIGHT[HORSE]
            c.attackers += 1
    # Cannons: the squares past exactly one screen, up to the next piece.
    for piece in range(tag + 9, tag + 11):
        sq = p.square[piece]
        if sq == 0:
            continue
        hits = 0
        for i in range(4):
            d = ORTH[i]
            t = sq + d
            while b[t] == EMPTY:
                c.cannon_squares += 1
                t += d
            # Past the screen only matters for the attack on the palace.
            if b[t] == OFF or not (PALACE_RAYS[enemy][sq] >> i) & 1:
                continue
            t += d
            while b[t] == EMPTY:
                hits |= palace[t]
                t += d
            if b[t] != OFF:
                hits |= palace[t]
        if hits:
            c.units += ATTACK_WEIGHT[CANNON]
            c.attackers += 1
    # Pawns across the river strike forward and sideways.
    forward = 16 if side == RED else -16
    for piece in range(tag + 11, tag + 16):
        sq = p.square[piece]
        if sq and (palace[sq + forward] or palace[sq + 1] or palace[sq - 1]):
            c.units += ATTACK_WEIGHT[PAWN]
            c.attackers += 1
    c.missing_advisors = 2 - (p.square[theirs + 1] != 0) - (p.square[theirs + 2] != 0)
    c.missing_elephants = 2 - (p.square[theirs + 3] != 0) - (p.square[theirs + 4] != 0)


cdef inline int attack_multiplier(const SideCounts* c) noexcept nogil:
    """The attack's multiplier in quarters: a missing advisor adds half to
    what the attack is worth, a missing elephant a quarter (by default)."""
    return QUARTERS + MISSING_ADVISOR * c.missing_advisors + MISSING_ELEPHANT * c.missing_elephants


cdef inline int attack_divisor(const SideCounts* c) noexcept nogil:
    return QUARTERS if c.attackers > 1 else QUARTERS * LONE_ATTACKER


cdef inline int attack_units(const SideCounts* c) noexcept nogil:
    return MAX_UNITS if c.units > MAX_UNITS else c.units


cdef int side_score(const SideCounts* c) noexcept nogil:
    """`side`'s mobility and attack on the enemy king, in centipawns."""
    cdef int score = ROOK_MOBILITY * c.rook_squares + CANNON_MOBILITY * c.cannon_squares
    cdef int i
    for i in range(2):
        if c.horse_reach[i] >= 0:
            score += HORSE_MOBILITY[c.horse_reach[i]]
    if c.units:
        score += ATTACK_PENALTY[attack_units(c)] * attack_multiplier(c) // attack_divisor(c)
    return score


cdef int hollow_cannon(const Position* p, int side) noexcept nogil:
    """1 if an enemy cannon faces side's king along the king's file with
    nothing between them, else 0."""
    cdef const unsigned char* b = p.board
    cdef int king = p.square[side_tag(side)]
    cdef int d = 16 if side == RED else -16
    cdef int t = king + d
    while b[t] == EMPTY:
        t += d
    return b[t] != OFF and KIND_OF[b[t]] == CANNON + 7 * (side ^ 1)


cdef int cannons_over_horses(const Position* p) noexcept nogil:
    """Red's cannon-versus-horse count for how full the board is: (officers
    beyond OFFICERS_EVEN) x (Red's cannons minus horses, less Black's)."""
    cdef int piece, officers = 0, balance = 0
    for piece in range(5, 11):
        officers += (p.square[RED_TAG + piece] != 0) + (p.square[BLACK_TAG + piece] != 0)
    balance = (p.square[RED_TAG + 9] != 0) + (p.square[RED_TAG + 10] != 0) \
        - (p.square[RED_TAG + 5] != 0) - (p.square[RED_TAG + 6] != 0) \
        - (p.square[BLACK_TAG + 9] != 0) - (p.square[BLACK_TAG + 10] != 0) \
        + (p.square[BLACK_TAG + 5] != 0) + (p.square[BLACK_TAG + 6] != 0)
    return (officers - OFFICERS_EVEN) * balance


cdef int evaluate(const Position* p) noexcept nogil:
    cdef SideCounts red, black
    side_counts(p, RED, &red)
    side_counts(p, BLACK, &black)
    cdef int score = p.score + side_score(&red) - side_score(&black) \
        + HOLLOW_CANNON * (hollow_cannon(p, BLACK) - hollow_cannon(p, RED)) \
        + CANNON_OVER_HORSE * cannons_over_horses(p)
    return bounded_eval((score if p.side == RED else -score) + TEMPO)


cdef int quick_evaluate(const Position* p) noexcept nogil:
    """Material and piece-square values alone: the incremental part."""
    return bounded_eval((p.score if p.side == RED else -p.score) + TEMPO)


cdef double trace(const Position* p, double* features) noexcept nogil:
    """Add to features[0..N_FEATURES) the coefficient of each tunable weight
    in evaluate(p) from Red's side, and return what the integer division of
    the palace attack leaves over: evaluate(p), from Red's side, is exactly
    sum(weight[i] * features[i]) + the returned value (which is within
    -1..1: each side's attack penalty is rounded down)."""
    cdef int piece, sq, kind, sign, rank, f, i, units
    cdef double residual = 0, share
    cdef SideCounts c
    for piece in range(16, 48):
        sq = p.square[piece]
        if sq == 0:
            continue
        kind = KIND_OF[piece] % 7
        sign = 1 if piece < BLACK_TAG else -1
        rank = rank_of(sq) if sign > 0 else 9 - rank_of(sq)     # as Red sees his own
        f = file_of(sq)
        if kind != KING:
            features[F_MATERIAL + kind - 1] += sign
        features[F_PIECE_SQUARE + kind * 50 + (9 - rank) * 5 + (f if f <= 4 else 8 - f)] += sign
    for i in range(2):
        sign = 1 if i == RED else -1
        side_counts(p, i, &c)
        features[F_ROOK_MOBILITY] += sign * c.rook_squares
        features[F_CANNON_MOBILITY] += sign * c.cannon_squares
        for f in range(2):
            if c.horse_reach[f] >= 0:
                features[F_HORSE_MOBILITY + c.horse_reach[f]] += sign
        if c.units:
            units = attack_units(&c)
            share = <double> attack_multiplier(&c) / attack_divisor(&c)
            features[F_ATTACK_PENALTY + units] += sign * share
            residual += sign * (ATTACK_PENALTY[units] * attack_multiplier(&c) // attack_divisor(&c)
                                - ATTACK_PENALTY[units] * share)
        features[F_HOLLOW_CANNON] -= sign * hollow_cannon(p, i)
    features[F_CANNON_OVER_HORSE] += cannons_over_horses(p)
    features[F_TEMPO] += 1 if p.side == RED else -1
    return residual


cdef int trace_into(const Position* p, int* indices, double* values, double* residual) noexcept nogil:
    """trace(p) as a sparse row: the nonzero features' indices (ascending)
    and coefficients, at most MAX_TRACE_FEATURES; returns how many."""
    cdef double dense[1024]
    cdef int i, n = 0
    for i in range(N_FEATURES):
        dense[i] = 0
    residual[0] = trace(p, dense)
    for i in range(N_FEATURES):
        if dense[i] != 0:
            indices[n] = i
            values[n] = dense[i]
            n += 1
    return n


assert len(_weights.FEATURES) <= 1024, "trace_into's buffer must hold every feature"
