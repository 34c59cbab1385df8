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

from engine.position cimport (
    Position, RED, BLACK, RED_TAG, BLACK_TAG, EMPTY, OFF, KIND_OF, ADVISOR, ELEPHANT, HORSE, ROOK,
    CANNON, PAWN, side_tag, rank_of, file_of, ORTH, HORSE_LEG, HORSE_JUMP,
)

# The side to move is typically a little better off than a static count says.
cdef int TEMPO = 10

cdef int ROOK_MOBILITY = 3          # per square a rook can reach
cdef int CANNON_MOBILITY = 1        # per empty square a cannon can move to
# Cannons need screens and lose force as the board empties; horses need
# room and gain. Per cannon (and, negated, per horse), for each rook, horse
# and cannon on the board beyond six.
cdef int CANNON_OVER_HORSE = 3
cdef int HORSE_MOBILITY[9]           # by the number of squares a horse can reach
HORSE_MOBILITY[:] = [-60, -30, -12, 0, 8, 14, 18, 21, 24]
cdef int HOLLOW_CANNON = 90          # an enemy cannon on the king's open file

# Palace attack: weight of each piece that strikes a square of the enemy
# palace, and the penalty for the sum (one attacker alone counts half).
cdef int ATTACK_WEIGHT[7]            # K A B N R C P
ATTACK_WEIGHT[:] = [0, 0, 0, 3, 4, 3, 1]
cdef int ATTACK_PENALTY[16]
ATTACK_PENALTY[:] = [0, 2, 8, 18, 32, 50, 72, 98, 128, 162, 200, 242, 288, 300, 300, 300]

cdef unsigned char PALACE[2][256]    # PALACE[side][sq]: sq is in side's palace
cdef unsigned char PALACE_RAYS[2][256]   # bit i: the ray ORTH[i] from sq crosses it


cdef void init_tables():
    cdef int sq, f, r, side, i, t
    for sq in range(256):
        f = file_of(sq)
        r = rank_of(sq)
        PALACE[RED][sq] = 3 <= f <= 5 and 0 <= r <= 2
        PALACE[BLACK][sq] = 3 <= f <= 5 and 7 <= r <= 9
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


cdef int side_terms(const Position* p, int side) noexcept nogil:
    """Mobility and attack on the enemy king for `side`, minus what its own
    king suffers from the hollow cannon. Positive is good for `side`."""
    cdef const unsigned char* b = p.board
    cdef int tag = side_tag(side), enemy = side ^ 1
    cdef int theirs = side_tag(enemy)
    cdef int score = 0, units = 0, attackers = 0
    cdef int piece, sq, i, d, t, count, hits, forward
    cdef const unsigned char* palace = PALACE[enemy]
    # Rooks: every square up to and including the first piece in each line.
    for piece in range(tag + 7, tag + 9):
        sq = p.square[piece]
        if sq == 0:
            continue
        count = 0
        hits = 0
        for i in range(4):
            d = ORTH[i]
            t = sq + d
            while b[t] == EMPTY:
                count += 1
                hits |= palace[t]
                t += d
            if b[t] != OFF:
                hits |= palace[t]
                if b[t] & theirs:
                    count += 1
        score += ROOK_MOBILITY * count
        if hits:
            units += ATTACK_WEIGHT[ROOK]
            attackers += 1
    # Horses: each of eight jumps whose leg is free and whose landing square
    # is not taken by one of our own pieces.
    for piece in range(tag + 5, tag + 7):
        sq = p.square[piece]
        if sq == 0:
            continue
        count = 0
        hits = 0
        for i in range(8):
            t = sq + HORSE_JUMP[i]
            if b[sq + HORSE_LEG[i]] == EMPTY and not (b[t] & (tag | OFF)):
                count += 1
                hits |= palace[t]
        score += HORSE_MOBILITY[count]
        if hits:
            units += ATTACK_WEIGHT[HORSE]
            attackers += 1
    # Cannons: the squares past exactly one screen, up to the next piece.
    for piece in range(tag + 9, tag + 11):
        sq = p.square[piece]
        if sq == 0:
            continue
        hits = 0
        count = 0
        for i in range(4):
            d = ORTH[i]
            t = sq + d
            while b[t] == EMPTY:
                count += 1
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
        score += CANNON_MOBILITY * count
        if hits:
            units += ATTACK_WEIGHT[CANNON]
            attackers += 1
    # Pawns across the river strike forward and sideways.
    forward = 16 if side == RED else -16
    for piece in range(tag + 11, tag + 16):
        sq = p.square[piece]
        if sq and (palace[sq + forward] or palace[sq + 1] or palace[sq - 1]):
            units += ATTACK_WEIGHT[PAWN]
            attackers += 1
    if units:
        if units > 15:
            units = 15
        # A missing advisor adds half to what the attack is worth, a
        # missing elephant a quarter.
        count = 4 + 2 * (2 - (p.square[theirs + 1] != 0) - (p.square[theirs + 2] != 0)) \
            + (2 - (p.square[theirs + 3] != 0) - (p.square[theirs + 4] != 0))
        score += ATTACK_PENALTY[units] * count // (4 if attackers > 1 else 8)
    return score


cdef int hollow_cannon(const Position* p, int side) noexcept nogil:
    """HOLLOW_CANNON if an enemy cannon faces side's king along the king's
    file with nothing between them, else 0."""
    cdef const unsigned char* b = p.board
    cdef int king = p.square[side_tag(side)]
    cdef int d = 16 if side == RED else -16
    cdef int t = king + d
    while b[t] == EMPTY:
        t += d
    if b[t] != OFF and KIND_OF[b[t]] == CANNON + 7 * (side ^ 1):
        return HOLLOW_CANNON
    return 0


cdef int cannons_over_horses(const Position* p) noexcept nogil:
    """Red's cannon-versus-horse adjustment for how full the board is."""
    cdef int piece, officers = 0, balance = 0
    for piece in range(5, 11):
        officers += (p.square[RED_TAG + piece] != 0) + (p.square[BLACK_TAG + piece] != 0)
    balance = (p.square[RED_TAG + 9] != 0) + (p.square[RED_TAG + 10] != 0) \
        - (p.square[RED_TAG + 5] != 0) - (p.square[RED_TAG + 6] != 0) \
        - (p.square[BLACK_TAG + 9] != 0) - (p.square[BLACK_TAG + 10] != 0) \
        + (p.square[BLACK_TAG + 5] != 0) + (p.square[BLACK_TAG + 6] != 0)
    return CANNON_OVER_HORSE * (officers - 6) * balance


cdef int evaluate(const Position* p) noexcept nogil:
    cdef int score = p.score + side_terms(p, RED) - side_terms(p, BLACK) \
        - hollow_cannon(p, RED) + hollow_cannon(p, BLACK) + cannons_over_horses(p)
    if p.side == RED:
        return score + TEMPO
    return -score + TEMPO


cdef int quick_evaluate(const Position* p) noexcept nogil:
    """Material and piece-square values alone: the incremental part."""
    return (p.score if p.side == RED else -p.score) + TEMPO
