"""What a user or developer runs, a package a job:

- tools.match: engine matches (tuong-match, tuong-sprt, tuong-openings,
  tuong-cluster-bench) and the referee that judges their games;
- tools.records: game records, notations, commentary and annotation
  (tuong-pgn, tuong-annotate);
- tools.training: self-play data, the network's trainer and the weights'
  tuner (tuong-datagen, tuong-positions, tuong-train, tuong-tune);
- tools.web: the browser program (tuong-web);
- tools.egtb and tools.book: the endgame tables and the opening book
  (tuong-egtb, tuong-book);
- perft, bench and compare: the developer's measurements (tuong-perft,
  tuong-bench, tuong-compare); cli: what every command line shares.
"""
import argparse

from tuong.tools.cli import ArgumentParser


def doc_parser(prog, doc):
    """An argument parser whose help is a tool's module docstring: the text
    after 'prog: ' in its first paragraph as the description, the
    paragraphs after the usage as the epilog."""
    return ArgumentParser(prog=prog, allow_abbrev=False,
                          description=doc.split("\n\n")[0].split(": ", 1)[1],
                          formatter_class=argparse.RawDescriptionHelpFormatter,
                          epilog=doc.split("\n\n", 2)[2])
