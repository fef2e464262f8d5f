"""``python -m sekai``: the same as the ``sekai`` command."""

import sys

from sekai._cli import main

sys.exit(main())
