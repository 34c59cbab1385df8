"""`python -m tuong.tools.egtb`: tuong-egtb."""
import sys

from tuong.tools.egtb import main

sys.exit(main())
