"""The ``sekai`` command-line interface, under sekai 0.2's module path.

Thin re-export of `sekai._cli`, which implements the command:
``build_parser()`` builds its argument parser and ``main(argv=None)`` runs it
and returns the exit status (``python -m sekai`` and the ``sekai`` script
call it).
"""

from sekai._cli import build_parser, main

__all__ = ["build_parser", "main"]
