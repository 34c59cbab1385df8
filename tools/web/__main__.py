"""`python -m tuong.tools.web`: tuong-web."""
import sys

from tuong.tools.web import main

sys.exit(main())
