"""Command-line tools of tuong: perft, bench, match, sprt; and tuning's
openings, datagen, positions, tune."""
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
