"""Text helpers and the output writer shared by the session, the dialects
and the options.

This module imports nothing of `protocol/`, so every other module of the
package can import from it without an import cycle (the dialects once
imported these helpers back from `session.py`, which imports them).
"""
import sys
import threading

ECHO_LIMIT = 60         # how much of a bad input is quoted back
MESSAGE_LIMIT = 300     # and how long an error line may get (FEN errors quote too)


def quote(text):
    """A bad input as it is echoed in an error: short, one line, ASCII
    (garbage bytes show as \\ufffd, not as bytes a GUI may choke on)."""
    text = text if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT] + "..."
    return ascii(text)


def clip(message):
    """An error message cut to MESSAGE_LIMIT characters."""
    return message if len(message) <= MESSAGE_LIMIT else message[:MESSAGE_LIMIT] + "..."


class Output:
    """Writes whole lines to a stream, flushed at once, from any thread."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.lock = threading.Lock()

    def __call__(self, line):
        with self.lock:
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (BrokenPipeError, ValueError):
                pass    # the GUI went away; the read loop will see EOF
