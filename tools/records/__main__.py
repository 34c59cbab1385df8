"""`python -m tuong.tools.records`: tuong-pgn."""
import sys

from tuong.tools.records import main

sys.exit(main())
