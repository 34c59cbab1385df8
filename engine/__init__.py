"""tuong's engine package: the Cython core (board, move generation, evaluation,
transposition table, search). `engine` is this project's own package name."""
