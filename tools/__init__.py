"""Command-line tools of tuong: perft, bench, match."""
