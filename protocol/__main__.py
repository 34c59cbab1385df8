"""`tuong` / `python -m tuong.protocol`: the engine process on stdin/stdout.
The first command chooses the dialect: uci, ucci or xboard."""
import sys

from tuong.protocol.session import Session


def main():
    # Never let an odd character in an echoed input stop a line going out.
    sys.stdout.reconfigure(errors="backslashreplace")
    Session().run(sys.stdin.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
