# What every game shares above its GameOps: the Python board (legal moves,
# push/pop, perft, game over) and a perft that works for any game.

from libc.stdlib cimport malloc, free
from libc.string cimport memset

cdef extern from *:
    """
    static inline int load_flag(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    """
    int load_flag(const int* p) nogil


# For Python: scores at or beyond MATE_SCORE_BOUND are mates, MATE_SCORE - n
# being a mate in n plies.
MATE_SCORE = MATE
MATE_SCORE_BOUND = MATE_BOUND


cdef int generate_moves(const GameOps* ops, void* state, Move* out, int tactical) noexcept nogil:
    """All legal moves (or the tactical ones) of the side to move."""
    cdef int checked = ops.in_check(state) if ops.in_check is not NULL else 0
    return ops.generate(state, out, MAX_MOVES, tactical, checked)


cdef uint64_t game_perft(const GameOps* ops, void* state, int depth, const int* stop) noexcept nogil:
    """Leaf count of the legal move tree to `depth`; the last ply is counted,
    not made. Returns early (a partial count) once *stop is set."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t total = 0
    if depth == 0:
        return 1
    n = generate_moves(ops, state, moves, 0)
    if depth == 1:
        return n
    for i in range(n):
        if stop is not NULL and load_flag(stop):
            break
        ops.make(state, moves[i],
                 ops.may_give_check(state, moves[i]) if ops.may_give_check is not NULL else 1)
        total += game_perft(ops, state, depth - 1, stop)
        ops.unmake(state)
    return total


cdef class GameBoard:
    """A position of some game with the moves played on it. Subclasses give
    the game: its GameOps (attach, in __cinit__), FEN, display and turn."""

    def __dealloc__(self):
        free(self.state)

    cdef void attach(self, const GameOps* ops) except *:
        self.ops = ops
        self.state = malloc(ops.state_size)
        if self.state is NULL:
            raise MemoryError()
        memset(self.state, 0, ops.state_size)
        self.moves = []

    cdef Move code_of(self, object text) except? NO_MOVE:
        """The legal move `text`; ValueError if malformed or illegal."""
        cdef Move move = NO_MOVE
        cdef int verdict = 0
        cdef bytes raw
        if isinstance(text, str) and 0 < len(text) < MOVE_TEXT_SIZE and text.isascii():
            raw = text.encode("ascii")
            verdict = self.ops.parse_move(self.state, raw, &move)
        if verdict == 0:
            raise ValueError(f"malformed move {text!r}: expected e.g. {self.example_move!r}")
        if verdict == 1:
            raise ValueError(f"illegal move {text!r} in {self.fen()}")
        return move

    cdef str text_of(self, Move move):
        cdef char buf[MOVE_TEXT_SIZE]
        cdef int n = self.ops.move_text(self.state, move, buf)
        return buf[:n].decode("ascii")

    @property
    def game(self):
        """The game's name, as UCI_Variant spells it."""
        return self.ops.name.decode("ascii")

    # -- moves ---------------------------------------------------------------
    def legal_moves(self):
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(self.ops, self.state, moves, 0)
        return [self.text_of(moves[i]) for i in range(n)]

    def push(self, move):
        """Play a move given as text; ValueError (board unchanged) if it is
        malformed or illegal."""
        cdef Move m = self.code_of(move)
        self._check_room()
        self.ops.make(self.state, m, 1)
        self.moves.append(move)

    def _check_room(self):
        """Raise ValueError if the state cannot take another move (a game
        with a bounded history overrides this)."""

    def pop(self):
        """Take back the last move and return it; IndexError (with a
        message) on a board with no moves played."""
        if not self.moves:
            raise IndexError("pop from a board with no moves played")
        self.ops.unmake(self.state)
        return self.moves.pop()

    def is_legal(self, move):
        try:
            self.code_of(move)
            return True
        except ValueError:
            return False

    @property
    def move_stack(self):
        return list(self.moves)

    @property
    def ply(self):
        return len(self.moves)

    # -- queries -------------------------------------------------------------
    def in_check(self):
        """Whether the side to move is in check (always False in a game without check)."""
        return self.ops.in_check is not NULL and bool(self.ops.in_check(self.state))

    def is_check(self):
        """Whether the side to move is in check: in_check() under the name
        python-chess gives it."""
        return self.in_check()

    def is_game_over(self):
        """The side to move has no legal move: the game is over."""
        cdef Move moves[MAX_MOVES]
        return generate_moves(self.ops, self.state, moves, 0) == 0

    def mover_outcome(self):
        """None while the game goes on (the side to move has a legal move);
        at its end +1, 0 or -1: the side to move has won, drawn or lost.
        The same for every game (Xiangqi's Board.outcome() says more: the
        result, how the game ended and why, the repetition rules included)."""
        if not self.is_game_over():
            return None
        cdef int score = self.ops.no_move_score(self.state, 0)
        return (score > 0) - (score < 0)

    def rule_outcome(self):
        """None, or +1, 0 or -1 for the side to move when the game's own rule
        ends it here although moves remain (Dodgem: a position that recurs,
        with the same side to move, draws), as the search judges it."""
        cdef int score = 0, back = 0
        if self.ops.rule_result is NULL or not self.ops.rule_result(self.state, 0, &score, &back):
            return None
        return (score > 0) - (score < 0)

    @property
    def hash(self):
        return self.ops.key(self.state)

    def perft(self, int depth):
        cdef uint64_t n
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        with nogil:
            n = game_perft(self.ops, self.state, depth, NULL)
        return n

    def divide(self, int depth):
        """[(move, perft(depth - 1) after it)] for every legal move."""
        if depth < 1:
            raise ValueError("divide depth must be >= 1")
        out = []
        for move in self.legal_moves():
            self.push(move)
            out.append((move, self.perft(depth - 1)))
            self.pop()
        return out

    def copy(self):
        cdef GameBoard other = type(self).__new__(type(self))
        self.ops.copy_state(other.state, self.state)
        other.moves = list(self.moves)
        return other

    def __eq__(self, other):
        return type(other) is type(self) and self.fen() == other.fen()

    def __hash__(self):
        return hash(self.hash)

    def __repr__(self):
        return f"{type(self).__name__}({self.fen()!r})"
