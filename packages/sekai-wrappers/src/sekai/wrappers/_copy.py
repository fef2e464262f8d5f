"""Copies of actions and observations that a wrapper keeps for a later step.

The copier is chosen from the space by the one space walker of
`sekai.spaces` (see `sekai.spaces._layout.copier_for`), shared with
the vector envs.
"""

from __future__ import annotations

from sekai.spaces._layout import copier_for

__all__ = ["copier_for"]
