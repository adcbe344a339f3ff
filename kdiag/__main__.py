"""``python -m kdiag``: the same entry point as the ``kdiag`` console script."""

import sys

from kdiag.cli import main

if __name__ == "__main__":
    sys.exit(main())
