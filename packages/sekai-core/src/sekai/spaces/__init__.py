"""Observation and action spaces, and the utilities that operate on them.

A space describes the set of valid observations or actions of an environment:
it samples random elements, checks membership (``x in space``), has a zero
point, and describes itself as JSON. Every space follows sekai's seeding
contract (``space.seed(int | Generator | None)``) and pickles.

Fundamental spaces: `Box` (real or integer arrays in bounds),
`Discrete`, `MultiDiscrete` and `MultiBinary`. Composite
spaces: `Dict`, `Tuple`, `Sequence` (variable length) and
`MaskedBox` (a fixed number of slots, each empty or holding a Box
element, e.g. the orders of a book).

Utilities, which dispatch on the type of the space and accept new types
through `register_space_type`: flattening (`flatdim`,
`flatten`, `unflatten`, `flatten_space`), batching for
vector environments (`batch_space`, `concatenate`,
`iterate`), `zero_sample` and `space_from_jsonable`.
``sekai.spaces.utils``, sekai 0.2's module of these functions, is a thin
re-export of this package.
"""

from sekai import _aliases
from sekai.spaces.batching import batch_space, concatenate, iterate
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.flattening import flatdim, flatten, flatten_space, unflatten
from sekai.spaces.jsonable import space_from_jsonable
from sekai.spaces.masked_box import MaskedBox
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.registration import register_space_type
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.spaces.zero import zero_sample

__all__ = [  # noqa: RUF022 (grouped by topic)
    # base class
    "Space",
    # fundamental spaces
    "Box",
    "Discrete",
    "MultiBinary",
    "MultiDiscrete",
    # composite spaces
    "Dict",
    "MaskedBox",
    "Sequence",
    "Tuple",
    # flattening
    "flatdim",
    "flatten",
    "flatten_space",
    "unflatten",
    # batching
    "batch_space",
    "concatenate",
    "iterate",
    # zero point, JSON and extension
    "register_space_type",
    "space_from_jsonable",
    "zero_sample",
]

_aliases.install(__name__, _aliases.CORE_ALIASES)
