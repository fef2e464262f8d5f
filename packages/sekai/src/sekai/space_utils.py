"""Thin re-export of the space utilities of `sekai.spaces` under sekai 0.2's path.

sekai 0.2 also offered its space utilities as ``sekai.space_utils``
(``sekai.space_utils.flatdim(space)``); this module keeps that path working.
The functions are the very objects of `sekai.spaces`; new code imports them
from there.
"""

from sekai.spaces import (
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    register_space_type,
    space_from_jsonable,
    unflatten,
    zero_sample,
)

__all__ = [
    "batch_space",
    "concatenate",
    "flatdim",
    "flatten",
    "flatten_space",
    "iterate",
    "register_space_type",
    "space_from_jsonable",
    "unflatten",
    "zero_sample",
]
