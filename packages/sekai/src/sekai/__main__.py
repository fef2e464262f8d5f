"""``python -m sekai``: the same as the ``sekai`` command."""

import sys

from sekai.cli import main

sys.exit(main())
