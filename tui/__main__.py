"""`python -m tui` is `posenc`."""

import sys

from tui.cli import main

if __name__ == "__main__":
    sys.exit(main())
