"""Kept so that ``import sekai.sekai`` keeps working for code written for sekai 0.2.

sekai 0.2 shipped this module with no public names; everything it served is
available from the top-level ``sekai`` package.
"""

__all__: list[str] = []
