"""The ``sekai`` command-line interface."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import metadata

__all__ = ["build_parser", "main"]


def _version() -> str:
    try:
        return metadata.version("sekai")
    except metadata.PackageNotFoundError:  # running from a source tree
        from sekai import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``sekai`` command."""
    parser = argparse.ArgumentParser(
        prog="sekai",
        description=(
            "sekai: reinforcement-learning environments for large simulators and financial markets."
        ),
    )
    parser.add_argument("--version", action="version", version=f"sekai {_version()}")
    parser.add_subparsers(dest="command", title="commands", metavar="<command>")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``sekai`` command and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # Each subcommand's parser sets ``handler`` (a function of the parsed args).
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    return int(handler(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
